//! `plume run euler` on real ranks: P threads of this process (`--backend threads`) or the
//! processes of an `mpirun` job (`--backend mpi`), each running its part of the flow
//! ([`plume_cases::euler::EulerRun`]). Every `--output-every` iterations (and at the start and the
//! end) the ranks agree on a record (rank 0 prints its row) and, as `--vtk` says, each rank
//! writes its piece `step_XXXX/rRRRR.vtu` with the cell data `rank`, `density`, `velocity`
//! and `pressure`; rank 0 writes the output's index `step_XXXX.pvtu` and `euler.pvd`, whose
//! times are physical times. At the end rank 0 writes `metrics.json`, `metrics.csv` and
//! `summary.md`, and for a Sod case `density.svg`, the density along x against the exact
//! solution (each record also holds the density's L1 error). Each `--probe` point's state at
//! every output goes into `probe_N.csv` ([`plume_cases::probes`]).

use std::collections::BTreeMap;
use std::sync::Mutex;

use plume::adapt::InitialMesh;
use plume::comm::{launch_threads, Comm, CommExt, ReduceOp};
use plume::io::{rank_cells, write_pvd, write_pvtu, CellArray, VtuOptions, VtuPiece};
use plume::mesh::{geometry, Mesh};

use super::common::say;
use super::euler::{
    balancer, check_probes, config, euler_mesh, table_head, table_row, EulerArgs, EulerRecord,
    EulerRunConfig,
};
use super::progress::Progress;
use super::run::BackendName;
use super::shock_ranks::{index_name, piece_name};
use super::CliResult;
use plume::numbers::short;
use plume_cases::charts::{line_chart, Series};
use plume_cases::euler::validation::density_profile;
use plume_cases::euler::{Conserved, EulerRun, FlowTimes, Primitive, RiemannReference, Totals};
use plume_cases::probes::ProbeLog;
use plume_cases::provenance::{MeshSource, Provenance};
use plume_cases::report::Report;
use plume_cases::run_folder::RunFolder;
use plume_cases::stream::Streamed;
use plume_cases::words::VtkLevels;

/// The threads backend's P: `--procs`, or 2.
const DEFAULT_PROCS: usize = 2;

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

/// Runs `plume run euler`.
pub(super) fn run(args: &EulerArgs) -> CliResult {
    match args.backend {
        BackendName::Threads => threads(args),
        BackendName::Mpi => mpi(args),
    }
}

/// `plume run euler` on P threads.
fn threads(args: &EulerArgs) -> CliResult {
    let (mesh, source) = euler_mesh(args)?;
    let cfg = config(args, args.procs.unwrap_or(DEFAULT_PROCS), &mesh)?;
    // The ranks share one copy of the initial mesh and its topology.
    let initial = InitialMesh::new(mesh)?;
    check_probes(&args.probes, &initial)?;
    let rank0 = Mutex::new(Some(Rank0::open(args, &cfg, initial.nroots(), source)?));
    launch_threads(cfg.procs, |comm| {
        on_rank(comm, args, &cfg, &initial, &rank0)
    })?;
    say(format!("\nwrote {}", args.out.display()))
}

/// `plume run euler --backend mpi`: this process's rank of the `mpirun` job.
#[cfg(feature = "mpi")]
fn mpi(args: &EulerArgs) -> CliResult {
    use super::shock_ranks::{agree, mpi_job, mpi_procs};
    mpi_job(|comm| {
        let size = mpi_procs(args.procs, comm.size())?;
        let root = comm.rank() == 0;
        let (mesh, source) = agree(comm, euler_mesh(args))?;
        let cfg = agree(comm, config(args, size, &mesh))?;
        let initial = agree(comm, InitialMesh::new(mesh).map_err(Into::into))?;
        agree(comm, check_probes(&args.probes, &initial))?;
        let rank0 = match root {
            true => Rank0::open(args, &cfg, initial.nroots(), source).map(Some),
            false => Ok(None),
        };
        let rank0 = Mutex::new(agree(comm, rank0)?);
        on_rank(comm, args, &cfg, &initial, &rank0)?;
        if root {
            say(format!("\nwrote {}", args.out.display()))?;
        }
        Ok(())
    })
}

/// Without MPI built in, `--backend mpi` is a usage error saying how to get it.
#[cfg(not(feature = "mpi"))]
fn mpi(_: &EulerArgs) -> CliResult {
    Err(super::shock_ranks::no_mpi("euler"))
}

/// What rank 0 keeps: the output folder, the table, the records and the written outputs, and
/// the progress bar (on a terminal: the physical time reached, in thousandths of `t_end`).
struct Rank0 {
    folder: RunFolder,
    printed: Streamed<std::io::Stdout>,
    progress: Progress,
    source: Option<MeshSource>,
    records: Vec<EulerRecord>,
    /// `(physical time, .pvtu name)` of each written output.
    indices: Vec<(f64, String)>,
    /// The probes' time series.
    probes: ProbeLog,
}

impl Rank0 {
    fn open(
        args: &EulerArgs,
        cfg: &EulerRunConfig,
        roots: usize,
        source: Option<MeshSource>,
    ) -> CliResult<Self> {
        // The folder first: one that cannot be written fails before the table starts.
        let folder = RunFolder::open(&args.out)?;
        let mut printed = Streamed::stdout();
        printed
            .print(&table_head(cfg, roots))
            .map_err(super::common::stdout_failure)?;
        Ok(Rank0 {
            folder,
            printed,
            progress: Progress::bar(PROGRESS_STEPS, "euler"),
            source,
            records: Vec::new(),
            indices: Vec::new(),
            probes: ProbeLog::new(args.probes.clone(), &PROBE_COLUMNS),
        })
    }

    /// Prints the row of `record` and keeps it.
    fn row(&mut self, record: EulerRecord) -> plume::Result<()> {
        let printed = &mut self.printed;
        self.progress
            .suspend(|| printed.print(&table_row(&record)))
            .map_err(|e| plume::Error::io("stdout", &e))?;
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
    args: &EulerArgs,
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
    let options = VtuOptions::from(args.vtk_compression);
    let mut step = 0;
    loop {
        let record = record(comm, &mut euler, exact.as_ref(), &start, &mut since)?;
        comm.agree(mine.as_mut().map_or(Ok(()), |out| out.row(record)))?;
        if !args.probes.is_empty() {
            let readings = euler.run.probe(&args.probes)?;
            let logged = mine.as_mut().map_or(Ok(()), |out| {
                out.probes
                    .record(euler.time, euler.iteration as u64, &readings, probe_values);
                out.probes.write(&mut out.folder)
            });
            comm.agree(logged)?;
        }
        let writes = match args.vtk {
            VtkLevels::All => true,
            VtkLevels::Last => step == 0 || euler.finished(),
            VtkLevels::None => false,
        };
        if writes {
            write_output(&euler, cfg, step, &options, args, mine.as_mut())?;
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
    args: &EulerArgs,
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
    let path = args.out.join(piece_name(STEP, step, comm.rank()));
    let written = VtuPiece::forest(forest, &arrays).and_then(|piece| piece.write(&path, options));
    comm.agree(written)?;
    let indexed = match rank0 {
        Some(out) => out.index(step, euler.time, cfg.procs),
        None => Ok(()),
    };
    comm.agree(indexed)
}
