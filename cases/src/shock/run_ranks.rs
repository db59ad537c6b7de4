//! The shock case run whole: on real ranks, P threads of this process (the threads backend) or the
//! processes of an `mpirun` job (the MPI backend), through the one rank driver
//! ([`crate::ranks::run`]), each running its part of the case ([`super::ranks`]), or SBN on the
//! simulated machine ([`simulated`]). Rank 0 prints the table and writes the reports; every rank
//! writes its own piece of each written level, `level_XXXX/rRRRR.vtu`, and rank 0 the level's
//! index `level_XXXX.pvtu` and `shock.pvd` listing the indices. Only rank 0 reports a failure
//! (under MPI the other processes return it as reported).

use std::path::Path;

use plume::adapt::Forest;
use plume::comm::Comm;
use plume::dist::Kernel;
use plume::io::{rank_cells, write_pvd, VtuOptions, VtuPiece};
use plume::mesh::Mesh;
use plume::metrics::Phase;
use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions};
use plume::sim::Machine;

use super::table::Table;
use super::{ShockConfig, ShockRun};
use crate::checkpoint::Checkpoints;
use crate::error::{check_procs, Result};
use crate::provenance::MeshSource;
use crate::ranks::{self, ForRank0, Process, Rank, RankCase, Ranks, Reporter};
use crate::run_folder::RunFolder;
use crate::stream::say;

/// The threads backend's P when the request names none.
pub const DEFAULT_PROCS: usize = 8;

/// A run of the shock case as its caller asks for it.
pub struct Request<'a> {
    /// The run's configuration on P ranks (the caller's checks of its settings).
    pub config: &'a (dyn Fn(usize) -> Result<ShockConfig> + Sync),
    /// Reads the initial mesh and its source (on rank 0's process only).
    pub mesh: &'a (dyn Fn() -> Result<(Mesh, MeshSource)> + Sync),
    /// On ranks: calibrate the simulated machine on the run's own ranks first.
    pub measured: bool,
    /// The ranks, the output folder, the VTK files and the host.
    pub ranks: Ranks<'a>,
    /// The checkpoints it writes and the one it continues from (on ranks only).
    pub checkpoints: &'a Checkpoints,
}

/// The shock case on real ranks: P threads of this process, or (`mpi`) this process's rank
/// of the `mpirun` job.
pub fn run(req: &Request) -> Result {
    ranks::run(&req.ranks, &OnRanks(req))
}

/// SBN on the simulated machine: one process times the ranks' levels.
pub fn simulated(req: &Request) -> Result {
    let cfg = (req.config)(req.ranks.procs.unwrap_or(DEFAULT_PROCS))?;
    let (mesh, source) = (req.mesh)()?;
    check_procs(cfg.procs, cfg.parts_per_proc, mesh.nelems())?;
    super::check_memory(std::slice::from_ref(&cfg), mesh.nelems())?;
    let mut folder = RunFolder::open(req.ranks.out)?;
    let mut table = Table::new(&cfg, mesh.nelems(), req.ranks.host);
    let mut written: Vec<(f64, String)> = Vec::new();
    let run = super::run(&cfg, mesh, |level, record, forest, owner| {
        if let Some(record) = record {
            table.row(record)?;
        }
        if req.ranks.vtk.writes(level, cfg.levels) {
            // The case has no physical time: the level is the time step.
            let name = format!("level_{level:04}.vtu");
            write_level_vtu(&folder.file(&name)?, forest, owner, &req.ranks.vtk_options)?;
            written.push((level as f64, name));
        }
        Ok(())
    })?;
    if !written.is_empty() {
        write_pvd(&folder.file("shock.pvd")?, &written)?;
    }
    table.finish(&run, &mut folder, source)?;
    say(format!("\nwrote {}", req.ranks.out.display()))
}

/// The shock case through the rank driver.
struct OnRanks<'r, 'a>(&'r Request<'a>);

/// What a process prepares: the configuration and, on rank 0's process, the mesh it read
/// and its provenance.
struct Setup {
    cfg: ShockConfig,
    /// The mesh, read by rank 0's process only, for rank 0 to take and spread: no other
    /// rank ever holds it.
    mesh: ForRank0<Mesh>,
    /// The roots of the mesh, on rank 0's process.
    roots: Option<usize>,
    /// The CPU spent reading the mesh.
    serial: plume::dist::CpuLaps,
    source: Option<MeshSource>,
}

/// Rank 0's table and the mesh's provenance.
struct Report {
    table: Table,
    source: MeshSource,
}

impl RankCase for OnRanks<'_, '_> {
    const NAMES: [&'static str; 3] = ["shock", "level", "shock.pvd"];
    const DEFAULT_PROCS: usize = DEFAULT_PROCS;
    type Setup = Setup;
    type Report = Report;
    type Run = ShockRun;

    fn setup(&self, process: Process) -> Result<Setup> {
        let req = self.0;
        let cfg = (req.config)(process.procs)?;
        let mut serial = plume::dist::CpuLaps::start(plume::comm::CpuClock::Process);
        // Rank 0 reads the mesh and spreads it: only its process reads, prints the reader's
        // notes and needs the mesh's provenance.
        if !process.reports {
            return Ok(Setup {
                cfg,
                mesh: ForRank0::new(None),
                roots: None,
                serial,
                source: None,
            });
        }
        let (mesh, source) = (req.mesh)()?;
        serial.lap(Phase::Read);
        let roots = mesh.nelems();
        check_procs(process.procs, cfg.parts_per_proc, roots)?;
        super::ranks::check_memory(&cfg, roots, process.ranks_here)?;
        Ok(Setup {
            cfg,
            mesh: ForRank0::new(Some(mesh)),
            roots: Some(roots),
            serial,
            source: Some(source),
        })
    }

    fn last_step(&self, setup: &Setup) -> Option<usize> {
        Some(setup.cfg.levels)
    }

    fn report(&self, setup: &mut Setup, _: &mut RunFolder) -> Result<Report> {
        Ok(Report {
            table: Table::new(
                &setup.cfg,
                setup.roots.expect("rank 0's process reads the mesh"),
                self.0.ranks.host,
            ),
            source: setup.source.take().expect("rank 0 reads the mesh's source"),
        })
    }

    fn rank(
        &self,
        rank: &Rank,
        setup: &Setup,
        mut reporter: Option<&mut Reporter<Report>>,
    ) -> Result<Option<ShockRun>> {
        let comm = rank.comm;
        let cfg = &measured_on(comm, self.0, &setup.cfg)?;
        let all_ranks_here = rank.process.ranks_here == rank.process.procs;
        // Rank 0 takes the mesh its process read.
        let mesh = setup.mesh.take(comm);
        let run = super::ranks::run_rank(
            comm,
            cfg,
            (mesh, &setup.serial),
            all_ranks_here,
            self.0.checkpoints,
            |level, record, forest, owner| {
                if let (Some(out), Some(record)) = (reporter.as_mut(), record) {
                    out.case.table.row(record)?;
                }
                if rank.series.writes(level, cfg.levels) {
                    // The case has no physical time: the level is the time step.
                    rank.series.write(
                        comm.rank(),
                        (level, level as f64),
                        (forest, &[rank_cells(forest, owner)]),
                        reporter.as_mut().map(|out| &mut out.indices),
                    )?;
                }
                Ok(())
            },
        )?;
        Ok(run)
    }

    fn finish(&self, _: &Setup, run: ShockRun, out: Reporter<Report>) -> Result {
        let mut folder = out.folder;
        out.case.table.finish(&run, &mut folder, out.case.source)?;
        say(format!("\nwrote {}", self.0.ranks.out.display()))
    }
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
