//! MinEX against METIS on the shock case's dual graph (`docs/design/minex.md`: MinEX should cost at
//! most 3× METIS's time on the 50,136-root graph at P = 32).
//!
//! The graph: `meshes/shock_box.msh` (depth 3) as `plume run shock` adapts it. Level 1's
//! marks are closed and METIS partitions the predicted weights into 32 parts (PLUM's
//! partition of level 1: where the data is); level 1 is subdivided, level 2's marks are
//! closed, and both partitioners take level 2's predicted weights (`PWgt`, `CWgt`) with the
//! current sizes (`RWgt`, what would move now):
//! - `minex/MinEX from level 1's METIS partition (P = 32)`: [`Minex::rebalance`] from that
//!   partition, seed units, one cluster, default options (τ = 64, contraction to 10·P);
//! - `minex/METIS from scratch (P = 32)`: `Metis::default().partition` of the same graph.
//!
//! Before timing, prints what MinEX did (moves, coarse vertices, `MaxQWgt` before and after,
//! its steps' times) and both partitioners' CPU time per call (the thread's clock, which other
//! jobs on a shared machine disturb less than wall time) with their ratio.
//!
//! `cargo bench --bench minex`

#[path = "common/shock_case.rs"]
mod shock_case;

use criterion::{criterion_group, criterion_main, Criterion};
use plume::adapt::Forest;
use plume::comm::CpuClock;
use plume::dist::Mark;
use plume::graph::{DualGraph, Weights};
use plume::partition::{Grid, Metis, Minex, MinexOptions, Partitioner, Targets};
use shock_case::{options, read_shock_mesh, shock_mark};

/// Processors.
const PROCS: usize = 32;

/// Marks the shock's `level` on `forest` and closes the marks.
fn mark_and_close(forest: &mut Forest, level: usize) {
    forest.mark_refine_where(|leaf| shock_mark(leaf, level) == Mark::Refine);
    forest.mark_coarsen_where(|leaf| shock_mark(leaf, level) == Mark::Coarsen);
    forest.coarsen().expect("coarsening");
    forest.close().expect("closure");
}

/// The dual graph, level 2's predicted weights with the current sizes, and METIS's
/// partition of level 1's predicted weights.
fn shock_level_two() -> (DualGraph, Weights, Vec<u32>) {
    let mut forest = Forest::new(read_shock_mesh(), options()).expect("a valid mesh");
    let mut graph = DualGraph::new(&forest);
    mark_and_close(&mut forest, 1);
    let level_one = graph.predict(&forest);
    let mut start = vec![0; graph.nvertices()];
    let view = graph.view(&level_one).expect("predicted weights");
    Metis::default()
        .partition(&view, Targets::Equal(PROCS), &mut start)
        .expect("METIS partitions");
    forest.subdivide();
    let all: Vec<u32> = (0..graph.nvertices() as u32).collect();
    graph.update(&forest, &all);
    mark_and_close(&mut forest, 2);
    let weights = Weights {
        rwgt: graph.weights.rwgt.clone(),
        ..graph.predict(&forest)
    };
    (graph, weights, start)
}

fn minex_against_metis(c: &mut Criterion) {
    let (graph, weights, start) = shock_level_two();
    let view = graph.view(&weights).expect("predicted weights");
    let minex = Minex::new(MinexOptions::new(Grid::single(PROCS).expect("processors")));
    let (_, report) = minex.rebalance(&view, &start).expect("MinEX runs");
    println!(
        "{} roots, P = {PROCS}: MinEX made {} moves ({} order deviations) from {} coarse \
         vertices, MaxQWgt {} -> {} (LoadImb {:.3} -> {:.3}); contract {:.1} ms, partition \
         {:.1} ms, refine {:.1} ms",
        graph.nvertices(),
        report.moves,
        report.order_deviations,
        report.coarse_vertices,
        report.input.max_qwgt,
        report.result.max_qwgt,
        report.input.qwgt_load_imb,
        report.result.qwgt_load_imb,
        report.time_ms.contract,
        report.time_ms.partition,
        report.time_ms.refine,
    );
    // CPU time of this thread: what other jobs on the machine disturb least.
    let cpu = |mut call: Box<dyn FnMut() + '_>| {
        let start = CpuClock::Thread.now();
        for _ in 0..5 {
            call();
        }
        (CpuClock::Thread.now() - start).as_secs_f64() * 1e3 / 5.0
    };
    let minex_ms = cpu(Box::new(|| {
        minex.rebalance(&view, &start).expect("MinEX runs");
    }));
    let mut part = vec![0u32; graph.nvertices()];
    let metis_ms = cpu(Box::new(|| {
        Metis::default()
            .partition(&view, Targets::Equal(PROCS), &mut part)
            .expect("METIS partitions");
    }));
    println!(
        "CPU time per call (5 calls each): MinEX {minex_ms:.1} ms, METIS {metis_ms:.1} ms, \
         ratio {:.2}",
        minex_ms / metis_ms
    );
    let mut group = c.benchmark_group("minex");
    group.sample_size(10);
    group.bench_function(
        format!("MinEX from level 1's METIS partition (P = {PROCS})"),
        |b| b.iter(|| minex.rebalance(&view, &start).expect("MinEX runs")),
    );
    group.bench_function(format!("METIS from scratch (P = {PROCS})"), |b| {
        b.iter(|| {
            Metis::default()
                .partition(&view, Targets::Equal(PROCS), &mut part)
                .expect("METIS partitions")
        })
    });
    group.finish();
}

criterion_group!(benches, minex_against_metis);
criterion_main!(benches);
