//! The rocks and their erosion (`test-cases.md`, erosion): every leaf is rock or fluid (its one
//! solution value, [`FLUID`] or [`ROCK`]); every root belongs to the rock of its stripe or to
//! none. The *front* is the set of rock leaves sharing a face with a fluid leaf; each step,
//! every front leaf erodes with its rock's probability, becomes fluid, and is refined 1:8 while
//! below the maximum depth. The front is kept per root and refreshed only around the roots a
//! step changed, so a step costs in proportion to the front, not the mesh.
//!
//! Refining a leaf made by the closure (a green child) replaces its whole family by a 1:8
//! split of the parent, whose children take the material at their centroid: around such
//! leaves the eroded region is resampled on the finer children, not kept leaf for leaf.

use std::collections::BTreeSet;

use plume::adapt::{Forest, LeafId, NO_ELEM};
use plume::rng::Rng;

/// Solution value of a rock leaf.
pub const ROCK: f64 = 0.0;
/// Solution value of a fluid leaf.
pub const FLUID: f64 = 1.0;

/// What one erosion step did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Step {
    /// The leaves eroded, named as they were before the step's adaptation.
    pub eroded: Vec<LeafId>,
    /// Roots whose trees or materials changed, ascending.
    pub changed_roots: Vec<u32>,
}

/// The first half of a step ([`Erosion::erode`]): the leaves eroded, marked but not yet
/// divided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Eroded {
    /// The leaves eroded.
    pub leaves: Vec<LeafId>,
    /// How many of them are below the maximum depth, marked for refinement (1:8).
    pub divided: usize,
}

/// The rocks, the front and the random stream of the erosion.
#[derive(Debug, Clone)]
pub struct Erosion {
    /// Rock of every root (`None`: the root starts as fluid).
    rock_of_root: Vec<Option<u32>>,
    /// Erosion probability of every rock.
    probability: Vec<f64>,
    /// Front leaves (element indices) of every root.
    front: Vec<Vec<u32>>,
    /// Roots with a non-empty front.
    active: BTreeSet<u32>,
    /// Fluid leaves of every root: its work per iteration.
    fluid: Vec<u64>,
    rng: Rng,
}

impl Erosion {
    /// The erosion of `forest`, whose leaf values already say rock or fluid, with the rock of
    /// every root, each rock's probability, and the seed of the draws.
    pub fn new(
        forest: &Forest,
        rock_of_root: Vec<Option<u32>>,
        probability: Vec<f64>,
        seed: u64,
    ) -> Erosion {
        let n = forest.nroots();
        let mut e = Erosion {
            rock_of_root,
            probability,
            front: vec![Vec::new(); n],
            active: BTreeSet::new(),
            fluid: vec![0; n],
            rng: Rng::new(seed),
        };
        let all: Vec<u32> = (0..n as u32).collect();
        e.refresh(forest, &all);
        e
    }

    /// Fluid leaves of every root.
    pub fn fluid(&self) -> &[u64] {
        &self.fluid
    }

    /// Front leaves of every root (element indices, valid until the next step).
    pub fn front(&self, root: u32) -> &[u32] {
        &self.front[root as usize]
    }

    /// One step: draws the erosion of every front leaf (roots and leaves in order, so the same
    /// seed gives the same step), turns the eroded leaves to fluid, refines those below
    /// `max_depth`, adapts, and refreshes the front around the changed roots. The same as
    /// [`Erosion::erode`] then [`Erosion::settle`].
    ///
    /// # Errors
    /// When the adaptation fails.
    pub fn step(&mut self, forest: &mut Forest, max_depth: u8) -> plume::Result<Step> {
        let eroded = self.erode(forest, max_depth);
        self.settle(forest, eroded)
    }

    /// The first half of a step: draws the erosion, turns the eroded leaves to fluid and marks
    /// those below `max_depth` for refinement, leaving the forest to adapt.
    pub fn erode(&mut self, forest: &mut Forest, max_depth: u8) -> Eroded {
        let mut eroded = Eroded::default();
        for &root in &self.active {
            let rock = self.rock_of_root[root as usize].expect("front leaves are rock");
            let p = self.probability[rock as usize];
            for &elem in &self.front[root as usize] {
                if self.rng.chance(p) {
                    eroded.leaves.push(LeafId { root, elem });
                }
            }
        }
        for &id in &eroded.leaves {
            forest.leaf_data_mut(id)[0] = FLUID;
            let level = forest.trees()[id.root as usize].elems[id.elem as usize].level;
            if level < max_depth {
                forest.mark_refine(id);
                eroded.divided += 1;
            }
        }
        eroded
    }

    /// The second half of a step: adapts the forest and refreshes the front around the
    /// changed roots.
    ///
    /// # Errors
    /// When the adaptation fails.
    pub fn settle(&mut self, forest: &mut Forest, eroded: Eroded) -> plume::Result<Step> {
        let eroded = eroded.leaves;
        let report = forest.adapt()?;
        let mut changed = report.changed_roots;
        changed.extend(eroded.iter().map(|id| id.root));
        changed.sort_unstable();
        changed.dedup();
        // Neighbours' rock leaves may now touch new fluid.
        let mut around = changed.clone();
        for &r in &changed {
            around.extend(
                forest
                    .root_face_neighbours(r)
                    .into_iter()
                    .filter(|&x| x != NO_ELEM),
            );
        }
        around.sort_unstable();
        around.dedup();
        self.refresh(forest, &around);
        Ok(Step {
            eroded,
            changed_roots: changed,
        })
    }

    /// Recomputes the fluid count and the front of each root of `roots`.
    fn refresh(&mut self, forest: &Forest, roots: &[u32]) {
        let mut fluid_faces: Vec<[u32; 3]> = Vec::new();
        for &r in roots {
            let tree = &forest.trees()[r as usize];
            self.fluid[r as usize] = leaves(forest, r).filter(|&(_, fluid)| fluid).count() as u64;
            let front = &mut self.front[r as usize];
            front.clear();
            if self.rock_of_root[r as usize].is_some() {
                fluid_faces.clear();
                let nbrs = forest.root_face_neighbours(r);
                for s in std::iter::once(r).chain(nbrs.into_iter().filter(|&x| x != NO_ELEM)) {
                    for (i, fluid) in leaves(forest, s) {
                        if fluid {
                            let verts = forest.trees()[s as usize].elems[i as usize].verts;
                            fluid_faces.extend(faces(verts));
                        }
                    }
                }
                fluid_faces.sort_unstable();
                for (i, fluid) in leaves(forest, r) {
                    let verts = tree.elems[i as usize].verts;
                    if !fluid
                        && faces(verts)
                            .iter()
                            .any(|f| fluid_faces.binary_search(f).is_ok())
                    {
                        front.push(i);
                    }
                }
            }
            if front.is_empty() {
                self.active.remove(&r);
            } else {
                self.active.insert(r);
            }
        }
    }
}

/// The leaves of tree `r` (element index, and whether fluid: the first solution value), in
/// index order.
fn leaves(forest: &Forest, r: u32) -> impl Iterator<Item = (u32, bool)> + '_ {
    let tree = &forest.trees()[r as usize];
    let nf = forest.options().nfields;
    tree.elems
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_leaf() && !e.is_dead())
        .map(move |(i, _)| (i as u32, tree.data[i * nf] == FLUID))
}

/// The four faces of a tetrahedron, each as its sorted vertex ids.
fn faces(v: [u32; 4]) -> [[u32; 3]; 4] {
    [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]].map(|f| {
        let mut t = f.map(|k| v[k]);
        t.sort_unstable();
        t
    })
}
