//! The Euler case run whole on real ranks: P threads of this process ([`threads`]) or the
//! processes of an `mpirun` job ([`mpi`]), each running its part of the flow
//! ([`super::EulerRun`]). Every `output_every` iterations (and at the start and the
//! end) the ranks agree on a record (rank 0 prints its row) and, as `vtk` says, each rank
//! writes its piece `step_XXXX/rRRRR.vtu` with the cell data `rank`, `density`, `velocity`
//! and `pressure`; rank 0 writes the output's index `step_XXXX.pvtu` and `euler.pvd`, whose
//! times are physical times. At the end rank 0 writes `metrics.json`, `metrics.csv` and
//! `summary.md`, and for a Sod case `density.svg`, the density along x against the exact
//! solution (each record also holds the density's L1 error). Each probe point's state at
//! every output goes into `probe_N.csv` ([`crate::probes`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use plume::adapt::InitialMesh;
use plume::comm::{launch_threads, Comm, CommExt, ReduceOp};
use plume::io::{rank_cells, write_pvd, write_pvtu, CellArray, VtuOptions, VtuPiece};
use plume::mesh::{geometry, Mesh};
use plume::numbers::short;

use super::record::{balancer, table_head, table_row, EulerRecord, EulerRunConfig};
use super::validation::density_profile;
use super::{Conserved, EulerRun, FlowTimes, Primitive, RiemannReference, Totals};
use crate::charts::{line_chart, Series};
use crate::error::{Error, Result};
use crate::probes::ProbeLog;
use crate::progress::{Host, Progress};
use crate::provenance::{MeshSource, Provenance};
use crate::rank_job::{index_name, piece_name};
use crate::report::Report;
use crate::run_folder::RunFolder;
use crate::stream::{say, Streamed};
use crate::words::VtkLevels;

/// The threads backend's P when the request names none.
pub const DEFAULT_PROCS: usize = 2;

/// A run of the Euler case as its caller asks for it.
pub struct Request<'a> {
    /// Ranks [default: [`DEFAULT_PROCS`] on threads; under MPI the job's size, which this
    /// must equal when given].
    pub procs: Option<usize>,
    /// Makes the initial mesh and its source (`None`: a generated box).
    pub mesh: &'a (dyn Fn() -> Result<(Mesh, Option<MeshSource>)> + Sync),
    /// The run's configuration on P ranks over the initial mesh (the caller's checks of its
    /// settings).
    pub config: &'a (dyn Fn(usize, &Mesh) -> Result<EulerRunConfig> + Sync),
    /// Points whose state every output records (`probe_N.csv`).
    pub probes: &'a [[f64; 3]],
    /// The output folder.
    pub out: &'a Path,
    /// Which outputs get VTK files.
    pub vtk: VtkLevels,
    /// How the `.vtu` files store their data.
    pub vtk_options: VtuOptions,
    /// Progress bars and the outcome under MPI.
    pub host: &'a dyn Host,
}

/// What the outputs are called.
const STEP: &str = "step";

/// The collection of the outputs.
const PVD: &str = "euler.pvd";

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

/// The Euler case on P threads.
pub fn threads(req: &Request) -> Result {
    let (mesh, source) = (req.mesh)()?;
    let cfg = (req.config)(req.procs.unwrap_or(DEFAULT_PROCS), &mesh)?;
    // The ranks share one copy of the initial mesh and its topology.
    let initial = InitialMesh::new(mesh)?;
    check_probes(req.probes, &initial)?;
    let rank0 = Mutex::new(Some(Rank0::open(req, &cfg, initial.nroots(), source)?));
    launch_threads(cfg.procs, |comm| on_rank(comm, req, &cfg, &initial, &rank0))?;
    say(format!("\nwrote {}", req.out.display()))
}

/// The Euler case as this process's rank of the `mpirun` job.
#[cfg(feature = "mpi")]
pub fn mpi(req: &Request) -> Result {
    use crate::rank_job::{agree, mpi_job, mpi_procs};
    mpi_job(req.host, |comm| {
        let size = mpi_procs(req.procs, comm.size())?;
        let root = comm.rank() == 0;
        let (mesh, source) = agree(comm, (req.mesh)())?;
        let cfg = agree(comm, (req.config)(size, &mesh))?;
        let initial = agree(comm, InitialMesh::new(mesh).map_err(Into::into))?;
        agree(comm, check_probes(req.probes, &initial))?;
        let rank0 = match root {
            true => Rank0::open(req, &cfg, initial.nroots(), source).map(Some),
            false => Ok(None),
        };
        let rank0 = Mutex::new(agree(comm, rank0)?);
        on_rank(comm, req, &cfg, &initial, &rank0)?;
        if root {
            say(format!("\nwrote {}", req.out.display()))?;
        }
        Ok(())
    })
}

/// Without MPI built in, the MPI backend is refused.
#[cfg(not(feature = "mpi"))]
pub fn mpi(_: &Request) -> Result {
    Err(crate::rank_job::no_mpi("euler"))
}

/// What rank 0 keeps: the output folder, the table, the records and the written outputs, and
/// the progress bar (on a terminal: the physical time reached, in thousandths of `t_end`).
struct Rank0 {
    folder: RunFolder,
    printed: Streamed<std::io::Stdout>,
    progress: Box<dyn Progress>,
    source: Option<MeshSource>,
    records: Vec<EulerRecord>,
    /// `(physical time, .pvtu name)` of each written output.
    indices: Vec<(f64, String)>,
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
        // The folder first: one that cannot be written fails before the table starts.
        let folder = RunFolder::open(req.out)?;
        let mut printed = Streamed::stdout();
        printed
            .print(&table_head(cfg, roots))
            .map_err(Error::Stdout)?;
        Ok(Rank0 {
            folder,
            printed,
            progress: req.host.bar(PROGRESS_STEPS, "euler".into()),
            source,
            records: Vec::new(),
            indices: Vec::new(),
            probes: ProbeLog::new(req.probes.to_vec(), &PROBE_COLUMNS),
        })
    }

    /// Prints the row of `record` and keeps it.
    fn row(&mut self, record: EulerRecord) -> plume::Result<()> {
        let printed = &mut self.printed;
        let mut outcome = Ok(());
        self.progress
            .suspend(&mut || outcome = printed.print(&table_row(&record)));
        outcome.map_err(|e| plume::Error::io("stdout", &e))?;
        self.records.push(record);
        Ok(())
    }

    /// Writes the index of output `step` (physical time `time`) of `procs` pieces, and the
    /// collection so far.
    fn index(&mut self, step: usize, time: f64, procs: usize) -> plume::Result<()> {
        let pieces: Vec<String> = (0..procs).map(|r| piece_name(STEP, step, r)).collect();
        let layout = [
            CellArray::int("root", vec![]),
            CellArray::int("level", vec![]),
            CellArray::int("pattern", vec![]),
            CellArray::int("rank", vec![]),
            CellArray::float("density", vec![]),
            CellArray::vector("velocity", vec![]),
            CellArray::float("pressure", vec![]),
        ];
        let name = index_name(STEP, step);
        write_pvtu(&self.folder.dir().join(&name), &pieces, &layout)?;
        self.indices.push((time, name));
        write_pvd(&self.folder.dir().join(PVD), &self.indices)
    }

    /// Writes `density.svg`: the computed density along x at time `t` (`profile`) against
    /// the exact solution while it applies (`t` before `exact.until`), alone after.
    fn density_chart(
        &mut self,
        exact: &Reference,
        profile: &[(f64, f64)],
        t: f64,
    ) -> plume::Result<()> {
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
        let path = self.folder.file("density.svg")?;
        line_chart(&path, &title, "x", "density", &series).map_err(plume::Error::Invalid)
    }

    /// Writes the reports, after a note on the printed table when the exact solution stopped
    /// applying before the run's end at `t`.
    fn finish(
        mut self,
        cfg: &EulerRunConfig,
        exact: Option<&Reference>,
        t: f64,
    ) -> plume::Result<()> {
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
        Report::new(cfg, "iterations", &self.records)
            .with_provenance(Provenance::of_this_process(self.source.take()))
            .write(&mut self.folder, self.printed.text())
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
    /// The reference of `cfg`'s case on `mesh` (none for the blast).
    fn of(cfg: &EulerRunConfig, mesh: &Mesh) -> Option<Reference> {
        let (lo, hi) = x_range(mesh);
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
fn on_rank<C: Comm + ?Sized>(
    comm: &C,
    req: &Request,
    cfg: &EulerRunConfig,
    initial: &InitialMesh,
    rank0: &Mutex<Option<Rank0>>,
) -> plume::Result<()> {
    let mut mine = match comm.rank() {
        0 => rank0.lock().map_or(None, |mut r| r.take()),
        _ => None,
    };
    let plum = comm.agree(balancer(cfg))?;
    let mut euler = match cfg.sbn {
        Some(sbn) => EulerRun::with_sbn(comm, initial, cfg.euler, (plum, sbn))?,
        None => EulerRun::new(comm, initial, cfg.euler, plum)?,
    };
    let start = euler.totals()?;
    let exact = Reference::of(cfg, initial.mesh());
    let mut since = Since::default();
    let options = req.vtk_options;
    let mut step = 0;
    loop {
        let record = record(comm, &mut euler, exact.as_ref(), &start, &mut since)?;
        comm.agree(mine.as_mut().map_or(Ok(()), |out| out.row(record)))?;
        if !req.probes.is_empty() {
            let readings = euler.run.probe(req.probes)?;
            let logged = mine.as_mut().map_or(Ok(()), |out| {
                out.probes
                    .record(euler.time, euler.iteration as u64, &readings, probe_values);
                out.probes.write(&mut out.folder)
            });
            comm.agree(logged)?;
        }
        let writes = match req.vtk {
            VtkLevels::All => true,
            VtkLevels::Last => step == 0 || euler.finished(),
            VtkLevels::None => false,
        };
        if writes {
            write_output(&euler, cfg, step, &options, req, mine.as_mut())?;
        }
        if euler.finished() {
            break;
        }
        step += 1;
        loop {
            euler.iterate()?;
            if let Some(out) = &mine {
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
        Some(exact) => Some((exact, sod_profile(&euler)?)),
        None => None,
    };
    let finished = mine.map_or(Ok(()), |mut out| {
        if let Some((exact, profile)) = &profile {
            out.density_chart(exact, profile, euler.time)?;
        }
        out.finish(cfg, exact.as_ref(), euler.time)
    });
    comm.agree(finished)
}

/// The density along x in [`PROFILE_SLABS`] slabs over the mesh's extent (a collective).
fn sod_profile<C: Comm + ?Sized>(euler: &EulerRun<C>) -> plume::Result<Vec<(f64, f64)>> {
    density_profile(
        euler.run.comm(),
        euler.run.forest(),
        x_range(euler.run.forest().mesh()),
        PROFILE_SLABS,
    )
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
) -> plume::Result<EulerRecord> {
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
    cfg: &EulerRunConfig,
    step: usize,
    options: &VtuOptions,
    req: &Request,
    rank0: Option<&mut Rank0>,
) -> plume::Result<()> {
    let comm = euler.run.comm();
    let mut rank0 = rank0;
    let listed = match rank0.as_mut() {
        Some(out) => {
            let mut names: Vec<String> =
                (0..cfg.procs).map(|r| piece_name(STEP, step, r)).collect();
            names.push(index_name(STEP, step));
            names.push(PVD.to_string());
            out.folder.list(&names)
        }
        None => Ok(()),
    };
    comm.agree(listed)?;
    let forest = euler.run.forest();
    let states: Vec<Primitive> = euler.mesh.state.iter().map(Primitive::of).collect();
    let arrays = [
        rank_cells(forest, euler.run.owner()),
        CellArray::float("density", states.iter().map(|w| w.rho).collect()),
        CellArray::vector("velocity", states.iter().map(|w| w.vel).collect()),
        CellArray::float("pressure", states.iter().map(|w| w.p).collect()),
    ];
    let path = req.out.join(piece_name(STEP, step, comm.rank()));
    let written = VtuPiece::forest(forest, &arrays).and_then(|piece| piece.write(&path, options));
    comm.agree(written)?;
    let indexed = match rank0 {
        Some(out) => out.index(step, euler.time, cfg.procs),
        None => Ok(()),
    };
    comm.agree(indexed)
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
