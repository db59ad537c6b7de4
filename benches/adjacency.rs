//! Leaf face adjacency (criterion): [`LeafAdjacency::build`] on whole forests, throughput in
//! leaves (the time per leaf is what a rebuild after each adaptation step costs). Run with
//! `cargo bench --bench adjacency`.
//!
//! - `roots_48k`: an unrefined box of 48,000 roots (every tree a bare root);
//! - `uniform_384k`: the same box refined once everywhere (8 leaves per tree);
//! - `local_ball`: two levels of refinement inside a ball, with the green closure around it
//!   (trees of every shape).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plume::adapt::{AdaptOptions, Forest, LeafAdjacency};
use plume::mesh::{generate_box, geometry};

fn box_forest() -> Forest {
    let mesh = generate_box([20, 20, 20], [1.0, 1.0, 1.0]).unwrap();
    Forest::new(mesh, AdaptOptions::default()).unwrap()
}

fn build(c: &mut Criterion) {
    let roots = box_forest();
    let mut uniform = roots.clone();
    uniform.mark_refine_where(|_| true);
    uniform.adapt().unwrap();
    let mut local = roots.clone();
    for radius in [0.35, 0.25] {
        local.mark_refine_where(|l| geometry::dist2(l.centroid, [0.5; 3]) < radius * radius);
        local.adapt().unwrap();
    }
    let mut g = c.benchmark_group("adjacency");
    g.sample_size(10);
    for (name, forest) in [
        ("roots_48k", &roots),
        ("uniform_384k", &uniform),
        ("local_ball", &local),
    ] {
        g.throughput(Throughput::Elements(forest.nleaves() as u64));
        g.bench_function(name, |b| b.iter(|| LeafAdjacency::build(forest).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, build);
criterion_main!(benches);
