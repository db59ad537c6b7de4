//! The distributed adaptive loop (`plume::dist::Run`) on thread ranks:
//! - `dist_migration`: throughput of packed trees through migration (pack, one all-to-all,
//!   unpack), every tree of a refined forest moving to the next rank;
//! - `dist_shock_9_levels`: the shock case's 9 levels with PLUM (a cylinder along z sweeping
//!   `meshes/shock_box.msh`, depth 3, as `plume run shock`) at P = 1, 2, 8; P = 1 is the serial
//!   program's work plus the collectives' bookkeeping;
//! - `dist_partition`: per level of the shock case at P = 2 balanced after subdivision, rank
//!   0's balancing (PLUM: METIS on the gathered graph, similarity matrix, reassignment, and the
//!   broadcast of its decision) against METIS alone on the same graphs (the dual graph with
//!   the weights rank 0 gathered at each level, `P·F` parts).
//!
//! `cargo bench --bench dist`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plume::adapt::{AdaptOptions, LeafView};
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, Comm};
use plume::dist::{BalanceAt, Mark, Run};
use plume::graph::{DualGraph, Weights};
use plume::mesh::{generate_box, geometry, Mesh};
use plume::partition::{Metis, Partitioner, Targets};
use std::time::{Duration, Instant};

/// The shock case's front at `level` (1-based) on the [0, 4] × [0, 1]² box: refine the leaves
/// the cylinder touches, coarsen refined leaves it left.
fn shock_mark(leaf: &LeafView, level: usize) -> Mark {
    let centre = [4.0 * (0.075 + 0.075 * (level - 1) as f64), 0.5];
    let radius = 0.16 * 1.135f64.powi(level as i32 - 1);
    let reach = leaf
        .corners
        .iter()
        .map(|&p| geometry::dist2(p, leaf.centroid).sqrt())
        .fold(0.0, f64::max);
    let c = leaf.centroid;
    if ((c[0] - centre[0]).powi(2) + (c[1] - centre[1]).powi(2)).sqrt() <= radius + reach {
        Mark::Refine
    } else if leaf.level > 0 {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 1,
    }
}

/// `levels` shock levels on `procs` thread ranks; rank 0's wall-clock time of the steps.
fn shock_run(mesh: &Mesh, procs: usize, levels: usize) -> Duration {
    let times = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut run = Run::new(comm, mesh.clone(), options(), plum)?;
        comm.barrier()?;
        let start = Instant::now();
        for level in 1..=levels {
            run.step(|leaf| shock_mark(leaf, level))?;
        }
        Ok(start.elapsed())
    })
    .expect("the ranks run");
    times[0]
}

fn shock_levels(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/meshes/shock_box.msh");
    let (mesh, _) = plume::io::read_mesh(std::path::Path::new(path)).expect("shipped mesh");
    let mut group = c.benchmark_group("dist_shock_9_levels");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    for procs in [1, 2, 8] {
        group.bench_function(format!("P = {procs}"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| shock_run(&mesh, procs, 9)).sum())
        });
    }
    group.finish();
}

/// On `procs` ranks, a box refined by a sweeping sphere, then `iters` migrations of every
/// tree to the next rank; rank 0's time for the migrations and the bytes one of them moves.
fn migrations(procs: usize, iters: u64) -> (Duration, u64) {
    let mesh = generate_box([8, 5, 5], [1.6, 1.0, 1.0]).expect("box");
    let out = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut run = Run::new(comm, mesh.clone(), options(), plum)?;
        for level in 1..=3 {
            run.step(|leaf| {
                let d =
                    ((leaf.centroid[0] - 0.8).powi(2) + (leaf.centroid[1] - 0.5).powi(2)).sqrt();
                if (d - 0.1 * level as f64).abs() < 0.2 {
                    Mark::Refine
                } else {
                    Mark::Keep
                }
            })?;
        }
        comm.barrier()?;
        let start = Instant::now();
        let mut bytes = 0;
        for _ in 0..iters {
            let next: Vec<u32> = run
                .owner()
                .iter()
                .map(|&o| (o + 1) % procs as u32)
                .collect();
            bytes = run.migrate_to(&next)?.bytes;
        }
        comm.barrier()?;
        Ok((start.elapsed(), bytes))
    })
    .expect("the ranks run");
    out[0]
}

fn migration(c: &mut Criterion) {
    let mut group = c.benchmark_group("dist_migration");
    group.sample_size(10);
    for procs in [2, 4] {
        let (_, bytes) = migrations(procs, 1);
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(
            format!("{procs} ranks, all trees ({} MB)", bytes >> 20),
            |b| b.iter_custom(|iters| migrations(procs, iters).0),
        );
    }
    group.finish();
}

/// The shock case's 9 levels on `procs` thread ranks, balanced after subdivision: rank 0's
/// balancing time summed over the levels, and the weights it balanced at each level.
fn shock_balancing(mesh: &Mesh, procs: usize) -> (Duration, Vec<Weights>) {
    let out = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut run =
            Run::new(comm, mesh.clone(), options(), plum)?.balance_at(BalanceAt::AfterSubdivision);
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
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/meshes/shock_box.msh");
    let (mesh, _) = plume::io::read_mesh(std::path::Path::new(path)).expect("shipped mesh");
    let procs = 2;
    let mut group = c.benchmark_group("dist_partition");
    group.sample_size(10);
    group.bench_function("PLUM on rank 0, per level (P = 2)", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| shock_balancing(&mesh, procs).0 / 9)
                .sum()
        })
    });
    let (_, levels) = shock_balancing(&mesh, procs);
    let forest = plume::adapt::Forest::new(mesh.clone(), options()).expect("forest");
    let graph = DualGraph::new(&forest);
    let nparts = procs * PlumOptions::new(procs).parts_per_proc;
    let mut part = vec![0u32; graph.nvertices()];
    group.bench_function("METIS alone, per level (P = 2)", |b| {
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
    group.finish();
}

criterion_group!(benches, migration, shock_levels, partition);
criterion_main!(benches);
