//! Recursive coordinate bisection: balance on non-uniform weights, determinism, geometry.

use plume::adapt::Forest;
use plume::graph::DualGraph;
use plume::mesh::generate_box;
use plume::metrics::rank_loads;
use plume::partition::{root_centroids, Partitioner, Rcb, Targets};
use plume::Error;

/// A 20 × 10 × 5 box of 6000 roots, the roots left of x = 1 refined once.
fn refined_box() -> (DualGraph, Vec<[f64; 3]>) {
    let mesh = generate_box([20, 10, 5], [2.0, 1.0, 1.0]).unwrap();
    let c = root_centroids(&mesh);
    let mut forest = Forest::new(mesh, Default::default()).unwrap();
    forest.mark_refine_where(|l| l.centroid[0] < 1.0);
    forest.adapt().unwrap();
    (DualGraph::new(&forest), c)
}

#[test]
fn refined_box_is_balanced_within_five_percent_for_any_nparts() {
    let (g, c) = refined_box();
    let rcb = Rcb::new(c);
    for nparts in [2, 3, 7, 8, 32] {
        let mut part = vec![0; g.nvertices()];
        let info = rcb
            .partition(
                &g.view(&g.weights).unwrap(),
                Targets::Equal(nparts),
                &mut part,
            )
            .unwrap();
        assert_eq!(info.algorithm, "rcb");
        let w = rank_loads(&g.weights.pwgt, &part, nparts);
        let mean = w.iter().sum::<u64>() as f64 / nparts as f64;
        let imb = *w.iter().max().unwrap() as f64 / mean;
        assert!(imb <= 1.05, "{nparts} parts: LoadImb {imb}, {w:?}");
    }
}

#[test]
fn same_centroids_and_weights_give_the_same_parts() {
    let (g, c) = refined_box();
    let mut a = vec![0; g.nvertices()];
    let mut b = vec![1; g.nvertices()];
    let ia = Rcb::new(c.clone())
        .partition(&g.view(&g.weights).unwrap(), Targets::Equal(7), &mut a)
        .unwrap();
    let ib = Rcb::new(c)
        .partition(&g.view(&g.weights).unwrap(), Targets::Equal(7), &mut b)
        .unwrap();
    assert_eq!((a, ia), (b, ib));
}

#[test]
fn two_parts_split_across_the_longest_side_at_the_weighted_median() {
    // The box is longest along x; the refined left half holds most of the weight, so the cut
    // plane lies left of x = 1 and every root of part 0 lies left of every root of part 1.
    let (g, c) = refined_box();
    let mut part = vec![0; g.nvertices()];
    Rcb::new(c.clone())
        .partition(&g.view(&g.weights).unwrap(), Targets::Equal(2), &mut part)
        .unwrap();
    let max0 = (0..c.len())
        .filter(|&v| part[v] == 0)
        .map(|v| c[v][0])
        .fold(f64::MIN, f64::max);
    let min1 = (0..c.len())
        .filter(|&v| part[v] == 1)
        .map(|v| c[v][0])
        .fold(f64::MAX, f64::min);
    assert!(max0 <= min1 && max0 < 1.0, "{max0} {min1}");
}

#[test]
fn wrong_number_of_centroids_is_an_error() {
    let (g, c) = refined_box();
    let mut part = vec![0; g.nvertices()];
    let e = Rcb::new(c[1..].to_vec())
        .partition(&g.view(&g.weights).unwrap(), Targets::Equal(2), &mut part)
        .unwrap_err();
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "RCB coordinates",
            expected: 6000,
            actual: 5999
        }
    );
}

#[test]
fn uneven_shares_move_the_cut_plane() {
    // A quarter of the weight on the left: the cut moves left of the even split's.
    let (g, c) = refined_box();
    let view = g.view(&g.weights).unwrap();
    let rcb = Rcb::new(c);
    for shares in [[1.0, 3.0], [3.0, 1.0]] {
        let mut part = vec![0; g.nvertices()];
        rcb.partition(&view, Targets::Shares(&shares), &mut part)
            .unwrap();
        let loads = rank_loads(&g.weights.pwgt, &part, 2);
        let total = (loads[0] + loads[1]) as f64;
        let want = shares[0] / 4.0;
        assert!(
            (loads[0] as f64 / total - want).abs() < 0.01,
            "{shares:?}: {loads:?}"
        );
    }
}
