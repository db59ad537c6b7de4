//! Weights of one tree, from one depth-first walk: leaves (`PWgt`), elements (`RWgt`) and the
//! number of leaf faces on each of the root's four faces (the `CWgt` of the dual edge through
//! that face). The walk tracks, for each vertex of an element, which root vertices span it
//! (a 4-bit mask); a leaf face lies on root face `f` exactly when its three vertices' masks
//! together miss only bit `f`.
//!
//! `PWgt` counts leaves unless the caller says what each leaf costs ([`LeafCost`], e.g. a
//! closure `|leaf: &LeafView| -> u64`): [`TreeWeights::costed`] then sums the leaves' costs.

use crate::adapt::pattern::{close_mask, local_points, Split, EDGES};
use crate::adapt::{Edges, Forest, LeafView, NO_ELEM};
use crate::mesh::topology::FACE_VERTS;

/// The cost of each leaf, which the processing weight `PWgt` of a tree sums instead of counting
/// its leaves: a caller's per-leaf weight hook (as p4est's weight callback), for leaves whose
/// work differs (a chemistry leaf costing 5 where a plain one costs 1). Any
/// `Fn(&LeafView) -> u64` is one.
///
/// Before subdivision, [`TreeWeights::costed`] predicts the cost of a leaf about to be divided
/// from [`LeafCost::child_cost`], since its children do not exist yet.
pub trait LeafCost {
    /// The cost of `leaf` as it is.
    fn cost(&self, leaf: &LeafView) -> u64;

    /// The cost of each of the `children` children (2, 4 or 8) `leaf` is about to be divided
    /// into, predicted before they exist. By default the leaf's own cost each: a 1:8 refinement
    /// multiplies the leaf's cost by 8, as it multiplies the leaf count without a hook.
    fn child_cost(&self, leaf: &LeafView, children: usize) -> u64 {
        let _ = children;
        self.cost(leaf)
    }
}

impl<F: Fn(&LeafView) -> u64> LeafCost for F {
    fn cost(&self, leaf: &LeafView) -> u64 {
        self(leaf)
    }
}

/// Weights of one tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TreeWeights {
    /// Leaves, or the sum of their costs ([`TreeWeights::costed`]): the processing weight
    /// `PWgt`.
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
                pending_split(edges, e.verts)
            } else {
                None
            };
            match pending {
                None => w.add_leaf(masks),
                Some(split) => {
                    let pts = local_masks(masks);
                    w.elems += split.nchildren() as u64;
                    for ch in split.children() {
                        w.add_leaf(ch.map(|x| pts[x as usize]));
                    }
                }
            }
        }
        debug_assert!(tree.elems.first().is_some_and(|r| r.parent == NO_ELEM));
        w
    }

    /// [`TreeWeights::of`] with `leaves` (`PWgt`) the sum of the leaves' costs under `cost`
    /// (their number without one); with `predict`, a leaf about to be divided into `n`
    /// children counts `n` times its [`LeafCost::child_cost`]. Sums saturate at `u64::MAX`.
    /// Tree `root` must be held by `forest` (a bare root not held costs nothing).
    pub fn costed(
        forest: &Forest,
        root: u32,
        predict: bool,
        cost: Option<&dyn LeafCost>,
    ) -> TreeWeights {
        let mut w = TreeWeights::of(forest, root, predict);
        if let Some(cost) = cost {
            w.leaves = TreeWeights::leaf_costs(forest, root, predict, cost);
        }
        w
    }

    /// The `PWgt` of [`TreeWeights::costed`] alone: the sum of the costs of tree `root`'s
    /// leaves (nothing for a tree `forest` does not hold).
    pub fn leaf_costs(forest: &Forest, root: u32, predict: bool, cost: &dyn LeafCost) -> u64 {
        let mut sum = 0u64;
        let edges = forest.edges();
        forest.for_each_leaf_in(&[root], |leaf| {
            let split = if predict {
                pending_split(edges, leaf.verts)
            } else {
                None
            };
            let c = match split {
                None => cost.cost(leaf),
                Some(split) => {
                    let n = split.nchildren();
                    cost.child_cost(leaf, n).saturating_mul(n as u64)
                }
            };
            sum = sum.saturating_add(c);
        });
        sum
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

/// How the leaf with vertices `verts` will be divided by the subdivision in progress: by the
/// closure of its bisected edges (`None` when it has none).
#[inline(always)]
fn pending_split(edges: &Edges, verts: [u32; 4]) -> Option<Split> {
    let mut m = 0u8;
    for (k, &[a, b]) in EDGES.iter().enumerate() {
        if edges.get(verts[a], verts[b]).is_some() {
            m |= 1 << k;
        }
    }
    (m != 0).then(|| Split::from_mask(close_mask(m), 0))
}

fn local_masks(masks: [u8; 4]) -> [u8; 10] {
    local_points(masks, |k| masks[EDGES[k][0]] | masks[EDGES[k][1]])
}
