//! This rank's rows of the dual graph, as [`Run`](super::Run) gives them to its balancer
//! ([`HeldRows`]) and to a processing level: the weights of the trees held here (kept from step
//! to step, walked again only where a step changed them), their face neighbours by global id
//! with `CWgt` and owners. With the caller's [`LeafCost`], `PWgt` is the sum of the leaves'
//! costs, computed afresh each time (a cost may depend on the leaves' data, which the caller
//! changes between steps).

use std::collections::BTreeMap;

use super::balancer::HeldRows;
use crate::adapt::{Forest, NO_ELEM};
use crate::graph::{LeafCost, TreeWeights};
use crate::partition::Rows;

/// The weights of the trees held here, by root (see the module doc).
#[derive(Debug, Default)]
pub(super) struct HeldWeights {
    trees: BTreeMap<u32, TreeWeights>,
}

impl HeldWeights {
    /// Forgets the weights of `roots` (trees a step changed): they are walked again when next
    /// asked for.
    pub fn forget(&mut self, roots: &[u32]) {
        for r in roots {
            self.trees.remove(r);
        }
    }

    /// The rows of the roots `forest` holds, their neighbours' owners from `owner`; with
    /// `predict` (between closure and subdivision) the weights the pending trees will have,
    /// kept as theirs (they are exact once subdivided). `PWgt` sums `cost` when given.
    pub fn rows(
        &mut self,
        forest: &Forest,
        owner: &[u32],
        predict: bool,
        cost: Option<&dyn LeafCost>,
    ) -> OwnRows {
        let pending = if predict {
            forest.pending_roots()
        } else {
            Vec::new()
        };
        let mut kept = BTreeMap::new();
        let mut out = OwnRows {
            xadj: vec![0],
            ..OwnRows::default()
        };
        for r in (0..forest.nroots() as u32).filter(|&r| forest.holds(r)) {
            let pending = pending.binary_search(&r).is_ok();
            let w = match (pending, self.trees.remove(&r)) {
                (false, Some(w)) => w,
                _ => TreeWeights::of(forest, r, pending),
            };
            kept.insert(r, w);
            out.roots.push(r);
            out.pwgt.push(match cost {
                Some(cost) => TreeWeights::leaf_costs(forest, r, pending, cost),
                None => w.leaves,
            });
            out.rwgt.push(w.elems);
            // The trees move as they are now, smaller than predicted.
            out.moving.push(match pending {
                true => forest.trees()[r as usize].nelems() as u64,
                false => w.elems,
            });
            let nbrs = forest.root_face_neighbours(r);
            let mut faces: Vec<(u32, usize)> = (0..4)
                .filter(|&f| nbrs[f] != NO_ELEM)
                .map(|f| (nbrs[f], f))
                .collect();
            faces.sort_unstable();
            for (s, f) in faces {
                out.adjncy.push(s);
                out.cwgt.push(w.face_leaves[f]);
                out.owner.push(owner[s as usize]);
            }
            out.xadj.push(out.adjncy.len() as u32);
        }
        self.trees = kept;
        out
    }
}

/// This rank's rows, owned (the layout of [`Rows`]), with the size each tree moves with.
#[derive(Debug, Default)]
pub(super) struct OwnRows {
    pub roots: Vec<u32>,
    pub pwgt: Vec<u64>,
    pub rwgt: Vec<u64>,
    pub moving: Vec<u64>,
    pub xadj: Vec<u32>,
    pub adjncy: Vec<u32>,
    pub cwgt: Vec<u64>,
    pub owner: Vec<u32>,
}

impl OwnRows {
    /// The rows as [`Rows`].
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            roots: &self.roots,
            pwgt: &self.pwgt,
            rwgt: &self.rwgt,
            xadj: &self.xadj,
            adjncy: &self.adjncy,
            cwgt: &self.cwgt,
            owner: &self.owner,
        }
    }

    /// The rows as a balancer sees them, in a mesh of `nroots` roots.
    pub fn held(&self, nroots: usize) -> HeldRows<'_> {
        HeldRows {
            rows: self.rows(),
            moving: &self.moving,
            nroots,
        }
    }
}
