//! Benchmarks of the adaptation engine (criterion). Run with `cargo bench --bench adapt`.
//! Marks are set in each sample's setup: the timings are of [`Forest::adapt`] (coarsening,
//! closure, subdivision), not of the solver's marking loop.
//!
//! - `uniform/*`: one uniform 1:8 level of a ~100,000-root box, from 100k → 800k leaves and
//!   800k → 6.4M leaves (the "two levels to ~6.4 M leaves"); throughput in new elements.
//! - `coarsen/*`: the inverse steps.
//! - `local/*`: refining the leaves inside a ball holding 0.1% and 1% of a ~5 M-leaf mesh
//!   (closure included): the time follows the region touched, not the mesh.
//! - `weights/*`: updating the dual-graph weights after the local step (the changed trees only)
//!   against rebuilding them all.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use plume::adapt::{AdaptOptions, Forest};
use plume::graph::DualGraph;
use plume::mesh::{generate_box, geometry};

fn box_forest(cells: [usize; 3]) -> Forest {
    let size = cells.map(|c| c as f64 / cells[0] as f64);
    Forest::new(generate_box(cells, size).unwrap(), AdaptOptions::default()).unwrap()
}

fn refined(mut f: Forest, levels: usize) -> Forest {
    for _ in 0..levels {
        f.mark_refine_where(|_| true);
        f.adapt().unwrap();
    }
    f
}

fn uniform(c: &mut Criterion) {
    let mut g = c.benchmark_group("uniform");
    g.sample_size(10);
    let base = box_forest([24, 24, 29]);
    let once = refined(base.clone(), 1);
    for (name, start) in [("100k_to_800k", &base), ("800k_to_6.4M", &once)] {
        g.throughput(Throughput::Elements(
            7 * start.nleaves() as u64 + start.nleaves() as u64,
        ));
        g.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let mut f = start.clone();
                    f.mark_refine_where(|_| true);
                    f
                },
                |mut f| {
                    f.adapt().unwrap();
                    f
                },
                BatchSize::PerIteration,
            )
        });
    }
    let twice = refined(once.clone(), 1);
    g.finish();
    let mut g = c.benchmark_group("coarsen");
    g.sample_size(10);
    for (name, start) in [("800k_to_100k", &once), ("6.4M_to_800k", &twice)] {
        g.throughput(Throughput::Elements(start.nleaves() as u64 * 7 / 8));
        g.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let mut f = start.clone();
                    f.mark_coarsen_where(|_| true);
                    f
                },
                |mut f| {
                    f.adapt().unwrap();
                    f
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

/// Radius of a ball centred in the unit-ish box holding about `fraction` of its volume.
fn radius_for(fraction: f64, volume: f64) -> f64 {
    (fraction * volume * 3.0 / (4.0 * std::f64::consts::PI)).cbrt()
}

fn local(c: &mut Criterion) {
    // 78,000 roots × 64 = ~5 M leaves.
    let base = refined(box_forest([20, 25, 26]), 2);
    let volume = base.mesh().volume();
    let centre = [0.5, 0.6, 0.6];
    let mut g = c.benchmark_group("local");
    g.sample_size(10);
    for fraction in [0.001, 0.01] {
        let r = radius_for(fraction, volume);
        let inside = move |p: [f64; 3]| geometry::dist2(p, centre) < r * r;
        let mut marked = 0u64;
        base.for_each_leaf(|l| marked += inside(l.centroid) as u64);
        g.throughput(Throughput::Elements(marked));
        g.bench_function(
            format!("{}pct_of_{}M", fraction * 100.0, base.nleaves() / 1_000_000),
            |b| {
                b.iter_batched(
                    || base.clone(),
                    |mut f| {
                        f.mark_refine_where(|l| inside(l.centroid));
                        f.adapt().unwrap();
                        f
                    },
                    BatchSize::PerIteration,
                )
            },
        );
    }
    g.finish();

    let mut g = c.benchmark_group("weights");
    g.sample_size(10);
    let graph = DualGraph::new(&base);
    let mut after = base.clone();
    let r = radius_for(0.01, volume);
    after.mark_refine_where(|l| geometry::dist2(l.centroid, centre) < r * r);
    let changed = after.adapt().unwrap().changed_roots;
    g.bench_function(format!("update_{}_trees", changed.len()), |b| {
        b.iter_batched(
            || graph.clone(),
            |mut gr| {
                gr.update(&after, &changed);
                gr
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("rebuild_all", |b| b.iter(|| DualGraph::new(&after)));
    g.finish();
}

criterion_group!(benches, uniform, local);
criterion_main!(benches);
