//! Progress bars on stderr, drawn only when stderr is a terminal (never in pipes, files or
//! tests), and printing on stdout without tearing the bar.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A progress bar or spinner that does nothing when stderr is not a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar of `len` steps with a message.
    pub fn bar(len: u64, message: impl Into<String>) -> Progress {
        Progress::make(|| {
            let bar = ProgressBar::new(len);
            if let Ok(style) =
                ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} {elapsed}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        })
        .with_message(message)
    }

    /// A spinner with a message, for work of unknown length.
    pub fn spinner(message: impl Into<String>) -> Progress {
        Progress::make(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
                bar.set_style(style);
            }
            bar
        })
        .with_message(message)
    }

    fn make(build: impl FnOnce() -> ProgressBar) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = build();
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress(Some(bar))
    }

    fn with_message(self, message: impl Into<String>) -> Progress {
        self.set_message(message);
        self
    }

    /// Replaces the message.
    pub fn set_message(&self, message: impl Into<String>) {
        if let Some(bar) = &self.0 {
            bar.set_message(message.into());
        }
    }

    /// Advances by one step.
    pub fn inc(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Moves to step `pos`.
    pub fn set_position(&self, pos: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(pos);
        }
    }

    /// Runs `f` with the bar hidden (to print on stdout or stderr).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl plume_cases::progress::Progress for Progress {
    fn inc(&self) {
        Progress::inc(self)
    }

    fn set_position(&self, pos: u64) {
        Progress::set_position(self, pos)
    }

    fn set_message(&self, message: String) {
        Progress::set_message(self, message)
    }

    fn suspend(&self, print: &mut dyn FnMut()) {
        Progress::suspend(self, print)
    }
}

/// The command's side of a case's run: progress bars on a terminal, the signal handling and
/// rank 0's `plume:` line under MPI.
pub struct Terminal;

impl plume_cases::progress::Host for Terminal {
    fn bar(&self, len: u64, message: String) -> Box<dyn plume_cases::progress::Progress> {
        Box::new(Progress::bar(len, message))
    }

    fn settle(&self) {
        super::signals::settle();
    }

    fn report_failure(&self, error: &plume_cases::Error) {
        // One write, so that `mpirun` forwards the line whole.
        let line = format!(
            "plume: {}\n",
            super::failure::Failure::of_case(error).message()
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    }
}
