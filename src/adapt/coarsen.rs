//! Coarsening: removing families whose children are all leaves marked for coarsening.
//!
//! A family is removed only if that changes something: once the edges other splits still use
//! are counted (each edge's `users` against its `released`, the candidate splits using it),
//! the parent's required pattern ([`Forest::required_mask`]) must be smaller than its current
//! one. Candidates that fail this test are kept, which can make other candidates
//! fail in turn, so the test runs to a fixed point. Removing a family releases its edges; an
//! edge no split uses any more is un-bisected and its midpoint freed. A parent that still has
//! bisected edges goes to the closure, which divides it again with the smaller pattern; the
//! other coarsened trees need no closure at all.
//! One level per step: a family is a candidate only if its children are leaves at the start.

use std::time::Instant;

use super::edges::{edge_key, Bisected};
use super::forest::Forest;
use super::pattern::{close_mask, inner_edges, local_points, Split, ALL_EDGES, EDGES};
use super::tree::{COARSEN, REFINE};
use super::vertices::{support_len, union};
use crate::Result;

/// How many families ahead the loops over coarsening candidates prefetch edges.
const AHEAD: usize = 4;

/// A family coarsening may remove: its parent `p` in tree `r`, with the parent's vertices and
/// split copied so that the loops over families read no tree, and the table slots of the
/// split's edges (by local edge) once [`Forest::count_released`] has found them. No edge is
/// added or removed until the last loop, so the slots stay valid.
#[derive(Debug, Clone, Copy)]
struct Family {
    r: u32,
    p: u32,
    verts: [u32; 4],
    split: Split,
    slots: [u32; 6],
}

impl Family {
    /// Local edges of the parent's split.
    fn split_edges(self) -> impl Iterator<Item = usize> {
        let mask = self.split.mask();
        (0..6).filter(move |k| mask & (1 << k) != 0)
    }

    /// Ends of local edge `k`.
    fn ends(self, k: usize) -> (u32, u32) {
        (self.verts[EDGES[k][0]], self.verts[EDGES[k][1]])
    }
}

impl Forest {
    /// Removes the families whose children are all leaves marked for coarsening (and none for
    /// refinement), where that makes the mesh coarser. Clears the coarsening marks.
    pub fn coarsen(&mut self) -> Result<()> {
        self.coarsen_with(&mut HeldHere)
    }

    /// [`Forest::coarsen`], learning through `sync` whether splits held elsewhere still use
    /// the shared edges of the candidates.
    pub(crate) fn coarsen_with(&mut self, sync: &mut dyn SharedEdges) -> Result<()> {
        let start = Instant::now();
        self.next_generation();
        let roots = self.coarsen_roots.take_sorted();
        let mut candidates = self.coarsening_candidates(&roots);
        // Each edge counts how many candidate splits use it (`released`); an edge stays
        // bisected if it has more users than that.
        self.find_slots(&mut candidates);
        self.count_released(&candidates, 1);
        let shared = self.shared_split_edges(&candidates);
        sync.refresh(self, &shared)?;
        let mut recheck = true;
        loop {
            let kept: Vec<Family> = if recheck {
                let mut keep = self.families_to_keep(&candidates).into_iter();
                candidates
                    .extract_if(.., |_| keep.next() == Some(true))
                    .collect()
            } else {
                Vec::new()
            };
            if !sync.any(!kept.is_empty())? {
                break;
            }
            self.count_released(&kept, -1);
            let elsewhere_changed = sync.refresh(self, &shared)?;
            // When nothing the test reads changed here, the candidates left pass it again
            // (other ranks are still keeping families).
            recheck = !kept.is_empty() || elsewhere_changed;
        }
        let mut unbisected = Vec::new();
        for n in 0..candidates.len() {
            self.prefetch_slots(&candidates, n + AHEAD);
            self.remove_family(candidates[n], &mut unbisected);
        }
        for n in 0..unbisected.len() {
            if let Some(&(a, b)) = unbisected.get(n + AHEAD) {
                self.edges.prefetch(a, b);
            }
            let (a, b) = unbisected[n];
            self.edges.remove(a, b);
        }
        for &r in &roots {
            self.trees[r as usize].compact(self.opts.nfields);
        }
        self.used_elsewhere.clear();
        self.report.coarsened += candidates.len();
        self.report.coarsen_time += start.elapsed();
        Ok(())
    }

    /// The split edges of the candidates that lie on a root face or edge shared with a root
    /// held elsewhere, as `(candidate's root, vertex, vertex)`, each edge once (none when this
    /// forest holds every root).
    fn shared_split_edges(&self, candidates: &[Family]) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        if self.held.iter().all(|&h| h) {
            return out;
        }
        let mut seen = crate::hash::IntSet::default();
        // Whether some root sharing a vertex with the last candidate's root is held
        // elsewhere: if none is, none of its edges is shared (candidates come root by root).
        let mut near_elsewhere: Option<(u32, bool)> = None;
        for f in candidates {
            let near = match near_elsewhere {
                Some((r, near)) if r == f.r => near,
                _ => {
                    let near = self.near_root_held_elsewhere(f.r);
                    near_elsewhere = Some((f.r, near));
                    near
                }
            };
            if !near {
                continue;
            }
            for k in f.split_edges() {
                let (a, b) = f.ends(k);
                let support = union(&self.verts[a].support, &self.verts[b].support);
                if support_len(&support) == 4 {
                    continue; // inside the root
                }
                // Whether a root held elsewhere shares the edge depends on the edge alone (the
                // candidates' roots are all held here): each edge is looked at once.
                if !seen.insert(edge_key(a, b)) {
                    continue;
                }
                let mut elsewhere = false;
                self.for_each_other_root_around(f.r, &support, |s| {
                    elsewhere |= !self.held[s as usize]
                });
                if elsewhere {
                    out.push((f.r, a, b));
                }
            }
        }
        out
    }

    /// True when a root sharing a vertex with root `r` is held elsewhere.
    fn near_root_held_elsewhere(&self, r: u32) -> bool {
        let topo = self.initial.topology();
        self.initial.mesh().tets[r as usize]
            .iter()
            .any(|&v| topo.elems_around(v).iter().any(|&s| !self.held[s as usize]))
    }

    /// True when the bisected edge `(a, b)` (entry `x`) stays bisected once every candidate
    /// is removed: a split that is not a candidate uses it, here or on another rank.
    #[inline]
    fn stays_bisected(&self, a: u32, b: u32, x: &Bisected) -> bool {
        x.users > x.released
            || (!self.used_elsewhere.is_empty() && self.used_elsewhere.contains(&edge_key(a, b)))
    }

    /// True when a split here that is not a coarsening candidate uses edge `(a, b)`.
    pub(crate) fn still_used_here(&self, a: u32, b: u32) -> bool {
        self.edges.get(a, b).is_some_and(|x| x.users > x.released)
    }

    /// Finds the table slots of the families' split edges.
    fn find_slots(&self, families: &mut [Family]) {
        for n in 0..families.len() {
            if let Some(&f) = families.get(n + AHEAD) {
                for k in f.split_edges() {
                    let (a, b) = f.ends(k);
                    self.edges.prefetch(a, b);
                }
            }
            let f = &mut families[n];
            for k in f.split_edges() {
                let (a, b) = f.ends(k);
                f.slots[k] = self.edges.slot(a, b).expect("bisected");
            }
        }
    }

    /// Adds `delta` to the `released` count of every edge of the families' splits.
    fn count_released(&mut self, families: &[Family], delta: i16) {
        for (n, &f) in families.iter().enumerate() {
            self.prefetch_slots(families, n + AHEAD);
            for k in f.split_edges() {
                let x = self.edges.at_mut(f.slots[k]);
                x.released = x.released.wrapping_add_signed(delta);
            }
        }
    }

    /// For each candidate, whether removing it would change nothing: the edges other splits
    /// still use require its parent's current pattern.
    fn families_to_keep(&self, candidates: &[Family]) -> Vec<bool> {
        let still_bisected = |a: u32, b: u32| {
            self.edges
                .get(a, b)
                .is_some_and(|x| self.stays_bisected(a, b, &x))
        };
        (0..candidates.len())
            .map(|n| {
                self.prefetch_slots(candidates, n + AHEAD);
                let f = candidates[n];
                let required = if f.split.mask() == ALL_EDGES {
                    // The split holds all six edges: their slots say which stay bisected.
                    let have = f.split_edges().fold(0, |have, k| {
                        let (a, b) = f.ends(k);
                        let x = self.edges.at(f.slots[k]);
                        have | (u8::from(self.stays_bisected(a, b, x)) << k)
                    });
                    self.required_mask_from(&f.verts, have, still_bisected)
                } else {
                    self.required_mask(&f.verts, still_bisected)
                };
                required == f.split.mask()
            })
            .collect()
    }

    /// Removes a family and releases its split's edges, freeing the midpoints of those no
    /// split uses any more and listing them in `unbisected` (removed from the table after
    /// the loop, which keeps the other families' slots valid). The parent goes to the closure
    /// if some of its edges stay bisected once every candidate is removed.
    fn remove_family(&mut self, f: Family, unbisected: &mut Vec<(u32, u32)>) {
        let (r, p) = (f.r, f.p as usize);
        self.restrict_to_parent(r, p);
        self.remove_children(r, p);
        // `users - released` does not change while candidates are removed: it counts the
        // splits that stay.
        let mut stays = false;
        for k in f.split_edges() {
            let (a, b) = f.ends(k);
            let elsewhere =
                !self.used_elsewhere.is_empty() && self.used_elsewhere.contains(&edge_key(a, b));
            let x = self.edges.at_mut(f.slots[k]);
            stays |= x.users > x.released || elsewhere;
            x.users -= 1;
            x.released -= 1;
            // An edge splits held elsewhere still use stays here too, without a user: this
            // side's closure divides the parent with it again.
            if x.users == 0 {
                if elsewhere {
                    // Dropped after the subdivision unless a split here uses it again.
                    self.unused_edges.push((a, b));
                } else {
                    let mid = x.mid;
                    self.verts.free_midpoint(mid);
                    unbisected.push((a, b));
                }
            }
        }
        self.coarsened.insert(r);
        // Edges outside a green split's mask can be bisected too (by an explicit mark).
        if stays || (f.split.mask() != ALL_EDGES && self.bisected_mask(&f.verts) != 0) {
            // Neighbours keep some of its edges bisected: the closure divides it again.
            self.queue.insert(r);
        }
    }

    /// Starts loading the split edges of family `n`, if there is one.
    fn prefetch_slots(&self, families: &[Family], n: usize) {
        if let Some(&f) = families.get(n) {
            for k in f.split_edges() {
                self.edges.prefetch_slot(f.slots[k]);
            }
        }
    }

    /// Families whose children are all leaves marked for coarsening and none for refinement;
    /// clears the coarsening marks on the way (a parent comes before its children, so every
    /// mark is read before it is cleared).
    fn coarsening_candidates(&mut self, roots: &[u32]) -> Vec<Family> {
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
                        out.push(Family {
                            r,
                            p: p as u32,
                            verts: e.verts,
                            split: e.split,
                            slots: [u32::MAX; 6],
                        });
                    }
                }
                tree.elems[p].flags &= !COARSEN;
            }
        }
        out
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
        self.required_mask_from(v, have, bisected)
    }

    /// As [`Forest::required_mask`], given the mask `have` of the element's own bisected
    /// edges.
    pub(crate) fn required_mask_from(
        &self,
        v: &[u32; 4],
        have: u8,
        bisected: impl Fn(u32, u32) -> bool,
    ) -> u8 {
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
}

/// What coarsening learns from the ranks holding the roots around shared edges (the
/// distributed forest's exchange; [`HeldHere`] when one forest holds every root).
pub(crate) trait SharedEdges {
    /// Fills [`Forest::used_elsewhere`] with the `shared` edges (`(root here, vertex,
    /// vertex)`, the same list at every call of one coarsening) that splits held elsewhere
    /// still use, given the candidates each rank has left, and says whether that set
    /// changed. A collective: every rank calls it the same number of times.
    fn refresh(&mut self, forest: &mut Forest, shared: &[(u32, u32, u32)]) -> Result<bool>;

    /// Whether `local` holds on any rank: coarsening goes on while some rank kept a family.
    fn any(&mut self, local: bool) -> Result<bool>;
}

/// Every root is held here: nothing to learn.
struct HeldHere;

impl SharedEdges for HeldHere {
    fn refresh(&mut self, _: &mut Forest, _: &[(u32, u32, u32)]) -> Result<bool> {
        Ok(false)
    }

    fn any(&mut self, local: bool) -> Result<bool> {
        Ok(local)
    }
}
