//! The one driver every case runs on real ranks through ([`run`]), on either backend of
//! [`plume::comm::launch`]: P threads of this process, or this process's rank of an `mpirun`
//! job. It runs the case's per-process setup (once for all threads; on every process under
//! MPI, agreed), opens the run folder on rank 0 and hands rank 0 the case's reporter
//! ([`Reporter`]: the folder, the series' indices, the case's table, records and reports),
//! gives every rank its [`Rank`] (the communicator and the series of parallel VTK pieces,
//! [`Series`]), and at the end lets rank 0 finish the reports. A failure is reported once:
//! the threads backend returns the first rank's error; under MPI rank 0 reports it through
//! the [`Host`] and every rank returns it as [`Error::Reported`].

mod series;

pub use series::{Indices, Series, SeriesSpec};

use std::path::Path;
use std::sync::Mutex;

use plume::comm::{launch, Backend, Comm, CommExt, ThreadComm};

use crate::error::{Error, Result};
use crate::progress::Host;
use crate::run_folder::RunFolder;
use crate::words::VtkLevels;
use plume::io::VtuOptions;

/// What a run on ranks is asked for, alike for every case.
#[derive(Clone, Copy)]
pub struct Ranks<'a> {
    /// Ranks asked for: on threads P [default: the case's [`RankCase::DEFAULT_PROCS`]]; under
    /// MPI the job's size, which this must equal when given.
    pub procs: Option<usize>,
    /// Under `mpirun` (`true`) or on threads.
    pub mpi: bool,
    /// The output folder.
    pub out: &'a Path,
    /// Which steps of the series get VTK files.
    pub vtk: VtkLevels,
    /// How the pieces store their data.
    pub vtk_options: VtuOptions,
    /// Progress bars and the outcome under MPI.
    pub host: &'a dyn Host,
}

/// What a process holds of the run.
#[derive(Debug, Clone, Copy)]
pub struct Process {
    /// Ranks of the run (P).
    pub procs: usize,
    /// Ranks this process runs (P on threads, 1 under MPI).
    pub ranks_here: usize,
    /// Whether this process runs rank 0 (it reads loudly and reports).
    pub reports: bool,
}

/// Rank 0's share of the run: the run folder, the series' indices and the case's own.
pub struct Reporter<R> {
    /// The output folder.
    pub folder: RunFolder,
    /// The series' indices written so far.
    pub indices: Indices,
    /// The case's table, records and reports.
    pub case: R,
}

/// What every rank gets: its communicator and the run's series of VTK pieces.
pub struct Rank<'a> {
    /// The rank's communicator.
    pub comm: &'a dyn Comm,
    /// The run's series.
    pub series: &'a Series,
    /// What this rank's process holds.
    pub process: Process,
}

/// What a process made once for rank 0 to take, such as the mesh it read, which rank 0
/// spreads in chunks: no other rank ever holds it.
pub struct ForRank0<T>(Mutex<Option<T>>);

impl<T> ForRank0<T> {
    /// `value` on the process that runs rank 0 (`None` on the others).
    pub fn new(value: Option<T>) -> Self {
        ForRank0(Mutex::new(value))
    }

    /// The value on rank 0 (the first time it asks); `None` on every other rank.
    pub fn take<C: Comm + ?Sized>(&self, comm: &C) -> Option<T> {
        match comm.rank() {
            0 => self.0.lock().unwrap_or_else(|p| p.into_inner()).take(),
            _ => None,
        }
    }
}

/// A case run through [`run`].
pub trait RankCase: Sync {
    /// The case's name (`shock`, for the refusal of MPI in a build without it), what its
    /// series' steps are called (`level`: `level_XXXX.pvtu`) and the series' collection
    /// (`shock.pvd`).
    const NAMES: [&'static str; 3];
    /// The threads backend's P when the run names none.
    const DEFAULT_PROCS: usize;
    /// What a process prepares once for all its ranks (configuration, initial mesh).
    type Setup: Sync;
    /// The case's part of rank 0's [`Reporter`].
    type Report: Send;
    /// What rank 0's body hands to [`RankCase::finish`].
    type Run: Send;

    /// The setup of `process` (under MPI every process's outcome is agreed).
    fn setup(&self, process: Process) -> Result<Self::Setup>;

    /// The series' last step, when the steps it writes are known before the run (rank 0 lists
    /// them in the folder before any rank writes); `None`: each step is listed as it is
    /// written ([`Series::write_agreed`]).
    fn last_step(&self, setup: &Self::Setup) -> Option<usize>;

    /// Rank 0's report, once the run folder is open and the known steps listed; may take from
    /// `setup` what only rank 0 needs.
    fn report(&self, setup: &mut Self::Setup, folder: &mut RunFolder) -> Result<Self::Report>;

    /// One rank's part of the run; rank 0 gets its reporter. Returns the run on rank 0.
    fn rank(
        &self,
        rank: &Rank,
        setup: &Self::Setup,
        reporter: Option<&mut Reporter<Self::Report>>,
    ) -> Result<Option<Self::Run>>;

    /// Rank 0's end of the run, after its body: the reports.
    fn finish(
        &self,
        setup: &Self::Setup,
        run: Self::Run,
        reporter: Reporter<Self::Report>,
    ) -> Result;
}

/// Runs `case` on the ranks `start` asks for.
pub fn run<C: RankCase>(start: &Ranks, case: &C) -> Result {
    if start.mpi {
        return mpi(start, case);
    }
    let procs = start.procs.unwrap_or(C::DEFAULT_PROCS);
    let process = Process {
        procs,
        ranks_here: procs,
        reports: true,
    };
    let mut setup = case.setup(process)?;
    let reporter = open(start, case, &mut setup, procs)?;
    let shared = Shared {
        setup: &setup,
        process,
        reporter: Mutex::new(Some(reporter)),
        series: series::<C>(start, procs),
    };
    launch_threads(procs, |comm| on_rank(comm, case, &shared)).map(drop)
}

/// [`plume::comm::launch_threads`] for a rank's part of a case: runs `rank_main` on `procs`
/// thread ranks and returns their values in rank order, or the case's error of the first
/// failing rank (typed: the library's launcher carries its own error, so each rank keeps its
/// case's error aside and the others hear its text).
///
/// # Errors
/// The first failing rank's error; the launcher's (no rank, a rank that panicked).
pub fn launch_threads<T: Send>(
    procs: usize,
    rank_main: impl Fn(&ThreadComm) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let failures: Vec<Mutex<Option<Error>>> = (0..procs).map(|_| Mutex::new(None)).collect();
    let launched = plume::comm::launch_threads(procs, |comm| {
        rank_main(comm).map_err(|error| {
            let for_others = as_library(&error, comm.rank());
            *lock(&failures[comm.rank()]) = Some(error);
            for_others
        })
    });
    launched.map_err(|error| {
        failures
            .into_iter()
            .find_map(|f| f.into_inner().unwrap_or_else(|p| p.into_inner()))
            .unwrap_or(Error::Plume(error))
    })
}

/// What the ranks of one process share.
struct Shared<'s, C: RankCase> {
    setup: &'s C::Setup,
    process: Process,
    /// Rank 0's, until it takes it.
    reporter: Mutex<Option<Reporter<C::Report>>>,
    series: Series,
}

/// The series of `case` on `procs` ranks.
fn series<C: RankCase>(ranks: &Ranks, procs: usize) -> Series {
    let [_, kind, pvd] = C::NAMES;
    let spec = SeriesSpec {
        kind,
        pvd,
        vtk: ranks.vtk,
        options: ranks.vtk_options,
    };
    Series::new(spec, ranks.out.to_path_buf(), procs)
}

/// Opens the run folder, lists the series' known steps and opens the case's report.
fn open<C: RankCase>(
    start: &Ranks,
    case: &C,
    setup: &mut C::Setup,
    procs: usize,
) -> Result<Reporter<C::Report>> {
    let mut folder = RunFolder::open(start.out)?;
    if let Some(last) = case.last_step(setup) {
        series::<C>(start, procs).list_all(&mut folder, last)?;
    }
    let report = case.report(setup, &mut folder)?;
    Ok(Reporter {
        folder,
        indices: Indices::default(),
        case: report,
    })
}

/// One rank's run: rank 0 takes the reporter, runs its body, and finishes the reports (agreed).
fn on_rank<C: RankCase>(comm: &dyn Comm, case: &C, shared: &Shared<C>) -> Result {
    let mut reporter = match comm.rank() {
        0 => lock(&shared.reporter).take(),
        _ => None,
    };
    let rank = Rank {
        comm,
        series: &shared.series,
        process: shared.process,
    };
    let run = case.rank(&rank, shared.setup, reporter.as_mut())?;
    let finished = match (run, reporter) {
        (Some(run), Some(reporter)) => case.finish(shared.setup, run, reporter),
        _ => Ok(()),
    };
    agree(comm, finished)
}

/// The library's form of a rank's `error`, which the other ranks of the threads backend hear.
fn as_library(error: &Error, rank: usize) -> plume::Error {
    match error {
        Error::Plume(e) => e.clone(),
        other => plume::Error::Transport {
            rank,
            message: other.to_string(),
        },
    }
}

/// The value behind `mutex`, even if a panicking rank poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// The case as this process's rank of the `mpirun` job.
fn mpi<C: RankCase>(start: &Ranks, case: &C) -> Result {
    if !cfg!(feature = "mpi") {
        return Err(Error::NoMpi {
            case: C::NAMES[0].into(),
        });
    }
    mpi_job(start.host, |comm| mpi_rank(comm, start, case))
}

/// Runs `rank_main` as this process's rank of an `mpirun` job. Rank 0 reports a failure
/// through `host` before any rank exits (`mpirun` ends the job when the first process exits
/// non-zero); every rank then returns it as [`Error::Reported`]. `rank_main`'s failures must
/// be agreed (every rank fails together).
pub fn mpi_job(host: &dyn Host, rank_main: impl Fn(&dyn Comm) -> Result + Sync) -> Result {
    let outcome = launch(Backend::Mpi, |comm| {
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
    })?;
    outcome.into_iter().next().unwrap_or(Ok(()))
}

/// One process's rank under MPI: P is the communicator's size.
fn mpi_rank<C: RankCase>(comm: &dyn Comm, start: &Ranks, case: &C) -> Result {
    let procs = mpi_procs(start.procs, comm.size())?;
    let reports = comm.rank() == 0;
    let process = Process {
        procs,
        ranks_here: 1,
        reports,
    };
    let mut setup = agree(comm, case.setup(process))?;
    let reporter = match reports {
        true => open(start, case, &mut setup, procs).map(Some),
        false => Ok(None),
    };
    let reporter = agree(comm, reporter)?;
    let shared = Shared {
        setup: &setup,
        process,
        reporter: Mutex::new(reporter),
        series: series::<C>(start, procs),
    };
    on_rank(comm, case, &shared)
}

/// P under `mpirun`: the communicator's size, which `procs`, when given, must equal.
fn mpi_procs(procs: Option<usize>, size: usize) -> Result<usize> {
    match procs.filter(|&p| p != size) {
        Some(asked) => Err(Error::RanksConflict {
            asked,
            started: size,
        }),
        None => Ok(size),
    }
}

/// `local` if it holds on every rank; otherwise the error of the lowest failing rank, on
/// every rank (an equal value: the error travels, not its text).
pub fn agree<T>(comm: &dyn Comm, local: Result<T>) -> Result<T> {
    comm.agree_as(local)
}
