//! Weights of one tree, from one depth-first walk: leaves (`PWgt`), elements (`RWgt`) and the
//! number of leaf faces on each of the root's four faces (the `CWgt` of the dual edge through
//! that face). The walk tracks, for each vertex of an element, which root vertices span it
//! (a 4-bit mask); a leaf face lies on root face `f` exactly when its three vertices' masks
//! together miss only bit `f`.

use crate::adapt::pattern::{close_mask, local_points, Split, EDGES};
use crate::adapt::{Forest, NO_ELEM};
use crate::mesh::topology::FACE_VERTS;

/// Weights of one tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TreeWeights {
    /// Leaves: the processing weight `PWgt`.
    pub leaves: u64,
    /// Elements, internal ones included: the remapping weight `RWgt`.
    pub elems: u64,
    /// Leaf faces on each root face (face `f` is opposite root vertex `f`).
    pub face_leaves: [u64; 4],
}

impl TreeWeights {
    /// Current weights of tree `root`; with `predict`, the weights it will have once every leaf
    /// with bisected edges is subdivided (call between [`Forest::close`] and
    /// [`Forest::subdivide`]).
    pub fn of(forest: &Forest, root: u32, predict: bool) -> TreeWeights {
        let tree = &forest.trees()[root as usize];
        let edges = forest.edges();
        let mut w = TreeWeights::default();
        let mut stack: Vec<(u32, [u8; 4])> = vec![(0, [1, 2, 4, 8])];
        while let Some((i, masks)) = stack.pop() {
            let e = &tree.elems[i as usize];
            w.elems += 1;
            if e.split != Split::NONE {
                let pts = local_masks(masks);
                for (j, c) in e.children().enumerate() {
                    let ch = e.split.children()[j];
                    stack.push((c as u32, ch.map(|x| pts[x as usize])));
                }
                continue;
            }
            let pending = if predict {
                let mut m = 0u8;
                for (k, &[a, b]) in EDGES.iter().enumerate() {
                    if edges.get(e.verts[a], e.verts[b]).is_some() {
                        m |= 1 << k;
                    }
                }
                m
            } else {
                0
            };
            if pending == 0 {
                w.add_leaf(masks);
            } else {
                let split = Split::from_mask(close_mask(pending), 0);
                let pts = local_masks(masks);
                w.elems += split.nchildren() as u64;
                for ch in split.children() {
                    w.add_leaf(ch.map(|x| pts[x as usize]));
                }
            }
        }
        debug_assert!(tree.elems.first().is_some_and(|r| r.parent == NO_ELEM));
        w
    }

    fn add_leaf(&mut self, masks: [u8; 4]) {
        self.leaves += 1;
        for f in FACE_VERTS {
            let span = masks[f[0]] | masks[f[1]] | masks[f[2]];
            if span.count_ones() == 3 {
                self.face_leaves[(!span & 0xF).trailing_zeros() as usize] += 1;
            }
        }
    }
}

fn local_masks(masks: [u8; 4]) -> [u8; 10] {
    local_points(masks, |k| masks[EDGES[k][0]] | masks[EDGES[k][1]])
}
