//! The contract every partitioner keeps, checked for each one of `PARTITIONER_NAMES`:
//! ids below `nparts`, no empty part, the same answer twice, bad `nparts` an error.

use plume::adapt::Forest;
use plume::graph::{DualGraph, Weights};
use plume::mesh::{generate_box, Mesh};
use plume::metrics::{rank_loads, Cut};
use plume::partition::{Metis, PartitionInfo, Partitioner, Rcb, Sfc, Targets};
use plume::Error;

/// The partitioners whose contract is checked.
const PARTITIONER_NAMES: [&str; 3] = ["metis", "rcb", "sfc"];

/// The partitioner `name` with default options (RCB and SFC cut the graph's coordinates).
fn partitioner(name: &str) -> Box<dyn Partitioner> {
    let p: Box<dyn Partitioner> = match name {
        "metis" => Box::new(Metis::default()),
        "rcb" => Box::new(Rcb),
        "sfc" => Box::new(Sfc),
        _ => unreachable!("not in PARTITIONER_NAMES: {name}"),
    };
    assert_eq!(p.name(), name);
    p
}

/// A 4 × 2 × 2 box (96 roots), its left half refined once: leaves per root 1 or 8-ish.
fn refined_box() -> DualGraph {
    let mesh = generate_box([4, 2, 2], [2.0, 1.0, 1.0]).unwrap();
    let mut forest = Forest::new(mesh, Default::default()).unwrap();
    forest.mark_refine_where(|l| l.centroid[0] < 1.0);
    forest.adapt().unwrap();
    DualGraph::new(&forest)
}

fn run(name: &str, g: &DualGraph, w: &Weights, nparts: usize) -> (Vec<u32>, PartitionInfo) {
    let p = partitioner(name);
    let mut part = vec![u32::MAX; g.nvertices()];
    let view = g.view(w).unwrap();
    let info = p
        .partition(&view, Targets::Equal(nparts), &mut part)
        .unwrap();
    (part, info)
}

#[test]
fn weights_are_non_uniform_after_refinement() {
    let g = refined_box();
    let w = &g.weights.pwgt;
    assert!(w.iter().min() == Some(&1) && *w.iter().max().unwrap() >= 8);
}

#[test]
fn every_part_is_non_empty_and_ids_are_below_nparts() {
    let g = refined_box();
    for name in PARTITIONER_NAMES {
        for nparts in [1, 2, 3, 7, 8, 32] {
            let (part, info) = run(name, &g, &g.weights, nparts);
            assert!(
                part.iter().all(|&p| (p as usize) < nparts),
                "{name} {nparts}"
            );
            let sizes = rank_loads(&vec![1; part.len()], &part, nparts);
            assert!(sizes.iter().all(|&s| s > 0), "{name} {nparts}: {sizes:?}");
            assert_eq!(info.nparts, nparts);
            assert_eq!(
                info.edge_cut,
                Cut::new(g.xadj(), g.adjncy(), &g.weights.cwgt, &part).cut
            );
            assert!(info.edge_cut <= info.total_edge_weight);
            assert_eq!(info.edge_cut == 0, nparts == 1, "{name} {nparts}");
        }
    }
}

#[test]
fn as_many_parts_as_roots_gives_one_root_per_part() {
    let g = refined_box();
    let n = g.nvertices();
    for name in PARTITIONER_NAMES {
        let (mut part, _) = run(name, &g, &g.weights, n);
        part.sort_unstable();
        assert_eq!(part, (0..n as u32).collect::<Vec<_>>(), "{name}");
    }
}

#[test]
fn same_input_gives_the_same_parts() {
    let g = refined_box();
    for name in PARTITIONER_NAMES {
        for nparts in [3, 8, 32] {
            let a = run(name, &g, &g.weights, nparts);
            let b = run(name, &g, &g.weights, nparts);
            assert_eq!(a, b, "{name} {nparts}");
            // A fresh graph built from a fresh forest as well.
            let g2 = refined_box();
            assert_eq!(a, run(name, &g2, &g2.weights, nparts), "{name} {nparts}");
        }
    }
}

#[test]
fn the_weights_given_are_used_not_the_graphs() {
    // Predicted-weight use: weights that make the right half 100× heavier move the parts.
    let g = refined_box();
    let mut w = g.weights.clone();
    for (v, x) in w.pwgt.iter_mut().enumerate() {
        if g.coordinates()[v][0] > 1.0 {
            *x *= 100;
        }
    }
    for name in PARTITIONER_NAMES {
        let (own, _) = run(name, &g, &g.weights, 4);
        let (given, _) = run(name, &g, &w, 4);
        assert_ne!(own, given, "{name}");
        let loads = rank_loads(&w.pwgt, &given, 4);
        let mean = loads.iter().sum::<u64>() as f64 / 4.0;
        let max = *loads.iter().max().unwrap() as f64;
        assert!(max / mean < 1.1, "{name}: {loads:?}");
    }
}

#[test]
fn zero_parts_and_more_parts_than_roots_are_errors() {
    let g = refined_box();
    let n = g.nvertices();
    for name in PARTITIONER_NAMES {
        let p = partitioner(name);
        let view = g.view(&g.weights).unwrap();
        let mut part = vec![0; n];
        let e = p
            .partition(&view, Targets::Equal(0), &mut part)
            .unwrap_err();
        assert_eq!(e, Error::Zero { what: "parts" }, "{name}");
        let e = p
            .partition(&view, Targets::Equal(n + 1), &mut part)
            .unwrap_err();
        let msg = e.to_string();
        assert_eq!(
            e,
            Error::TooFewVertices {
                parts: n + 1,
                vertices: n
            },
            "{name}"
        );
        assert!(
            msg.contains(&n.to_string()) && msg.contains(&(n + 1).to_string()),
            "{msg}"
        );
        let e = p
            .partition(&view, Targets::Equal(2), &mut part[1..])
            .unwrap_err();
        assert_eq!(
            e,
            Error::LengthMismatch {
                what: "part",
                expected: n,
                actual: n - 1
            },
            "{name}"
        );
    }
}

#[test]
fn a_mesh_of_one_element_goes_into_one_part() {
    let mesh = Mesh::new(
        vec![[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]],
        vec![[0, 1, 2, 3]],
    );
    let g = DualGraph::new(&Forest::new(mesh, Default::default()).unwrap());
    assert_eq!((g.nvertices(), g.nedges()), (1, 0));
    for name in PARTITIONER_NAMES {
        let (part, info) = run(name, &g, &g.weights, 1);
        assert_eq!((part, info.edge_cut), (vec![0], 0), "{name}");
        let mut part = vec![0];
        assert!(partitioner(name)
            .partition(&g.view(&g.weights).unwrap(), Targets::Equal(2), &mut part)
            .is_err());
    }
}

#[test]
fn two_elements_sharing_no_face_go_to_two_parts() {
    // A graph without edges: METIS is not called, the greedy fallback runs.
    let mesh = Mesh::new(
        vec![
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 1.],
            [5., 0., 0.],
            [6., 0., 0.],
            [5., 1., 0.],
            [5., 0., 1.],
        ],
        vec![[0, 1, 2, 3], [4, 5, 6, 7]],
    );
    let g = DualGraph::new(&Forest::new(mesh, Default::default()).unwrap());
    assert_eq!(g.nedges(), 0);
    for name in PARTITIONER_NAMES {
        let (mut part, info) = run(name, &g, &g.weights, 2);
        part.sort_unstable();
        assert_eq!((part, info.edge_cut), (vec![0, 1], 0), "{name}");
    }
}
