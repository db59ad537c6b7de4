//! Starting ranks: the one place that knows how.
//!
//! - [`launch_threads`]`(P, rank_main)` runs `rank_main` on P threads of this process, one per
//!   rank, and returns every rank's result in rank order.
//! - `with_mpi(rank_main)` (feature `mpi`) runs `rank_main` as this process's rank of the
//!   `mpirun` job: `mpirun -n P program` starts P processes, each calling `with_mpi` once.
//! - [`launch`] picks one of them from a [`Backend`] chosen at run time.

use super::{Comm, ThreadComm};
use crate::{Error, Result};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread;

/// The stack of a rank's thread: the main thread's usual size, so that a rank runs whatever
/// the single-process program runs.
const RANK_STACK_BYTES: usize = 8 << 20;

/// How ranks are started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `procs` ranks as threads of this process.
    Threads {
        /// Number of ranks.
        procs: usize,
    },
    /// This process is one rank of an `mpirun` job (needs the cargo feature `mpi`).
    Mpi,
}

/// Runs `rank_main` on every rank this process holds under `backend` and returns their
/// results in rank order: all P of them on threads, this process's own under MPI.
///
/// The first error in rank order is returned (after [`super::CommExt::agree`] every rank
/// holds the same one). Under MPI, see `with_mpi` for what a failing rank does.
pub fn launch<T, F>(backend: Backend, rank_main: F) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(&dyn Comm) -> Result<T> + Sync,
{
    match backend {
        Backend::Threads { procs } => launch_threads(procs, |comm| rank_main(comm)),
        #[cfg(feature = "mpi")]
        Backend::Mpi => with_mpi(|comm| rank_main(comm)).map(|result| vec![result]),
        #[cfg(not(feature = "mpi"))]
        Backend::Mpi => Err(Error::Invalid(
            "this plume was built without MPI: rebuild it with `--features mpi`".into(),
        )),
    }
}

/// Runs `rank_main` on `procs` threads, one per rank, and returns the ranks' results in rank
/// order, or the first error in rank order.
///
/// `rank_main` may borrow from the caller (the threads are scoped), e.g. a mesh every rank
/// reads. A rank that returns an error or panics makes the ranks waiting for it fail too
/// instead of blocking: a panic becomes [`Error::RankPanicked`] (`rank R panicked: …`).
pub fn launch_threads<T, F>(procs: usize, rank_main: F) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(&ThreadComm) -> Result<T> + Sync,
{
    if procs == 0 {
        return Err(Error::Zero { what: "ranks" });
    }
    let rank_main = &rank_main;
    let outcomes: Vec<Result<T>> = thread::scope(|scope| {
        let running: Vec<_> = ThreadComm::group(procs)
            .into_iter()
            .map(|comm| {
                let rank = comm.rank();
                // On failure the closure, and with it `comm`, is dropped: the other ranks
                // hear that this one stopped.
                let started = thread::Builder::new()
                    .name(format!("rank {rank}"))
                    .stack_size(RANK_STACK_BYTES)
                    .spawn_scoped(scope, move || run_rank(comm, rank_main));
                (rank, started)
            })
            .collect();
        running
            .into_iter()
            .map(|(rank, started)| match started {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|payload| Err(panicked(rank, payload.as_ref()))),
                Err(e) => Err(Error::Transport {
                    rank,
                    message: format!("cannot start the thread of rank {rank}: {e}"),
                }),
            })
            .collect()
    });
    outcomes.into_iter().collect()
}

/// Runs one rank's work and records its outcome for the other ranks (announced when `comm`
/// drops at the end).
fn run_rank<T, F>(comm: ThreadComm, rank_main: &F) -> Result<T>
where
    F: Fn(&ThreadComm) -> Result<T>,
{
    let outcome = catch_unwind(AssertUnwindSafe(|| rank_main(&comm)))
        .unwrap_or_else(|payload| Err(panicked(comm.rank(), payload.as_ref())));
    comm.set_outcome(outcome.as_ref().err().cloned());
    outcome
}

/// [`Error::RankPanicked`] for a panic's payload.
fn panicked(rank: usize, payload: &(dyn Any + Send)) -> Error {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into());
    Error::RankPanicked { rank, message }
}

/// Runs `rank_main` as this process's rank of the `mpirun` job (the size is the number of
/// processes `mpirun` started) and returns its result. MPI is initialised on entry and
/// finalised on return, so a process calls this once.
///
/// A rank must not stop while others wait for it, which would leave them blocked. So when
/// `rank_main` returns an error that [`super::CommExt::agree`] did not agree on (every rank
/// holds an agreed error and returns normally), or panics, this rank prints `plume: <error>`
/// (a panic has printed itself) and aborts the whole job: every process exits non-zero.
#[cfg(feature = "mpi")]
pub fn with_mpi<T>(rank_main: impl FnOnce(&super::MpiComm) -> Result<T>) -> Result<T> {
    let (universe, _) =
        ::mpi::initialize_with_threading(::mpi::Threading::Funneled).ok_or_else(|| {
            Error::Invalid("MPI is already initialised: a process runs one MPI rank".into())
        })?;
    let comm = super::MpiComm::new(&universe.world());
    match catch_unwind(AssertUnwindSafe(|| rank_main(&comm))) {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) if comm.agreed_on(&error) => Err(error),
        Ok(Err(error)) => {
            // One write, so that `mpirun` forwards the line whole among the other ranks' output.
            let line = format!("plume: {error}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            comm.abort()
        }
        Err(_) => comm.abort(),
    }
}
