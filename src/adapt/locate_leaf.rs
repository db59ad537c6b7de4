//! The forest's side of point location and region queries ([`Locator::locate`],
//! [`Locator::probe`], [`Locator::leaves_meeting`]): from the roots the [`Locator`] finds, the
//! descent in the trees a forest holds (see [`super::locate`]'s doc for the rules).

use super::forest::{Forest, LeafId};
use super::locate::{distance, Locator, Region};
use crate::mesh::geometry;

/// Where a point lies in a forest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// In this leaf (the first in canonical order holding the point).
    Leaf(LeafId),
    /// In this root, whose tree the forest does not hold (held by another rank).
    NotHeld {
        /// The lowest root holding the point.
        root: u32,
    },
    /// Outside the mesh: farther than the tolerance from every root.
    Outside,
}

/// What a probe reads at a point ([`Locator::probe`]): the leaf holding it, its depth and its
/// solution values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe<'f> {
    /// The leaf ([`Location::Leaf`]).
    pub leaf: LeafId,
    /// Its depth below its root.
    pub level: u8,
    /// Its solution values ([`Forest::leaf_data`]).
    pub data: &'f [f64],
}

impl Locator {
    /// Where `p` lies in `forest` (see the [module doc](super::locate)). Call it between adaptation
    /// steps.
    ///
    /// # Panics
    /// When `forest` was not grown from this locator's mesh (a different number of roots).
    #[track_caller]
    pub fn locate(&self, forest: &Forest, p: [f64; 3]) -> Location {
        self.check(forest);
        let Some(root) = self.locate_root(p) else {
            return Location::Outside;
        };
        if !forest.holds(root) {
            return Location::NotHeld { root };
        }
        let tree = &forest.trees[root as usize];
        let mut i = 0;
        loop {
            let children = tree.elems[i].children();
            if children.is_empty() {
                return Location::Leaf(forest.leaf_id(root, i as u32));
            }
            // The first child holding `p`; the nearest when rounding leaves none (its
            // parent holds `p`, so one of them does up to rounding).
            let mut nearest = (f64::INFINITY, children.start);
            for c in children {
                let corners = tree.elems[c].verts.map(|v| forest.verts[v].pos);
                let d = distance(&corners, p, self.tol);
                if d < nearest.0 {
                    nearest = (d, c);
                }
                if d <= self.tol {
                    break;
                }
            }
            i = nearest.1;
        }
    }

    /// The leaf holding `p` in `forest`, its depth and its solution values: a probe's reading
    /// between adaptation steps. `None` outside the mesh or when the leaf's tree is held
    /// elsewhere ([`Locator::locate`] tells which): on ranks, exactly one rank reads a point
    /// of the mesh.
    ///
    /// # Panics
    /// When `forest` was not grown from this locator's mesh (a different number of roots).
    #[track_caller]
    pub fn probe<'f>(&self, forest: &'f Forest, p: [f64; 3]) -> Option<Probe<'f>> {
        match self.locate(forest, p) {
            Location::Leaf(leaf) => Some(Probe {
                leaf,
                level: forest.trees[leaf.root as usize].elems[leaf.elem as usize].level,
                data: forest.leaf_data(leaf),
            }),
            Location::NotHeld { .. } | Location::Outside => None,
        }
    }

    /// The leaves of the trees `forest` holds whose bounding boxes meet `region`, in canonical
    /// order (roots ascending, each tree depth first).
    ///
    /// # Panics
    /// When `forest` was not grown from this locator's mesh (a different number of roots).
    #[track_caller]
    pub fn leaves_meeting(&self, forest: &Forest, region: &Region) -> Vec<LeafId> {
        self.check(forest);
        let mut out = Vec::new();
        let mut stack = Vec::new();
        for root in self.roots_meeting(region) {
            if !forest.holds(root) {
                continue;
            }
            let tree = &forest.trees[root as usize];
            stack.push(0usize);
            while let Some(i) = stack.pop() {
                let e = &tree.elems[i];
                let (lo, hi) = geometry::bounding_box(e.verts.map(|v| forest.verts[v].pos));
                if !region.within(lo, hi, 0.0) {
                    continue;
                }
                let children = e.children();
                if children.is_empty() {
                    out.push(forest.leaf_id(root, i as u32));
                }
                stack.extend(children.rev());
            }
        }
        out
    }

    #[track_caller]
    fn check(&self, forest: &Forest) {
        assert_eq!(
            forest.nroots(),
            self.nroots(),
            "the forest was not grown from the locator's mesh"
        );
    }
}
