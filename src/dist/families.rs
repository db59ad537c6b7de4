//! What became of each leaf in a step, for a solver's own arrays: the leaves held here before
//! and after a step, grouped into *families* (the old leaves one element of a tree covered and
//! the new leaves it covers now), and the user transfer a step calls on each
//! ([`Run::step_with_transfer`]).
//!
//! A family is found by walking each tree before and after the step together from its root,
//! elements named by their vertex keys (the same on every rank): an element that is a leaf in
//! both is kept; one split the same way in both is walked into; any other (divided, its family
//! coarsened, its green split upgraded) is one family of the old leaves below it and the new
//! leaves below it. A tree that arrived holds one family with no old leaves here, a tree that
//! left one with no new leaves here.

use std::collections::HashMap;
use std::ops::Range;

use super::{Run, StepReport};
use crate::adapt::{Forest, LeafId, Tree};
use crate::comm::Comm;
use crate::Result;

/// How a family's leaves changed in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    /// One leaf, unchanged (its id may change: new generation, new local root).
    Kept,
    /// One leaf divided into the new leaves.
    Refined,
    /// The old leaves merged into one new leaf.
    Coarsened,
    /// A split replaced by another below one element (a green split upgraded to 1:8, or a
    /// family coarsened and its parent divided anew).
    Reshaped,
    /// A tree that arrived here: its leaves, no old ones here (their data travelled with it).
    Arrived,
    /// A tree that left: its old leaves, no new ones here.
    Left,
}

/// Old leaves and the new leaves that cover the same region after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// How they changed.
    pub change: Change,
    /// The global id of their root.
    pub root_gid: u32,
    /// The leaves before the step (ids of the old generation, in canonical order).
    pub old: Vec<LeafId>,
    /// The leaves after the step (ids of the current generation, in canonical order).
    pub new: Vec<LeafId>,
}

/// The old → new leaf map of one step on this rank: every leaf held here before the step is
/// in exactly one family's `old`, every leaf held here after it in exactly one's `new`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeafMap {
    /// The families, trees by global root id, each tree's in canonical order.
    pub families: Vec<Family>,
    /// Per old leaf, its family's index.
    by_old: HashMap<LeafId, usize>,
}

impl LeafMap {
    /// The family of an old leaf (`None` when `old` was not a leaf held here before the step).
    pub fn family_of(&self, old: LeafId) -> Option<&Family> {
        self.by_old.get(&old).map(|&f| &self.families[f])
    }

    /// The new leaves covering an old leaf (empty when its tree left, `None` when `old` was
    /// not a leaf held here before the step).
    pub fn new_of(&self, old: LeafId) -> Option<&[LeafId]> {
        self.family_of(old).map(|f| f.new.as_slice())
    }
}

/// A solver's transfer of its own per-leaf data (any type, any layout) across a step:
/// called once for each family of the step ([`Run::step_with_transfer`]), after the step,
/// in the order of [`LeafMap::families`]. Any `FnMut(&Family)` is one.
pub trait UserTransfer {
    /// Moves the data of `family.old` to `family.new`.
    fn family(&mut self, family: &Family);
}

impl<F: FnMut(&Family)> UserTransfer for F {
    fn family(&mut self, family: &Family) {
        self(family)
    }
}

/// One element of a tree as it was: its sorted vertex keys and its children.
#[derive(Debug, Clone)]
struct OldElem {
    keys: [u64; 4],
    children: Range<usize>,
}

/// The trees held here before a step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Before {
    /// Per tree held, by global root id: its local root then and its elements.
    trees: Vec<(u32, u32, Vec<OldElem>)>,
    generation: u32,
}

/// The sorted vertex keys of element `i` of `tree`.
fn keys_of(forest: &Forest, tree: &Tree, i: usize) -> [u64; 4] {
    let mut keys = tree.elems[i].verts.map(|v| forest.vertices()[v].key);
    keys.sort_unstable();
    keys
}

/// The leaves below element `i` of `tree` (itself if a leaf), in canonical order.
fn leaves_below(tree: &Tree, i: usize, out: &mut Vec<u32>) {
    let mut stack = vec![i];
    while let Some(i) = stack.pop() {
        let children = tree.elems[i].children();
        if children.is_empty() {
            out.push(i as u32);
        } else {
            stack.extend(children.rev());
        }
    }
}

impl Before {
    /// The trees `forest` holds now.
    pub(crate) fn of(forest: &Forest) -> Before {
        let mut trees: Vec<(u32, u32, Vec<OldElem>)> = (0..forest.nroots() as u32)
            .filter(|&r| forest.holds(r))
            .map(|r| {
                let tree = &forest.trees()[r as usize];
                let elems = (0..tree.elems.len())
                    .map(|i| OldElem {
                        keys: keys_of(forest, tree, i),
                        children: tree.elems[i].children(),
                    })
                    .collect();
                (forest.initial().root_gid(r), r, elems)
            })
            .collect();
        trees.sort_unstable_by_key(|t| t.0);
        Before {
            trees,
            generation: forest.generation(),
        }
    }

    /// The families from these trees to those `forest` holds now.
    pub(crate) fn families(&self, forest: &Forest) -> LeafMap {
        let mut now: Vec<(u32, u32)> = (0..forest.nroots() as u32)
            .filter(|&r| forest.holds(r))
            .map(|r| (forest.initial().root_gid(r), r))
            .collect();
        now.sort_unstable();
        let mut families = Vec::new();
        let (mut o, mut n) = (0, 0);
        while o < self.trees.len() || n < now.len() {
            let old_gid = self.trees.get(o).map_or(u32::MAX, |t| t.0);
            let new_gid = now.get(n).map_or(u32::MAX, |t| t.0);
            if old_gid < new_gid {
                let (gid, r, elems) = &self.trees[o];
                let old = self.old_leaves_below(*r, elems, 0);
                families.push(family(Change::Left, *gid, old, Vec::new()));
                o += 1;
            } else if new_gid < old_gid {
                let r = now[n].1;
                let mut new = Vec::new();
                leaves_below(&forest.trees()[r as usize], 0, &mut new);
                let new = new.into_iter().map(|i| forest.leaf_id(r, i)).collect();
                families.push(family(Change::Arrived, new_gid, Vec::new(), new));
                n += 1;
            } else {
                let (gid, r_old, elems) = &self.trees[o];
                let walk = Walk {
                    forest,
                    before: self,
                    elems,
                    r_old: *r_old,
                    r_new: now[n].1,
                    gid: *gid,
                };
                walk.element(0, 0, &mut families);
                o += 1;
                n += 1;
            }
        }
        let by_old = families
            .iter()
            .enumerate()
            .flat_map(|(f, fam)| fam.old.iter().map(move |&id| (id, f)))
            .collect();
        LeafMap { families, by_old }
    }

    /// The old ids of the leaves below old element `i` of root `r`'s tree `elems`.
    fn old_leaves_below(&self, r: u32, elems: &[OldElem], i: usize) -> Vec<LeafId> {
        let mut out = Vec::new();
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            let children = elems[i].children.clone();
            if children.is_empty() {
                out.push(LeafId {
                    root: r,
                    elem: i as u32,
                    generation: self.generation,
                });
            } else {
                stack.extend(children.rev());
            }
        }
        out
    }
}

/// A family.
fn family(change: Change, root_gid: u32, old: Vec<LeafId>, new: Vec<LeafId>) -> Family {
    Family {
        change,
        root_gid,
        old,
        new,
    }
}

/// One tree held before and after a step, walked together.
struct Walk<'a> {
    forest: &'a Forest,
    before: &'a Before,
    elems: &'a [OldElem],
    r_old: u32,
    r_new: u32,
    gid: u32,
}

impl Walk<'_> {
    /// Old element `o` and new element `n` (the same vertex keys): their families.
    fn element(&self, o: usize, n: usize, out: &mut Vec<Family>) {
        let tree = &self.forest.trees()[self.r_new as usize];
        let (old_children, new_children) =
            (self.elems[o].children.clone(), tree.elems[n].children());
        let change = match (old_children.is_empty(), new_children.is_empty()) {
            (true, true) => Change::Kept,
            (true, false) => Change::Refined,
            (false, true) => Change::Coarsened,
            (false, false) => {
                // The same split when every new child is an old child (by keys).
                let pairs: Option<Vec<(usize, usize)>> = new_children
                    .clone()
                    .map(|c| {
                        let keys = keys_of(self.forest, tree, c);
                        old_children
                            .clone()
                            .find(|&oc| self.elems[oc].keys == keys)
                            .map(|oc| (oc, c))
                    })
                    .collect();
                match pairs {
                    Some(pairs) if pairs.len() == old_children.len() => {
                        for (oc, c) in pairs {
                            self.element(oc, c, out);
                        }
                        return;
                    }
                    _ => Change::Reshaped,
                }
            }
        };
        let old = self.before.old_leaves_below(self.r_old, self.elems, o);
        let mut new = Vec::new();
        leaves_below(tree, n, &mut new);
        let new = new
            .into_iter()
            .map(|i| self.forest.leaf_id(self.r_new, i))
            .collect();
        out.push(family(change, self.gid, old, new));
    }
}

impl<C: Comm + ?Sized> Run<'_, C> {
    /// [`Run::step_marked`], then `transfer` called on each family of the step (the old
    /// leaves held here and the new ones covering them: refined, coarsened, reshaped, kept,
    /// arrived, left) so that a solver's own arrays follow the mesh; returns the step's report
    /// and the old → new leaf map (a collective).
    ///
    /// ```
    /// use plume::adapt::AdaptOptions;
    /// use plume::balance::{Plum, PlumOptions};
    /// use plume::comm::launch_threads;
    /// use plume::dist::{Family, GatheredPlum, Run};
    /// use plume::mesh::generate_box;
    /// let counts = launch_threads(2, |comm| {
    ///     let mesh = generate_box([2, 2, 2], [1.0; 3])?;
    ///     let plum = GatheredPlum::new(Plum::new(PlumOptions::new(2))?);
    ///     let mut run = Run::new(comm, mesh, AdaptOptions::default(), plum)?;
    ///     // The solver's own value per leaf, by leaf id.
    ///     let mut mine: std::collections::HashMap<_, f64> =
    ///         run.forest().leaves().into_iter().map(|id| (id, 1.0)).collect();
    ///     let refine = run.forest().leaves();
    ///     let mut next = std::collections::HashMap::new();
    ///     run.step_with_transfer(refine, Vec::new(), &mut |f: &Family| {
    ///         let v = f.old.iter().map(|id| mine[id]).sum::<f64>();
    ///         for &id in &f.new {
    ///             next.insert(id, v);
    ///         }
    ///     })?;
    ///     mine = next;
    ///     Ok(mine.len() as u64 == run.forest().nleaves() as u64)
    /// })
    /// .unwrap();
    /// assert_eq!(counts, vec![true, true]);
    /// ```
    ///
    /// # Errors
    /// As [`Run::step_marked`].
    pub fn step_with_transfer(
        &mut self,
        refine: Vec<LeafId>,
        coarsen: Vec<LeafId>,
        transfer: &mut dyn UserTransfer,
    ) -> Result<(StepReport, LeafMap)> {
        let before = Before::of(&self.forest);
        let report = self.step_marked(refine, coarsen)?;
        let map = before.families(&self.forest);
        for f in &map.families {
            transfer.family(f);
        }
        Ok((report, map))
    }
}
