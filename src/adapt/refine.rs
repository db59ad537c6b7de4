//! Refinement: closing the marks over a work list of trees, then subdividing.
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
//!
//! **Subdivision.** Every leaf of a touched tree with bisected edges is divided by the pattern
//! those edges form; each divided element counts as a *user* of its pattern's edges.

use std::time::Instant;

use super::forest::Forest;
use super::overlap::overlaps;
use super::pattern::{close_mask, inner_edges, local_points, Split, ALL_EDGES, DIAGONALS, EDGES};
use super::tree::{Elem, DEAD, NO_ELEM, PENDING, REFINE};
use super::vertices::{support_len, NO_VERTEX};
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
    fn prefetch_tree(&self, r: u32) {
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
        let ninit = self.verts.ninitial() as u64;
        let id = |k: u64| {
            if k < ninit {
                Some(k as u32)
            } else {
                by_key.get(&k).copied()
            }
        };
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
            .filter(|&k| k >= u64::from(first))
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
    /// counted). Returns the first child's index.
    fn divide(&mut self, r: u32, i: usize, mask: u8, mids: &[u32; 6]) -> usize {
        let nf = self.opts.nfields;
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
        if nf > 0 {
            for _ in 0..n {
                tree.data.extend_from_within(i * nf..(i + 1) * nf);
            }
        }
        tree.elems[i].split = split;
        tree.elems[i].flags = 0;
        tree.elems[i].first_child = first as u32;
        tree.nleaves += n as u32 - 1;
        self.nleaves += n - 1;
        self.report.divided += 1;
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

/// True when `(x, y)` is half of one of the parent's edges (local points `pts`).
fn is_half(pts: &[u32; 10], x: u32, y: u32) -> bool {
    EDGES.iter().enumerate().any(|(k, &[a, b])| {
        let m = pts[4 + k];
        m != u32::MAX
            && ((x == m && (y == pts[a] || y == pts[b]))
                || (y == m && (x == pts[a] || x == pts[b])))
    })
}
