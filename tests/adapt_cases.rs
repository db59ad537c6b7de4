//! Small cases worked by hand: one tetrahedron split 1:2, 1:4 and 1:8; two tetrahedra sharing a
//! face; closure propagating around a ring of elements and across faces; green upgrades.

mod common;

use common::*;
use plume::mesh::{generate_box, geometry};

#[test]
fn one_tet_bisected_once() {
    let mut f = forest(one_tet(), 4, 0);
    f.mark_edge(0, 1).unwrap();
    let r = f.adapt().unwrap();
    assert_eq!((r.divided, f.nleaves(), f.vertices().nlive()), (1, 2, 5));
    let leaves = leaf_volumes(&f);
    for (_, v, level) in &leaves {
        assert!((v - 1.0 / 12.0).abs() < 1e-15 && *level == 1);
    }
    // The midpoint of (0,1) is (0.5, 0, 0).
    assert!(f
        .vertices()
        .slots()
        .iter()
        .any(|v| v.pos == [0.5, 0.0, 0.0]));
    f.check().unwrap();
}

#[test]
fn one_tet_two_edges_of_a_face_close_to_1_4() {
    let mut f = forest(one_tet(), 4, 0);
    f.mark_edge(0, 1).unwrap();
    f.mark_edge(1, 2).unwrap();
    f.adapt().unwrap();
    // Closure adds edge (0, 2): the face (0,1,2) is split in four.
    assert_eq!(
        (f.nleaves(), f.vertices().nlive(), f.edges().len()),
        (4, 7, 3)
    );
    for (_, v, _) in leaf_volumes(&f) {
        assert!((v - 1.0 / 24.0).abs() < 1e-15);
    }
    f.check().unwrap();
}

#[test]
fn one_tet_two_opposite_edges_close_to_1_8() {
    let mut f = forest(one_tet(), 4, 0);
    f.mark_edge(0, 1).unwrap();
    f.mark_edge(2, 3).unwrap();
    f.adapt().unwrap();
    assert_eq!(
        (f.nleaves(), f.vertices().nlive(), f.edges().len()),
        (8, 10, 6)
    );
    for (_, v, _) in leaf_volumes(&f) {
        assert!((v - 1.0 / 48.0).abs() < 1e-15);
    }
    f.check().unwrap();
}

#[test]
fn one_tet_refined_1_8_then_coarsened_back() {
    let mut f = forest(one_tet(), 4, 0);
    refine_all(&mut f);
    assert_eq!((f.nleaves(), f.nelems()), (8, 9));
    f.check().unwrap();
    coarsen_all(&mut f);
    assert_eq!(
        (f.nleaves(), f.vertices().nlive(), f.edges().len()),
        (1, 4, 0)
    );
    f.check().unwrap();
}

/// Issue 23 (7): a tree coarsened to less than half of what it held gives the room back, so
/// that a forest the shock front refined deeply and left behind holds no tables sized by its
/// past.
#[test]
fn coarsened_trees_give_back_their_room() {
    let mut f = forest(one_tet(), 3, 2);
    for _ in 0..3 {
        refine_all(&mut f);
    }
    assert_eq!(f.nelems(), 1 + 8 + 64 + 512);
    for nelems in [1 + 8 + 64, 1 + 8, 1] {
        coarsen_all(&mut f);
        let tree = &f.trees()[0];
        assert_eq!(tree.elems.len(), nelems);
        assert!(
            tree.elems.capacity() <= 2 * nelems,
            "{}",
            tree.elems.capacity()
        );
        assert!(
            tree.data.capacity() <= 2 * 2 * nelems,
            "{}",
            tree.data.capacity()
        );
        f.check().unwrap();
    }
}

#[test]
fn shared_face_edge_splits_both_neighbours() {
    let mut f = forest(two_tets(), 4, 0);
    f.mark_edge(1, 2).unwrap();
    f.adapt().unwrap();
    assert_eq!((f.nleaves(), f.vertices().nlive()), (4, 6));
    f.check().unwrap();
}

#[test]
fn refining_one_tet_makes_its_neighbour_green_1_4() {
    let mut f = forest(two_tets(), 4, 0);
    f.mark_refine(f.leaf_id(0, 0));
    f.adapt().unwrap();
    // 8 children in root 0; root 1 holds the shared face's three midpoints: 1:4.
    assert_eq!(f.trees()[0].nleaves, 8);
    assert_eq!(f.trees()[1].nleaves, 4);
    assert_eq!(f.vertices().nlive(), 5 + 6);
    let mesh = f.leaf_mesh();
    let green: Vec<u8> = (0..mesh.tets.len())
        .filter(|&i| mesh.root[i] == 1)
        .map(|i| mesh.pattern[i])
        .collect();
    assert_eq!(green, vec![4; 4]);
    f.check().unwrap();
}

#[test]
fn refining_a_green_leaf_upgrades_its_parent_and_refines_its_region() {
    let mut f = forest(two_tets(), 4, 0);
    f.mark_refine(f.leaf_id(0, 0));
    f.adapt().unwrap();
    // Pick the green leaf of root 1 that holds vertex 4 (the apex away from the shared face):
    // every green child of a 1:4 split holds the apex, so take the first.
    let green = f.leaves().into_iter().find(|l| l.root == 1).unwrap();
    let region = f.trees()[1].elems[green.elem as usize]
        .verts
        .map(|v| f.vertices()[v].pos);
    f.mark_refine(green);
    let r = f.adapt().unwrap();
    assert_eq!(r.upgraded, 1);
    f.check().unwrap();
    // Root 1 is now split 1:8, and every point inside the requested region lies in a level-2
    // leaf: sample it at barycentric points strictly inside.
    let leaves: Vec<_> = {
        let mut v = Vec::new();
        f.for_each_leaf(|l| v.push((l.corners, l.level)));
        v
    };
    for k in (1..6).flat_map(|a| (1..6).flat_map(move |b| (1..6).map(move |c| [a, b, c]))) {
        let d = 8 - k[0] - k[1] - k[2];
        if d < 1 {
            continue;
        }
        let w = [k[0], k[1], k[2], d].map(|x| x as f64 / 8.0);
        let p: [f64; 3] = std::array::from_fn(|i| (0..4).map(|j| w[j] * region[j][i]).sum());
        let holders: Vec<u8> = leaves
            .iter()
            .filter(|(c, _)| contains(c, p))
            .map(|x| x.1)
            .collect();
        assert!(
            !holders.is_empty() && holders.iter().all(|&l| l == 2),
            "{p:?}: {holders:?}"
        );
    }
    let pattern_of_root1_children: Vec<u8> = {
        let m = f.leaf_mesh();
        (0..m.tets.len())
            .filter(|&i| m.root[i] == 1 && m.level[i] == 1)
            .map(|i| m.pattern[i])
            .collect()
    };
    assert!(pattern_of_root1_children.iter().all(|&p| p == 8));
}

#[test]
fn closure_runs_around_the_ring_of_a_shared_edge() {
    // The six tetrahedra of one cube all hold its main diagonal (vertex 0 to vertex 7).
    let mesh = generate_box([1, 1, 1], [1.0; 3]).unwrap();
    let mut f = forest(mesh, 4, 0);
    f.mark_edge(0, 7).unwrap();
    let r = f.adapt().unwrap();
    assert_eq!(r.changed_roots, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!((f.nleaves(), f.vertices().nlive()), (12, 9));
    f.check().unwrap();
}

#[test]
fn closure_propagates_across_several_elements() {
    // A row of 4 cubes: refining one corner element twice forces green upgrades and closure
    // in its neighbours, and the mesh stays conforming.
    let mesh = generate_box([4, 1, 1], [4.0, 1.0, 1.0]).unwrap();
    let mut f = forest(mesh, 4, 0);
    for _ in 0..3 {
        f.mark_refine_where(|l| l.centroid[0] < 0.3);
        let r = f.adapt().unwrap();
        assert!(r.changed_roots.len() > 1);
        f.check().unwrap();
    }
    assert!(f.leaf_mesh().level.contains(&3));
    let deep_roots: std::collections::BTreeSet<u32> = {
        let m = f.leaf_mesh();
        (0..m.tets.len())
            .filter(|&i| m.level[i] >= 2)
            .map(|i| m.root[i])
            .collect()
    };
    assert!(deep_roots.len() > 1);
}

#[test]
fn max_depth_is_respected() {
    let mut f = forest(one_tet(), 2, 0);
    for _ in 0..4 {
        refine_all(&mut f);
    }
    assert_eq!(f.nleaves(), 64);
    f.check().unwrap();
}

#[test]
fn marking_a_non_edge_is_an_error() {
    let mut f = forest(two_tets(), 4, 0);
    assert!(f.mark_edge(0, 4).is_err());
    assert!(f.mark_edge(0, 99).is_err());
    assert!(f.mark_edge(2, 2).is_err());
}

#[test]
fn solution_data_is_copied_down_and_averaged_up() {
    let mut f = forest(two_tets(), 4, 1);
    f.leaf_data_mut(f.leaf_id(0, 0))[0] = 3.0;
    f.leaf_data_mut(f.leaf_id(1, 0))[0] = 5.0;
    refine_all(&mut f);
    let ids = f.leaves();
    for &id in &ids {
        assert_eq!(f.leaf_data(id)[0], if id.root == 0 { 3.0 } else { 5.0 });
    }
    // Give each leaf of root 0 a different value; coarsening averages by volume.
    let mut integral = 0.0;
    let vols = leaf_volumes(&f);
    for (i, (id, v, _)) in vols.iter().enumerate().filter(|(_, x)| x.0.root == 0) {
        f.leaf_data_mut(*id)[0] = i as f64;
        integral += v * i as f64;
    }
    coarsen_all(&mut f);
    let root_vol = geometry::volume(&f.mesh().corners(0));
    let value = f.leaf_data(f.leaf_id(0, 0))[0];
    assert!((value * root_vol - integral).abs() < 1e-12);
}
