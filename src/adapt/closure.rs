//! Closing the marks over a work list of trees, the first half of refinement (the second,
//! subdividing, is `subdivide.rs`).
//!
//! **Closure.** A leaf's wanted edges are all six when it carries a refinement request;
//! otherwise the pattern its bisected edges require ([`Forest::required_mask`]: the smallest
//! pattern holding them, or 1:8 when that pattern is green and its children's own edges are
//! bisected already). The new bisections are shared with neighbouring leaves, so every tree
//! holding a new edge goes back on the work list (found from the edge's support: a root
//! edge's ring of roots, a root face's two roots, or the tree alone). A green leaf that would
//! need refinement instead has its family replaced by a 1:8 split of its parent at once, and its
//! request passes to the new children that overlap it. The work is proportional to the trees
//! touched.

use std::time::Instant;

use super::forest::Forest;
use super::overlap::overlaps;
use super::pattern::{inner_edges, local_points, Split, ALL_EDGES, EDGES};
use super::tree::{PENDING, REFINE};
use super::vertices::{support_len, MIDPOINT_BIT, NO_VERTEX};
use crate::Result;

/// How many elements ahead the closure's scan of a tree prefetches the edges of requested
/// leaves.
const LEAVES_AHEAD: usize = 2;

impl Forest {
    /// Closes the marks: after it, every leaf's bisected edges form a pattern, and no green
    /// child has a bisected edge. Green families that must be refined are upgraded here.
    pub fn close(&mut self) -> Result<()> {
        let start = Instant::now();
        self.reserve_for_requests();
        while let Some(r) = self.queue.pop() {
            if let Some(&next) = self.queue.as_slice().last() {
                self.prefetch_tree(next);
            }
            self.close_tree(r)?;
        }
        self.report.closure_time += start.elapsed();
        Ok(())
    }

    fn close_tree(&mut self, r: u32) -> Result<()> {
        self.touched.insert(r);
        loop {
            self.rescan = false;
            let mut i = 0;
            for j in 0..LEAVES_AHEAD {
                self.prefetch_request_edges(r, j);
            }
            // Upgrades append children while we scan: they are visited in the same pass.
            while i < self.trees[r as usize].elems.len() {
                self.prefetch_request_edges(r, i + LEAVES_AHEAD);
                if self.trees[r as usize].elems[i].is_leaf() {
                    self.close_leaf(r, i)?;
                }
                i += 1;
            }
            if !self.rescan {
                return Ok(());
            }
        }
    }

    /// Starts loading the first elements of tree `r` (a root and its eight children fill
    /// three cache lines) and of its pending list.
    pub(super) fn prefetch_tree(&self, r: u32) {
        let tree = &self.trees[r as usize];
        tree.elems
            .iter()
            .step_by(3)
            .take(3)
            .for_each(super::prefetch);
        tree.pending
            .iter()
            .step_by(2)
            .take(4)
            .for_each(super::prefetch);
    }

    /// Starts loading the edges of element `i` of tree `r` if it is a leaf whose request
    /// the closure has yet to apply.
    fn prefetch_request_edges(&self, r: u32, i: usize) {
        if let Some(e) = self.trees[r as usize].elems.get(i) {
            if e.is_leaf() && e.flags & (REFINE | PENDING) == REFINE {
                for &[a, b] in &EDGES {
                    self.edges.prefetch(e.verts[a], e.verts[b]);
                }
            }
        }
    }

    fn close_leaf(&mut self, r: u32, i: usize) -> Result<()> {
        let e = self.trees[r as usize].elems[i];
        if e.flags & PENDING != 0 {
            // Final, unless elements built during this closure bisected its children's edges.
            if self.built_in_closure {
                let mids = self.midpoints(&e.verts);
                self.split_now_if_children_need_it(r, i, &mids);
            }
            return Ok(());
        }
        if e.flags & REFINE != 0 && e.level >= self.opts.max_depth {
            self.trees[r as usize].elems[i].flags &= !REFINE; // refined as far as allowed
        }
        if e.flags & REFINE != 0 && e.level < self.opts.max_depth {
            if self.is_green_child(r, i) {
                return self.upgrade(r, e.parent as usize);
            }
            let mut mids = [0u32; 6];
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                mids[k] = self.bisect_and_use(r, e.verts[a], e.verts[b])?;
            }
            self.trees[r as usize].elems[i].flags |= PENDING;
            let tree = &mut self.trees[r as usize];
            if tree.pending.capacity() == 0 {
                tree.pending.reserve_exact(tree.nleaves as usize);
            }
            tree.pending.push((i as u32, mids));
            self.split_now_if_children_need_it(r, i, &mids);
            return Ok(());
        }
        let have = self.bisected_mask(&e.verts);
        if have == 0 {
            return Ok(());
        }
        if self.is_green_child(r, i) {
            return self.upgrade(r, e.parent as usize);
        }
        // A pending green split whose children's edges are bisected must be 1:8.
        let target = self.required_mask_from(&e.verts, have, |a, b| self.edges.get(a, b).is_some());
        let missing = target & !have;
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if missing & (1 << k) != 0 {
                self.bisect(r, e.verts[a], e.verts[b])?;
            }
        }
        if target == ALL_EDGES {
            let mids = self.midpoints(&e.verts);
            if self.children_need_split(&mids, &e.verts) {
                self.split_elem(r, i, ALL_EDGES);
                self.built_in_closure = true;
            }
        }
        Ok(())
    }

    /// Divides a requested leaf (users counted, midpoints `mids`) at once when edges of its
    /// future children are bisected already, so that the scan closes those children too.
    fn split_now_if_children_need_it(&mut self, r: u32, i: usize, mids: &[u32; 6]) {
        let verts = self.trees[r as usize].elems[i].verts;
        if self.children_need_split(mids, &verts) {
            self.divide(r, i, ALL_EDGES, mids);
            self.built_in_closure = true;
        }
    }

    /// Midpoints of the six edges of an element whose edges are all bisected.
    fn midpoints(&self, v: &[u32; 4]) -> [u32; 6] {
        EDGES.map(|[a, b]| self.edges.get(v[a], v[b]).expect("bisected").mid)
    }

    /// True when an edge of a 1:8 split of the element (a half of one of its edges, or an edge
    /// between two midpoints on one of its faces) is bisected already.
    fn children_need_split(&self, mids: &[u32; 6], v: &[u32; 4]) -> bool {
        if !mids.iter().any(|&m| self.verts[m].on_bisected) {
            return false;
        }
        let pts = local_points(*v, |k| mids[k]);
        let bisected = |x: u8, y: u8| self.edges.get(pts[x as usize], pts[y as usize]).is_some();
        let halves = EDGES
            .iter()
            .enumerate()
            .any(|(k, &[a, b])| bisected(a as u8, 4 + k as u8) || bisected(b as u8, 4 + k as u8));
        halves || inner_edges(Split(11)).iter().any(|&[x, y]| bisected(x, y))
    }

    /// Bisects edge `(a, b)` of a leaf of tree `r` if it is not already, and puts every tree
    /// sharing the edge on the work list. Returns the midpoint.
    pub(crate) fn bisect(&mut self, r: u32, a: u32, b: u32) -> Result<u32> {
        if let Some(x) = self.edges.get(a, b) {
            return Ok(x.mid);
        }
        let mid = self.verts.create_midpoint(a, b)?;
        self.edges.insert(a, b, mid);
        // No split uses the edge yet: the subdivision checks that one does.
        self.unused_edges.push((a, b));
        self.after_new_edge(r, a, b, mid);
        Ok(mid)
    }

    /// Bisects the edge between the vertices with keys `ka` and `kb` (`by_key`: this forest's
    /// midpoints on root faces with the keys of `ka`, `kb` and their midpoint, from
    /// [`Forest::midpoints_with_keys`], kept up to date), which another rank's closure bisected
    /// on a root it shares with roots held here, and puts those roots on the work list.
    ///
    /// # Errors
    /// [`Error::Inconsistent`](crate::Error::Inconsistent) when an end is not a vertex here or
    /// the midpoint's key names another vertex already.
    pub(crate) fn bisect_from_elsewhere(
        &mut self,
        by_key: &mut crate::hash::IntMap<u64, u32>,
        ka: u64,
        kb: u64,
    ) -> Result<()> {
        let id = |k: u64| self.vertex_with_key(k, by_key);
        let inconsistent = |message: String| crate::Error::Inconsistent {
            check: "closure across ranks",
            message,
        };
        let (Some(a), Some(b)) = (id(ka), id(kb)) else {
            return Err(inconsistent(format!(
                "an edge ({ka:#x}, {kb:#x}) bisected elsewhere has an end unknown here"
            )));
        };
        if self.edges.get(a, b).is_some() {
            return Ok(());
        }
        let key = super::vertices::midpoint_key(ka, kb);
        if let Some(&other) = by_key.get(&key) {
            return Err(inconsistent(format!(
                "the midpoint of ({ka:#x}, {kb:#x}) has key {key:#x}, which names vertex \
                 {other} already (a hash collision)"
            )));
        }
        let mid = self.verts.create_midpoint(a, b)?;
        by_key.insert(key, mid);
        self.edges.insert(a, b, mid);
        self.unused_edges.push((a, b));
        self.verts[a].on_bisected = true;
        self.verts[b].on_bisected = true;
        // Elements built on the other rank may bisect the children of requested leaves here.
        self.built_in_closure = true;
        for s in self.roots_around(a, b) {
            if self.held[s as usize] {
                self.queue.insert(s);
            }
        }
        Ok(())
    }

    /// The vertex here with key `k`: an initial vertex by its global id, a midpoint through
    /// `by_key` (from [`Forest::midpoints_with_keys`]).
    pub(crate) fn vertex_with_key(
        &self,
        k: u64,
        by_key: &crate::hash::IntMap<u64, u32>,
    ) -> Option<u32> {
        if k & MIDPOINT_BIT == 0 {
            u32::try_from(k)
                .ok()
                .and_then(|gid| self.initial.local_vertex(gid))
        } else {
            by_key.get(&k).copied()
        }
    }

    /// This forest's live midpoints whose keys are among `wanted` (other keys are ignored),
    /// by key; with `on_root_faces`, only those on a root's faces (the only ones another
    /// rank's messages name: shared edges lie there). One pass over the vertices looks each
    /// key up among the few wanted ones, rather than indexing every vertex by key.
    pub(crate) fn midpoints_with_keys(
        &self,
        wanted: impl IntoIterator<Item = u64>,
        on_root_faces: bool,
    ) -> crate::hash::IntMap<u64, u32> {
        let first = self.verts.ninitial() as u32;
        let mut by_key: crate::hash::IntMap<u64, u32> = wanted
            .into_iter()
            .filter(|&k| k & MIDPOINT_BIT != 0)
            .map(|k| (k, NO_VERTEX))
            .collect();
        if by_key.is_empty() {
            return by_key;
        }
        for v in first..self.verts.nslots() as u32 {
            let vertex = &self.verts[v];
            if let Some(id) = by_key.get_mut(&vertex.key) {
                if self.verts.is_live(v) && !(on_root_faces && support_len(&vertex.support) == 4) {
                    *id = v;
                }
            }
        }
        by_key.retain(|_, &mut v| v != NO_VERTEX);
        by_key
    }

    /// As [`Forest::bisect`], and counts one more user of the edge.
    fn bisect_and_use(&mut self, r: u32, a: u32, b: u32) -> Result<u32> {
        let verts = &mut self.verts;
        let (mid, new) = self
            .edges
            .use_or_insert(a, b, || verts.create_midpoint(a, b))?;
        if new {
            self.after_new_edge(r, a, b, mid);
        }
        Ok(mid)
    }

    /// Records a new bisected edge `(a, b)` of tree `r`: its endpoints, and the other trees
    /// holding it (unless it runs through `r`'s interior), which go on the work list.
    fn after_new_edge(&mut self, r: u32, a: u32, b: u32, mid: u32) {
        self.rescan = true;
        self.verts[a].on_bisected = true;
        self.verts[b].on_bisected = true;
        let support = self.verts[mid].support;
        if support_len(&support) == 4 {
            return;
        }
        let mut others = std::mem::take(&mut self.scratch_roots);
        self.for_each_other_root_around(r, &support, |s| others.push(s));
        // The work list's order, hence the run's, does not depend on the walk's.
        others.sort_unstable();
        for &s in &others {
            if self.held[s as usize] {
                self.queue.insert(s);
            } else {
                self.outbox.push((s, a, b));
            }
        }
        others.clear();
        self.scratch_roots = others;
    }

    /// Replaces the green family of element `p` of tree `r` by a 1:8 split of `p`, passing the
    /// refinement requests of green children to the new children that overlap them; the new
    /// children's values follow each field's [`super::Transfer`] policy.
    fn upgrade(&mut self, r: u32, p: usize) -> Result<()> {
        let green = self.trees[r as usize].elems[p].split;
        let family = self.trees[r as usize].elems[p].children();
        let transfer: Vec<bool> = family
            .clone()
            .map(|c| self.wants_refinement_inside(r, p, c))
            .collect();
        let nf = self.opts.nfields;
        let green_data: Vec<f64> = family
            .clone()
            .flat_map(|c| self.trees[r as usize].data[c * nf..(c + 1) * nf].to_vec())
            .collect();
        self.restrict_to_parent(r, p);
        let verts = self.trees[r as usize].elems[p].verts;
        // The green split's edges stay bisected: the 1:8 split uses them all again.
        self.remove_children(r, p);
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if green.mask() & (1 << k) != 0 {
                self.edges
                    .get_mut(verts[a], verts[b])
                    .expect("bisected")
                    .users -= 1;
            }
        }
        for &[a, b] in &EDGES {
            self.bisect(r, verts[a], verts[b])?;
        }
        let first = self.split_elem(r, p, ALL_EDGES);
        let octa = self.trees[r as usize].elems[p].split;
        for c in 0..8 {
            if (0..transfer.len()).any(|j| transfer[j] && overlaps(green, j, octa, c)) {
                self.trees[r as usize].elems[first + c].flags |= REFINE;
            }
        }
        self.upgrade_values(r, first, green, octa, &green_data);
        self.report.upgraded += 1;
        self.built_in_closure = true;
        Ok(())
    }

    /// True when green child `c` of `p` carries a refinement request, or an explicitly marked
    /// edge running through its parent's interior (an edge no 1:8 child has).
    fn wants_refinement_inside(&self, r: u32, p: usize, c: usize) -> bool {
        let tree = &self.trees[r as usize];
        let child = tree.elems[c];
        if child.flags & REFINE != 0 && child.level < self.opts.max_depth {
            return true;
        }
        let parent = tree.elems[p];
        let pts = local_points(parent.verts, |k| {
            self.edges
                .get(parent.verts[EDGES[k][0]], parent.verts[EDGES[k][1]])
                .map_or(u32::MAX, |x| x.mid)
        });
        EDGES.iter().any(|&[i, j]| {
            let (x, y) = (child.verts[i], child.verts[j]);
            let is_mid = |v: u32| pts[4..].contains(&v);
            let is_corner = |v: u32| pts[..4].contains(&v);
            let through = (is_mid(x) && is_corner(y)) || (is_mid(y) && is_corner(x));
            through && !is_half(&pts, x, y) && self.edges.get(x, y).is_some()
        })
    }
}

/// True when `(x, y)` is half of one of the parent's edges (local points `pts`).
fn is_half(pts: &[u32; 10], x: u32, y: u32) -> bool {
    EDGES.iter().enumerate().any(|(k, &[a, b])| {
        let m = pts[4 + k];
        m != u32::MAX
            && ((x == m && (y == pts[a] || y == pts[b]))
                || (y == m && (x == pts[a] || x == pts[b])))
    })
}
