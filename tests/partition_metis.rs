//! METIS on box and Gmsh dual graphs: balance, reported cut, options, weight scaling.

use plume::adapt::Forest;
use plume::graph::{DualGraph, Weights};
use plume::io::read_mesh;
use plume::mesh::generate_box;
use plume::metrics::{rank_loads, Cut};
use plume::partition::{Metis, PartitionInfo, Partitioner, Targets};
use std::path::Path;

/// A 20 × 10 × 5 box of 6000 roots; with `refine`, the roots left of x = 1 refined once.
fn box_6000(refine: bool) -> DualGraph {
    let mesh = generate_box([20, 10, 5], [2.0, 1.0, 1.0]).unwrap();
    let mut forest = Forest::new(mesh, Default::default()).unwrap();
    if refine {
        forest.mark_refine_where(|l| l.centroid[0] < 1.0);
        forest.adapt().unwrap();
    }
    let g = DualGraph::new(&forest);
    assert_eq!(g.nvertices(), 6000);
    g
}

fn partition(
    metis: &Metis,
    g: &DualGraph,
    w: &Weights,
    nparts: usize,
) -> (Vec<u32>, PartitionInfo) {
    let mut part = vec![u32::MAX; g.nvertices()];
    let view = g.view(w).unwrap();
    let info = metis
        .partition(&view, Targets::Equal(nparts), &mut part)
        .unwrap();
    (part, info)
}

/// `LoadImb = max_p W_p / mean_p W_p`.
fn imbalance(pwgt: &[u64], nparts: usize, part: &[u32]) -> f64 {
    let w = rank_loads(pwgt, part, nparts);
    let mean = w.iter().sum::<u64>() as f64 / nparts as f64;
    *w.iter().max().unwrap() as f64 / mean
}

#[test]
fn box_of_6000_roots_in_8_parts_is_balanced_within_ten_percent() {
    for refine in [false, true] {
        let g = box_6000(refine);
        let (part, info) = partition(&Metis::default(), &g, &g.weights, 8);
        let imb = imbalance(&g.weights.pwgt, 8, &part);
        assert!(imb <= 1.1, "refined {refine}: LoadImb {imb}");
        assert_eq!(info.algorithm, "metis-kway");
        assert_eq!(
            (info.vertex_weight_divisor, info.edge_weight_divisor),
            (1, 1)
        );
        assert_eq!(info.repair_moves, 0);
        let cut = 100.0 * info.edge_cut as f64 / info.total_edge_weight as f64;
        assert!(cut > 0.0 && cut < 20.0, "Cut% {cut}");
    }
}

#[test]
fn the_seed_is_an_option_and_fixes_the_result() {
    let g = box_6000(true);
    let a = partition(&Metis::default(), &g, &g.weights, 8);
    assert_eq!(a, partition(&Metis::default(), &g, &g.weights, 8));
    let other = Metis {
        seed: 12345,
        ..Metis::default()
    };
    let b = partition(&other, &g, &g.weights, 8);
    assert_eq!(b, partition(&other, &g, &g.weights, 8));
}

#[test]
fn more_cuts_never_cut_more() {
    let g = box_6000(true);
    let (_, one) = partition(&Metis::default(), &g, &g.weights, 8);
    let four = Metis {
        ncuts: 4,
        ..Metis::default()
    };
    let (part, best) = partition(&four, &g, &g.weights, 8);
    // METIS keeps the lowest of its 4 cuts, the first of which is the single run's.
    assert!(
        best.edge_cut <= one.edge_cut,
        "{} > {}",
        best.edge_cut,
        one.edge_cut
    );
    assert!(imbalance(&g.weights.pwgt, 8, &part) <= 1.1);
}

#[test]
fn weights_too_large_for_32_bits_are_scaled_not_overflowed() {
    let g = box_6000(true);
    let mut w = g.weights.clone();
    let big = 1u64 << 40;
    w.pwgt.iter_mut().for_each(|x| *x *= big);
    w.cwgt.iter_mut().for_each(|x| *x *= big);
    let (part, info) = partition(&Metis::default(), &g, &w, 8);
    assert!(info.vertex_weight_divisor > 1 && info.edge_weight_divisor > 1);
    assert_eq!(
        info.edge_cut,
        Cut::new(g.xadj(), g.adjncy(), &w.cwgt, &part).cut,
        "exact cut, in u64"
    );
    assert!(imbalance(&w.pwgt, 8, &part) <= 1.1);
    // Scaling by a common factor keeps the ratios: the partition is a good one for the
    // original weights too.
    assert!(imbalance(&g.weights.pwgt, 8, &part) <= 1.1);
}

#[test]
fn shipped_shock_box_in_8_and_32_parts_is_balanced_within_five_percent() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/shock_box.msh");
    let (mesh, _) = read_mesh(&path).unwrap();
    let g = DualGraph::new(&Forest::new(mesh, Default::default()).unwrap());
    assert_eq!(g.nvertices(), 50_136);
    for nparts in [8, 32] {
        let start = std::time::Instant::now();
        let (part, info) = partition(&Metis::default(), &g, &g.weights, nparts);
        let time = start.elapsed();
        let imb = imbalance(&g.weights.pwgt, nparts, &part);
        let cut = 100.0 * info.edge_cut as f64 / info.total_edge_weight as f64;
        println!(
            "shock_box, {nparts} parts: LoadImb {imb:.4}, edge cut {} of {} ({cut:.2}%), {:.1} ms",
            info.edge_cut,
            info.total_edge_weight,
            time.as_secs_f64() * 1e3
        );
        assert!(imb <= 1.05, "{nparts} parts: LoadImb {imb}");
        assert!(
            info.edge_cut > 0 && cut < 25.0,
            "{nparts} parts: Cut% {cut}"
        );
        assert_eq!(
            info.edge_cut,
            Cut::new(g.xadj(), g.adjncy(), &g.weights.cwgt, &part).cut
        );
        let sizes = rank_loads(&vec![1; part.len()], &part, nparts);
        assert!(sizes.iter().all(|&s| s > 0));
    }
}

/// Regression: METIS's random generator is process-wide, so runs on parallel threads (as
/// `cargo test` does) once gave different parts for the same seed. Calls are now serialised.
#[test]
fn metis_on_many_threads_at_once_gives_the_same_parts() {
    let g = box_6000(true);
    let alone = partition(&Metis::default(), &g, &g.weights, 32);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| partition(&Metis::default(), &g, &g.weights, 32)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.iter().all(|r| *r == alone));
}
