//! Critical-path speed-up and work inflation of the distributed runs on thread ranks
//! (`docs/performance.md`): CPU time, not wall time, so a
//! 2-core machine can say what P dedicated cores would do. Every rank's CPU clock is read at
//! every collective of start-up, of each step and (Euler) of the flow between steps
//! ([`plume::metrics::RunCpu`]); reading the mesh, done once before the ranks start, counts on
//! the critical path by the process's clock. Every run starts as the commands do, from chunks
//! (`Run::from_chunk`): rank 0 spreads the mesh read once, or each rank generates its block of
//! a box.
//!
//! The runs of `docs/performance.md`'s table (no output), each on P = 1, 2, 4, 8, 16, 32:
//! - `metis`: the shock case with the library alone (`meshes/shock_box.msh`, 9 levels of a
//!   moving cylinder, depth 3), PLUM with METIS on rank 0, each rank holding its part
//!   (`Run::from_chunk`: rank 0 spreads the mesh read once), as `plume run shock` does;
//! - `diffusion`: the same with `--partitioner diffusion`'s PLUM (the diffusion partitioner on
//!   the gathered weights, the identity remap), as `plume run shock --partitioner diffusion`;
//! - `diffusive`: the same with the diffusive repartitioner on the ranks' own rows
//!   (`dist::Diffusive`, nothing gathered: `run euler`'s default, not yet `run shock`'s);
//! - `process`: `metis` with a processing level after every step (`--process --kernel-sweeps
//!   200`: each rank its own roots); the level counts as one segment per rank
//!   (`Phase::Process`: its inner collectives are not cut, a lower bound of its critical path);
//! - `euler`: `run euler --case blast --mesh meshes/shock_box.msh --max-depth 2` (the diffusive
//!   repartitioner on the ranks' rows, Hilbert-curve first owners: `run euler`'s defaults) to
//!   `t_end` 0.01 (a third of `docs/performance.md`'s run, to keep the benchmark short), or
//!   `PLUME_SCALING_T_END` (0.03: `docs/performance.md`'s).
//!
//! For each run it prints the critical path, the CPU summed over ranks, the speed-up (CPU at
//! P = 1 / critical path at P), the work inflation (CPU at P / CPU at P = 1) and start-up's
//! share of the critical path; then its phases at P = 16 next to P = 1's.
//!
//! `weak` (only when named): weak scaling, 24,576 roots a rank (generated boxes of `6·a·b·c`
//! roots, the cells doubled one axis at a time with P), 3 steps refining a periodic pattern
//! of slabs (the same share of every rank's leaves), the diffusive repartitioner and the
//! Hilbert curve's first owners; the critical path per step against P = 1's.
//!
//! `cargo bench -p plume-cases --bench scaling` (or `cargo bench --bench scaling`);
//! `PLUME_SCALING_P=16` runs one P besides P = 1 (e.g. under `perf`), `PLUME_SCALING_RUN=
//! metis,euler` some runs, `PLUME_SCALING_RUN=weak` the weak scaling.

#[path = "../../benches/common/shock_case.rs"]
mod shock_case;

use plume::adapt::{AdaptOptions, LeafView};
use plume::balance::{Plum, PlumOptions, Threshold};
use plume::comm::{Comm, CpuClock};
use plume::dist::{
    Balancer, CpuLaps, Diffusive, FirstOwners, GatheredPlum, Kernel, LevelOptions, Mark,
    Processing, Run,
};
use plume::mesh::chunk::spread;
use plume::mesh::{generate_box_chunk, Mesh};
use plume::metrics::{Phase, RunCpu};
use plume::partition::{Diffusion, Sfc};
use plume_cases::euler::record::{balancer_over, first_owners, EulerRunConfig};
use plume_cases::euler::scheme::Boundaries;
use plume_cases::euler::{
    Case, EulerConfig, EulerRun, IndicatorOptions, InitialRefinement, MemoryBudget, SchemeOptions,
};
use plume_cases::ranks::{launch_threads, ForRank0};
use plume_cases::words::{Balancer as BalancerName, InitialName, ObjectiveName, PartitionerName};
use shock_case::{options, read_shock_mesh, shock_mark};

const LEVELS: usize = 9;
/// `--kernel-sweeps` of the `process` run.
const KERNEL_SWEEPS: u32 = 200;
/// The Euler blast's `t_end` here: a third of `docs/performance.md`'s 0.03, so that the benchmark
/// takes minutes (its P = 1 run alone takes about 20 CPU seconds to 0.03).
const EULER_T_END: f64 = 0.01;
/// Roots a rank holds in the weak scaling: 6 · 16³.
const WEAK_ROOTS_PER_RANK: usize = 6 * 16 * 16 * 16;
/// Steps of the weak scaling.
const WEAK_STEPS: usize = 3;

/// The mesh `read` once before the ranks start (timed on the process's clock: the reader's
/// checks use rayon's pool), for rank 0 to take and spread.
fn read_once(read: impl FnOnce() -> Mesh) -> (ForRank0<Mesh>, CpuLaps) {
    let mut serial = CpuLaps::start(CpuClock::Process);
    let mesh = read();
    serial.lap(Phase::Read);
    (ForRank0::new(Some(mesh)), serial)
}

/// How a shock run rebalances.
#[derive(Clone, Copy)]
enum Repartition {
    /// PLUM on rank 0's gathered weights with this partitioner, as `plume run shock
    /// --partitioner` builds it (the diffusion partitioner with the identity remap).
    Gathered(PartitionerName),
    /// The diffusive repartitioner on the ranks' own rows (`dist::Diffusive`, `run euler`'s).
    OnRanks,
}

/// The shock runs' balancer, METIS's first owners; the partitioners run on rank 0's dual
/// graph.
fn shock_balancer(procs: usize, repartition: Repartition) -> Box<dyn Balancer> {
    let first = InitialName::Metis.build(1);
    let policy = Box::new(Threshold::default());
    let built = match repartition {
        Repartition::Gathered(partitioner) => {
            let objective = match partitioner.keeps_parts_on_ranks() {
                true => ObjectiveName::Identity,
                false => ObjectiveName::TotalV,
            };
            let plum = Plum::with(
                PlumOptions::new(procs),
                partitioner.build(1),
                objective.build(),
                policy,
            );
            plum.map(|p| Box::new(GatheredPlum::new(p.first_by(first))) as Box<dyn Balancer>)
        }
        Repartition::OnRanks => {
            Diffusive::with(PlumOptions::new(procs), Diffusion::default(), policy, first)
                .map(|d| Box::new(d) as Box<dyn Balancer>)
        }
    };
    built.expect("the balancer's options")
}

/// A shock run on `procs` thread ranks rebalanced by `repartition`, a processing level after
/// each step when `process`: its account, as rank 0 gathered it.
fn shock_run(procs: usize, repartition: Repartition, process: bool) -> RunCpu {
    let (mesh, serial) = read_once(read_shock_mesh);
    let mut runs = launch_threads(procs, |comm| {
        let mesh = mesh.take(comm);
        let balancer = shock_balancer(procs, repartition);
        let chunk = |comm: &_| spread(comm, mesh);
        let mut run = Run::from_chunk(comm, chunk, options(), balancer, FirstOwners::Balancer)?;
        let mut account = plume_cases::cpu::start(comm, run.startup_cpu(), Some(&serial))?;
        for level in 1..=LEVELS {
            let report = run.step(|leaf| shock_mark(leaf, level))?;
            plume_cases::cpu::add_step(comm, &mut account, &report.cpu)?;
            if process {
                run.account(Phase::Process);
                let opts = LevelOptions::new(Processing::Static);
                run.process(&opts, &mut Kernel::new(KERNEL_SWEEPS))?;
                plume_cases::cpu::add_between_steps(comm, &mut account, &run.take_cpu())?;
            }
        }
        Ok(account)
    })
    .expect("the ranks run");
    runs.swap_remove(0)
}

/// `run euler --case blast --max-depth 2`'s settings on `mesh` to `t_end`, on `procs` ranks.
fn blast_config(procs: usize, mesh: &Mesh, t_end: f64) -> EulerRunConfig {
    let (lo, hi) = plume::mesh::geometry::bounding_box(mesh.coords.iter().copied());
    let extent = (0..3).map(|d| hi[d] - lo[d]).fold(f64::INFINITY, f64::min);
    EulerRunConfig {
        procs,
        balancer: BalancerName::Plum,
        partitioner: PartitionerName::Diffusion,
        initial: InitialName::Sfc,
        policy: None,
        sbn: None,
        hier: None,
        grid: None,
        latency: None,
        minex: None,
        output_every: 50,
        bc: Vec::new(),
        inflow: None,
        euler: EulerConfig {
            case: Case::blast(std::array::from_fn(|d| 0.5 * (lo[d] + hi[d])), 0.2 * extent),
            scheme: SchemeOptions::default(),
            indicator: IndicatorOptions {
                max_depth: 2,
                ..IndicatorOptions::default()
            },
            initial: InitialRefinement::Adaptive,
            adapt_every: 2,
            t_end,
            memory: MemoryBudget::UNLIMITED,
        },
    }
}

/// The Euler blast on `procs` thread ranks to `t_end`: its account (start-up, the adaptation
/// steps and the flow between them), as rank 0 gathered it.
fn euler_run(procs: usize, t_end: f64) -> RunCpu {
    let mut serial = CpuLaps::start(CpuClock::Process);
    let mesh = read_shock_mesh();
    serial.lap(Phase::Read);
    let cfg = blast_config(procs, &mesh, t_end);
    let boundaries = Boundaries::from_tags(&mesh.tags, &[], cfg.euler.case.inflow()).expect("tags");
    let mesh = ForRank0::new(Some(mesh));
    let mut runs = launch_threads(procs, |comm| {
        // As `run euler` does: the partitioners run on rank 0, which holds the mesh.
        let mesh = mesh.take(comm);
        let first = first_owners(&cfg);
        let balancer = balancer_over(&cfg)?;
        let chunk = |comm: &_| spread(comm, mesh);
        let settings = (cfg.euler, boundaries.clone(), None);
        let mut euler = EulerRun::from_chunk(comm, chunk, settings, balancer, first)?;
        let mut account = plume_cases::cpu::start(comm, euler.run.startup_cpu(), Some(&serial))?;
        while !euler.finished() {
            euler.iterate()?;
        }
        for step in euler.take_step_cpu() {
            plume_cases::cpu::add_step(comm, &mut account, &step)?;
        }
        plume_cases::cpu::add_between_steps(comm, &mut account, &euler.take_flow_cpu())?;
        Ok(account)
    })
    .expect("the ranks run");
    runs.swap_remove(0)
}

/// Prints the table of one run over `procs` (P = 1 is the baseline and always runs) and its
/// phases at P = 16 next to P = 1's.
fn table(title: &str, procs: &[usize], run: impl Fn(usize) -> RunCpu) {
    let serial_run = run(1);
    let serial = serial_run.cpu_s();
    println!("\n{title}; CPU seconds, thread ranks");
    println!("| P | critical path s | CPU s (sum) | speed-up | work inflation | start-up share |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut at16 = None;
    for &p in procs {
        let account = if p == 1 { serial_run.clone() } else { run(p) };
        println!(
            "| {p} | {:.3} | {:.3} | {:.2}x | {:.2} | {:.0} % |",
            account.critical_path_s(),
            account.cpu_s(),
            account.speed_up(serial).unwrap_or(f64::NAN),
            account.work_inflation(serial).unwrap_or(f64::NAN),
            100.0 * account.startup_share()
        );
        if p == 16 {
            at16 = Some(account);
        }
    }
    if let Some(account) = at16 {
        print_phases(16, &serial_run, &account);
    }
}

/// Prints the phases of a run at P = `procs` (`account`) next to those of P = 1 (`serial`).
fn print_phases(procs: usize, serial: &RunCpu, account: &RunCpu) {
    println!("\nP = {procs}, per phase (seconds over the run), and P = 1's");
    println!("| phase | P = 1 | critical path | largest rank | sum over ranks |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (phase, cpu) in &account.phases {
        let one = serial.phases.get(phase).map_or(0.0, |c| c.sum_s);
        println!(
            "| {phase:?} | {one:.3} | {:.3} | {:.3} | {:.3} |",
            cpu.critical_s, cpu.max_s, cpu.sum_s
        );
    }
}

/// The weak scaling's box on `procs` ranks: 16³ cells of 6 roots a rank, the cells doubled
/// along x, y, z in turn as P doubles (P a power of 2).
fn weak_cells(procs: usize) -> [usize; 3] {
    let mut cells = [16; 3];
    for k in 0..procs.trailing_zeros() as usize {
        cells[k % 3] *= 2;
    }
    cells
}

/// The weak scaling's marks at `step`: slabs of one cell across x, every 4 cells, one cell
/// further each step (refined where they are, coarsened where they were): a quarter of every
/// rank's region, whatever its shape, once regions span several periods.
fn slabs(leaf: &LeafView, step: usize) -> Mark {
    let x = (leaf.centroid[0] - step as f64).rem_euclid(4.0);
    if x < 1.0 {
        Mark::Refine
    } else if leaf.level > 0 {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

/// Start-up of the weak scaling on one rank: each rank generates its block of the box of
/// `cells` cells, the Hilbert curve's first owners across the ranks, the diffusive
/// repartitioner.
fn weak_start<C: Comm + ?Sized>(comm: &C, cells: [usize; 3]) -> plume::Result<Run<'_, C>> {
    let diffusive = Diffusive::with(
        PlumOptions::new(comm.size()),
        Diffusion::default(),
        Box::new(Threshold::default()),
        Box::new(Sfc),
    )?;
    let opts = AdaptOptions {
        max_depth: 1,
        ..AdaptOptions::default()
    };
    let size = cells.map(|c| c as f64);
    let chunk = |comm: &C| generate_box_chunk(cells, size, comm.rank(), comm.size());
    Run::from_chunk(comm, chunk, opts, diffusive, FirstOwners::Sfc)
}

/// The weak scaling over `procs` (see the module doc).
fn weak(procs: &[usize]) {
    println!(
        "\nweak scaling: {WEAK_ROOTS_PER_RANK} roots a rank, {WEAK_STEPS} steps of moving slabs, \
         diffusion, SFC start; CPU seconds, thread ranks"
    );
    println!(
        "| P | box cells | roots | leaves after | critical path a step s | over P = 1 | CPU a step \
         a rank s | start-up critical path s |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut base: Option<(f64, RunCpu)> = None;
    let mut last = None;
    for &p in procs {
        let cells = weak_cells(p);
        let mut runs = launch_threads(p, |comm| {
            let mut run = weak_start(comm, cells)?;
            let mut account = plume_cases::cpu::start(comm, run.startup_cpu(), None)?;
            let mut leaves = 0;
            for step in 0..WEAK_STEPS {
                let report = run.step(|leaf| slabs(leaf, step))?;
                leaves = report.metrics.leaves;
                plume_cases::cpu::add_step(comm, &mut account, &report.cpu)?;
            }
            Ok((account, leaves))
        })
        .expect("the ranks run");
        let (account, leaves) = runs.swap_remove(0);
        let steps = &account.step_critical_path_s;
        let per_step = steps.iter().sum::<f64>() / steps.len() as f64;
        let base = base.get_or_insert_with(|| (per_step, account.clone())).0;
        let step_cpu = (account.cpu_s() - startup_cpu(&account)) / (WEAK_STEPS * p) as f64;
        println!(
            "| {p} | {}×{}×{} | {} | {leaves} | {per_step:.3} | {:.2} | {step_cpu:.3} | {:.3} |",
            cells[0],
            cells[1],
            cells[2],
            6 * cells.iter().product::<usize>(),
            per_step / base,
            account.startup_critical_path_s()
        );
        last = Some((p, account));
    }
    if let (Some((_, serial)), Some((p, account))) = (base, last) {
        print_phases(p, &serial, &account);
    }
}

/// Start-up's CPU summed over ranks.
fn startup_cpu(account: &RunCpu) -> f64 {
    let startup = account.phases.iter().filter(|(p, _)| p.is_startup());
    startup.map(|(_, c)| c.sum_s).sum()
}

fn main() {
    let procs: Vec<usize> = match std::env::var("PLUME_SCALING_P") {
        Ok(p) => vec![1, p.parse().expect("PLUME_SCALING_P: a number of ranks")],
        Err(_) => vec![1, 2, 4, 8, 16, 32],
    };
    let runs = std::env::var("PLUME_SCALING_RUN")
        .unwrap_or_else(|_| "metis,diffusion,diffusive,process,euler".into());
    let t_end = std::env::var("PLUME_SCALING_T_END").map_or(EULER_T_END, |t| {
        t.parse().expect("PLUME_SCALING_T_END: a time")
    });
    for name in runs.split(',') {
        match name {
            "metis" => table(
                &format!("shock case, {LEVELS} levels, PLUM (METIS)"),
                &procs,
                |p| shock_run(p, Repartition::Gathered(PartitionerName::Metis), false),
            ),
            "diffusion" => table(
                &format!("shock case, {LEVELS} levels, PLUM (--partitioner diffusion)"),
                &procs,
                |p| shock_run(p, Repartition::Gathered(PartitionerName::Diffusion), false),
            ),
            "diffusive" => table(
                &format!(
                    "shock case, {LEVELS} levels, the diffusive repartitioner on the ranks' rows"
                ),
                &procs,
                |p| shock_run(p, Repartition::OnRanks, false),
            ),
            "process" => table(
                &format!(
                    "shock case, {LEVELS} levels, PLUM (METIS), --process --kernel-sweeps \
                     {KERNEL_SWEEPS}"
                ),
                &procs,
                |p| shock_run(p, Repartition::Gathered(PartitionerName::Metis), true),
            ),
            "euler" => table(
                &format!(
                    "euler blast, meshes/shock_box.msh, --max-depth 2, t_end {t_end}, PLUM \
                     (diffusion, SFC start)"
                ),
                &procs,
                |p| euler_run(p, t_end),
            ),
            "weak" => weak(&procs),
            other => panic!(
                "PLUME_SCALING_RUN: `{other}` is none of metis, diffusion, diffusive, process, \
                 euler, weak"
            ),
        }
    }
}
