//! Coarsening: removing families whose children are all leaves marked for coarsening.
//!
//! A family is removed only if that changes something: once the edges other splits still use
//! are counted (each edge's `users` against its `released`, the candidate splits using it), the parent's required pattern ([`Forest::required_mask`]) must be smaller than
//! its current one. Candidates that fail this test are kept, which can make other candidates
//! fail in turn, so the test runs to a fixed point. Removing a family releases its edges; an
//! edge no split uses any more is un-bisected and its midpoint freed. A parent that still has
//! bisected edges goes to the closure, which divides it again with the smaller pattern; the
//! other coarsened trees need no closure at all.
//! One level per step: a family is a candidate only if its children are leaves at the start.

use std::time::Instant;

use super::edges::Edges;
use super::forest::Forest;
use super::pattern::{close_mask, inner_edges, local_points, Split, ALL_EDGES, EDGES};
use super::tree::{COARSEN, REFINE};
use crate::Result;

impl Forest {
    /// Removes the families whose children are all leaves marked for coarsening (and none for
    /// refinement), where that makes the mesh coarser. Clears the coarsening marks.
    pub fn coarsen(&mut self) -> Result<()> {
        let start = Instant::now();
        let roots = self.coarsen_roots.take_sorted();
        let mut candidates = self.coarsening_candidates(&roots);
        // Each edge counts how many candidate splits use it (`released`); an edge stays
        // bisected if it has more users than that.
        for &(r, p) in &candidates {
            self.for_split_edges(r, p, |edges, a, b| {
                edges.get_mut(a, b).expect("bisected").released += 1
            });
        }
        loop {
            let before = candidates.len();
            let mut kept = Vec::new();
            candidates.retain(|&(r, p)| {
                let e = &self.trees[r as usize].elems[p];
                let still_bisected =
                    |a: u32, b: u32| self.edges.get(a, b).is_some_and(|x| x.users > x.released);
                let keep = self.required_mask(&e.verts, still_bisected) == e.split.mask();
                if keep {
                    kept.push((r, p));
                }
                !keep
            });
            for (r, p) in kept {
                self.for_split_edges(r, p, |edges, a, b| {
                    edges.get_mut(a, b).expect("bisected").released -= 1
                });
            }
            if candidates.len() == before {
                break;
            }
        }
        for &(r, p) in &candidates {
            self.restrict_to_parent(r, p);
            let split = self.remove_children(r, p);
            let verts = self.trees[r as usize].elems[p].verts;
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                if split.mask() & (1 << k) != 0 {
                    if let Some(mid) = self.edges.drop_user(verts[a], verts[b]) {
                        self.verts.free_midpoint(mid);
                    }
                }
            }
            self.coarsened.insert(r);
            if self.bisected_mask(&verts) != 0 {
                // Neighbours keep some of its edges bisected: the closure divides it again.
                self.queue.insert(r);
            }
        }
        for &r in &roots {
            self.trees[r as usize].compact(self.opts.nfields);
        }
        self.report.coarsened += candidates.len();
        self.report.coarsen_time += start.elapsed();
        Ok(())
    }

    /// Families whose children are all leaves marked for coarsening and none for refinement;
    /// clears the coarsening marks on the way (a parent comes before its children, so every
    /// mark is read before it is cleared).
    fn coarsening_candidates(&mut self, roots: &[u32]) -> Vec<(u32, usize)> {
        let mut out = Vec::new();
        for &r in roots {
            let tree = &mut self.trees[r as usize];
            for p in 0..tree.elems.len() {
                let e = tree.elems[p];
                if e.split != Split::NONE && !e.is_dead() {
                    let removable = e.children().all(|c| {
                        let child = &tree.elems[c];
                        child.is_leaf() && child.flags & COARSEN != 0 && child.flags & REFINE == 0
                    });
                    if removable {
                        out.push((r, p));
                    }
                }
                tree.elems[p].flags &= !COARSEN;
            }
        }
        out
    }

    fn for_split_edges(&mut self, r: u32, p: usize, mut f: impl FnMut(&mut Edges, u32, u32)) {
        let e = self.trees[r as usize].elems[p];
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if e.split.mask() & (1 << k) != 0 {
                f(&mut self.edges, e.verts[a], e.verts[b]);
            }
        }
    }

    /// The edge mask a leaf with vertices `v` must be divided by, given which edges are
    /// bisected: the closure of its bisected edges, or all six when that closure is green but
    /// one of the green children's own edges is bisected (green children are never divided).
    pub(crate) fn required_mask(&self, v: &[u32; 4], bisected: impl Fn(u32, u32) -> bool) -> u8 {
        let mut have = 0u8;
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if bisected(v[a], v[b]) {
                have |= 1 << k;
            }
        }
        let mask = close_mask(have);
        if mask == 0 || mask == ALL_EDGES {
            return mask;
        }
        let pts = local_points(*v, |k| {
            let [a, b] = EDGES[k];
            self.edges.get(v[a], v[b]).map_or(u32::MAX, |x| x.mid)
        });
        let green = Split::from_mask(mask, 0);
        let halves = EDGES
            .iter()
            .enumerate()
            .filter(|(k, _)| mask & (1 << k) != 0)
            .flat_map(|(k, &[a, b])| [[a as u8, 4 + k as u8], [b as u8, 4 + k as u8]]);
        let child_edges_bisected = inner_edges(green)
            .into_iter()
            .chain(halves)
            .any(|[x, y]| bisected(pts[x as usize], pts[y as usize]));
        if child_edges_bisected {
            ALL_EDGES
        } else {
            mask
        }
    }

    /// Sets the values of element `p` to the volume-weighted average of its children's.
    pub(crate) fn restrict_to_parent(&mut self, r: u32, p: usize) {
        let nf = self.opts.nfields;
        if nf == 0 {
            return;
        }
        let children = self.trees[r as usize].elems[p].children();
        let weights: Vec<(usize, f64)> = children.map(|c| (c, self.elem_volume(r, c))).collect();
        let total: f64 = weights.iter().map(|w| w.1).sum();
        let data = &mut self.trees[r as usize].data;
        for f in 0..nf {
            let avg = weights
                .iter()
                .map(|&(c, w)| w * data[c * nf + f])
                .sum::<f64>()
                / total;
            data[p * nf + f] = avg;
        }
    }
}
