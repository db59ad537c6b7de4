//! The erosion case run whole on real ranks: P threads of this process ([`threads`]) or the
//! processes of an `mpirun` job ([`mpi`]), each running its part of the case
//! ([`super::ranks`]). Every rank writes its own piece of each written iteration,
//! `iter_XXXX/rRRRR.vtu`, and rank 0 the iteration's index `iter_XXXX.pvtu`, `erosion.pvd`
//! listing the indices at the modelled time, the table and the reports (`compare`'s other
//! runs are single-process runs on rank 0: their records are what ranks would give).

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use plume::comm::{launch_threads, Comm};
use plume::io::{write_pvd, write_pvtu, CellArray, VtuOptions};

use super::output::{
    compare, summary_table, usage_chart, usage_series, write_vtu, COMPARED_POLICIES,
};
use super::{ErosionConfig, ErosionRun};
use crate::error::Result;
use crate::progress::{Host, Progress};
use crate::provenance::Provenance;
use crate::rank_job::{index_name, list_pieces, piece_name};
use crate::report::Report;
use crate::run_folder::RunFolder;
use crate::stream::say;
use crate::words::VtkLevels;

/// The threads backend's P when the request names none.
pub const DEFAULT_PROCS: usize = 8;

/// A run of the erosion case as its caller asks for it.
pub struct Request<'a> {
    /// Ranks [default: [`DEFAULT_PROCS`] on threads; under MPI the job's size, which this
    /// must equal when given].
    pub procs: Option<usize>,
    /// The run's configuration on P ranks (the caller's checks of its settings).
    pub config: &'a (dyn Fn(usize) -> Result<ErosionConfig> + Sync),
    /// Also run never / periodic / standard / ULBA and the α sweep on the same case.
    pub compare: bool,
    /// The period of the compared periodic policy.
    pub period: usize,
    /// The α of the compared ULBA runs.
    pub alphas: &'a [f64],
    /// The output folder.
    pub out: &'a Path,
    /// Which iterations get VTK files.
    pub vtk: VtkLevels,
    /// How the `.vtu` files store their data.
    pub vtk_options: VtuOptions,
    /// Progress bars and the outcome under MPI.
    pub host: &'a dyn Host,
}

/// The runs whose records the command keeps: `--compare` keeps every policy's run and the α
/// sweep's.
fn records_kept(req: &Request) -> usize {
    if req.compare {
        1 + COMPARED_POLICIES + req.alphas.len()
    } else {
        1
    }
}

/// Rank 0's end of the run `main`: the series' `.pvd`, the table, `--compare`'s runs, the
/// charts and the reports.
fn finish(req: &Request, cfg: &ErosionConfig, main: &ErosionRun, out: Rank0) -> Result {
    let wall = out.start.elapsed().as_secs_f64();
    drop(out.progress);
    let mut folder = out.folder;
    if !out.indices.is_empty() {
        write_pvd(&folder.dir().join("erosion.pvd"), &out.indices)?;
    }
    let mut report = Report::new(&main.config, "iterations", &main.iterations);
    // σ± exist at balances only: their average over every iteration would mislead.
    report.summary.remove("sigma_minus");
    report.summary.remove("sigma_plus");
    report.extend_summary(&main.summary);
    let report = report.with_provenance(Provenance::of_this_process(None));
    let table = summary_table(main);
    say(&table)?;
    say(format!(
        "run: {wall:.1} s wall for {} iterations",
        cfg.iterations
    ))?;
    if req.compare {
        compare((req.period, req.alphas, req.host), cfg, main, &mut folder)?;
    } else {
        usage_chart(
            &folder.file("usage.svg")?,
            "Processor usage per iteration",
            &[usage_series(main)],
        )?;
    }
    report.write(&mut folder, &table)?;
    say(format!("wrote {}", req.out.display()))
}

/// What the erosion case's written steps are called.
const ITER: &str = "iter";

/// `plume run erosion` on P threads.
pub fn threads(req: &Request) -> Result {
    let procs = req.procs.unwrap_or(DEFAULT_PROCS);
    let cfg = (req.config)(procs)?;
    super::ranks::check_memory(&cfg, records_kept(req), procs)?;
    let rank0 = Mutex::new(Some(Rank0::open(req, &cfg)?));
    let mut runs = launch_threads(procs, |comm| on_rank(comm, req, &cfg, &rank0))?;
    let (run, out) = runs.swap_remove(0).expect("rank 0 returns the run");
    finish(req, &cfg, &run, out)
}

/// `plume run erosion --backend mpi`: this process's rank of the `mpirun` job.
#[cfg(feature = "mpi")]
pub fn mpi(req: &Request) -> Result {
    use crate::rank_job::{agree, mpi_job, mpi_procs};
    mpi_job(req.host, |comm| {
        let size = mpi_procs(req.procs, comm.size())?;
        let cfg = (req.config)(size)?;
        let checked = super::ranks::check_memory(&cfg, records_kept(req), 1);
        agree(comm, checked.map_err(Into::into))?;
        let rank0 = match comm.rank() {
            0 => Rank0::open(req, &cfg).map(Some),
            _ => Ok(None),
        };
        let rank0 = Mutex::new(agree(comm, rank0)?);
        match on_rank(comm, req, &cfg, &rank0)? {
            Some((run, out)) => finish(req, &cfg, &run, out),
            None => Ok(()),
        }
    })
}

/// Without MPI built in, `--backend mpi` is a usage error saying how to get it.
#[cfg(not(feature = "mpi"))]
pub fn mpi(_: &Request) -> Result {
    Err(crate::rank_job::no_mpi("erosion"))
}

/// What rank 0 keeps while the ranks run: the output folder, the progress bar, the written
/// iterations' indices and when the run started.
pub struct Rank0 {
    /// The output folder.
    pub folder: RunFolder,
    /// One tick per iteration.
    pub progress: Box<dyn Progress>,
    /// `(modelled time, .pvtu name)` of each written iteration.
    pub indices: Vec<(f64, String)>,
    /// When the ranks started.
    pub start: Instant,
}

impl Rank0 {
    /// Takes the output folder over and lists every file the run's ranks will write there:
    /// the pieces are written by every rank, so rank 0 lists them before any rank can.
    fn open(req: &Request, cfg: &ErosionConfig) -> Result<Self> {
        let mut folder = RunFolder::open(req.out)?;
        list_pieces(
            &mut folder,
            req.vtk,
            ITER,
            cfg.iterations,
            cfg.procs,
            "erosion.pvd",
        )?;
        Ok(Rank0 {
            folder,
            progress: req
                .host
                .bar(cfg.iterations as u64, format!("erosion {}", cfg.policy)),
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
    req: &Request,
    cfg: &ErosionConfig,
    rank0: &Mutex<Option<Rank0>>,
) -> plume::Result<Option<(ErosionRun, Rank0)>> {
    let mut mine = match comm.rank() {
        0 => rank0.lock().map_or(None, |mut r| r.take()),
        _ => None,
    };
    let run = super::ranks::run_rank(comm, cfg, |moment, forest, owner| {
        let done = moment.iterations;
        if let Some(out) = mine.as_ref().filter(|_| done > 0) {
            out.progress.inc();
        }
        if req.vtk.writes(done, cfg.iterations) {
            let path = req.out.join(piece_name(ITER, done, comm.rank()));
            write_vtu(&path, forest, owner, &req.vtk_options)?;
            if let Some(out) = mine.as_mut() {
                out.index(done, moment.time, cfg.procs)?;
            }
        }
        Ok(())
    })?;
    Ok(run.zip(mine))
}
