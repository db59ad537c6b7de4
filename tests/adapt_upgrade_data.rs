//! Solution values across a green upgrade, field by field: an inherit field (the erosion
//! case's rock/fluid flag) gives each 1:8 child of an upgraded family the value of the green
//! child holding its centroid, so a piecewise-constant field keeps its values; a conservative
//! field gives it the volume-weighted mean of the green children it overlaps, so the family's
//! `Σ u·V` does not change. The children of the 1:8 children copy them.

mod common;

use common::*;
use plume::adapt::{AdaptOptions, Forest, LeafId, Transfer};
use plume::mesh::geometry;

/// Field 0 conservative, field 1 inherit.
const CONSERVATIVE: usize = 0;
const INHERIT: usize = 1;

/// A green child: its corners and its value.
type GreenChild = ([[f64; 3]; 4], f64);

/// A green family in root 1 of two tetrahedra, one value per green child (the same in both
/// fields), then an upgrade of that family; returns the forest and the green children's
/// corners and values.
fn upgraded_family() -> (Forest, Vec<GreenChild>) {
    let mut f = Forest::new(
        two_tets(),
        AdaptOptions {
            max_depth: 4,
            ..AdaptOptions::with_fields(vec![Transfer::Conservative, Transfer::Inherit])
        },
    )
    .unwrap();
    f.mark_refine(f.leaf_id(0, 0));
    f.adapt().unwrap();
    // Root 1 is now a green family: give each child its own value.
    let mut green: Vec<(LeafId, [[f64; 3]; 4], f64)> = Vec::new();
    f.for_each_leaf(|l| {
        if l.id.root == 1 {
            green.push((l.id, l.corners, 10.0 * (green.len() + 1) as f64));
        }
    });
    assert!(green.len() >= 2, "root 1 holds a green family");
    for &(id, _, value) in &green {
        f.leaf_data_mut(id).copy_from_slice(&[value, value]);
    }
    f.mark_refine(green[0].0);
    assert_eq!(f.adapt().unwrap().upgraded, 1);
    (f, green.into_iter().map(|(_, c, v)| (c, v)).collect())
}

/// Calls `visit` with every leaf of root 1, its 1:8 ancestor's corners (the upgrade's child it
/// descends from) and its values.
fn for_each_upgraded_leaf(f: &Forest, mut visit: impl FnMut([[f64; 3]; 4], &[f64])) {
    let tree = &f.trees()[1];
    let mut seen = 0;
    f.for_each_leaf(|l| {
        if l.id.root != 1 {
            return;
        }
        seen += 1;
        let mut e = l.id.elem as usize;
        while tree.elems[e].level > 1 {
            e = tree.elems[e].parent as usize;
        }
        visit(tree.elems[e].verts.map(|v| f.vertices()[v].pos), l.data);
    });
    assert!(seen >= 8);
}

#[test]
fn upgraded_children_keep_the_inherited_value_of_the_green_child_they_lie_in() {
    let (f, green) = upgraded_family();
    for_each_upgraded_leaf(&f, |corners, data| {
        let x = geometry::centroid(&corners);
        let holders: Vec<f64> = green
            .iter()
            .filter(|g| contains(&g.0, x))
            .map(|g| g.1)
            .collect();
        assert!(
            holders.contains(&data[INHERIT]),
            "value {} at a point of green children {holders:?}",
            data[INHERIT]
        );
    });
}

#[test]
fn upgraded_children_take_the_conservative_mean_of_the_green_children_they_overlap() {
    let (f, green) = upgraded_family();
    let green_total: f64 = green.iter().map(|g| g.1 * geometry::volume(&g.0)).sum();
    let mut total = 0.0;
    let mut mixed = 0;
    f.for_each_leaf(|l| {
        if l.id.root == 1 {
            total += l.data[CONSERVATIVE] * geometry::volume(&l.corners);
        }
    });
    assert!(
        (total - green_total).abs() <= 1e-12 * green_total,
        "Σ u·V of the family went from {green_total} to {total}"
    );
    for_each_upgraded_leaf(&f, |corners, data| {
        let u = data[CONSERVATIVE];
        // The green children holding a corner of the 1:8 child bound its mean; a 1:8 child
        // inside one green child takes its value exactly.
        let around: Vec<f64> = green
            .iter()
            .filter(|g| corners.iter().any(|&p| contains(&g.0, p)))
            .map(|g| g.1)
            .collect();
        let (lo, hi) = around
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        assert!(
            lo - 1e-12 <= u && u <= hi + 1e-12,
            "{u} outside [{lo}, {hi}]"
        );
        if let Some(g) = green
            .iter()
            .find(|g| corners.iter().all(|&p| contains(&g.0, p)))
        {
            assert!(
                (u - g.1).abs() <= 1e-12 * g.1,
                "{u} inside a green child of value {}",
                g.1
            );
        } else {
            mixed += 1;
        }
    });
    assert!(mixed > 0, "some 1:8 child straddles green children");
}
