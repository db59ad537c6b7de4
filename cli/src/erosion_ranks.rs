//! `plume run erosion` on real ranks: P threads of this process (`--backend threads`) or the
//! processes of an `mpirun` job (`--backend mpi`), each running its part of the case
//! ([`plume_cases::erosion::ranks`]). Every rank writes its own piece of each written iteration,
//! `iter_XXXX/rRRRR.vtu`, and rank 0 the iteration's index `iter_XXXX.pvtu`, `erosion.pvd`
//! listing the indices at the modelled time, the table and the reports (`--compare`'s other
//! runs are single-process runs on rank 0: their records are what ranks would give).

use std::sync::Mutex;
use std::time::Instant;

use plume::comm::{launch_threads, Comm};
use plume::io::{write_pvtu, CellArray, VtuOptions};

use super::erosion::{config, finish, records_kept, write_vtu, ErosionArgs};
use super::progress::Progress;
use super::run::DEFAULT_PROCS;
use super::shock_ranks::{index_name, list_pieces, piece_name};
use super::CliResult;
use plume_cases::erosion::{self, ErosionConfig, ErosionRun};
use plume_cases::run_folder::RunFolder;

/// What the erosion case's written steps are called.
const ITER: &str = "iter";

/// `plume run erosion` on P threads.
pub(super) fn threads(args: &ErosionArgs) -> CliResult {
    let procs = args.procs.unwrap_or(DEFAULT_PROCS);
    let cfg = config(args, procs)?;
    erosion::ranks::check_memory(&cfg, records_kept(args), procs)?;
    let rank0 = Mutex::new(Some(Rank0::open(args, &cfg)?));
    let mut runs = launch_threads(procs, |comm| on_rank(comm, args, &cfg, &rank0))?;
    let (run, out) = runs.swap_remove(0).expect("rank 0 returns the run");
    finish(args, &cfg, &run, out)
}

/// `plume run erosion --backend mpi`: this process's rank of the `mpirun` job.
#[cfg(feature = "mpi")]
pub(super) fn mpi(args: &ErosionArgs) -> CliResult {
    use super::shock_ranks::{agree, mpi_job, mpi_procs};
    mpi_job(|comm| {
        let size = mpi_procs(args.procs, comm.size())?;
        let cfg = config(args, size)?;
        let checked = erosion::ranks::check_memory(&cfg, records_kept(args), 1);
        agree(comm, checked.map_err(Into::into))?;
        let rank0 = match comm.rank() {
            0 => Rank0::open(args, &cfg).map(Some),
            _ => Ok(None),
        };
        let rank0 = Mutex::new(agree(comm, rank0)?);
        match on_rank(comm, args, &cfg, &rank0)? {
            Some((run, out)) => finish(args, &cfg, &run, out),
            None => Ok(()),
        }
    })
}

/// Without MPI built in, `--backend mpi` is a usage error saying how to get it.
#[cfg(not(feature = "mpi"))]
pub(super) fn mpi(_: &ErosionArgs) -> CliResult {
    Err(super::shock_ranks::no_mpi("erosion"))
}

/// What rank 0 keeps while the ranks run: the output folder, the progress bar, the written
/// iterations' indices and when the run started.
pub(super) struct Rank0 {
    /// The output folder.
    pub folder: RunFolder,
    /// One tick per iteration.
    pub progress: Progress,
    /// `(modelled time, .pvtu name)` of each written iteration.
    pub indices: Vec<(f64, String)>,
    /// When the ranks started.
    pub start: Instant,
}

impl Rank0 {
    /// Takes the output folder over and lists every file the run's ranks will write there:
    /// the pieces are written by every rank, so rank 0 lists them before any rank can.
    fn open(args: &ErosionArgs, cfg: &ErosionConfig) -> CliResult<Self> {
        let mut folder = RunFolder::open(&args.out)?;
        list_pieces(
            &mut folder,
            args.vtk,
            ITER,
            cfg.iterations,
            cfg.procs,
            "erosion.pvd",
        )?;
        Ok(Rank0 {
            folder,
            progress: Progress::bar(cfg.iterations as u64, format!("erosion {}", cfg.policy)),
            indices: Vec::new(),
            start: Instant::now(),
        })
    }

    /// Writes the index of the `procs` pieces after `done` iterations, at modelled `time`.
    fn index(&mut self, done: usize, time: f64, procs: usize) -> plume::Result<()> {
        let pieces: Vec<String> = (0..procs)
            .map(|rank| piece_name(ITER, done, rank))
            .collect();
        let layout = ["root", "level", "pattern", "material", "rank"]
            .map(|name| CellArray::int(name, vec![]));
        let name = index_name(ITER, done);
        write_pvtu(&self.folder.dir().join(&name), &pieces, &layout)?;
        self.indices.push((time, name));
        Ok(())
    }
}

/// One rank's part of the run: its pieces, and on rank 0 (which takes `rank0`) the progress
/// and the indices. Returns the run and what rank 0 kept on rank 0, `None` on the others.
fn on_rank<C: Comm + ?Sized>(
    comm: &C,
    args: &ErosionArgs,
    cfg: &ErosionConfig,
    rank0: &Mutex<Option<Rank0>>,
) -> plume::Result<Option<(ErosionRun, Rank0)>> {
    let mut mine = match comm.rank() {
        0 => rank0.lock().map_or(None, |mut r| r.take()),
        _ => None,
    };
    let options = VtuOptions::from(args.vtk_compression);
    let run = erosion::ranks::run_rank(comm, cfg, |moment, forest, owner| {
        let done = moment.iterations;
        if let Some(out) = mine.as_ref().filter(|_| done > 0) {
            out.progress.inc();
        }
        if args.vtk.writes(done, cfg.iterations) {
            let path = args.out.join(piece_name(ITER, done, comm.rank()));
            write_vtu(&path, forest, owner, &options)?;
            if let Some(out) = mine.as_mut() {
                out.index(done, moment.time, cfg.procs)?;
            }
        }
        Ok(())
    })?;
    Ok(run.zip(mine))
}
