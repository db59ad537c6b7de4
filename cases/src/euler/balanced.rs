//! The scheme balanced by SBN: each stage of an iteration is a processing level on the ranks
//! ([`Run::process`](plume::dist::Run::process)), the leaves of one root one job ([`StageJobs`]). SBN balances while the
//! ranks work, and a root's tree moves lazily to the rank about to process it.
//!
//! Before each stage's level every rank computes the states its leaves' fluxes read (the
//! leaves' own at first order, the reconstructed face states at second order with the
//! ghosts' exchanged: [`Scheme::stage_states`]). A job reads them (its leaves', and beyond
//! their faces the neighbours', held here or ghosts) and sets its leaves' new states aside
//! until every root is done, so neither the order the ranks take the roots in nor who takes
//! them changes a bit. When a root's tree leaves a rank unprocessed, what the tree does not
//! carry goes with it ([`RootInputs`]: what lies beyond each face of its leaves, another leaf
//! of the root by its index and face, a neighbour outside the root by its state on the face,
//! or the boundary's tag; at second order its own leaves' face states; and for the stages
//! after the first the iteration's first states). The tree carries its leaves' states, and
//! the new owner computes their geometry from its corners as the old one did, so it computes
//! exactly what the old one would have. After the level the new states go into the forest;
//! the flow mesh is rebuilt around the new owners when trees moved, else only the ghosts are
//! refreshed. Jobs are named by their roots' global ids: a rank may hold its part of the mesh,
//! numbered locally, and a tree that arrives is processed wherever its holder keeps it.

use std::ops::Range;

use plume::adapt::{Across, Forest};
use plume::dist::{Processed, RootWork};
use plume::hash::{mix64, IntMap};
use plume::{Error, Result};

use super::flux::{Beyond, FaceSide};
use super::gas::{Conserved, Gas, Primitive, NVARS};
use super::gradient::primitive_array;
use super::mesh::{FlowMesh, LeafGeometry};
use super::reconstruct::FaceState;
use super::scheme::{with_speed, Scheme, Stage, States};

/// A leaf's side of a face as an arrived job holds it: its state at first order, its
/// reconstructed face state at second.
#[derive(Debug, Clone, Copy)]
enum JobSide {
    /// The state, its primitive variables and speed of sound.
    Cell(Conserved, Primitive, f64),
    /// The face state.
    Face(FaceState),
}

impl FaceSide for &JobSide {
    fn primitive(&self) -> &Primitive {
        match self {
            JobSide::Cell(_, w, _) => w,
            JobSide::Face(f) => &f.w,
        }
    }
    fn sound_speed(&self) -> f64 {
        match self {
            JobSide::Cell(_, _, c) => *c,
            JobSide::Face(f) => f.c,
        }
    }
    fn conserved(&self, gas: Gas) -> Conserved {
        match self {
            JobSide::Cell(u, _, _) => *u,
            JobSide::Face(f) => f.w.conserved(gas),
        }
    }
}

/// What lies beyond one face, as it travels.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
enum BeyondInput {
    /// Another leaf of the root: its index in canonical order and its face.
    Inside(u32, u8),
    /// A leaf of another root: its state (first order).
    Outside(Conserved),
    /// A leaf of another root: its primitive state on the face (second order).
    OutsideFace([f64; NVARS]),
    /// The boundary, with the face's physical tag.
    Boundary(u32),
}

/// A root's job beyond its tree, as it travels with the tree (see the module doc), with a
/// digest of its leaves' vertex keys to check the receiver lists its leaves (and their
/// corners) in the same order.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RootInputs {
    /// Per leaf in canonical order, what lies beyond its faces.
    beyond: Vec<[BeyondInput; 4]>,
    /// At second order, per leaf, its primitive state on each face.
    faces: Option<Vec<[[f64; NVARS]; 4]>>,
    /// Per leaf, the iteration's first state, when the stage reads it.
    starts: Option<Vec<Conserved>>,
    keys: u64,
}

/// A root's job done: its leaves' new states, and the states the iteration started from.
#[derive(Debug, Clone, PartialEq)]
pub struct RootDone {
    /// The mesh's leaves of the root when its tree was here at the start (`None`: it arrived).
    pub here: Option<Range<usize>>,
    /// New states, in canonical leaf order.
    pub states: Vec<Conserved>,
    /// The iteration's first states, in the same order (for the next stage).
    pub starts: Vec<Conserved>,
}

/// One stage of the scheme as a processing level's work on one rank (see the module doc).
pub struct StageJobs<'a> {
    scheme: &'a Scheme,
    mesh: &'a FlowMesh,
    /// The states the fluxes read on the faces of the mesh's leaves and ghosts.
    states: &'a States,
    stage: Stage,
    dt: f64,
    /// The iteration's first states of the roots held here at the start (second stage only),
    /// by global id.
    starts: IntMap<u32, Vec<Conserved>>,
    /// The jobs whose trees arrived, by global id.
    arrived: IntMap<u32, RootInputs>,
    /// The jobs done here, by global id.
    done: IntMap<u32, RootDone>,
    /// Leaf-face flux evaluations done here.
    evaluations: u64,
}

impl<'a> StageJobs<'a> {
    /// `stage` of the scheme over `dt` on the leaves of `mesh`, whose faces' states are
    /// `states`; `starts` holds the iteration's first states of the roots held here (from
    /// the first stage's [`StageJobs::finish`]) when `stage` reads them.
    pub fn new(
        scheme: &'a Scheme,
        (mesh, states): (&'a FlowMesh, &'a States),
        (stage, dt): (Stage, f64),
        starts: IntMap<u32, Vec<Conserved>>,
    ) -> Self {
        StageJobs {
            scheme,
            mesh,
            states,
            stage,
            dt,
            starts,
            arrived: IntMap::default(),
            done: IntMap::default(),
            evaluations: 0,
        }
    }

    /// The jobs done here, by root's global id, and the leaf-face flux evaluations they took.
    pub fn finish(self) -> (IntMap<u32, RootDone>, u64) {
        (self.done, self.evaluations)
    }

    /// The mesh's leaves of root `g` (global id), whose tree was here at the start.
    fn range(&self, g: u32) -> Result<Range<usize>> {
        let offsets = &self.mesh.halo.adjacency.root_offsets;
        let r = self.mesh.root_gids.binary_search(&g).unwrap_or(usize::MAX);
        match (offsets.get(r), offsets.get(r.wrapping_add(1))) {
            (Some(&start), Some(&end)) if start < end => Ok(start as usize..end as usize),
            _ => Err(Error::Invalid(format!(
                "root {g}'s job is neither here nor arrived"
            ))),
        }
    }

    /// Root `r`'s inputs from the mesh, which holds its leaves `range`.
    fn inputs(&self, r: u32, range: Range<usize>) -> Result<RootInputs> {
        let mesh = self.mesh;
        let beyond = range
            .clone()
            .map(|i| {
                std::array::from_fn(|k| match mesh.halo.adjacency.across[i][k] {
                    Across::Boundary { tag } => BeyondInput::Boundary(tag),
                    Across::Leaf { leaf, face } if range.contains(&(leaf as usize)) => {
                        BeyondInput::Inside(leaf - range.start as u32, face)
                    }
                    _ => match self.states {
                        States::Cells(_) => BeyondInput::Outside(
                            mesh.neighbour_state(i, k)
                                .expect("the halo resolves every face between leaves"),
                        ),
                        States::Faces(faces) => BeyondInput::OutsideFace(primitive_array(
                            &faces
                                .beyond(mesh, i, k)
                                .expect("the halo resolves every face between leaves")
                                .w,
                        )),
                    },
                })
            })
            .collect();
        let faces = match self.states {
            States::Cells(_) => None,
            States::Faces(faces) => Some(
                faces.leaves[range.clone()]
                    .iter()
                    .map(|f| f.map(|f| primitive_array(&f.w)))
                    .collect(),
            ),
        };
        let starts = match self.stage.reads_start() {
            true => Some(
                self.root_starts(r, range.len())?
                    .into_iter()
                    .flatten()
                    .collect(),
            ),
            false => None,
        };
        Ok(RootInputs {
            beyond,
            faces,
            starts,
            keys: keys_digest(range.map(|i| mesh.keys(i))),
        })
    }

    /// The iteration's first states of root `r`'s `n` leaves when the stage reads them, else
    /// `None` for each.
    fn root_starts(&self, r: u32, n: usize) -> Result<Vec<Option<Conserved>>> {
        if !self.stage.reads_start() {
            return Ok(vec![None; n]);
        }
        match self.starts.get(&r) {
            Some(s) if s.len() == n => Ok(s.iter().copied().map(Some).collect()),
            _ => Err(Error::Invalid(format!(
                "root {r}'s first states of the iteration are not here"
            ))),
        }
    }

    /// Runs root `r`'s job from the mesh, which holds its leaves `range`.
    fn run_here(&mut self, r: u32, range: Range<usize>) -> Result<Processed> {
        let starts = self.root_starts(r, range.len())?;
        let done = range
            .clone()
            .zip(starts)
            .map(|(i, start)| {
                let u = &self.mesh.state[i];
                let rate = self.scheme.mesh_leaf_rate(self.mesh, self.states, i);
                let start = start.unwrap_or(*u);
                (self.stage.update(u, &start, &rate, self.dt), start)
            })
            .collect();
        Ok(self.record(r, done, Some(range)))
    }

    /// Runs the job `inputs` of root `r` (its local id in `forest`), whose tree arrived with
    /// them.
    fn run_arrived(&mut self, forest: &Forest, r: u32, inputs: &RootInputs) -> Result<Processed> {
        let verts = forest.vertices();
        let mut leaves = Vec::with_capacity(inputs.beyond.len());
        let mut keys = Vec::with_capacity(inputs.beyond.len());
        forest.for_each_leaf_in(&[r], |leaf| {
            let k = leaf.verts.map(|v| verts[v].key);
            let u: Conserved = std::array::from_fn(|c| leaf.data[c]);
            let (w, c) = with_speed(&u, self.scheme.opts.gas);
            leaves.push((LeafGeometry::new(&leaf.corners, &k), u, w, c));
            keys.push(k);
        });
        if keys.len() != inputs.beyond.len() || keys_digest(keys.into_iter()) != inputs.keys {
            return Err(Error::Invalid(format!(
                "root {r}'s tree arrived with other leaves, or in another order, than its job's"
            )));
        }
        let starts = match (self.stage.reads_start(), inputs.starts.as_deref()) {
            (false, _) => None,
            (true, Some(s)) if s.len() == leaves.len() => Some(s),
            (true, _) => {
                return Err(Error::Invalid(format!(
                    "root {r}'s job arrived without the iteration's first states"
                )))
            }
        };
        let inside =
            |b: &BeyondInput| matches!(*b, BeyondInput::Inside(j, _) if j as usize >= leaves.len());
        if inputs.beyond.iter().flatten().any(inside) {
            return Err(Error::Invalid(format!(
                "root {r}'s job names a leaf the root does not have"
            )));
        }
        // Each leaf's state on each face: its own at first order, the reconstructed ones
        // that came with the job at second order.
        let faces: Vec<[JobSide; 4]> = match (self.states, &inputs.faces) {
            (States::Cells(_), None) => leaves
                .iter()
                .map(|(_, u, w, c)| [JobSide::Cell(*u, *w, *c); 4])
                .collect(),
            (States::Faces(_), Some(f)) if f.len() == leaves.len() => f
                .iter()
                .map(|f| {
                    f.map(|w| JobSide::Face(FaceState::of_primitive(&w, self.scheme.opts.gas)))
                })
                .collect(),
            _ => {
                return Err(Error::Invalid(format!(
                    "root {r}'s job arrived for another order of the scheme"
                )))
            }
        };
        let mut done = Vec::with_capacity(leaves.len());
        for (i, (geometry, u, _, _)) in leaves.iter().enumerate() {
            // A boundary face's side is never read: the leaf's own stands in.
            let outside = std::array::from_fn::<JobSide, 4, _>(|k| match inputs.beyond[i][k] {
                BeyondInput::Outside(o) => {
                    let (w, c) = with_speed(&o, self.scheme.opts.gas);
                    JobSide::Cell(o, w, c)
                }
                BeyondInput::OutsideFace(w) => {
                    JobSide::Face(FaceState::of_primitive(&w, self.scheme.opts.gas))
                }
                _ => faces[i][k],
            });
            let beyond = std::array::from_fn(|k| match inputs.beyond[i][k] {
                BeyondInput::Inside(j, f) => Beyond::Leaf(&faces[j as usize][f as usize % 4]),
                BeyondInput::Outside(_) | BeyondInput::OutsideFace(_) => Beyond::Leaf(&outside[k]),
                BeyondInput::Boundary(tag) => Beyond::Boundary(tag),
            });
            let this = std::array::from_fn(|k| &faces[i][k]);
            let rate = self.scheme.leaf_rate(this, geometry, beyond);
            let start = starts.map_or(*u, |s| s[i]);
            done.push((self.stage.update(u, &start, &rate, self.dt), start));
        }
        Ok(self.record(forest.initial().root_gid(r), done, None))
    }

    /// Keeps root `r`'s new and first states (`(new, first)` per leaf), and its leaves in the
    /// mesh when they were `here`.
    fn record(
        &mut self,
        r: u32,
        done: Vec<(Conserved, Conserved)>,
        here: Option<Range<usize>>,
    ) -> Processed {
        let digest = done
            .iter()
            .flat_map(|(new, _)| new)
            .fold(mix64(u64::from(r)), |d, x| {
                mix64(d.rotate_left(5) ^ x.to_bits())
            });
        let leaves = done.len() as u64;
        self.evaluations += 4 * leaves;
        let (states, starts) = done.into_iter().unzip();
        self.done.insert(
            r,
            RootDone {
                here,
                states,
                starts,
            },
        );
        Processed { leaves, digest }
    }
}

impl RootWork for StageJobs<'_> {
    fn process(&mut self, forest: &Forest, r: u32) -> Result<Processed> {
        let g = forest.initial().root_gid(r);
        match self.arrived.remove(&g) {
            Some(inputs) => self.run_arrived(forest, r, &inputs),
            None => {
                let range = self.range(g)?;
                self.run_here(g, range)
            }
        }
    }

    fn pack(&mut self, r: u32) -> Result<Vec<u8>> {
        let inputs = match self.arrived.remove(&r) {
            Some(inputs) => inputs,
            None => self.inputs(r, self.range(r)?)?,
        };
        bincode::serialize(&inputs)
            .map_err(|e| Error::Invalid(format!("cannot pack root {r}'s job: {e}")))
    }

    fn unpack(&mut self, r: u32, bytes: Vec<u8>) -> Result<()> {
        let inputs: RootInputs = bincode::deserialize(&bytes)
            .map_err(|e| Error::Invalid(format!("root {r}'s job arrived damaged: {e}")))?;
        self.arrived.insert(r, inputs);
        Ok(())
    }
}

/// A digest of leaves' vertex keys, in order.
fn keys_digest(leaves: impl Iterator<Item = [u64; 4]>) -> u64 {
    leaves.fold(0, |d, keys| {
        keys.iter().fold(d, |d, &k| mix64(d.rotate_left(7) ^ k))
    })
}
