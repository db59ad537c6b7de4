//! What the cases' rank drivers (`shock::run_ranks`, `erosion::run_ranks`,
//! `euler::run_ranks`) share: an `mpirun` job's start and end ([`mpi_job`], [`agree`],
//! [`mpi_procs`]), the refusal of MPI in a build without it ([`no_mpi`]), and the names and
//! the listing of a series of parallel VTK pieces ([`list_pieces`], [`piece_name`],
//! [`index_name`]).

#[cfg(feature = "mpi")]
use plume::comm::Comm;

use crate::error::{Error, Result};
use crate::run_folder::RunFolder;
use crate::words::VtkLevels;

/// Runs `rank_main` as this process's rank of an `mpirun` job. Rank 0 reports a failure
/// through `host` before any rank exits (`mpirun` ends the job when the first process exits
/// non-zero); every rank then returns it as [`Error::Reported`]. `rank_main`'s failures must
/// be agreed (every rank fails together).
#[cfg(feature = "mpi")]
pub fn mpi_job(
    host: &dyn crate::progress::Host,
    rank_main: impl FnOnce(&plume::comm::MpiComm) -> Result,
) -> Result {
    let outcome = plume::comm::with_mpi(|comm| {
        let outcome = rank_main(comm);
        // The outcome is known: the SIGTERM `mpirun` sends the others once a rank exits
        // non-zero must not add a line.
        host.settle();
        if let (Err(error), 0) = (&outcome, comm.rank()) {
            host.report_failure(error);
        }
        // Every rank gets here (the failures are agreed): none exits before rank 0 reported.
        let _ = comm.barrier();
        Ok(outcome.map_err(|error| Error::Reported(Box::new(error))))
    });
    outcome?
}

/// Without MPI built in, the MPI backend of `case` is refused.
#[cfg(not(feature = "mpi"))]
pub fn no_mpi(case: &'static str) -> Error {
    Error::NoMpi { case }
}

/// P under `mpirun`: the communicator's size, which `procs`, when given, must equal.
#[cfg(feature = "mpi")]
pub fn mpi_procs(procs: Option<usize>, size: usize) -> Result<usize> {
    match procs.filter(|&p| p != size) {
        Some(asked) => Err(Error::RanksConflict {
            asked,
            started: size,
        }),
        None => Ok(size),
    }
}

/// `local` if it holds on every rank; this rank's own failure, or the message of the lowest
/// failing rank.
#[cfg(feature = "mpi")]
pub fn agree<T>(comm: &dyn Comm, local: Result<T>) -> Result<T> {
    match local {
        Ok(value) => comm
            .agree_on_failure(None)
            .map(|()| value)
            .map_err(Error::from),
        Err(failure) => {
            // The other ranks receive the message (the library's collectives carry its errors).
            let error = plume::Error::Invalid(failure.to_string());
            let _ = comm.agree_on_failure(Some(&error));
            Err(failure)
        }
    }
}

/// Lists in `folder`'s manifest every file a piece series writes: for each step `0..=last`
/// that `vtk` writes, the pieces of `procs` ranks and their index, then the collection `pvd`.
/// The pieces are written by every rank, so rank 0 lists them before any rank can.
pub fn list_pieces(
    folder: &mut RunFolder,
    vtk: VtkLevels,
    kind: &str,
    last: usize,
    procs: usize,
    pvd: &str,
) -> Result {
    let written: Vec<usize> = (0..=last).filter(|&s| vtk.writes(s, last)).collect();
    let mut names = Vec::new();
    for &step in &written {
        names.extend((0..procs).map(|rank| piece_name(kind, step, rank)));
        names.push(index_name(kind, step));
    }
    if !written.is_empty() {
        names.push(pvd.to_string());
    }
    Ok(folder.list(&names)?)
}

/// The piece of `rank` at step `step` of a series whose steps are called `kind`.
pub fn piece_name(kind: &str, step: usize, rank: usize) -> String {
    format!("{kind}_{step:04}/r{rank:04}.vtu")
}

/// The index of the pieces of step `step` of a series whose steps are called `kind`.
pub fn index_name(kind: &str, step: usize) -> String {
    format!("{kind}_{step:04}.pvtu")
}
