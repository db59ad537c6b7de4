//! `plume run shock` on real ranks: P threads of this process (`--backend threads`) or the
//! processes of an `mpirun` job (`--backend mpi`), each running its part of the case
//! ([`plume_cases::shock::ranks`]). Rank 0 prints the table and writes the reports; every rank
//! writes its own piece of each written level, `level_XXXX/rRRRR.vtu`, and rank 0 the level's
//! index `level_XXXX.pvtu` and `shock.pvd` listing the indices. Only rank 0 reports a failure
//! (under MPI the other processes exit with the same code, silently).

use std::sync::Mutex;

use plume::adapt::InitialMesh;
use plume::comm::{launch_threads, Comm};
use plume::dist::Kernel;
use plume::io::{write_pvd, write_pvtu, CellArray, VtuOptions};
use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions};
use plume::sim::Machine;

use super::common::say;
use super::run::{check_procs, config, write_level_vtu, ShockArgs, Table, DEFAULT_PROCS};
use super::{CliResult, Failure};
use plume_cases::provenance::MeshSource;
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::{self, ShockConfig};
use plume_cases::words::{MachineName, VtkLevels};

/// `plume run shock` on P threads.
pub(super) fn threads(args: &ShockArgs) -> CliResult {
    let procs = args.procs.unwrap_or(DEFAULT_PROCS);
    let cfg = config(args, procs)?;
    let (mesh, source) = args.case.mesh()?;
    check_procs(procs, cfg.parts_per_proc, mesh.nelems())?;
    shock::ranks::check_memory(&cfg, mesh.nelems(), procs)?;
    let rank0 = Mutex::new(Some(Rank0::open(args, &cfg, mesh.nelems(), source)?));
    // The ranks share one copy of the initial mesh and its topology.
    let initial = InitialMesh::new(mesh)?;
    launch_threads(procs, |comm| {
        on_rank(comm, args, &cfg, &initial, true, &rank0)
    })?;
    say(format!("\nwrote {}", args.out.display()))
}

/// `plume run shock --backend mpi`: this process's rank of the `mpirun` job.
#[cfg(feature = "mpi")]
pub(super) fn mpi(args: &ShockArgs) -> CliResult {
    mpi_job(|comm| mpi_rank(comm, args))
}

/// Runs `rank_main` as this process's rank of an `mpirun` job. Rank 0 prints a failure
/// before any rank exits (`mpirun` ends the job when the first process exits non-zero); the
/// others exit with its code, silently, and no rank reports the SIGTERM. `rank_main`'s
/// failures must be agreed (every rank fails together).
#[cfg(feature = "mpi")]
pub(super) fn mpi_job(rank_main: impl FnOnce(&plume::comm::MpiComm) -> CliResult) -> CliResult {
    let outcome = plume::comm::with_mpi(|comm| {
        let outcome = rank_main(comm);
        // The outcome is known: the SIGTERM `mpirun` sends the others once a rank exits
        // non-zero must not add a line.
        super::signals::settle();
        if let (Err(failure), 0) = (&outcome, comm.rank()) {
            // One write, so that `mpirun` forwards the line whole.
            let line = format!("plume: {}\n", failure.message());
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        }
        // Every rank gets here (the failures are agreed): none exits before rank 0 printed.
        let _ = comm.barrier();
        Ok(outcome.map_err(|failure| Failure::Silent(failure.code())))
    });
    outcome?
}

/// Without MPI built in, `--backend mpi` is a usage error saying how to get it.
#[cfg(not(feature = "mpi"))]
pub(super) fn mpi(_: &ShockArgs) -> CliResult {
    Err(no_mpi("shock"))
}

/// The usage error of `--backend mpi` in a plume built without MPI, for `plume run case`.
#[cfg(not(feature = "mpi"))]
pub(super) fn no_mpi(case: &str) -> Failure {
    Failure::Usage(format!(
        "--backend mpi needs a plume built with MPI: `cargo build --release --features mpi` \
         (with Open MPI's libopenmpi-dev), then `mpirun -n P plume run {case} --backend mpi`"
    ))
}

/// P under `mpirun`: the communicator's size, which `--procs`, when given, must equal.
#[cfg(feature = "mpi")]
pub(super) fn mpi_procs(procs: Option<usize>, size: usize) -> CliResult<usize> {
    match procs.filter(|&p| p != size) {
        Some(procs) => Err(Failure::Usage(format!(
            "--procs {procs} conflicts with the {size} processes mpirun started: leave \
             --procs out with --backend mpi"
        ))),
        None => Ok(size),
    }
}

/// One rank of `plume run shock --backend mpi`: P is the communicator's size.
#[cfg(feature = "mpi")]
fn mpi_rank(comm: &plume::comm::MpiComm, args: &ShockArgs) -> CliResult {
    let size = mpi_procs(args.procs, comm.size())?;
    let cfg = config(args, size)?;
    let root = comm.rank() == 0;
    // Only rank 0 prints the reader's notes and needs the mesh's provenance.
    let loaded = match (&args.case.mesh, root) {
        (Some(path), false) => super::common::read_mesh_quietly(path).map(|m| (m, None)),
        _ => args.case.mesh().map(|(m, source)| (m, Some(source))),
    };
    let (mesh, source) = agree(comm, loaded)?;
    check_procs(size, cfg.parts_per_proc, mesh.nelems())?;
    let rank0 = match source {
        Some(source) if root => Rank0::open(args, &cfg, mesh.nelems(), source).map(Some),
        _ => Ok(None),
    };
    let rank0 = Mutex::new(agree(comm, rank0)?);
    let initial = agree(comm, InitialMesh::new(mesh).map_err(Failure::from))?;
    on_rank(comm, args, &cfg, &initial, false, &rank0)?;
    if root {
        say(format!("\nwrote {}", args.out.display()))?;
    }
    Ok(())
}

/// `local` if it holds on every rank; this rank's own failure, or the message of the lowest
/// failing rank.
#[cfg(feature = "mpi")]
pub(super) fn agree<T>(comm: &dyn Comm, local: CliResult<T>) -> CliResult<T> {
    match local {
        Ok(value) => comm
            .agree_on_failure(None)
            .map(|()| value)
            .map_err(Failure::from),
        Err(failure) => {
            let error = plume::Error::Invalid(failure.message());
            let _ = comm.agree_on_failure(Some(&error));
            Err(failure)
        }
    }
}

/// What rank 0 keeps: the output folder, the table and the written levels' indices.
struct Rank0 {
    folder: RunFolder,
    table: Table,
    source: MeshSource,
    /// `(level, .pvtu name)` of each written level.
    indices: Vec<(f64, String)>,
}

impl Rank0 {
    /// Takes the output folder over and lists every file the run's ranks will write there:
    /// the pieces are written by every rank, so rank 0 lists them before any rank can.
    fn open(
        args: &ShockArgs,
        cfg: &ShockConfig,
        roots: usize,
        source: MeshSource,
    ) -> CliResult<Self> {
        let mut folder = RunFolder::open(&args.out)?;
        list_pieces(
            &mut folder,
            args.vtk,
            LEVEL,
            cfg.levels,
            cfg.procs,
            "shock.pvd",
        )?;
        Ok(Rank0 {
            folder,
            table: Table::new(cfg, roots),
            source,
            indices: Vec::new(),
        })
    }

    /// Writes the index of `level`'s `procs` pieces.
    fn index(&mut self, level: usize, procs: usize) -> plume::Result<()> {
        let pieces: Vec<String> = (0..procs)
            .map(|rank| piece_name(LEVEL, level, rank))
            .collect();
        let layout = ["root", "level", "pattern", "rank"].map(|name| CellArray::int(name, vec![]));
        let name = index_name(LEVEL, level);
        write_pvtu(&self.folder.dir().join(&name), &pieces, &layout)?;
        // The case has no physical time: the level is the time step.
        self.indices.push((level as f64, name));
        Ok(())
    }

    /// Writes the series and the reports.
    fn finish(mut self, run: &shock::ShockRun) -> plume::Result<()> {
        if !self.indices.is_empty() {
            write_pvd(&self.folder.dir().join("shock.pvd"), &self.indices)?;
        }
        self.table.finish(run, &mut self.folder, self.source)
    }
}

/// One rank's part of the run: its pieces, and on rank 0 (which takes `rank0`) the table,
/// the indices and the reports.
fn on_rank<C: Comm + ?Sized>(
    comm: &C,
    args: &ShockArgs,
    cfg: &ShockConfig,
    initial: &InitialMesh,
    all_ranks_here: bool,
    rank0: &Mutex<Option<Rank0>>,
) -> plume::Result<()> {
    let cfg = &measured_on(comm, args, cfg)?;
    let mut mine = match comm.rank() {
        0 => rank0.lock().map_or(None, |mut r| r.take()),
        _ => None,
    };
    let options = VtuOptions::from(args.vtk_compression);
    let run = shock::ranks::run_rank(
        comm,
        cfg,
        initial,
        all_ranks_here,
        |level, record, forest, owner| {
            if let (Some(out), Some(record)) = (mine.as_mut(), record) {
                out.table.row(record)?;
            }
            if args.vtk.writes(level, cfg.levels) {
                let path = args.out.join(piece_name(LEVEL, level, comm.rank()));
                write_level_vtu(&path, forest, owner, &options)?;
                if let Some(out) = mine.as_mut() {
                    out.index(level, cfg.procs)?;
                }
            }
            Ok(())
        },
    )?;
    let finished = match (mine, run) {
        (Some(out), Some(run)) => out.finish(&run),
        _ => Ok(()),
    };
    plume::comm::CommExt::agree(comm, finished)
}

/// `cfg`, on a machine calibrated on `comm`'s ranks when `args` ask for the measured one, its
/// `t_leaf` the run's kernel's (every rank calls it; every rank gets the same constants).
fn measured_on<C: Comm + ?Sized>(
    comm: &C,
    args: &ShockArgs,
    cfg: &ShockConfig,
) -> plume::Result<ShockConfig> {
    let mut cfg = cfg.clone();
    if args.machine == MachineName::Measured {
        // The run's own kernel.
        let opts = CalibrationOptions {
            sweeps: cfg.processing.map_or(Kernel::DEFAULT_SWEEPS, |k| k.sweeps),
            ..CalibrationOptions::default()
        };
        let measured = measure(comm, &mut sample_forest(opts.refinements)?, &opts)?;
        cfg.machine = Machine::measured(&measured).validated()?;
    }
    Ok(cfg)
}

/// What the shock case's written steps are called.
const LEVEL: &str = "level";

/// Lists in `folder`'s manifest every file a piece series writes: for each step `0..=last`
/// that `vtk` writes, the pieces of `procs` ranks and their index, then the collection `pvd`.
/// The pieces are written by every rank, so rank 0 lists them before any rank can.
pub(super) fn list_pieces(
    folder: &mut RunFolder,
    vtk: VtkLevels,
    kind: &str,
    last: usize,
    procs: usize,
    pvd: &str,
) -> CliResult {
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
pub(super) fn piece_name(kind: &str, step: usize, rank: usize) -> String {
    format!("{kind}_{step:04}/r{rank:04}.vtu")
}

/// The index of the pieces of step `step` of a series whose steps are called `kind`.
pub(super) fn index_name(kind: &str, step: usize) -> String {
    format!("{kind}_{step:04}.pvtu")
}
