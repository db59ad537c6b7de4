//! SIGINT and SIGTERM: the process stops within a moment, removes the temporary files of the
//! writes in progress and the output folder's lock file, prints `plume: interrupted by SIGINT` (or `SIGTERM`) and exits with
//! 128 + the signal's number (130, 143).
//!
//! [`install`], first thing in `main`, blocks both signals in the main thread before any other
//! thread exists, so every thread started later (rayon's workers, …) inherits the mask, and
//! starts one thread that waits for them with `sigwait`. The signals are therefore never
//! delivered to a handler: not to ours, and not to the ones METIS installs while it partitions
//! (GKlib's `gk_sigtrap` catches SIGTERM and SIGABRT and longjmps out of the partitioner,
//! which would turn a SIGTERM into "METIS failed"). METIS raises SIGTERM itself only on option
//! errors plume cannot make.
//!
//! Once `main` has its outcome, [`settle`] lets a late signal wait for the process to end, so
//! the exit code and the last line on stderr are always those of one outcome.
//!
//! Under `mpirun` every rank gets a signal (Open MPI ends an interrupted job by sending each
//! rank SIGTERM): each stops the same way, but only rank 0 prints the line, so an interrupted
//! job says it once. The rank is read from the launcher's environment (`OMPI_COMM_WORLD_RANK`,
//! `PMI_RANK`), not from MPI, which the signal thread must not call.

use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};

/// Held by whoever decides how the process ends: the signal thread or `main`.
static ENDING: Mutex<()> = Mutex::new(());

/// The set {SIGINT, SIGTERM}.
fn stop_signals() -> libc::sigset_t {
    // SAFETY: `sigemptyset` initializes the set it is given, `sigaddset` adds valid signal
    // numbers to that initialized set; both only write `set`, which we own.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        set
    }
}

/// Changes the calling thread's mask for `set` (`how`: `SIG_BLOCK` or `SIG_UNBLOCK`); true
/// on success.
fn mask(how: libc::c_int, set: &libc::sigset_t) -> bool {
    // SAFETY: `set` is an initialized signal set and the old mask is not asked for (null).
    unsafe { libc::pthread_sigmask(how, set, std::ptr::null_mut()) == 0 }
}

/// Blocks SIGINT and SIGTERM and starts the thread that handles them. Must run before any
/// other thread is started. Where that fails, the signals keep their default action.
pub fn install() {
    let set = stop_signals();
    if !mask(libc::SIG_BLOCK, &set) {
        return;
    }
    let says = !is_other_rank(&|name| std::env::var(name).ok());
    let started = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || stop(wait(&set), says));
    if started.is_err() {
        mask(libc::SIG_UNBLOCK, &set);
    }
}

/// Waits for one of the signals of `set` (blocked in every thread) and returns its number.
fn wait(set: &libc::sigset_t) -> libc::c_int {
    loop {
        let mut signal: libc::c_int = 0;
        // SAFETY: `set` is an initialized signal set and `signal` a valid place for the answer.
        if unsafe { libc::sigwait(set, &mut signal) } == 0 {
            return signal;
        }
    }
}

/// The environment variables in which MPI launchers give a process its rank (Open MPI, then
/// MPICH and Intel MPI).
const RANK_VARIABLES: [&str; 2] = ["OMPI_COMM_WORLD_RANK", "PMI_RANK"];

/// True when the environment `var` reads says this process is an MPI rank other than 0.
fn is_other_rank(var: &dyn Fn(&str) -> Option<String>) -> bool {
    RANK_VARIABLES
        .iter()
        .find_map(|name| var(name))
        .is_some_and(|rank| rank.trim() != "0")
}

/// Ends the process on `signal`: removes the temporary files, prints the line if it `says` it
/// (not on MPI ranks other than 0), exits.
fn stop(signal: libc::c_int, says: bool) -> ! {
    let _ending = ENDING.lock().unwrap_or_else(PoisonError::into_inner);
    plume::io::atomic::remove_temp_files();
    plume_cases::folder_lock::remove_lock_files();
    let name = if signal == libc::SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    };
    // On a terminal, first clear the progress bar's line.
    let clear = if std::io::stderr().is_terminal() {
        "\r\x1b[2K"
    } else {
        ""
    };
    if says {
        eprintln!("{clear}plume: interrupted by {name}");
    }
    std::process::exit(128 + signal)
}

/// Called by `main` once it knows its outcome (or earlier by a command that does, such as an
/// MPI rank whose job `mpirun` may end with SIGTERM once a rank exits non-zero): from now on
/// a signal waits for the process to end (and a signal already being handled ends it first).
/// Calling it again does nothing.
pub fn settle() {
    static SETTLED: std::sync::Once = std::sync::Once::new();
    SETTLED.call_once(|| std::mem::forget(ENDING.lock().unwrap_or_else(PoisonError::into_inner)));
}

#[cfg(test)]
mod tests {
    use super::is_other_rank;

    #[test]
    fn only_ranks_other_than_0_keep_quiet() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(!is_other_rank(&env(&[])), "not under mpirun");
        assert!(!is_other_rank(&env(&[("OMPI_COMM_WORLD_RANK", "0")])));
        assert!(is_other_rank(&env(&[("OMPI_COMM_WORLD_RANK", "1")])));
        assert!(is_other_rank(&env(&[("PMI_RANK", "3")])));
    }
}
