//! MinEX through its public entry points (`docs/design/minex.md`; tests 1 and 4
//! are unit tests of `coarse.rs`, tests 5–9 of `src/partition/minex/tests.rs`, which see the
//! incremental state after every move).

use plume::graph::GraphView;
use plume::partition::minex::{MinexReport, Rejected};
use plume::partition::{Grid, Latency, Minex, MinexOptions, Partitioner, Targets};
use plume::Error;

/// A.10 test 2's path a–b–c–d on two clusters (Proc 1 and 2, Connect 3).
struct TwoClusters {
    xadj: [u32; 5],
    adjncy: [u32; 6],
    ewgt: [u64; 6],
    pwgt: [u64; 4],
    rwgt: [u64; 4],
}

const PATH: TwoClusters = TwoClusters {
    xadj: [0, 1, 3, 5, 6],
    adjncy: [1, 0, 2, 1, 3, 2],
    ewgt: [1; 6],
    pwgt: [2, 1, 1, 2],
    rwgt: [3, 1, 1, 3],
};

fn two_clusters(throttle: f64, latency: Latency) -> (Vec<u32>, MinexReport) {
    let p = &PATH;
    let g = GraphView::new(&p.xadj, &p.adjncy, &p.ewgt, &p.pwgt)
        .unwrap()
        .with_sizes(&p.rwgt)
        .unwrap();
    let grid = Grid::new(vec![1, 2], vec![vec![1, 3], vec![3, 1]], vec![0, 1]).unwrap();
    let options = MinexOptions {
        throttle,
        latency,
        ..MinexOptions::new(grid)
    };
    Minex::new(options).rebalance(&g, &[0, 0, 1, 1]).unwrap()
}

/// A.10 test 2: b → p1 (Gain +7, ΔMinVar +59.5) is refused; c → p0 (Gain +5, ΔMinVar −12.5,
/// Gain²/(−ΔMinVar) = 2) passes ThroTTle 2, 3, ∞ and not 0 or 1.
#[test]
fn the_two_cluster_path_moves_c_only_when_the_throttle_allows() {
    for tau in [0.0, 1.0, 1.999] {
        let (a, r) = two_clusters(tau, Latency::None);
        assert_eq!(a, [0, 0, 1, 1], "τ = {tau}");
        assert_eq!(
            (r.input.max_qwgt, r.input.min_qwgt, r.input.qwgt_tot),
            (13, 8, 21)
        );
        assert_eq!(r.result, r.input);
        assert_eq!(r.moves, 0);
        // b → p1 and c → p0 both have Gain > 0 and too little ΔMinVar.
        let throttle_only = Rejected {
            throttle: 2,
            ..Rejected::default()
        };
        assert_eq!(r.rejected, throttle_only, "τ = {tau}");
    }
    for tau in [2.0, 3.0, f64::INFINITY] {
        let (a, r) = two_clusters(tau, Latency::None);
        assert_eq!(a, [0, 0, 0, 1], "τ = {tau}");
        assert_eq!((r.result.max_qwgt, r.result.min_qwgt), (13, 13));
        assert_eq!(r.result.qwgt_tot, 26, "Gain +5");
        assert_eq!(r.moves, 1);
    }
    // τ = ∞: b → p1 raises MaxQWgt (R3); after c's move, c → p1 lowers MinQWgt (R4) and
    // d → p0 empties p1 (R1).
    let (_, r) = two_clusters(f64::INFINITY, Latency::None);
    let expected = Rejected {
        empty: 1,
        max_up: 1,
        min_down: 1,
        ..Rejected::default()
    };
    assert_eq!(r.rejected, expected);
    // Maximum tolerance: [5, 10] → [9, 10] (Gain 4, ΔMinVar −12: 16/12 ≤ 2).
    let (a, r) = two_clusters(2.0, Latency::Max);
    assert_eq!(a, [0, 0, 0, 1]);
    assert_eq!((r.input.min_qwgt, r.input.max_qwgt), (5, 10));
    assert_eq!((r.result.min_qwgt, r.result.max_qwgt), (9, 10));
    let (a, _) = two_clusters(1.0, Latency::Max);
    assert_eq!(a, [0, 0, 1, 1], "16/12 > 1");
}

/// A path 0–1–2–3 of unit weights.
fn unit_path() -> (Vec<u32>, Vec<u32>) {
    (vec![0, 1, 3, 5, 6], vec![1, 0, 2, 1, 3, 2])
}

/// A.10 test 3: moving vertex 2 to p1 would give [6, 7]: MinEX keeps [6, 4] while METIS +
/// TotalV would balance the leaves at MaxQWgt 7.
#[test]
fn remapping_that_is_not_worth_it_is_not_done() {
    let (xadj, adjncy) = unit_path();
    let g = GraphView::new(&xadj, &adjncy, &[1; 6], &[1; 4]).unwrap();
    let options = MinexOptions {
        throttle: f64::INFINITY,
        ..MinexOptions::new(Grid::single(2).unwrap())
    };
    let (a, r) = Minex::new(options).rebalance(&g, &[0, 0, 0, 1]).unwrap();
    assert_eq!(a, [0, 0, 0, 1]);
    assert_eq!((r.result.max_qwgt, r.result.min_qwgt), (6, 4));
    assert_eq!(r.rejected.max_up, 1);
    assert_eq!(r.moves, 0);
}

/// A.10 test 10: P = 1, no edges, an empty processor, shares and bad settings.
#[test]
fn edge_cases_are_handled_or_refused_clearly() {
    let (xadj, adjncy) = unit_path();
    let g = GraphView::new(&xadj, &adjncy, &[1; 6], &[1; 4]).unwrap();
    let minex = |procs: usize| Minex::new(MinexOptions::new(Grid::single(procs).unwrap()));
    // One processor: the input.
    let (a, r) = minex(1).rebalance(&g, &[0; 4]).unwrap();
    assert_eq!((a, r.moves), (vec![0; 4], 0));
    // An empty processor is filled from the most loaded one (heavy vertices: a cut edge
    // costs less than the processing it spreads).
    let heavy = GraphView::new(&xadj, &adjncy, &[1; 6], &[10; 4])
        .unwrap()
        .with_sizes(&[1; 4])
        .unwrap();
    let (a, r) = minex(2).rebalance(&heavy, &[0; 4]).unwrap();
    assert!(a.contains(&1), "p1 gets a vertex: {a:?}");
    assert!(r.result.max_qwgt < r.input.max_qwgt);
    // No edges: only empty processors can receive.
    let none = GraphView::new(&[0; 5], &[], &[], &[1, 2, 3, 4])
        .unwrap()
        .with_sizes(&[1; 4])
        .unwrap();
    let (a, _) = minex(2).rebalance(&none, &[0, 0, 1, 1]).unwrap();
    assert_eq!(a, [0, 0, 1, 1]);
    let (a, _) = minex(3).rebalance(&none, &[0, 0, 1, 1]).unwrap();
    assert_eq!(a, [0, 0, 2, 1], "p2 filled by the move to [3, 5, 5]");
    // Shares, a wrong part count, bad owners, bad throttles.
    let mut part = [0; 4];
    let err = minex(2)
        .repartition(&g, Targets::Shares(&[1.0, 2.0]), &[0, 0, 1, 1], &mut part)
        .unwrap_err();
    assert!(err.to_string().contains("not target shares"), "{err}");
    let err = minex(2)
        .repartition(&g, Targets::Equal(3), &[0, 0, 1, 1], &mut part)
        .unwrap_err();
    assert!(err.to_string().contains("3 parts"), "{err}");
    assert!(matches!(
        minex(2).rebalance(&g, &[0, 0, 2, 1]),
        Err(Error::PartOutOfRange { vertex: 2, .. })
    ));
    assert!(matches!(
        minex(2).rebalance(&g, &[0, 0, 1]),
        Err(Error::LengthMismatch { .. })
    ));
    for bad in [-1.0, f64::NAN] {
        let options = MinexOptions {
            throttle: bad,
            ..MinexOptions::new(Grid::single(2).unwrap())
        };
        let err = Minex::new(options)
            .rebalance(&g, &[0, 0, 1, 1])
            .unwrap_err();
        assert!(err.to_string().contains("throttle"), "{err}");
    }
    // The partitioner's entry points agree with rebalance.
    let (a, _) = minex(2).rebalance(&g, &[0, 0, 0, 1]).unwrap();
    minex(2)
        .repartition(&g, Targets::Equal(2), &[0, 0, 0, 1], &mut part)
        .unwrap();
    assert_eq!(part.to_vec(), a);
}
