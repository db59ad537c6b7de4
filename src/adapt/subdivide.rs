//! Subdivision, the second half of refinement after the closure (`closure.rs`), and its
//! inverse for one family.
//!
//! **Subdivision.** Every leaf of a touched tree with bisected edges is divided by the pattern
//! those edges form; each divided element counts as a *user* of its pattern's edges.

use std::time::Instant;

use super::forest::Forest;
use super::pattern::{close_mask, local_points, Split, ALL_EDGES, DIAGONALS, EDGES};
use super::tree::{Elem, DEAD, NO_ELEM, PENDING};

impl Forest {
    /// Removes the children of `p` (they must be leaves), making `p` a leaf; returns the split
    /// that was removed. The split's edges are the caller's to release.
    pub(crate) fn remove_children(&mut self, r: u32, p: usize) -> Split {
        let tree = &mut self.trees[r as usize];
        let parent = tree.elems[p];
        for c in parent.children() {
            debug_assert!(tree.elems[c].is_leaf());
            tree.elems[c].flags |= DEAD;
        }
        tree.elems[p].split = Split::NONE;
        tree.elems[p].first_child = NO_ELEM;
        tree.has_holes = true;
        let n = parent.split.nchildren();
        tree.nleaves -= n as u32 - 1;
        self.nleaves -= n - 1;
        self.forget_leaf_offsets();
        parent.split
    }

    /// Divides leaf `i` of tree `r` by the pattern of `mask` (closed, all edges bisected),
    /// counting the split as a user of those edges. Returns the first child's index.
    pub(crate) fn split_elem(&mut self, r: u32, i: usize, mask: u8) -> usize {
        let e = self.trees[r as usize].elems[i];
        let mut mids = [u32::MAX; 6];
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if mask & (1 << k) != 0 {
                let x = self
                    .edges
                    .get_mut(e.verts[a], e.verts[b])
                    .expect("bisected");
                x.users += 1;
                mids[k] = x.mid;
            }
        }
        self.divide(r, i, mask, &mids)
    }

    /// Appends the children of leaf `i` for `mask`, whose midpoints are `mids` (users already
    /// counted), and their values ([`Forest::prolong_to_children`]). Returns the first
    /// child's index.
    pub(super) fn divide(&mut self, r: u32, i: usize, mask: u8, mids: &[u32; 6]) -> usize {
        let e = self.trees[r as usize].elems[i];
        let pts = local_points(e.verts, |k| mids[k]);
        let diag = if mask == ALL_EDGES {
            self.shortest_diagonal(&pts)
        } else {
            0
        };
        let split = Split::from_mask(mask, diag);
        let children = split.children();
        let n = children.len();
        // Padded to 16 so that indexing by a masked table entry needs no bounds check.
        let mut at = [0u32; 16];
        at[..10].copy_from_slice(&pts);
        let template = Elem {
            verts: [0; 4],
            parent: i as u32,
            first_child: NO_ELEM,
            split: Split::NONE,
            level: e.level + 1,
            flags: 0,
        };
        let mut built = [template; 8];
        for (b, ch) in built.iter_mut().zip(children) {
            b.verts = ch.map(|x| at[(x & 15) as usize]);
        }
        let tree = &mut self.trees[r as usize];
        let first = tree.elems.len();
        tree.elems.extend_from_slice(&built[..n]);
        tree.elems[i].split = split;
        tree.elems[i].flags = 0;
        tree.elems[i].first_child = first as u32;
        tree.nleaves += n as u32 - 1;
        self.nleaves += n - 1;
        self.forget_leaf_offsets();
        self.report.divided += 1;
        self.prolong_to_children(r, i, first, n);
        first
    }

    /// The inner octahedron's shortest diagonal; exact ties go to the diagonal whose vertex
    /// keys are smallest, so the choice does not depend on vertex ids.
    fn shortest_diagonal(&self, pts: &[u32; 10]) -> usize {
        let ends = |d: usize| DIAGONALS[d].map(|l| pts[l]);
        let len = |d: usize| {
            let [x, y] = ends(d);
            crate::mesh::geometry::dist2(self.verts[x].pos, self.verts[y].pos)
        };
        let keys = |d: usize| {
            let [x, y] = ends(d);
            let (kx, ky) = (self.verts[x].key, self.verts[y].key);
            (kx.min(ky), kx.max(ky))
        };
        let lens = [len(0), len(1), len(2)];
        let mut best = 0;
        for d in 1..3 {
            if lens[d] < lens[best] || (lens[d] == lens[best] && keys(d) < keys(best)) {
                best = d;
            }
        }
        best
    }

    /// Divides every leaf of the touched trees that has bisected edges, then finishes the
    /// step: drops edges that no split uses, clears marks, compacts trees, and returns the
    /// report of the whole step.
    pub fn subdivide(&mut self) -> super::AdaptReport {
        let start = Instant::now();
        let roots = self.touched.take_sorted();
        let mut changed = self.coarsened.take_sorted();
        let mut todo: Vec<(usize, u8, [u32; 6])> = Vec::new();
        for (n, &r) in roots.iter().enumerate() {
            if let Some(&next) = roots.get(n + 1) {
                self.prefetch_tree(next);
            }
            todo.clear();
            let mut nchildren = 0;
            for (i, mids) in std::mem::take(&mut self.trees[r as usize].pending) {
                let e = &self.trees[r as usize].elems[i as usize];
                if e.is_leaf() && e.flags & PENDING != 0 {
                    todo.push((i as usize, ALL_EDGES, mids));
                    nchildren += 8;
                }
            }
            for i in 0..self.trees[r as usize].elems.len() {
                let e = self.trees[r as usize].elems[i];
                if !e.is_leaf() || e.flags & PENDING != 0 {
                    continue;
                }
                let (mask, mids) = self.use_bisected_edges(&e.verts);
                if mask != 0 {
                    debug_assert_eq!(close_mask(mask), mask, "subdivide before close");
                    nchildren += Split::from_mask(mask, 0).nchildren();
                    todo.push((i, mask, mids));
                }
            }
            let tree = &mut self.trees[r as usize];
            tree.elems.reserve_exact(nchildren);
            tree.data.reserve_exact(nchildren * self.opts.nfields);
            for &(i, mask, mids) in &todo {
                self.divide(r, i, mask, &mids);
            }
        }
        self.built_in_closure = false;
        // Messages to other ranks are taken by the distributed closure; a forest closed
        // without one keeps none across steps.
        self.outbox.clear();
        self.drop_unused_edges();
        // Marks were cleared where they were used (divided leaves, ignored requests); only
        // upgraded green families left holes.
        for &r in &roots {
            self.trees[r as usize].compact(self.opts.nfields);
        }
        self.report.subdivide_time += start.elapsed();
        changed.extend_from_slice(&roots);
        changed.sort_unstable();
        changed.dedup();
        self.next_generation();
        let mut report = std::mem::take(&mut self.report);
        report.changed_roots = changed;
        report
    }

    /// Looks up the bisected edges of an element and counts a user on each: the edge mask and
    /// the midpoints.
    fn use_bisected_edges(&mut self, v: &[u32; 4]) -> (u8, [u32; 6]) {
        let mut mask = 0;
        let mut mids = [u32::MAX; 6];
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if let Some(x) = self.edges.get_mut(v[a], v[b]) {
                x.users += 1;
                mids[k] = x.mid;
                mask |= 1 << k;
            }
        }
        (mask, mids)
    }

    /// Removes the edges bisected this step without a user that no split ended up using
    /// (explicit marks inside a green family that was upgraded). An edge bisected with a user
    /// keeps one: only an upgrade takes users away, and its 1:8 split gives them back.
    pub(crate) fn drop_unused_edges(&mut self) {
        for (a, b) in std::mem::take(&mut self.unused_edges) {
            if let Some(x) = self.edges.get(a, b) {
                if x.users == 0 {
                    self.edges.remove(a, b);
                    self.verts.free_midpoint(x.mid);
                }
            }
        }
    }
}
