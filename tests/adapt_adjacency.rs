//! Leaf face adjacency on random adapted meshes: against brute force (every leaf face has
//! exactly one neighbour or lies on the boundary), symmetric, closed (area vectors), and with
//! the boundary tags of the root faces the leaf faces lie on.

mod common;

use common::adjacency::{side_tag, tag_box_sides};
use common::forest;
use plume::adapt::{Across, Forest, LeafAdjacency};
use plume::mesh::geometry::face_area_vector;
use plume::mesh::topology::FACE_VERTS;
use plume::mesh::{generate_box, Mesh};
use plume::rng::Rng;
use proptest::prelude::*;
use std::collections::HashMap;

/// Corners of leaf `i` of `adj`.
fn corners(f: &Forest, adj: &LeafAdjacency, i: usize) -> [[f64; 3]; 4] {
    let id = adj.leaves[i];
    let e = &f.trees()[id.root as usize].elems[id.elem as usize];
    e.verts.map(|v| f.vertices()[v].pos)
}

fn close(a: [f64; 3], b: [f64; 3], scale: f64) -> bool {
    (0..3).all(|d| (a[d] - b[d]).abs() <= 1e-12 * scale)
}

/// Every property of the adjacency of `f`, a forest of a closed box whose sides are tagged.
fn check(f: &Forest) {
    let adj = LeafAdjacency::build(f).unwrap();
    assert_eq!(adj.leaves, f.leaves());
    assert_eq!(adj.nleaves(), f.nleaves());
    // Brute force: the leaves holding each triangle.
    let mut holders: HashMap<[u32; 3], Vec<(u32, u8)>> = HashMap::new();
    for (i, id) in adj.leaves.iter().enumerate() {
        assert_eq!(adj.index_of(*id), Some(i as u32));
        let verts = f.trees()[id.root as usize].elems[id.elem as usize].verts;
        for (k, fv) in FACE_VERTS.iter().enumerate() {
            let mut key = fv.map(|j| verts[j]);
            key.sort_unstable();
            holders.entry(key).or_default().push((i as u32, k as u8));
        }
    }
    assert!(
        holders.values().all(|h| h.len() <= 2),
        "a face held by three leaves"
    );
    let mut boundary_sum = [0.0; 3];
    let mut boundary_area = 0.0;
    for (i, across) in adj.across.iter().enumerate() {
        let p = corners(f, &adj, i);
        let scale = p.iter().flatten().fold(1.0f64, |m, x| m.max(x.abs()));
        let mut closure = [0.0; 3];
        for (k, a) in across.iter().enumerate() {
            let n = face_area_vector(&p, k);
            (0..3).for_each(|d| closure[d] += n[d]);
            let verts =
                f.trees()[adj.leaves[i].root as usize].elems[adj.leaves[i].elem as usize].verts;
            let mut key = FACE_VERTS[k].map(|j| verts[j]);
            key.sort_unstable();
            let others: Vec<(u32, u8)> = holders[&key]
                .iter()
                .copied()
                .filter(|&(l, _)| l != i as u32)
                .collect();
            match *a {
                Across::Leaf { leaf, face } => {
                    assert_eq!(others, vec![(leaf, face)], "leaf {i} face {k}");
                    // Symmetric, and the same triangle seen from the other side.
                    assert_eq!(
                        adj.across[leaf as usize][face as usize],
                        Across::Leaf {
                            leaf: i as u32,
                            face: k as u8
                        }
                    );
                    let m = face_area_vector(&corners(f, &adj, leaf as usize), face as usize);
                    assert!(close(n, m.map(|x| -x), scale), "{n:?} vs {m:?}");
                }
                Across::Boundary { tag } => {
                    assert!(
                        others.is_empty(),
                        "leaf {i} face {k} is not on the boundary"
                    );
                    assert_eq!(tag, side_tag(n), "leaf {i} face {k}: tag of its side");
                    (0..3).for_each(|d| boundary_sum[d] += n[d]);
                    boundary_area += n.iter().map(|x| x * x).sum::<f64>().sqrt();
                }
                other => panic!("leaf {i} face {k}: {other:?} in a forest holding every tree"),
            }
        }
        assert!(
            close(closure, [0.0; 3], scale),
            "leaf {i}: Σ area vectors {closure:?}"
        );
    }
    assert!(
        close(boundary_sum, [0.0; 3], 10.0),
        "Σ boundary area vectors {boundary_sum:?}"
    );
    let surface = surface_area(f.mesh());
    assert!(
        (boundary_area - surface).abs() <= 1e-12 * surface,
        "{boundary_area} vs {surface}"
    );
}

/// Surface area of the box a mesh fills.
fn surface_area(mesh: &Mesh) -> f64 {
    let (lo, hi) = plume::mesh::geometry::bounding_box(mesh.coords.iter().copied());
    let [a, b, c] = std::array::from_fn(|d| hi[d] - lo[d]);
    2.0 * (a * b + b * c + c * a)
}

/// `rounds` adaptation steps of random marks (refine, coarsen, or a coarsening slab), checking
/// the adjacency after each, and that rebuilding it from the one before the step gives it.
fn random_rounds(seed: u64, rounds: usize) {
    let mut mesh = generate_box([3, 2, 2], [3.0, 2.0, 1.5]).unwrap();
    tag_box_sides(&mut mesh);
    let mut f = forest(mesh, 3, 0);
    check(&f);
    let mut rng = Rng::new(seed);
    let (mut coarsened, mut upgraded) = (0, 0);
    for round in 0..rounds {
        let (p_ref, p_coarse, slab) = match round % 3 {
            0 => (0.15, 0.2, f64::NEG_INFINITY),
            1 => (0.08, 0.5, f64::NEG_INFINITY),
            _ => (0.02, 0.9, 3.0 * rng.unit()),
        };
        let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
        f.for_each_leaf(|l| {
            let x = rng.unit();
            if l.centroid[0] < slab || (x >= p_ref && x < p_ref + p_coarse) {
                coarsen.push(l.id);
            } else if x < p_ref {
                refine.push(l.id);
            }
        });
        refine.iter().for_each(|&id| f.mark_refine(id));
        coarsen.iter().for_each(|&id| f.mark_coarsen(id));
        let before = LeafAdjacency::build(&f).unwrap();
        let report = f.adapt().unwrap();
        (coarsened, upgraded) = (coarsened + report.coarsened, upgraded + report.upgraded);
        check(&f);
        // Rebuilding from the adjacency before the step gives the adjacency built anew.
        assert_eq!(
            before.rebuild(&f).unwrap(),
            LeafAdjacency::build(&f).unwrap()
        );
    }
    assert!(
        coarsened > 0 && upgraded > 0,
        "coarsened {coarsened}, upgraded {upgraded}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_adapted_meshes_have_a_closed_symmetric_adjacency(seed in any::<u64>()) {
        random_rounds(seed, 6);
    }
}

#[test]
fn an_unrefined_mesh_pairs_roots_as_its_topology() {
    let mut mesh = generate_box([2, 2, 2], [1.0, 1.0, 1.0]).unwrap();
    tag_box_sides(&mut mesh);
    let f = forest(mesh, 3, 0);
    let adj = LeafAdjacency::build(&f).unwrap();
    for (r, across) in adj.across.iter().enumerate() {
        for (k, a) in across.iter().enumerate() {
            let nbr = f.root_face_neighbours(r as u32)[k];
            match *a {
                Across::Leaf { leaf, .. } => assert_eq!(adj.leaves[leaf as usize].root, nbr),
                Across::Boundary { tag } => {
                    assert_eq!(nbr, plume::adapt::NO_ELEM);
                    assert_eq!(tag, f.mesh().tags.boundary_tag(r, k));
                    assert_ne!(tag, 0);
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
