//! Peak memory at ~6.4 M leaves: builds a ~100,000-element box, refines it uniformly twice,
//! builds the dual graph, and prints the counts and each step's stage times; then refines the
//! leaves in balls holding 0.1% and 1% of the mesh (on copies) and prints what those local
//! steps cost, to show it follows the region touched; last, coarsens back to the initial mesh. Run it under `/usr/bin/time -v` and
//! divide the maximum resident set size by the leaf count (the copies come after the peak of
//! interest, so read the RSS from a run with `PLUME_NO_LOCAL=1`):
//!
//! ```text
//! cargo bench --bench adapt_memory --no-run
//! /usr/bin/time -v target/release/deps/adapt_memory-* 2>&1 | grep -E 'leaves|Maximum resident'
//! ```
//!
//! `PLUME_BOX=nx,ny,nz` replaces the box (6 tetrahedra per cube), e.g. `12,12,14` for a
//! 12k-root probe small enough for `valgrind --tool=callgrind`.

use std::time::Instant;

use plume::adapt::{AdaptOptions, Forest};
use plume::graph::DualGraph;
use plume::mesh::{generate_box, geometry};

fn main() {
    if std::env::args().any(|a| a == "--bench" || a == "--list") && std::env::args().count() > 2 {
        return; // invoked by `cargo bench` with a filter: nothing to list.
    }
    let cubes = std::env::var("PLUME_BOX").map_or([24, 24, 29], |s| {
        let n: Vec<usize> = s
            .split(',')
            .map(|x| x.parse().expect("PLUME_BOX"))
            .collect();
        [n[0], n[1], n[2]]
    });
    let mesh = generate_box(cubes, [1.0, 1.0, 1.2]).expect("box");
    let roots = mesh.nelems();
    let mut forest = Forest::new(mesh, AdaptOptions::default()).expect("forest");
    for level in 1..=2 {
        forest.mark_refine_where(|_| true);
        let before = forest.nelems();
        let start = Instant::now();
        let report = forest.adapt().expect("adapt");
        let secs = start.elapsed().as_secs_f64();
        let new = forest.nelems() - before;
        println!(
            "level {level}: {} leaves, {new} new elements in {secs:.3} s = {:.1} M/s \
             (closure {:.3} s, subdivide {:.3} s)",
            forest.nleaves(),
            new as f64 / secs / 1e6,
            report.closure_time.as_secs_f64(),
            report.subdivide_time.as_secs_f64()
        );
    }
    let graph = DualGraph::new(&forest);
    println!(
        "roots {roots}, leaves {}, elements {}, vertices {}, bisected edges {}, graph edges {}",
        forest.nleaves(),
        forest.nelems(),
        forest.vertices().nlive(),
        forest.edges().len(),
        graph.nedges()
    );
    if std::env::var_os("PLUME_NO_LOCAL").is_none() {
        local_steps(&forest, &graph);
    }
    coarsen_back(&mut forest);
}

/// Refines, on copies, the leaves in balls holding 0.1% and 1% of the mesh.
fn local_steps(forest: &Forest, graph: &DualGraph) {
    for fraction in [0.001, 0.01] {
        let mut copy = forest.clone();
        copy.reserve(forest.nleaves() / 10);
        let r = (fraction * 1.2 * 3.0 / (4.0 * std::f64::consts::PI)).cbrt();
        let marked =
            copy.mark_refine_where(|l| geometry::dist2(l.centroid, [0.5, 0.5, 0.6]) < r * r);
        let start = Instant::now();
        let report = copy.adapt().expect("adapt");
        let secs = start.elapsed().as_secs_f64();
        let mut g = graph.clone();
        let start = Instant::now();
        g.update(&copy, &report.changed_roots);
        println!(
            "local {:.1}%: {marked} leaves marked, {} trees changed, step {:.1} ms \
             (closure {:.1} ms, subdivide {:.1} ms), weight update {:.2} ms",
            fraction * 100.0,
            report.changed_roots.len(),
            secs * 1e3,
            report.closure_time.as_secs_f64() * 1e3,
            report.subdivide_time.as_secs_f64() * 1e3,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// Coarsens the forest back to the initial mesh, one level per step, printing the rate.
fn coarsen_back(forest: &mut Forest) {
    for level in (0..2).rev() {
        forest.mark_coarsen_where(|_| true);
        let before = forest.nelems();
        let start = Instant::now();
        forest.adapt().expect("adapt");
        let secs = start.elapsed().as_secs_f64();
        let removed = before - forest.nelems();
        println!(
            "coarsen to level {level}: {} leaves, {removed} elements removed in {secs:.3} s = {:.1} M/s",
            forest.nleaves(),
            removed as f64 / secs / 1e6
        );
    }
}
