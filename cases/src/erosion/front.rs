//! The rocks and their erosion (`docs/commands.md`, erosion): every leaf is rock or fluid (its one
//! solution value, [`FLUID`] or [`ROCK`]); every root belongs to the rock of its stripe or to
//! none. The *front* is the set of rock leaves sharing a face with a fluid leaf; each step,
//! every front leaf erodes with its rock's probability, becomes fluid, and is refined 1:8 while
//! below the maximum depth. The front is kept per root and refreshed only around the roots a
//! step changed, so a step costs in proportion to the front, not the mesh.
//!
//! A front leaf's draw is a hash of the seed, the step and the leaf's vertex keys, not a
//! sequential stream: it does not depend on which leaves are visited before it, so ranks that
//! each hold some roots draw what one process would. Faces are compared by vertex keys, and a
//! rank refreshing a root whose neighbour it does not hold is given that neighbour's fluid
//! faces ([`Halo`]).
//!
//! Refining a leaf made by the closure (a green child) replaces its whole family by a 1:8
//! split of the parent, whose children take the material at their centroid: around such
//! leaves the eroded region is resampled on the finer children, not kept leaf for leaf.

use std::collections::{BTreeSet, HashMap};

use plume::adapt::{Forest, LeafId, NO_ELEM};
use plume::hash::mix64;

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

/// A face as the sorted keys of its vertices.
pub type FaceKeys = [u64; 3];

/// The fluid faces of roots whose trees are held by other ranks, by root.
pub type Halo = HashMap<u32, Vec<FaceKeys>>;

/// The rocks, the front and the draws of the erosion.
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
    seed: u64,
    /// Draws done (one per step).
    draws: u64,
}

impl Erosion {
    /// The erosion of `forest`, whose leaf values already say rock or fluid and which holds
    /// every tree, with the rock of every root, each rock's probability, and the seed of the
    /// draws.
    pub fn new(
        forest: &Forest,
        rock_of_root: Vec<Option<u32>>,
        probability: Vec<f64>,
        seed: u64,
    ) -> Erosion {
        let mut e = Erosion::unrefreshed(rock_of_root, probability, seed);
        let all: Vec<u32> = (0..forest.nroots() as u32).collect();
        e.refresh(forest, &all, &Halo::new());
        e
    }

    /// The erosion of the roots whose rocks are `rock_of_root` (a rank's part of the mesh,
    /// by local root) with no front and no fluid yet: a rank's, which refreshes the roots it
    /// holds with its neighbours' [`Halo`].
    pub fn unrefreshed(
        rock_of_root: Vec<Option<u32>>,
        probability: Vec<f64>,
        seed: u64,
    ) -> Erosion {
        let nroots = rock_of_root.len();
        Erosion {
            rock_of_root,
            probability,
            front: vec![Vec::new(); nroots],
            active: BTreeSet::new(),
            fluid: vec![0; nroots],
            seed,
            draws: 0,
        }
    }

    /// Follows a migration that moved `forest` from its part, whose local root `r` had the
    /// global id `gids_before[r]`, onto its new part (the roots numbered anew), whose rocks
    /// are `rock_of_root` (by new local root): the roots still held keep their front and
    /// fluid, the others have none (the roots that arrived are refreshed next, with their
    /// neighbours' [`Halo`]).
    pub fn renumber(
        &mut self,
        gids_before: &[u32],
        forest: &Forest,
        rock_of_root: Vec<Option<u32>>,
    ) {
        let to = forest.initial();
        let nroots = rock_of_root.len();
        let mut front = vec![Vec::new(); nroots];
        let mut fluid = vec![0; nroots];
        let mut active = BTreeSet::new();
        for r in 0..self.front.len() as u32 {
            let kept = to
                .local_root(gids_before[r as usize])
                .filter(|&now| forest.holds(now));
            if let Some(now) = kept {
                front[now as usize] = std::mem::take(&mut self.front[r as usize]);
                fluid[now as usize] = self.fluid[r as usize];
                if !front[now as usize].is_empty() {
                    active.insert(now);
                }
            }
        }
        self.rock_of_root = rock_of_root;
        self.front = front;
        self.fluid = fluid;
        self.active = active;
    }

    /// Draws done: the step of the next draw (a checkpoint's).
    pub fn draws(&self) -> u64 {
        self.draws
    }

    /// Continues the draws after `draws` of them (a run continued from a checkpoint).
    pub fn resume_draws(&mut self, draws: u64) {
        self.draws = draws;
    }

    /// Fluid leaves of every root (0 for the roots not held).
    pub fn fluid(&self) -> &[u64] {
        &self.fluid
    }

    /// True when root `r` belongs to a rock.
    pub fn is_rock(&self, r: u32) -> bool {
        self.rock_of_root[r as usize].is_some()
    }

    /// Front leaves of every root (element indices, valid until the next step).
    pub fn front(&self, root: u32) -> &[u32] {
        &self.front[root as usize]
    }

    /// One step: draws the erosion of every front leaf, turns the eroded leaves to fluid, refines those below
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
        let mut eroded = Eroded {
            leaves: self.draw(forest),
            divided: 0,
        };
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

    /// Draws the erosion of every front leaf of the roots held in `forest` (roots and leaves
    /// in order): the leaves that erode at this step. Each leaf's draw depends only on the
    /// seed, the step and the leaf's vertex keys.
    pub fn draw(&mut self, forest: &Forest) -> Vec<LeafId> {
        let step = mix64(self.seed ^ mix64(self.draws));
        self.draws += 1;
        let mut eroded = Vec::new();
        for &root in &self.active {
            let rock = self.rock_of_root[root as usize].expect("front leaves are rock");
            let p = self.probability[rock as usize];
            let tree = &forest.trees()[root as usize];
            for &elem in &self.front[root as usize] {
                let mut keys = tree.elems[elem as usize]
                    .verts
                    .map(|v| forest.vertices()[v].key);
                keys.sort_unstable();
                let bits = keys.iter().fold(step, |h, &k| mix64(h ^ k));
                if ((bits >> 11) as f64 / (1u64 << 53) as f64) < p {
                    eroded.push(forest.leaf_id(root, elem));
                }
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
        self.refresh(forest, &around, &Halo::new());
        Ok(Step {
            eroded,
            changed_roots: changed,
        })
    }

    /// Recomputes the fluid count and the front of each root of `roots` held in `forest`
    /// (the others are forgotten: no front, no fluid), with the fluid faces of the
    /// neighbouring roots held elsewhere in `halo`.
    pub fn refresh(&mut self, forest: &Forest, roots: &[u32], halo: &Halo) {
        let mut fluid_faces: Vec<FaceKeys> = Vec::new();
        for &r in roots {
            let tree = &forest.trees()[r as usize];
            let held = forest.holds(r);
            self.fluid[r as usize] = if held {
                leaves(forest, r).filter(|&(_, fluid)| fluid).count() as u64
            } else {
                0
            };
            let front = &mut self.front[r as usize];
            front.clear();
            if held && self.rock_of_root[r as usize].is_some() {
                fluid_faces.clear();
                let nbrs = forest.root_face_neighbours(r);
                for s in std::iter::once(r).chain(nbrs.into_iter().filter(|&x| x != NO_ELEM)) {
                    match halo.get(&s) {
                        Some(faces) if !forest.holds(s) => fluid_faces.extend_from_slice(faces),
                        _ => fluid_faces.extend(root_fluid_faces(forest, s)),
                    }
                }
                fluid_faces.sort_unstable();
                for (i, fluid) in leaves(forest, r) {
                    let verts = tree.elems[i as usize].verts;
                    if !fluid
                        && faces(forest, verts)
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

/// The faces of the fluid leaves of root `r` (none when `r` is not held in `forest`): what a
/// rank sends the ranks holding `r`'s neighbours.
pub fn root_fluid_faces(forest: &Forest, r: u32) -> Vec<FaceKeys> {
    if !forest.holds(r) {
        return Vec::new();
    }
    let tree = &forest.trees()[r as usize];
    leaves(forest, r)
        .filter(|&(_, fluid)| fluid)
        .flat_map(|(i, _)| faces(forest, tree.elems[i as usize].verts))
        .collect()
}

/// The four faces of a tetrahedron of `forest`, each as its sorted vertex keys.
fn faces(forest: &Forest, v: [u32; 4]) -> [FaceKeys; 4] {
    let keys = v.map(|x| forest.vertices()[x].key);
    [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]].map(|f| {
        let mut t = f.map(|k| keys[k]);
        t.sort_unstable();
        t
    })
}
