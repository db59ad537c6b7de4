//! Solution values across a green upgrade: the 1:8 children of an upgraded family keep the
//! values of the green child holding their centroid (and their own children copy them), so a
//! piecewise-constant field (the erosion case's rock/fluid flag) keeps its values instead of
//! being averaged.

mod common;

use common::*;
use plume::adapt::LeafId;
use plume::mesh::geometry;

#[test]
fn upgraded_children_keep_the_value_of_the_green_child_they_lie_in() {
    let mut f = forest(two_tets(), 4, 1);
    f.mark_refine(LeafId { root: 0, elem: 0 });
    f.adapt().unwrap();
    // Root 1 is now a green family: give each child its own value.
    let green: Vec<(LeafId, [[f64; 3]; 4], f64)> = {
        let mut v = Vec::new();
        f.for_each_leaf(|l| {
            if l.id.root == 1 {
                v.push((l.id, l.corners, 0.0));
            }
        });
        v.iter()
            .enumerate()
            .map(|(k, &(id, c, _))| (id, c, 10.0 * (k + 1) as f64))
            .collect()
    };
    assert!(green.len() >= 2, "root 1 holds a green family");
    for &(id, _, value) in &green {
        f.leaf_data_mut(id)[0] = value;
    }
    f.mark_refine(green[0].0);
    assert_eq!(f.adapt().unwrap().upgraded, 1);
    let tree = &f.trees()[1];
    let mut seen = 0;
    f.for_each_leaf(|l| {
        if l.id.root != 1 {
            return;
        }
        seen += 1;
        // The 1:8 child of the upgrade this leaf descends from (refined children copy it).
        let mut e = l.id.elem as usize;
        while tree.elems[e].level > 1 {
            e = tree.elems[e].parent as usize;
        }
        let corners = tree.elems[e].verts.map(|v| f.vertices()[v].pos);
        let x = geometry::centroid(&corners);
        let holders: Vec<f64> = green
            .iter()
            .filter(|g| contains(&g.1, x))
            .map(|g| g.2)
            .collect();
        assert!(
            holders.contains(&l.data[0]),
            "value {} at a point of green children {holders:?}",
            l.data[0]
        );
    });
    assert!(seen >= 8);
}
