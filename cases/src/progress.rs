//! How a case shows its progress and hands its outcome to whoever started it: [`Host`], which
//! the `plume` command implements with progress bars on a terminal and its signal handling.

use crate::error::Error;

/// A progress bar a case advances; dropping it clears it.
pub trait Progress: Send {
    /// Advances by one step.
    fn inc(&self);
    /// Moves to step `pos`.
    fn set_position(&self, pos: u64);
    /// Replaces the message.
    fn set_message(&self, message: String);
    /// Runs `print` with the bar hidden (to print on stdout without tearing it).
    fn suspend(&self, print: &mut dyn FnMut());
}

/// No progress shown.
pub struct NoProgress;

impl Progress for NoProgress {
    fn inc(&self) {}
    fn set_position(&self, _: u64) {}
    fn set_message(&self, _: String) {}
    fn suspend(&self, print: &mut dyn FnMut()) {
        print()
    }
}

/// What a case's run asks of the program that started it.
pub trait Host: Sync {
    /// A progress bar of `len` steps showing `message`.
    fn bar(&self, len: u64, message: String) -> Box<dyn Progress>;

    /// Under MPI, called on every rank once its outcome is known, before rank 0 reports a
    /// failure (`mpirun` ends the other processes then: the program must not report that).
    fn settle(&self) {}

    /// Under MPI, rank 0's report of the failure every rank agreed on, before any rank exits.
    fn report_failure(&self, error: &Error);
}
