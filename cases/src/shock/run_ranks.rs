//! The shock case run whole: on real ranks, P threads of this process ([`threads`]) or the
//! processes of an `mpirun` job ([`mpi`]), each running its part of the case
//! ([`super::ranks`]), or SBN on the simulated machine ([`simulated`]). Rank 0 prints the
//! table and writes the reports; every rank writes its own piece of each written level,
//! `level_XXXX/rRRRR.vtu`, and rank 0 the level's index `level_XXXX.pvtu` and `shock.pvd`
//! listing the indices. Only rank 0 reports a failure (under MPI the other processes return
//! it as reported).

use std::path::Path;
use std::sync::Mutex;

use plume::adapt::{Forest, InitialMesh};
use plume::comm::{launch_threads, Comm};
use plume::dist::Kernel;
use plume::io::{rank_cells, write_pvd, write_pvtu, CellArray, VtuOptions, VtuPiece};
use plume::mesh::Mesh;
use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions};
use plume::sim::Machine;

use super::table::Table;
use super::{ShockConfig, ShockRun};
use crate::error::{check_procs, Result};
use crate::progress::Host;
use crate::provenance::MeshSource;
use crate::rank_job::{index_name, list_pieces, piece_name};
use crate::run_folder::RunFolder;
use crate::stream::say;
use crate::words::VtkLevels;

/// The threads backend's P when the request names none.
pub const DEFAULT_PROCS: usize = 8;

/// A run of the shock case as its caller asks for it.
pub struct Request<'a> {
    /// Ranks [default: [`DEFAULT_PROCS`] on threads; under MPI the job's size, which this
    /// must equal when given].
    pub procs: Option<usize>,
    /// The run's configuration on P ranks (the caller's checks of its settings).
    pub config: &'a (dyn Fn(usize) -> Result<ShockConfig> + Sync),
    /// Reads the initial mesh and its source; `quiet`: without the reader's notes and
    /// without the source (the MPI ranks other than 0).
    pub mesh: &'a (dyn Fn(bool) -> Result<(Mesh, Option<MeshSource>)> + Sync),
    /// On ranks: calibrate the simulated machine on the run's own ranks first.
    pub measured: bool,
    /// The output folder.
    pub out: &'a Path,
    /// Which levels get VTK files.
    pub vtk: VtkLevels,
    /// How the `.vtu` files store their data.
    pub vtk_options: VtuOptions,
    /// Progress bars and the outcome under MPI.
    pub host: &'a dyn Host,
}

/// The shock case on P threads.
pub fn threads(req: &Request) -> Result {
    let procs = req.procs.unwrap_or(DEFAULT_PROCS);
    let cfg = (req.config)(procs)?;
    let (mesh, source) = (req.mesh)(false)?;
    let source = source.expect("a loud read gives the source");
    check_procs(procs, cfg.parts_per_proc, mesh.nelems())?;
    super::ranks::check_memory(&cfg, mesh.nelems(), procs)?;
    let rank0 = Mutex::new(Some(Rank0::open(req, &cfg, mesh.nelems(), source)?));
    // The ranks share one copy of the initial mesh and its topology.
    let initial = InitialMesh::new(mesh)?;
    launch_threads(procs, |comm| {
        on_rank(comm, req, &cfg, &initial, true, &rank0)
    })?;
    say(format!("\nwrote {}", req.out.display()))
}

/// The shock case as this process's rank of the `mpirun` job.
#[cfg(feature = "mpi")]
pub fn mpi(req: &Request) -> Result {
    crate::rank_job::mpi_job(req.host, |comm| mpi_rank(comm, req))
}

/// Without MPI built in, the MPI backend is refused.
#[cfg(not(feature = "mpi"))]
pub fn mpi(_: &Request) -> Result {
    Err(crate::rank_job::no_mpi("shock"))
}

/// One rank of the shock case under MPI: P is the communicator's size.
#[cfg(feature = "mpi")]
fn mpi_rank(comm: &plume::comm::MpiComm, req: &Request) -> Result {
    use crate::rank_job::{agree, mpi_procs};
    let size = mpi_procs(req.procs, comm.size())?;
    let cfg = (req.config)(size)?;
    let root = comm.rank() == 0;
    // Only rank 0 prints the reader's notes and needs the mesh's provenance.
    let (mesh, source) = agree(comm, (req.mesh)(!root))?;
    check_procs(size, cfg.parts_per_proc, mesh.nelems())?;
    let rank0 = match source {
        Some(source) if root => Rank0::open(req, &cfg, mesh.nelems(), source).map(Some),
        _ => Ok(None),
    };
    let rank0 = Mutex::new(agree(comm, rank0)?);
    let initial = agree(comm, InitialMesh::new(mesh).map_err(Into::into))?;
    on_rank(comm, req, &cfg, &initial, false, &rank0)?;
    if root {
        say(format!("\nwrote {}", req.out.display()))?;
    }
    Ok(())
}

/// SBN on the simulated machine: one process times the ranks' levels.
pub fn simulated(req: &Request) -> Result {
    let cfg = (req.config)(req.procs.unwrap_or(DEFAULT_PROCS))?;
    let (mesh, source) = (req.mesh)(false)?;
    let source = source.expect("a loud read gives the source");
    check_procs(cfg.procs, cfg.parts_per_proc, mesh.nelems())?;
    super::check_memory(std::slice::from_ref(&cfg), mesh.nelems())?;
    let mut folder = RunFolder::open(req.out)?;
    let mut table = Table::new(&cfg, mesh.nelems(), req.host);
    let mut written: Vec<(f64, String)> = Vec::new();
    let run = super::run(&cfg, mesh, |level, record, forest, owner| {
        if let Some(record) = record {
            table.row(record)?;
        }
        if req.vtk.writes(level, cfg.levels) {
            // The case has no physical time: the level is the time step.
            let name = format!("level_{level:04}.vtu");
            write_level_vtu(&folder.file(&name)?, forest, owner, &req.vtk_options)?;
            written.push((level as f64, name));
        }
        Ok(())
    })?;
    if !written.is_empty() {
        write_pvd(&folder.file("shock.pvd")?, &written)?;
    }
    table.finish(&run, &mut folder, source)?;
    say(format!("\nwrote {}", req.out.display()))
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
    fn open(req: &Request, cfg: &ShockConfig, roots: usize, source: MeshSource) -> Result<Self> {
        let mut folder = RunFolder::open(req.out)?;
        list_pieces(
            &mut folder,
            req.vtk,
            LEVEL,
            cfg.levels,
            cfg.procs,
            "shock.pvd",
        )?;
        Ok(Rank0 {
            folder,
            table: Table::new(cfg, roots, req.host),
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
    fn finish(mut self, run: &ShockRun) -> plume::Result<()> {
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
    req: &Request,
    cfg: &ShockConfig,
    initial: &InitialMesh,
    all_ranks_here: bool,
    rank0: &Mutex<Option<Rank0>>,
) -> plume::Result<()> {
    let cfg = &measured_on(comm, req, cfg)?;
    let mut mine = match comm.rank() {
        0 => rank0.lock().map_or(None, |mut r| r.take()),
        _ => None,
    };
    let run = super::ranks::run_rank(
        comm,
        cfg,
        initial,
        all_ranks_here,
        |level, record, forest, owner| {
            if let (Some(out), Some(record)) = (mine.as_mut(), record) {
                out.table.row(record)?;
            }
            if req.vtk.writes(level, cfg.levels) {
                let path = req.out.join(piece_name(LEVEL, level, comm.rank()));
                write_level_vtu(&path, forest, owner, &req.vtk_options)?;
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

/// `cfg`, on a machine calibrated on `comm`'s ranks when `req` asks for the measured one, its
/// `t_leaf` the run's kernel's (every rank calls it; every rank gets the same constants).
fn measured_on<C: Comm + ?Sized>(
    comm: &C,
    req: &Request,
    cfg: &ShockConfig,
) -> plume::Result<ShockConfig> {
    let mut cfg = cfg.clone();
    if req.measured {
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

/// Writes the leaves `forest` holds as `path`, each with its `rank` (`owner` of its root): a
/// level's file, or one rank's piece of it.
pub fn write_level_vtu(
    path: &Path,
    forest: &Forest,
    owner: &[u32],
    options: &VtuOptions,
) -> plume::Result<()> {
    let rank = [rank_cells(forest, owner)];
    let piece = VtuPiece::forest(forest, &rank)?;
    piece.write(path, options)
}
