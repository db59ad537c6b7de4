//! MinEX's tests that watch the incremental state after every executed move
//! (`docs/design/minex.md`): incremental = from scratch, the rules re-checked from scratch, the
//! strict decrease of `(MaxQWgt, −MinQWgt, MinVar)`, one cluster ≡ slowdowns of 1, the ThroTTle's
//! extremes, determinism.

use proptest::prelude::*;

use super::*;
use crate::adapt::Forest;
use crate::graph::{DualGraph, Weights};
use crate::mesh::generate_box;

/// `(MaxQWgt, MinQWgt, QWgtTOT, P · MinVar)` of per-processor `QWgt` values.
fn shape(qwgt: &[u64]) -> (u64, u64, i128, i128) {
    let s1: i128 = qwgt.iter().map(|&q| i128::from(q)).sum();
    let s2: i128 = qwgt.iter().map(|&q| i128::from(q) * i128::from(q)).sum();
    let max = *qwgt.iter().max().unwrap();
    let min = *qwgt.iter().min().unwrap();
    (max, min, s1, qwgt.len() as i128 * s2 - s1 * s1)
}

/// Runs MinEX and checks after every move that the incremental state equals a recomputation
/// from scratch and that the move kept rules R1–R5 (re-checked from scratch, ThroTTle an
/// integer or ∞ here); returns the output, the report and each move's `Gain`.
fn checked_run(
    minex: &Minex,
    graph: &GraphView<'_>,
    current: &[u32],
) -> (Vec<u32>, MinexReport, Vec<i128>) {
    let o = &minex.options;
    let from_scratch = |assigned: &[u32]| -> (Vec<Totals>, Vec<u64>) {
        let totals = score_with(graph, &o.grid, o.costs, o.remap, assigned, current).unwrap();
        let qwgt = totals.iter().map(|t| o.latency.qwgt(t)).collect();
        (totals, qwgt)
    };
    let mut before = from_scratch(current).1;
    let mut gains = Vec::new();
    let (out, report) = minex
        .rebalance_observed(graph, current, |engine| {
            let assigned = engine.h.original_assignment();
            let (totals, qwgt) = from_scratch(&assigned);
            let s = &engine.state;
            assert_eq!(s.totals, totals, "incremental totals = from scratch");
            assert_eq!(s.qwgt, qwgt);
            let (max, min, s1, p_minvar) = shape(&qwgt);
            assert_eq!(
                (s.max(), s.min(), s.s1, s.p_minvar()),
                (max, min, s1, p_minvar)
            );
            let (old_max, old_min, old_s1, old_p_minvar) = shape(&before);
            let m = engine.last.expect("a move was executed");
            let (gain, p_dvar) = (s1 - old_s1, p_minvar - old_p_minvar);
            assert_eq!((m.gain, m.p_dvar, m.max, m.min), (gain, p_dvar, max, min));
            assert!(totals[m.from as usize].qlen > 0, "R1");
            if gain > 0 && o.throttle.is_finite() {
                let tau = o.throttle as i128;
                assert!(p_dvar < 0, "R2: MinVar falls");
                assert!(qwgt.len() as i128 * gain * gain <= tau * -p_dvar, "R2");
            }
            assert!(max <= old_max, "R3");
            assert!(max < old_max || min >= old_min, "R4");
            if (max, min) == (old_max, old_min) {
                assert!(p_dvar < 0 && -100 * p_dvar >= old_p_minvar, "R5");
            }
            let tuple = |max: u64, min: u64, v: i128| (max, std::cmp::Reverse(min), v);
            assert!(
                tuple(max, min, p_minvar) < tuple(old_max, old_min, old_p_minvar),
                "(MaxQWgt, −MinQWgt, MinVar) decreases"
            );
            gains.push(gain);
            before = qwgt;
        })
        .unwrap();
    let (_, qwgt) = from_scratch(&out);
    assert_eq!(report.result, QwgtSummary::of(&qwgt));
    assert!(report.result.max_qwgt <= report.input.max_qwgt);
    assert_eq!(report.moves, gains.len() as u64);
    (out, report, gains)
}

/// A random graph: `n` vertices, edges from `pairs` (self-loops and repeats dropped).
fn random_graph(n: usize, pairs: &[(usize, usize, u64)]) -> (Vec<u32>, Vec<u32>, Vec<u64>) {
    let mut rows: Vec<std::collections::BTreeMap<u32, u64>> = vec![Default::default(); n];
    for &(a, b, c) in pairs {
        let (a, b) = (a % n, b % n);
        if a != b && !rows[a].contains_key(&(b as u32)) {
            rows[a].insert(b as u32, c);
            rows[b].insert(a as u32, c);
        }
    }
    let mut xadj = vec![0];
    let (mut adjncy, mut ewgt) = (Vec::new(), Vec::new());
    for row in rows {
        adjncy.extend(row.keys());
        ewgt.extend(row.values());
        xadj.push(adjncy.len() as u32);
    }
    (xadj, adjncy, ewgt)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// A.10 tests 5 and 6 on random graphs, 2–8 processors, 1–3 clusters.
    #[test]
    fn moves_are_exact_and_keep_the_rules(
        n in 2usize..28,
        pairs in prop::collection::vec((0usize..28, 0usize..28, 1u64..6), 0..60),
        weights in prop::collection::vec((0u64..30, 0u64..12), 28),
        procs in 2usize..=8,
        clusters in 1usize..=3,
        slow in prop::collection::vec(1u32..4, 3),
        interconnect in 1u32..6,
        owners in prop::collection::vec(0u32..8, 28),
        throttle in prop::sample::select(vec![0.0, 1.0, 4.0, 64.0, f64::INFINITY]),
        max_latency in any::<bool>(),
        cluster_rule in any::<bool>(),
        heaviest in any::<bool>(),
        coarsen_to in 1usize..30,
    ) {
        let (xadj, adjncy, ewgt) = random_graph(n, &pairs);
        let pwgt: Vec<u64> = weights[..n].iter().map(|w| w.0).collect();
        let rwgt: Vec<u64> = weights[..n].iter().map(|w| w.1).collect();
        let g = GraphView::new(&xadj, &adjncy, &ewgt, &pwgt).unwrap().with_sizes(&rwgt).unwrap();
        let clusters = clusters.min(procs);
        let even = Grid::even(procs, clusters, interconnect).unwrap();
        let grid = Grid::new(slow[..clusters].to_vec(), even.connect, even.pmap).unwrap();
        let current: Vec<u32> = owners[..n].iter().map(|&p| p % procs as u32).collect();
        let options = MinexOptions {
            throttle,
            latency: if max_latency { Latency::Max } else { Latency::None },
            coarsen_to: Some(coarsen_to),
            contraction_key: if heaviest { ContractionKey::Heaviest } else { ContractionKey::Colored },
            remap: if cluster_rule { RemapRule::Cluster } else { RemapRule::Processor },
            ..MinexOptions::new(grid)
        };
        let (_, report, _) = checked_run(&Minex::new(options), &g, &current);
        // Every vertex with a neighbour elsewhere is evaluated: some move is made or refused.
        let border = (0..n as u32).any(|v| g.neighbours(v).iter().any(|&w| current[w as usize] != current[v as usize]));
        let r = report.rejected;
        let refused = r.empty + r.throttle + r.max_up + r.min_down + r.minvar;
        prop_assert!(!border || report.moves + refused > 0, "{report:?}");
    }
}

/// A 6 × 2 × 2 box (144 roots) as a shock step leaves it: METIS's partition of the weights
/// after a first refinement near x = 0 is where the data is (`RWgt` those weights' sizes),
/// and the work is predicted after a second refinement further along x.
fn shock_like_box(procs: usize) -> (DualGraph, Weights, Vec<u32>) {
    let mesh = generate_box([6, 2, 2], [3.0, 1.0, 1.0]).unwrap();
    let mut forest = Forest::new(mesh, Default::default()).unwrap();
    forest.mark_refine_where(|l| l.centroid[0] < 0.8);
    forest.adapt().unwrap();
    let before = DualGraph::new(&forest);
    let view = before.view(&before.weights).unwrap();
    let mut start = vec![0; before.nvertices()];
    Metis::default()
        .partition(&view, Targets::Equal(procs), &mut start)
        .unwrap();
    forest.mark_refine_where(|l| (0.6..1.6).contains(&l.centroid[0]));
    forest.adapt().unwrap();
    let after = DualGraph::new(&forest);
    let weights = Weights {
        rwgt: before.weights.rwgt.clone(),
        ..after.weights.clone()
    };
    (after, weights, start)
}

fn minex_on_box(grid: Grid, throttle: f64) -> (Vec<u32>, MinexReport, Vec<i128>) {
    let procs = grid.nprocs();
    let (g, w, start) = shock_like_box(procs);
    let options = MinexOptions {
        throttle,
        coarsen_to: Some(3 * procs),
        ..MinexOptions::new(grid)
    };
    checked_run(&Minex::new(options), &g.view(&w).unwrap(), &start)
}

/// What a report says apart from its times.
fn untimed(mut r: MinexReport) -> MinexReport {
    r.time_ms = StepTimes::default();
    r
}

/// A.10 test 7: clusters joined by links of slowdown 1 are one cluster, bit for bit.
#[test]
fn clusters_without_slowdown_are_one_cluster() {
    for (procs, clusters) in [(4, 2), (6, 3), (8, 8)] {
        let (a, r, _) = minex_on_box(Grid::single(procs).unwrap(), 8.0);
        let (b, s, _) = minex_on_box(Grid::even(procs, clusters, 1).unwrap(), 8.0);
        assert_eq!(a, b, "P = {procs}, C = {clusters}");
        assert_eq!(untimed(r.clone()), untimed(s));
        assert!(r.moves > 0, "the start is imbalanced: MinEX moves");
    }
}

/// A.10 test 8: τ = 0 executes only moves that do not raise `QWgtTOT`; τ = ∞ balances at
/// least as well.
#[test]
fn throttle_extremes() {
    for grid in [Grid::single(8).unwrap(), Grid::even(8, 2, 3).unwrap()] {
        let (_, none, gains) = minex_on_box(grid.clone(), 0.0);
        assert!(gains.iter().all(|&g| g <= 0), "τ = 0: {gains:?}");
        assert!(none.rejected.throttle > 0);
        let (_, all, gains) = minex_on_box(grid, f64::INFINITY);
        assert!(gains.iter().any(|&g| g > 0), "τ = ∞ takes costly moves");
        assert_eq!(all.rejected.throttle, 0);
        assert!(all.result.qwgt_load_imb <= none.result.qwgt_load_imb);
        assert!(all.result.max_qwgt < all.input.max_qwgt);
    }
}

/// A.10 test 9: the same input gives the same output and report (times aside).
#[test]
fn the_same_input_gives_the_same_output() {
    let grid = Grid::even(6, 2, 10).unwrap();
    let (a, r, _) = minex_on_box(grid.clone(), 64.0);
    let (b, s, _) = minex_on_box(grid, 64.0);
    assert_eq!(a, b);
    assert_eq!(untimed(r.clone()), untimed(s));
    assert!(r.result.max_qwgt < r.input.max_qwgt);
}
