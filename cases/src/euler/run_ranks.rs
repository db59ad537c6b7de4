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
use plume::io::{rank_cells, CellArray};
use plume::mesh::chunk::spread;
use plume::mesh::{geometry, Mesh};
use plume::metrics::{Phase, RunCpu};
use plume::numbers::short;

use super::decisions::{DecisionsSummary, EulerDecision};
use super::record::{
    balancer_over, first_owners, table_head, table_row, EulerRecord, EulerRunConfig,
};
use super::scheme::Boundaries;
use super::validation::density_profile;
use super::{Conserved, EulerRun, FlowTimes, Gas, Primitive, RiemannReference, Totals};
use crate::charts::{line_chart, Series};
use crate::checkpoint::Checkpoints;
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
    /// Makes the initial mesh and its source (`None`: a generated box). Only the process that
    /// runs rank 0 makes it.
    pub mesh: &'a (dyn Fn() -> Result<(Mesh, Option<MeshSource>)> + Sync),
    /// The run's configuration on P ranks over a mesh of that extent (the caller's checks of
    /// its settings), made on every process.
    pub config: &'a (dyn Fn(usize, &MeshExtent) -> Result<EulerRunConfig> + Sync),
    /// The caller's checks of a configuration against the whole initial mesh, before the run
    /// starts (on the process that makes the mesh).
    pub check: &'a (dyn Fn(&EulerRunConfig, &Mesh) -> Result + Sync),
    /// Points whose state every output records (`probe_N.csv`).
    pub probes: &'a [[f64; 3]],
    /// The ranks, the output folder, the VTK files and the host.
    pub ranks: Ranks<'a>,
    /// The checkpoints it writes (at outputs whose iteration is a multiple of
    /// `checkpoints.every`) and the one it continues from.
    pub checkpoints: &'a Checkpoints,
}

/// What an Euler run's checkpoint holds besides the leaves and their states: where the flow
/// and its outputs are, and the totals the records' conservation is measured from.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Resumed {
    time: f64,
    iteration: usize,
    /// The outputs written (the index of the last).
    output: usize,
    start: Totals,
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

/// The number of roots and the bounding box of a whole initial mesh: what a run's
/// configuration depends on ([`Request::config`]), known to every process.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeshExtent {
    /// The mesh's roots.
    pub roots: usize,
    /// The smallest coordinates of its vertices.
    pub lo: [f64; 3],
    /// The largest coordinates of its vertices.
    pub hi: [f64; 3],
}

impl MeshExtent {
    /// The extent of `mesh`.
    pub fn of(mesh: &Mesh) -> MeshExtent {
        let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
        MeshExtent {
            roots: mesh.nelems(),
            lo,
            hi,
        }
    }

    /// The extent along x.
    fn x(&self) -> (f64, f64) {
        (self.lo[0], self.hi[0])
    }
}

/// What the run needs of the whole mesh, made by the process that makes the mesh and sent
/// from rank 0 to the others: its extent and the boundary conditions of its groups.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Whole {
    extent: MeshExtent,
    boundaries: Boundaries,
}

/// What a process prepares. The process that runs rank 0 (every process on threads) makes the
/// mesh, the configuration and what the run needs of the whole mesh, and keeps the mesh's
/// provenance (rank 0's report takes it); under MPI the other processes make nothing and
/// learn the rest from rank 0 when the run starts.
struct Setup {
    /// The configuration, where the mesh was made.
    cfg: Option<EulerRunConfig>,
    /// The mesh, made once for rank 0 to take and spread in chunks ([`EulerRun::from_chunk`]):
    /// no other rank holds it.
    mesh: ForRank0<Mesh>,
    /// What the run needs of the whole mesh, where it was made.
    whole: Option<Whole>,
    /// The CPU spent making the mesh (and locating the probes in it).
    serial: plume::dist::CpuLaps,
    source: Option<MeshSource>,
}

impl Setup {
    /// The configuration, on the process that runs rank 0 (which reports).
    fn reported(&self) -> &EulerRunConfig {
        self.cfg
            .as_ref()
            .expect("the reporting process made the configuration")
    }
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
        if !process.reports {
            return Ok(Setup {
                cfg: None,
                mesh: ForRank0::new(None),
                whole: None,
                serial,
                source: None,
            });
        }
        let (mesh, source) = (self.0.mesh)()?;
        serial.lap(Phase::Read);
        let extent = MeshExtent::of(&mesh);
        let cfg = (self.0.config)(process.procs, &extent)?;
        (self.0.check)(&cfg, &mesh)?;
        let boundaries = cfg.boundaries(&mesh.tags)?;
        if !self.0.probes.is_empty() {
            // Probes are located in the whole mesh once, before the run.
            let initial = InitialMesh::new(mesh.clone())?;
            serial.lap(Phase::Topology);
            check_probes(self.0.probes, &initial)?;
        }
        Ok(Setup {
            cfg: Some(cfg),
            mesh: ForRank0::new(Some(mesh)),
            whole: Some(Whole { extent, boundaries }),
            serial,
            source,
        })
    }

    fn last_step(&self, _: &Setup) -> Option<usize> {
        // The number of outputs is known at the end only: each is listed when written.
        None
    }

    fn report(&self, setup: &mut Setup, _: &mut RunFolder) -> Result<Rank0> {
        let roots = setup.whole.as_ref().map_or(0, |whole| whole.extent.roots);
        let source = setup.source.take();
        Rank0::open(self.0, setup.reported(), roots, source)
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
            setup.reported(),
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
    /// The decision points, when the run records them ([`EulerRunConfig::records_decisions`]).
    decisions: Vec<EulerDecision>,
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
            decisions: Vec::new(),
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
        if cfg.records_decisions() {
            let summary = DecisionsSummary::of(&self.decisions);
            let select = DecisionsSummary::select(&self.decisions);
            let text = summary.text() + &select.map_or(String::new(), |s| s.text());
            self.printed
                .print(&text)
                .map_err(|e| plume::Error::io("stdout", &e))?;
        }
        self.printed
            .print(&crate::cpu::summary_line(cpu))
            .map_err(|e| plume::Error::io("stdout", &e))?;
        let mut report = Report::new(cfg, "iterations", &self.records);
        if cfg.records_decisions() {
            report.insert_summary("decisions", &DecisionsSummary::of(&self.decisions));
            if let Some(select) = DecisionsSummary::select(&self.decisions) {
                report.insert_summary("select", &select);
            }
        }
        report.insert_run("cpu", cpu);
        if cfg.records_decisions() {
            report.insert_run("decisions", &self.decisions);
        }
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
        cfg.euler
            .case
            .reference(cfg.euler.scheme.gas)
            .map(|exact| Reference {
                exact,
                until: exact.unbounded_until(lo, hi),
            })
    }

    /// The exact solution, if it still applies at time `t`.
    fn at(&self, t: f64) -> Option<&RiemannReference> {
        (t < self.until).then_some(&self.exact)
    }
}

/// The counters at the last output, to report what happened since.
#[derive(Default)]
struct Since {
    times: FlowTimes,
    flux_evaluations: u64,
    fallbacks: u64,
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
    let serial = &setup.serial;
    let whole: Whole = comm.broadcast_serde(0, setup.whole.as_ref())?;
    // The processes that did not make the mesh make the configuration from its extent.
    let made = match &setup.cfg {
        Some(cfg) => Ok(cfg.clone()),
        None => (req.config)(rank.process.procs, &whole.extent),
    };
    let cfg = &comm.agree_as(made)?;
    // Rank 0 takes the mesh its process made and spreads it.
    let mesh = setup.mesh.take(comm);
    let first = first_owners(cfg);
    let plum = comm.agree(balancer_over(cfg))?;
    let settings = (cfg.euler, whole.boundaries, cfg.sbn);
    let checkpoints = req.checkpoints;
    let (mut euler, resumed) = match &checkpoints.restart {
        None => (
            EulerRun::from_chunk(comm, |c| spread(c, mesh), settings, plum, first)?,
            None,
        ),
        Some(_) => {
            let chunk = |c: &_| spread(c, mesh);
            let (mut euler, resumed): (_, Resumed) =
                EulerRun::from_checkpoint(comm, chunk, settings, (plum, first), checkpoints)?;
            (euler.time, euler.iteration) = (resumed.time, resumed.iteration);
            if euler.finished() {
                let what = format!(
                    "the run was written at t = {}, this run ends at t = {}",
                    short(euler.time),
                    short(cfg.euler.t_end)
                );
                return Err(checkpoints.nothing_left(&what));
            }
            (euler, Some(resumed))
        }
    };
    let mut cpu = crate::cpu::start(comm, euler.run.startup_cpu(), Some(serial))?;
    let start = match resumed {
        Some(resumed) => resumed.start,
        None => euler.totals()?,
    };
    let x = whole.extent.x();
    let exact = Reference::of(cfg, x);
    let mut since = Since::default();
    let mut step = resumed.map_or(0, |r| r.output);
    // A continued run's first output is the checkpoint's, written by the run before.
    let mut recorded = resumed.is_some();
    let identity = cfg.euler.identity();
    loop {
        if !std::mem::take(&mut recorded) {
            output(
                (rank, req, cfg),
                &mut euler,
                (exact.as_ref(), &start),
                (&mut since, &mut cpu, step),
                mine.as_deref_mut(),
            )?;
            if !euler.finished() {
                let resumed = || Resumed {
                    time: euler.time,
                    iteration: euler.iteration,
                    output: step,
                    start,
                };
                checkpoints.write_if_due(&euler.run, &identity, euler.iteration, resumed)?;
            }
        }
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
        Some(exact) => Some((exact, sod_profile(&euler, x)?)),
        None => None,
    };
    Ok(Ended {
        profile,
        exact,
        time: euler.time,
        cpu,
    })
}

/// One output of the run (a collective): its record (rank 0's row), the probes, the VTK
/// pieces as asked, the adaptation steps' decisions and the CPU account since the last.
fn output<'c>(
    (rank, req, cfg): (&Rank<'c>, &Request, &EulerRunConfig),
    euler: &mut EulerRun<'c, dyn Comm + 'c>,
    (exact, start): (Option<&Reference>, &Totals),
    (since, cpu, step): (&mut Since, &mut RunCpu, usize),
    mut mine: Option<&mut Reporter<Rank0>>,
) -> Result<()> {
    let comm = rank.comm;
    let record = record(comm, euler, exact, start, since)?;
    comm.agree_as(mine.as_mut().map_or(Ok(()), |out| out.case.row(record)))?;
    if !req.probes.is_empty() {
        let readings = euler.run.probe(req.probes)?;
        let logged = mine.as_mut().map_or(Ok(()), |out| {
            let probes = &mut out.case.probes;
            let gas = euler.config().scheme.gas;
            probes.record(euler.time, euler.iteration as u64, &readings, |d| {
                probe_values(d, gas)
            });
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
        write_output(euler, rank.series, step, mine.as_deref_mut())?;
    }
    let steps = euler.take_steps();
    if let Some(out) = mine.as_mut().filter(|_| cfg.records_decisions()) {
        let model = cfg.plum().model;
        let decided = steps
            .iter()
            .filter_map(|(i, m)| EulerDecision::of(*i, m, &model, cfg.procs));
        out.case.decisions.extend(decided);
    }
    for step_cpu in euler.take_step_cpu() {
        crate::cpu::add_step(comm, cpu, &step_cpu)?;
    }
    crate::cpu::add_between_steps(comm, cpu, &euler.take_flow_cpu())?;
    Ok(())
}

/// The density along x in [`PROFILE_SLABS`] slabs over the whole mesh's extent `x` (a
/// collective).
fn sod_profile<C: Comm + ?Sized>(euler: &EulerRun<C>, x: (f64, f64)) -> Result<Vec<(f64, f64)>> {
    density_profile(euler.run.comm(), euler.run.forest(), x, PROFILE_SLABS)
}

/// A probe's columns of a leaf's state in `gas`: density, velocity, pressure.
fn probe_values(data: &[f64], gas: Gas) -> Vec<f64> {
    let u: Conserved = std::array::from_fn(|k| data[k]);
    let w = Primitive::of(&u, gas);
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
        (euler.fallbacks - since.fallbacks) as f64,
    ];
    let sums = comm.all_reduce_f64(&local, ReduceOp::Sum)?;
    let most = comm.all_reduce_f64(&[local[0]], ReduceOp::Max)?[0];
    *since = Since {
        times: t,
        flux_evaluations: euler.flux_evaluations,
        fallbacks: euler.fallbacks,
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
        fallback_faces: sums[6] as u64,
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
    let gas = euler.config().scheme.gas;
    let states: Vec<Primitive> = euler
        .mesh
        .state
        .iter()
        .map(|u| Primitive::of(u, gas))
        .collect();
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

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::progress::{Host, NoProgress};

    /// No bars.
    struct Quiet;

    impl Host for Quiet {
        fn bar(&self, _: u64, _: String) -> Box<dyn Progress> {
            Box::new(NoProgress)
        }
        fn report_failure(&self, _: &Error) {}
    }

    /// Under MPI a process that does not run rank 0 makes neither the mesh nor the
    /// configuration (it learns what it needs from rank 0 when the run starts); the process
    /// that runs rank 0 makes both.
    #[test]
    fn only_the_process_of_rank_0_makes_the_mesh() {
        let (meshes, configs) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let mesh = || -> Result<(Mesh, Option<MeshSource>)> {
            meshes.fetch_add(1, Ordering::Relaxed);
            Ok((plume::mesh::generate_box([2, 1, 1], [1.0; 3])?, None))
        };
        let config = |_, _: &MeshExtent| -> Result<EulerRunConfig> {
            configs.fetch_add(1, Ordering::Relaxed);
            Err(Error::Input("no configuration in this test".into()))
        };
        let request = Request {
            mesh: &mesh,
            config: &config,
            check: &|_, _| Ok(()),
            probes: &[],
            ranks: Ranks {
                procs: Some(2),
                mpi: true,
                out: Path::new("unused"),
                vtk: VtkLevels::None,
                vtk_options: Default::default(),
                host: &Quiet,
            },
            checkpoints: &Checkpoints::default(),
        };
        let process = |reports| Process {
            procs: 2,
            ranks_here: 1,
            reports,
        };
        let other = OnRanks(&request).setup(process(false));
        assert!(other.is_ok_and(|setup| setup.cfg.is_none() && setup.whole.is_none()));
        assert_eq!(
            (
                meshes.load(Ordering::Relaxed),
                configs.load(Ordering::Relaxed)
            ),
            (0, 0)
        );
        assert!(OnRanks(&request).setup(process(true)).is_err());
        assert_eq!(
            (
                meshes.load(Ordering::Relaxed),
                configs.load(Ordering::Relaxed)
            ),
            (1, 1)
        );
    }
}
