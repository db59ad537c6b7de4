//! Peak memory at ~6.4 M leaves: builds a ~100,000-element box, refines it uniformly twice,
//! builds the dual graph, and prints the counts. Run it under `/usr/bin/time -v` and divide the
//! maximum resident set size by the leaf count:
//!
//! ```text
//! cargo bench --bench adapt_memory --no-run
//! /usr/bin/time -v target/release/deps/adapt_memory-* 2>&1 | grep -E 'leaves|Maximum resident'
//! ```

use std::time::Instant;

use plume::adapt::{AdaptOptions, Forest};
use plume::graph::DualGraph;
use plume::mesh::generate_box;

fn main() {
    if std::env::args().any(|a| a == "--bench" || a == "--list") && std::env::args().count() > 2 {
        return; // invoked by `cargo bench` with a filter: nothing to list.
    }
    let mesh = generate_box([24, 24, 29], [1.0, 1.0, 1.2]).expect("box");
    let roots = mesh.nelems();
    let mut forest = Forest::new(mesh, AdaptOptions::default()).expect("forest");
    for level in 1..=2 {
        let start = Instant::now();
        forest.mark_refine_where(|_| true);
        let before = forest.nelems();
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
}
