//! Recursive coordinate bisection: balance on non-uniform weights, determinism, geometry,
//! the dual graph's coordinates.

use plume::adapt::Forest;
use plume::graph::{root_centroids, DualGraph, GraphView};
use plume::mesh::generate_box;
use plume::metrics::rank_loads;
use plume::partition::{Partitioner, Rcb, Sfc, Targets};
use plume::Error;

/// A 20 × 10 × 5 box of 6000 roots, the roots left of x = 1 refined once; the root
/// centroids.
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
    let (g, _) = refined_box();
    let rcb = Rcb;
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
    let (g, _) = refined_box();
    let mut a = vec![0; g.nvertices()];
    let mut b = vec![1; g.nvertices()];
    let ia = Rcb
        .partition(&g.view(&g.weights).unwrap(), Targets::Equal(7), &mut a)
        .unwrap();
    let ib = Rcb
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
    Rcb.partition(&g.view(&g.weights).unwrap(), Targets::Equal(2), &mut part)
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
fn the_dual_graph_cuts_its_root_centroids_and_a_graph_without_coordinates_is_an_error() {
    // The dual graph's coordinates are the root centroids bit for bit, so RCB and SFC on its
    // view give the parts they gave when they were handed those centroids: the parts of the
    // same arrays with the centroids given by hand.
    let (g, c) = refined_box();
    let bits = |p: &[[f64; 3]]| {
        p.iter()
            .flat_map(|x| x.map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(g.coordinates()), bits(&c));
    let w = &g.weights;
    let view = g.view(w).unwrap();
    let bare = GraphView::new(g.xadj(), g.adjncy(), &w.cwgt, &w.pwgt).unwrap();
    let by_hand = bare.with_coordinates(&c).unwrap();
    let geometric: [&dyn Partitioner; 2] = [&Rcb, &Sfc];
    for p in geometric {
        for nparts in [2, 7, 32] {
            let (mut a, mut b) = (vec![0; c.len()], vec![0; c.len()]);
            let ia = p.partition(&view, Targets::Equal(nparts), &mut a).unwrap();
            let ib = p
                .partition(&by_hand, Targets::Equal(nparts), &mut b)
                .unwrap();
            assert_eq!((a, ia), (b, ib), "{} into {nparts}", p.name());
        }
        let mut part = vec![0; c.len()];
        let e = p
            .partition(&bare, Targets::Equal(2), &mut part)
            .unwrap_err();
        assert!(
            matches!(&e, Error::Invalid(m) if m.contains("no vertex coordinates")),
            "{e}"
        );
    }
}

#[test]
fn uneven_shares_move_the_cut_plane() {
    // A quarter of the weight on the left: the cut moves left of the even split's.
    let (g, _) = refined_box();
    let view = g.view(&g.weights).unwrap();
    let rcb = Rcb;
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
