//! The distributed adaptive loop (`plume::dist::Run`) on thread ranks:
//! - `dist_migration`: throughput of packed trees through migration, every tree of a refined
//!   forest moving to the next rank (the name gives the bytes and elements one migration
//!   moves): the whole migration in bytes per second, then its phases, packing and unpacking
//!   (slowest rank) in elements per second and the all-to-all alone (the rank that waited
//!   least in it) in bytes per second. Issue 12 aimed at 25 % of MPI's ping-pong bandwidth
//!   (`examples/comm_mpi_bandwidth.rs`); on threads the all-to-all hands the buffers over
//!   without a copy. `examples/dist_migration_mpi.rs` measures the same under MPI;
//! - `dist_shock_9_levels`: the shock case's 9 levels with PLUM (a cylinder along z sweeping
//!   `meshes/shock_box.msh`, depth 3, as `plume run shock`) at P = 1, 2, 8, 32, the ranks
//!   sharing one initial mesh as `plume run shock` does; P = 1 is the serial program's work plus
//!   the collectives' bookkeeping, and P = 32 on this 2-core machine should take at most twice
//!   as long (start-up included);
//! - `dist_shock_9_levels_cpu`: the same steps timed by the busiest rank's CPU time (its
//!   thread's, waiting aside), which other jobs on the machine disturb far less than wall
//!   time: P = 2 should be at least 1.6 times faster than P = 1;
//! - `dist_partition`: per level of the shock case at P = 2 and 32 balanced after
//!   subdivision, rank 0's balancing (PLUM: METIS on the gathered graph, similarity matrix,
//!   reassignment, and the broadcast of its decision) against METIS alone on the same graphs
//!   (the dual graph with the weights rank 0 gathered at each level, `P·F` parts).
//!
//! `cargo bench --bench dist`

#[path = "common/migration_case.rs"]
mod migration_case;
#[path = "common/shock_case.rs"]
mod shock_case;

use shock_case::{options, shock_mark};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, CpuClock};
use plume::dist::{BalanceAt, GatheredPlum, Run};
use plume::graph::{DualGraph, Weights};
use plume::partition::{Metis, Partitioner, Targets};
use std::time::{Duration, Instant};

/// What one run of the shock case took.
struct ShockTimes {
    /// Wall-clock time from the launch of the ranks to the end of the last step.
    wall: Duration,
    /// The largest CPU time a rank spent in the steps.
    busiest_cpu: Duration,
}

/// `levels` shock levels on `procs` thread ranks sharing `initial`.
fn shock_run(initial: &InitialMesh, procs: usize, levels: usize) -> ShockTimes {
    let start = Instant::now();
    let cpu = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut run = Run::on(comm, initial, options(), GatheredPlum::new(plum))?;
        let cpu = CpuClock::Thread.now();
        for level in 1..=levels {
            run.step(|leaf| shock_mark(leaf, level))?;
        }
        Ok(CpuClock::Thread.now() - cpu)
    })
    .expect("the ranks run");
    ShockTimes {
        wall: start.elapsed(),
        busiest_cpu: cpu.into_iter().max().expect("a rank"),
    }
}

/// The shipped shock mesh with its topology.
fn shock_mesh() -> InitialMesh {
    InitialMesh::new(shock_case::read_shock_mesh()).expect("a valid mesh")
}

fn shock_levels(c: &mut Criterion) {
    let initial = shock_mesh();
    let mut group = c.benchmark_group("dist_shock_9_levels");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    for procs in [1, 2, 8, 32] {
        group.bench_function(format!("P = {procs}"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| shock_run(&initial, procs, 9).wall).sum())
        });
    }
    group.finish();
    let mut group = c.benchmark_group("dist_shock_9_levels_cpu");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    for procs in [1, 2] {
        group.bench_function(format!("P = {procs}, busiest rank"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| shock_run(&initial, procs, 9).busiest_cpu)
                    .sum()
            })
        });
    }
    group.finish();
}

/// On `procs` thread ranks, the shared migration case with `iters` migrations.
fn migrations(procs: usize, iters: u64) -> migration_case::Timed {
    let out = launch_threads(procs, |comm| migration_case::migrations(comm, iters))
        .expect("the ranks run");
    out[0]
}

/// Which time of a migration a benchmark reports.
type Phase = fn(&migration_case::Timed) -> Duration;

fn migration(c: &mut Criterion) {
    let mut group = c.benchmark_group("dist_migration");
    group.sample_size(10);
    for procs in [2, 4] {
        let moved = migrations(procs, 1).moved;
        let (bytes, elements) = (
            Throughput::Bytes(moved.bytes),
            Throughput::Elements(moved.elements),
        );
        let phases: [(&str, Throughput, Phase); 4] = [
            ("all trees", bytes.clone(), |t| t.total),
            ("pack", elements.clone(), |t| t.pack),
            ("all-to-all", bytes, |t| t.exchange),
            ("unpack", elements, |t| t.unpack),
        ];
        for (phase, throughput, time) in phases {
            group.throughput(throughput);
            group.bench_function(
                format!(
                    "{procs} ranks, {phase} ({:.1} MB, {} elements)",
                    moved.bytes as f64 / 1e6,
                    moved.elements
                ),
                |b| b.iter_custom(|iters| time(&migrations(procs, iters))),
            );
        }
    }
    group.finish();
}

/// The shock case's 9 levels on `procs` thread ranks, balanced after subdivision: rank 0's
/// balancing time summed over the levels, and the weights it balanced at each level.
fn shock_balancing(initial: &InitialMesh, procs: usize) -> (Duration, Vec<Weights>) {
    let out = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut run = Run::on(comm, initial, options(), GatheredPlum::new(plum))?
            .balance_at(BalanceAt::AfterSubdivision);
        let (mut balance, mut weights) = (Duration::ZERO, Vec::new());
        for level in 1..=9 {
            let report = run.step(|leaf| shock_mark(leaf, level))?;
            balance += report.times.balance;
            weights.extend(run.weights().cloned());
        }
        Ok((balance, weights))
    })
    .expect("the ranks run");
    out.into_iter().next().expect("rank 0")
}

fn partition(c: &mut Criterion) {
    let initial = shock_mesh();
    let graph = DualGraph::new(&plume::adapt::Forest::on(&initial, options()));
    let mut group = c.benchmark_group("dist_partition");
    group.sample_size(10);
    for procs in [2, 32] {
        group.bench_function(format!("PLUM on rank 0, per level (P = {procs})"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| shock_balancing(&initial, procs).0 / 9)
                    .sum()
            })
        });
        let (_, levels) = shock_balancing(&initial, procs);
        let nparts = procs * PlumOptions::new(procs).parts_per_proc;
        let mut part = vec![0u32; graph.nvertices()];
        group.bench_function(format!("METIS alone, per level (P = {procs})"), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    for weights in &levels {
                        let view = graph.view(weights).expect("gathered weights");
                        Metis::default()
                            .partition(&view, Targets::Equal(nparts), &mut part)
                            .expect("METIS partitions");
                    }
                }
                start.elapsed() / levels.len() as u32
            })
        });
    }
    group.finish();
}

criterion_group!(benches, migration, shock_levels, partition);
criterion_main!(benches);
