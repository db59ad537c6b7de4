//! Leaf adjacency in rank-independent terms, to compare forests, ranks and brute force.

use plume::adapt::{Across, Forest, LeafAdjacency};
use plume::mesh::Mesh;
use std::collections::BTreeMap;

/// A leaf named independently of ranks: its root and its vertex keys in order.
pub type LeafName = (u32, [u64; 4]);

/// What lies across a leaf face, named independently of ranks.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Named {
    /// A leaf and its local face.
    Leaf(LeafName, u8),
    /// The boundary, with its tag.
    Boundary(u32),
}

/// Every `(leaf, local face)` of `adj` with what lies across it; `ghost` names the ghost
/// leaves (by index) when `adj` has any. Panics on a face left `Remote`.
pub fn named_adjacency(
    forest: &Forest,
    adj: &LeafAdjacency,
    ghost: impl Fn(u32) -> LeafName,
) -> BTreeMap<(LeafName, u8), Named> {
    let name = |i: u32| {
        let id = adj.leaves[i as usize];
        let e = &forest.trees()[id.root as usize].elems[id.elem as usize];
        let root = forest.initial().root_gid(id.root);
        (root, e.verts.map(|v| forest.vertices()[v].key))
    };
    let mut out = BTreeMap::new();
    for (i, across) in adj.across.iter().enumerate() {
        for (k, a) in across.iter().enumerate() {
            let named = match *a {
                Across::Leaf { leaf, face } => Named::Leaf(name(leaf), face),
                Across::Ghost { ghost: g, face } => Named::Leaf(ghost(g), face),
                Across::Boundary { tag } => Named::Boundary(tag),
                Across::Remote { root } => {
                    panic!("face {k} of leaf {i} is left across root {root}")
                }
            };
            out.insert((name(i as u32), k as u8), named);
        }
    }
    out
}

/// Tags the sides of an axis-aligned box mesh `lo`..`hi`: x−, x+, y−, y+, z−, z+ get 1..=6.
pub fn tag_box_sides(mesh: &mut Mesh) {
    mesh.tag_boundary(|_, n| side_tag(n)).unwrap();
}

/// The tag [`tag_box_sides`] gives a face with outward area vector `n`.
pub fn side_tag(n: [f64; 3]) -> u32 {
    let axis = (0..3)
        .max_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
        .unwrap();
    1 + 2 * axis as u32 + u32::from(n[axis] > 0.0)
}
