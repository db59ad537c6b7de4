//! This rank's rows of the dual graph, as [`Run`](super::Run) gives them to its balancer
//! ([`HeldRows`]) and to a processing level: the weights of the trees held here (kept from step
//! to step, walked again only where a step changed them), their face neighbours by global id
//! with `CWgt` and owners. With the caller's [`LeafCost`], `PWgt` is the sum of the leaves'
//! costs, computed afresh each time (a cost may depend on the leaves' data, which the caller
//! changes between steps).

use super::balancer::HeldRows;
use crate::adapt::{Forest, NO_ELEM};
use crate::graph::{LeafCost, TreeWeights};
use crate::partition::FlatRows as Flat;
use crate::partition::Rows;

/// A value for each root a rank holds, read once a step in ascending order of root (as its
/// rows are built): a list sorted by root read with a cursor, the values put since and the
/// roots forgotten since merged in on the way. No hashing: a pass reads every list in order.
#[derive(Debug)]
pub(super) struct ByRoot<T> {
    /// The roots the last pass visited, ascending, and the values it kept for them.
    roots: Vec<u32>,
    values: Vec<T>,
    /// Values put since, which replace the kept ones.
    put: Vec<(u32, T)>,
    /// Roots whose values are no longer valid.
    forgotten: Vec<u32>,
}

impl<T> Default for ByRoot<T> {
    fn default() -> Self {
        ByRoot {
            roots: Vec::new(),
            values: Vec::new(),
            put: Vec::new(),
            forgotten: Vec::new(),
        }
    }
}

impl<T: Copy> ByRoot<T> {
    /// Sets root `r`'s value for the next pass.
    pub fn put(&mut self, r: u32, value: T) {
        self.put.push((r, value));
    }

    /// Forgets the values of `roots` until they are kept again.
    pub fn forget(&mut self, roots: &[u32]) {
        self.forgotten.extend_from_slice(roots);
    }

    /// The number of values the last pass kept.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// The value the last pass kept for root `r`.
    pub fn get(&self, r: u32) -> Option<T> {
        let i = self.roots.binary_search(&r).ok()?;
        Some(self.values[i])
    }

    /// Visits `roots` (strictly ascending) with the value each has (`None`: none, or
    /// forgotten) and keeps what `f` returns as its value: only the visited roots keep one.
    pub fn pass(
        &mut self,
        roots: impl IntoIterator<Item = u32>,
        mut f: impl FnMut(u32, Option<T>) -> T,
    ) {
        // Stable: of two values put for a root, the later one wins.
        self.put.sort_by_key(|e| e.0);
        self.forgotten.sort_unstable();
        let (mut next_roots, mut next_values) = (
            Vec::with_capacity(self.len()),
            Vec::with_capacity(self.len()),
        );
        let (mut i, mut j, mut k) = (0, 0, 0);
        for r in roots {
            debug_assert!(next_roots.last().is_none_or(|&q| q < r), "roots ascending");
            while self.roots.get(i).is_some_and(|&q| q < r) {
                i += 1;
            }
            let mut value = (self.roots.get(i) == Some(&r)).then(|| self.values[i]);
            while let Some(&(q, v)) = self.put.get(j).filter(|e| e.0 <= r) {
                if q == r {
                    value = Some(v);
                }
                j += 1;
            }
            while self.forgotten.get(k).is_some_and(|&q| q < r) {
                k += 1;
            }
            if self.forgotten.get(k) == Some(&r) {
                value = None;
            }
            next_roots.push(r);
            next_values.push(f(r, value));
        }
        self.roots = next_roots;
        self.values = next_values;
        self.put.clear();
        self.forgotten.clear();
    }
}

/// The weights of the trees held here (see the module doc).
#[derive(Debug, Default)]
pub(super) struct HeldWeights {
    trees: ByRoot<TreeWeights>,
}

impl HeldWeights {
    /// Forgets the weights of `roots` (global ids; trees a step changed): they are walked
    /// again when next asked for.
    pub fn forget(&mut self, roots: &[u32]) {
        self.trees.forget(roots);
    }

    /// The weights of root `r` (global id), held here when the rows were last taken.
    pub fn get(&self, r: u32) -> Option<TreeWeights> {
        self.trees.get(r)
    }

    /// Takes the weights of a tree that arrived here (global id `r`) from its sender, which
    /// walked it.
    pub fn arrived(&mut self, r: u32, w: TreeWeights) {
        self.trees.put(r, w);
    }

    /// The rows of the roots `forest` holds (by global id), their neighbours' owners from
    /// `owner` (by local id, as the forest's roots); with
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
        // About as many rows as last time, four neighbours each.
        let n = self.trees.len();
        let mut rows = Flat::with_capacity(n, 4);
        let mut moving = Vec::with_capacity(n);
        // Rows name roots by global id; local order is global order.
        let initial = forest.initial();
        let held: Vec<u32> = (0..forest.nroots() as u32)
            .filter(|&r| forest.holds(r))
            .collect();
        // Both ascending: a cursor finds the pending roots, another the local ids.
        let mut pending = pending.into_iter().peekable();
        let mut local = held.iter().copied();
        self.trees
            .pass(held.iter().map(|&r| initial.root_gid(r)), |g, kept| {
                let r = local.next().expect("one local root per global id");
                while pending.next_if(|&p| p < r).is_some() {}
                let pending = pending.next_if_eq(&r).is_some();
                let w = match (pending, kept) {
                    (false, Some(w)) => w,
                    _ => TreeWeights::of(forest, r, pending),
                };
                rows.roots.push(g);
                rows.pwgt.push(match cost {
                    Some(cost) => TreeWeights::leaf_costs(forest, r, pending, cost),
                    None => w.leaves,
                });
                rows.rwgt.push(w.elems);
                // The trees move as they are now, smaller than predicted.
                moving.push(match pending {
                    true => forest.trees()[r as usize].nelems() as u64,
                    false => w.elems,
                });
                let nbrs = forest.root_face_neighbours(r);
                let mut faces = [0, 1, 2, 3];
                faces.sort_unstable_by_key(|&f| nbrs[f]);
                // Neighbours ascending; the boundary (`NO_ELEM`, the largest id) comes last.
                for f in faces.into_iter().filter(|&f| nbrs[f] != NO_ELEM) {
                    rows.adjncy.push(initial.root_gid(nbrs[f]));
                    rows.cwgt.push(w.face_leaves[f]);
                    rows.owner.push(owner[nbrs[f] as usize]);
                }
                rows.xadj.push(rows.adjncy.len() as u32);
                w
            });
        OwnRows { rows, moving }
    }
}

/// This rank's rows, owned, with the size each tree moves with.
#[derive(Debug, Default)]
pub(super) struct OwnRows {
    pub rows: Flat,
    pub moving: Vec<u64>,
}

impl OwnRows {
    /// The rows as [`Rows`].
    pub fn rows(&self) -> Rows<'_> {
        self.rows.rows()
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

#[cfg(test)]
mod tests {
    use super::ByRoot;

    /// The values of `roots` a pass sees, keeping each root's value plus 10.
    fn pass(cache: &mut ByRoot<u32>, roots: &[u32]) -> Vec<Option<u32>> {
        let mut seen = Vec::new();
        cache.pass(roots.iter().copied(), |r, v| {
            seen.push(v);
            v.unwrap_or(r) + 10
        });
        seen
    }

    #[test]
    fn a_pass_sees_what_was_kept_put_or_forgotten() {
        let mut cache = ByRoot::default();
        assert_eq!(pass(&mut cache, &[1, 4, 6]), [None, None, None]);
        assert_eq!((cache.get(4), cache.get(5)), (Some(14), None));
        // Put values replace kept ones (the later of two wins), forgotten roots have none,
        // and a root not visited keeps nothing.
        cache.put(6, 100);
        cache.put(2, 7);
        cache.put(6, 200);
        cache.forget(&[1]);
        assert_eq!(pass(&mut cache, &[1, 2, 6]), [None, Some(7), Some(200)]);
        assert_eq!(
            pass(&mut cache, &[1, 2, 4, 6]),
            [Some(11), Some(17), None, Some(210)]
        );
    }
}
