//! The Euler case run whole on real ranks: P threads of this process (the threads backend) or the
//! processes of an `mpirun` job (the MPI backend), through the one rank driver
//! ([`crate::ranks::run`]), each running its part of the flow ([`super::EulerRun`]). Every
//! `output_every` iterations (and at the start and the end) the ranks agree on a record (rank 0
//! prints its row) and, as `vtk` says, each rank writes its piece `step_XXXX/rRRRR.vtu` with the
//! cell data `rank`, `density`, `velocity` and `pressure`; rank 0 writes the output's index
//! `step_XXXX.pvtu` and `euler.pvd`, whose times are physical times. At the end rank 0 writes
//! `metrics.json`, `metrics.csv` and `summary.md`, and for a Sod case `density.svg`, the density
//! along x against the exact solution (each record also holds the density's L1 error). Each probe
//! point's state at every output goes into `probe_N.csv` ([`crate::probes`]).

use std::collections::BTreeMap;

use plume::adapt::InitialMesh;
use plume::comm::{Comm, CommExt, ReduceOp};
use plume::dist::FirstOwners;
use plume::io::{rank_cells, CellArray};
use plume::mesh::chunk::spread;
use plume::mesh::{geometry, Mesh};
use plume::metrics::{Phase, RunCpu};
use plume::numbers::short;
use plume::partition::root_centroids;

use super::record::{
    balancer_over, first_owners, table_head, table_row, EulerRecord, EulerRunConfig,
};
use super::scheme::Boundaries;
use super::validation::density_profile;
use super::{Conserved, EulerRun, FlowTimes, Primitive, RiemannReference, Totals};
use crate::charts::{line_chart, Series};
use crate::error::{Error, Result};
use crate::probes::ProbeLog;
use crate::progress::Progress;
use crate::provenance::{MeshSource, Provenance};
use crate::ranks::{self, ForRank0, Process, Rank, RankCase, Ranks, Reporter};
use crate::report::Report;
use crate::run_folder::RunFolder;
use crate::stream::{say, Streamed};
use crate::words::VtkLevels;

/// The threads backend's P when the request names none.
pub const DEFAULT_PROCS: usize = 2;

/// A run of the Euler case as its caller asks for it.
pub struct Request<'a> {
    /// Makes the initial mesh and its source (`None`: a generated box).
    pub mesh: &'a (dyn Fn() -> Result<(Mesh, Option<MeshSource>)> + Sync),
    /// The run's configuration on P ranks over the initial mesh (the caller's checks of its
    /// settings).
    pub config: &'a (dyn Fn(usize, &Mesh) -> Result<EulerRunConfig> + Sync),
    /// Points whose state every output records (`probe_N.csv`).
    pub probes: &'a [[f64; 3]],
    /// The ranks, the output folder, the VTK files and the host.
    pub ranks: Ranks<'a>,
}

/// Steps of the progress bar over the run's physical time.
const PROGRESS_STEPS: u64 = 1000;

/// Slabs of x the density chart averages the leaves over.
const PROFILE_SLABS: usize = 100;

/// Points of the exact solution in the density chart.
const EXACT_POINTS: usize = 400;

/// The values a probe records.
const PROBE_COLUMNS: [&str; 5] = [
    "density",
    "velocity_x",
    "velocity_y",
    "velocity_z",
    "pressure",
];

/// The Euler case on real ranks: P threads of this process, or (`mpi`) this process's rank
/// of the `mpirun` job.
pub fn run(req: &Request) -> Result {
    ranks::run(&req.ranks, &OnRanks(req))
}

/// The Euler case through the rank driver.
struct OnRanks<'r, 'a>(&'r Request<'a>);

/// What a process prepares: the configuration, the initial mesh, what the run needs of the
/// whole mesh, and the mesh's provenance (rank 0's report takes it).
struct Setup {
    cfg: EulerRunConfig,
    /// The mesh, made once for rank 0 to take and spread in chunks ([`EulerRun::from_chunk`]):
    /// no other rank holds it once the run starts (under MPI every process makes it for the
    /// run's settings, which depend on the whole mesh, and all but rank 0's drop it then).
    mesh: ForRank0<Mesh>,
    /// The whole mesh's roots.
    roots: usize,
    /// The whole mesh's extent along x.
    x: (f64, f64),
    /// The boundary conditions of the whole mesh's groups.
    boundaries: Boundaries,
    /// The CPU spent making the mesh (and locating the probes in it).
    serial: plume::dist::CpuLaps,
    source: Option<MeshSource>,
}

/// What rank 0's body ends with: the Sod case's reference and density profile, and the
/// physical time reached.
struct Ended {
    profile: Option<(Reference, Vec<(f64, f64)>)>,
    exact: Option<Reference>,
    time: f64,
    /// The ranks' CPU account.
    cpu: RunCpu,
}

impl RankCase for OnRanks<'_, '_> {
    const NAMES: [&'static str; 3] = ["euler", "step", "euler.pvd"];
    const DEFAULT_PROCS: usize = DEFAULT_PROCS;
    type Setup = Setup;
    type Report = Rank0;
    type Run = Ended;

    fn setup(&self, process: Process) -> Result<Setup> {
        let mut serial = plume::dist::CpuLaps::start(plume::comm::CpuClock::Process);
        let (mesh, source) = (self.0.mesh)()?;
        serial.lap(Phase::Read);
        let cfg = (self.0.config)(process.procs, &mesh)?;
        let (roots, x) = (mesh.nelems(), x_range(&mesh));
        let boundaries = Boundaries::from_tags(&mesh.tags, cfg.euler.case.inflow())?;
        if !self.0.probes.is_empty() {
            // Probes are located in the whole mesh once, before the run.
            let initial = InitialMesh::new(mesh.clone())?;
            serial.lap(Phase::Topology);
            check_probes(self.0.probes, &initial)?;
        }
        Ok(Setup {
            cfg,
            mesh: ForRank0::new(process.reports.then_some(mesh)),
            roots,
            x,
            boundaries,
            serial,
            source,
        })
    }

    fn last_step(&self, _: &Setup) -> Option<usize> {
        // The number of outputs is known at the end only: each is listed when written.
        None
    }

    fn report(&self, setup: &mut Setup, _: &mut RunFolder) -> Result<Rank0> {
        Rank0::open(self.0, &setup.cfg, setup.roots, setup.source.take())
    }

    fn rank(
        &self,
        rank: &Rank,
        setup: &Setup,
        reporter: Option<&mut Reporter<Rank0>>,
    ) -> Result<Option<Ended>> {
        Ok(Some(on_rank(rank, self.0, setup, reporter)?))
    }

    fn finish(&self, setup: &Setup, ended: Ended, mut out: Reporter<Rank0>) -> Result {
        if let Some((exact, profile)) = &ended.profile {
            out.case
                .density_chart(&mut out.folder, exact, profile, ended.time)?;
        }
        out.case.finish(
            &mut out.folder,
            &setup.cfg,
            ended.exact.as_ref(),
            (ended.time, &ended.cpu),
        )?;
        say(format!("\nwrote {}", self.0.ranks.out.display()))
    }
}

/// What rank 0 keeps: the table, the records, and the progress bar (on a terminal: the
/// physical time reached, in thousandths of `t_end`).
struct Rank0 {
    printed: Streamed<std::io::Stdout>,
    progress: Box<dyn Progress>,
    source: Option<MeshSource>,
    records: Vec<EulerRecord>,
    /// The probes' time series.
    probes: ProbeLog,
}

impl Rank0 {
    fn open(
        req: &Request,
        cfg: &EulerRunConfig,
        roots: usize,
        source: Option<MeshSource>,
    ) -> Result<Self> {
        // The driver opened the folder first: one that cannot be written fails before the
        // table starts.
        let mut printed = Streamed::stdout();
        printed
            .print(&table_head(cfg, roots))
            .map_err(Error::Stdout)?;
        Ok(Rank0 {
            printed,
            progress: req.ranks.host.bar(PROGRESS_STEPS, "euler".into()),
            source,
            records: Vec::new(),
            probes: ProbeLog::new(req.probes.to_vec(), &PROBE_COLUMNS),
        })
    }

    /// Prints the row of `record` and keeps it.
    fn row(&mut self, record: EulerRecord) -> Result<()> {
        let printed = &mut self.printed;
        let mut outcome = Ok(());
        self.progress
            .suspend(&mut || outcome = printed.print(&table_row(&record)));
        outcome.map_err(|e| plume::Error::io("stdout", &e))?;
        self.records.push(record);
        Ok(())
    }

    /// Writes `density.svg`: the computed density along x at time `t` (`profile`) against
    /// the exact solution while it applies (`t` before `exact.until`), alone after.
    fn density_chart(
        &mut self,
        folder: &mut RunFolder,
        exact: &Reference,
        profile: &[(f64, f64)],
        t: f64,
    ) -> Result {
        let (lo, hi) = profile
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.0), hi.max(p.0))
            });
        let mut series = vec![Series::new(
            "plume (mean over slabs of x)",
            profile.to_vec(),
        )];
        let mut title = format!("Density along x at t = {t:.4}");
        match exact.at(t) {
            Some(exact) => {
                let exact_points = (0..=EXACT_POINTS)
                    .map(|i| {
                        let x = lo + (hi - lo) * i as f64 / EXACT_POINTS as f64;
                        (x, exact.density(x, t))
                    })
                    .collect();
                series.push(Series::published("exact solution", exact_points).with_colour(0));
            }
            None => title += " (exact curve left out: the waves reached the ends)",
        }
        let path = folder.file("density.svg")?;
        line_chart(&path, &title, "x", "density", &series).map_err(Error::Chart)
    }

    /// Writes the reports, after a note on the printed table when the exact solution stopped
    /// applying before the run's end at `t`.
    fn finish(
        mut self,
        folder: &mut RunFolder,
        cfg: &EulerRunConfig,
        exact: Option<&Reference>,
        (t, cpu): (f64, &RunCpu),
    ) -> Result<()> {
        drop(self.progress);
        if let Some(until) = exact.map(|e| e.until).filter(|&until| t >= until) {
            self.printed
                .print(&format!(
                    "\nFrom t = {} on a wave of the exact solution has reached an end of the \
                     mesh along x, where the unbounded Riemann solution no longer applies: the \
                     density L1 error is left out (–) and density.svg draws no exact curve.\n",
                    short(until)
                ))
                .map_err(|e| plume::Error::io("stdout", &e))?;
        }
        self.printed
            .print(&crate::cpu::summary_line(cpu))
            .map_err(|e| plume::Error::io("stdout", &e))?;
        let mut report = Report::new(cfg, "iterations", &self.records);
        report.insert_run("cpu", cpu);
        report
            .with_provenance(Provenance::of_this_process(self.source.take()))
            .write(folder, self.printed.text())
    }
}

/// A Sod case's exact solution and the time until which it applies: when its first wave
/// reaches an end of the mesh along x ([`RiemannReference::unbounded_until`]).
#[derive(Clone, Copy)]
struct Reference {
    exact: RiemannReference,
    until: f64,
}

impl Reference {
    /// The reference of `cfg`'s case on a mesh spanning `x` along x (none for the blast).
    fn of(cfg: &EulerRunConfig, (lo, hi): (f64, f64)) -> Option<Reference> {
        cfg.euler.case.reference().map(|exact| Reference {
            exact,
            until: exact.unbounded_until(lo, hi),
        })
    }

    /// The exact solution, if it still applies at time `t`.
    fn at(&self, t: f64) -> Option<&RiemannReference> {
        (t < self.until).then_some(&self.exact)
    }
}

/// The extent of `mesh` along x.
fn x_range(mesh: &Mesh) -> (f64, f64) {
    let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
    (lo[0], hi[0])
}

/// The counters at the last output, to report what happened since.
#[derive(Default)]
struct Since {
    times: FlowTimes,
    flux_evaluations: u64,
}

/// One rank's part of the run: its pieces, and on rank 0 (which takes `rank0`) the table, the
/// indices and the reports.
fn on_rank(
    rank: &Rank,
    req: &Request,
    setup: &Setup,
    mut mine: Option<&mut Reporter<Rank0>>,
) -> Result<Ended> {
    let comm = rank.comm;
    let (cfg, serial) = (&setup.cfg, &setup.serial);
    // Rank 0 takes the mesh its process made and spreads it.
    let mesh = setup.mesh.take(comm);
    let first = first_owners(cfg);
    // The partitioners run on rank 0, and only for the balancer's first owners.
    let centroids = match (&mesh, first) {
        (Some(mesh), FirstOwners::Balancer) => root_centroids(mesh),
        _ => Vec::new(),
    };
    let plum = comm.agree(balancer_over(cfg, &centroids))?;
    drop(centroids);
    let settings = (cfg.euler, setup.boundaries.clone(), cfg.sbn);
    let mut euler = EulerRun::from_chunk(comm, |comm| spread(comm, mesh), settings, plum, first)?;
    let mut cpu = crate::cpu::start(comm, euler.run.startup_cpu(), Some(serial))?;
    let start = euler.totals()?;
    let exact = Reference::of(cfg, setup.x);
    let mut since = Since::default();
    let mut step = 0;
    loop {
        let record = record(comm, &mut euler, exact.as_ref(), &start, &mut since)?;
        comm.agree_as(mine.as_mut().map_or(Ok(()), |out| out.case.row(record)))?;
        if !req.probes.is_empty() {
            let readings = euler.run.probe(req.probes)?;
            let logged = mine.as_mut().map_or(Ok(()), |out| {
                let probes = &mut out.case.probes;
                probes.record(euler.time, euler.iteration as u64, &readings, probe_values);
                probes.write(&mut out.folder)
            });
            comm.agree(logged)?;
        }
        let writes = match req.ranks.vtk {
            VtkLevels::All => true,
            VtkLevels::Last => step == 0 || euler.finished(),
            VtkLevels::None => false,
        };
        if writes {
            write_output(&euler, rank.series, step, mine.as_deref_mut())?;
        }
        for step_cpu in euler.take_step_cpu() {
            crate::cpu::add_step(comm, &mut cpu, &step_cpu)?;
        }
        crate::cpu::add_between_steps(comm, &mut cpu, &euler.take_flow_cpu())?;
        if euler.finished() {
            break;
        }
        step += 1;
        loop {
            euler.iterate()?;
            if let Some(out) = mine.as_ref().map(|out| &out.case) {
                let done = euler.time / cfg.euler.t_end * PROGRESS_STEPS as f64;
                out.progress.set_position(done as u64);
                out.progress
                    .set_message(format!("euler iteration {}", euler.iteration));
            }
            if euler.finished() || euler.iteration.is_multiple_of(cfg.output_every) {
                break;
            }
        }
    }
    let profile = match exact {
        Some(exact) => Some((exact, sod_profile(&euler, setup.x)?)),
        None => None,
    };
    Ok(Ended {
        profile,
        exact,
        time: euler.time,
        cpu,
    })
}

/// The density along x in [`PROFILE_SLABS`] slabs over the whole mesh's extent `x` (a
/// collective).
fn sod_profile<C: Comm + ?Sized>(euler: &EulerRun<C>, x: (f64, f64)) -> Result<Vec<(f64, f64)>> {
    density_profile(euler.run.comm(), euler.run.forest(), x, PROFILE_SLABS)
}

/// A probe's columns of a leaf's state: density, velocity, pressure.
fn probe_values(data: &[f64]) -> Vec<f64> {
    let u: Conserved = std::array::from_fn(|k| data[k]);
    let w = Primitive::of(&u);
    vec![w.rho, w.vel[0], w.vel[1], w.vel[2], w.p]
}

/// The record of the run as it is now, with what happened since the last (a collective); the
/// density's error against `exact` while it applies.
fn record<C: Comm + ?Sized>(
    comm: &C,
    euler: &mut EulerRun<C>,
    exact: Option<&Reference>,
    start: &Totals,
    since: &mut Since,
) -> Result<EulerRecord> {
    let totals = euler.totals()?;
    let change = totals.change_from(start);
    let density_l1 = match exact.and_then(|e| e.at(euler.time)) {
        Some(exact) => Some(exact.density_l1(comm, euler.run.forest(), euler.time)?),
        None => None,
    };
    let adapt = euler.take_adapt_change();
    let moved = euler.take_moved();
    let t = euler.times;
    let ms =
        |now: std::time::Duration, before: std::time::Duration| (now - before).as_secs_f64() * 1e3;
    let local = [
        euler.mesh.nleaves() as f64,
        ms(t.flow, since.times.flow),
        ms(t.adaptation, since.times.adaptation),
        ms(t.balancing, since.times.balancing),
        ms(t.migration, since.times.migration),
        (euler.flux_evaluations - since.flux_evaluations) as f64,
    ];
    let sums = comm.all_reduce_f64(&local, ReduceOp::Sum)?;
    let most = comm.all_reduce_f64(&[local[0]], ReduceOp::Max)?[0];
    *since = Since {
        times: t,
        flux_evaluations: euler.flux_evaluations,
    };
    let procs = comm.size() as f64;
    let flow_s = sums[1] / 1e3;
    Ok(EulerRecord {
        iteration: euler.iteration,
        time: euler.time,
        leaves: sums[0] as u64,
        mass_change: change[0],
        energy_change: change[2],
        adapt_conservation: adapt.into_iter().fold(0.0, f64::max),
        density_l1,
        load_imb: if sums[0] > 0.0 {
            most * procs / sums[0]
        } else {
            1.0
        },
        moved_trees: moved.trees,
        moved_bytes: moved.bytes,
        flux_rate: if flow_s > 0.0 { sums[5] / flow_s } else { 0.0 },
        time_ms: BTreeMap::from([
            ("flow", sums[1]),
            ("adaptation", sums[2]),
            ("balancing", sums[3]),
            ("migration", sums[4]),
        ]),
    })
}

/// Writes this rank's piece of output `step` (a collective): rank 0 lists the output's files
/// before any rank writes, and writes the index and the collection after every rank did.
fn write_output<C: Comm + ?Sized>(
    euler: &EulerRun<C>,
    series: &ranks::Series,
    step: usize,
    rank0: Option<&mut Reporter<Rank0>>,
) -> Result<()> {
    let forest = euler.run.forest();
    let states: Vec<Primitive> = euler.mesh.state.iter().map(Primitive::of).collect();
    let arrays = [
        rank_cells(forest, euler.run.owner()),
        CellArray::float("density", states.iter().map(|w| w.rho).collect()),
        CellArray::vector("velocity", states.iter().map(|w| w.vel).collect()),
        CellArray::float("pressure", states.iter().map(|w| w.p).collect()),
    ];
    Ok(series.write_agreed(
        euler.run.comm(),
        (step, euler.time),
        (forest, &arrays),
        rank0.map(|out| (&mut out.folder, &mut out.indices)),
    )?)
}

/// Refuses a probe point outside the mesh (located with the initial mesh's own locator,
/// which the run then uses).
fn check_probes(probes: &[[f64; 3]], initial: &InitialMesh) -> Result {
    let locator = initial.locator();
    match probes.iter().find(|&&p| locator.locate_root(p).is_none()) {
        Some(p) => {
            let (lo, hi) = geometry::bounding_box(initial.mesh().coords.iter().copied());
            Err(Error::ProbeOutside { point: *p, lo, hi })
        }
        None => Ok(()),
    }
}
