//! Coarsening: removing families whose children are all leaves marked for coarsening.
//!
//! A family is removed only if that changes something: once the edges other splits still use
//! are counted, the parent's required pattern ([`Forest::required_mask`]) must be smaller than
//! its current one. Candidates that fail this test are kept, which can make other candidates
//! fail in turn, so the test runs to a fixed point. Removing a family releases its edges; an
//! edge no split uses any more is un-bisected and its midpoint freed. A parent that still has
//! bisected edges goes to the closure, which divides it again with the smaller pattern.
//! One level per step: a family is a candidate only if its children are leaves at the start.

use std::time::Instant;

use super::edges::edge_key;
use super::forest::Forest;
use super::pattern::{close_mask, inner_edges, local_points, Split, ALL_EDGES, EDGES};
use super::tree::{COARSEN, REFINE};
use crate::hash::IntMap;
use crate::Result;

impl Forest {
    /// Removes the families whose children are all leaves marked for coarsening (and none for
    /// refinement), where that makes the mesh coarser. Clears the coarsening marks.
    pub fn coarsen(&mut self) -> Result<()> {
        let start = Instant::now();
        let roots = self.coarsen_roots.take_sorted();
        let mut candidates = self.coarsening_candidates(&roots);
        // released[e]: how many candidate splits use edge e.
        let mut released: IntMap<u64, u32> = IntMap::default();
        for &(r, p) in &candidates {
            self.for_split_edges(r, p, |a, b| {
                *released.entry(edge_key(a, b)).or_default() += 1
            });
        }
        loop {
            let before = candidates.len();
            let mut kept = Vec::new();
            candidates.retain(|&(r, p)| {
                let e = &self.trees[r as usize].elems[p];
                let still_bisected = |a: u32, b: u32| {
                    self.edges.get(a, b).is_some_and(|x| {
                        x.users > released.get(&edge_key(a, b)).copied().unwrap_or(0)
                    })
                };
                let keep = self.required_mask(&e.verts, still_bisected) == e.split.mask();
                if keep {
                    kept.push((r, p));
                }
                !keep
            });
            for (r, p) in kept {
                self.for_split_edges(r, p, |a, b| {
                    *released.get_mut(&edge_key(a, b)).expect("counted") -= 1
                });
            }
            if candidates.len() == before {
                break;
            }
        }
        for &(r, p) in &candidates {
            let parent = self.trees[r as usize].elems[p];
            self.restrict_to_parent(r, p);
            self.remove_family(r, p);
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                if parent.split.mask() & (1 << k) != 0 {
                    let (a, b) = (parent.verts[a], parent.verts[b]);
                    let x = self.edges.get(a, b).expect("bisected");
                    if x.users == 0 {
                        self.edges.remove(a, b);
                        self.verts.free_midpoint(x.mid);
                    }
                }
            }
            self.touched.insert(r);
            self.queue.insert(r);
        }
        for &r in &roots {
            let tree = &mut self.trees[r as usize];
            for e in &mut tree.elems {
                e.flags &= !COARSEN;
            }
            tree.compact(self.opts.nfields);
        }
        self.report.coarsened += candidates.len();
        self.report.coarsen_time += start.elapsed();
        Ok(())
    }

    fn coarsening_candidates(&self, roots: &[u32]) -> Vec<(u32, usize)> {
        let mut out = Vec::new();
        for &r in roots {
            let tree = &self.trees[r as usize];
            for (p, e) in tree.elems.iter().enumerate() {
                if e.split == Split::NONE || e.is_dead() {
                    continue;
                }
                let removable = e.children().all(|c| {
                    let child = &tree.elems[c];
                    child.is_leaf() && child.flags & COARSEN != 0 && child.flags & REFINE == 0
                });
                if removable {
                    out.push((r, p));
                }
            }
        }
        out
    }

    fn for_split_edges(&self, r: u32, p: usize, mut f: impl FnMut(u32, u32)) {
        let e = &self.trees[r as usize].elems[p];
        for (k, &[a, b]) in EDGES.iter().enumerate() {
            if e.split.mask() & (1 << k) != 0 {
                f(e.verts[a], e.verts[b]);
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
