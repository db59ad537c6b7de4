//! The scheme balanced by SBN: each stage of an iteration is a processing level on the ranks
//! ([`Run::process`]), the leaves of one root one job ([`StageJobs`]). SBN balances while the
//! ranks work, and a root's tree moves lazily to the rank about to process it.
//!
//! A job reads the states the stage starts from (its leaves', and beyond their faces the
//! neighbours', held here or ghosts) and sets its leaves' new states aside until every root
//! is done, so neither the order the ranks take the roots in nor who takes them changes a bit.
//! When a root's tree leaves a rank unprocessed, its job's inputs go with it
//! ([`RootInputs`]: per leaf its geometry, its state, the iteration's first state for SSP-RK2's
//! second stage, and what lies beyond each face), so that the new owner computes exactly what
//! the old one would have. After the level the new states go into the forest; the flow mesh
//! is rebuilt around the new owners when trees moved, else only the ghosts are refreshed.

use std::ops::Range;

use plume::adapt::{Across, Forest};
use plume::dist::{Processed, RootWork};
use plume::hash::{mix64, IntMap};
use plume::{Error, Result};

use super::gas::Conserved;
use super::mesh::{FlowMesh, LeafGeometry};
use super::scheme::{with_speed, Beyond, Scheme, Stage};

/// What lies beyond one face, as it travels.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
enum BeyondInput {
    /// A leaf's state.
    Leaf(Conserved),
    /// The boundary, with the face's physical tag.
    Boundary(u32),
}

/// One leaf's inputs of a stage.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct LeafInputs {
    geometry: LeafGeometry,
    state: Conserved,
    /// The iteration's first state ([`Stage::Average`] reads it).
    start: Conserved,
    beyond: [BeyondInput; 4],
}

/// A root's job, as it travels with its tree: its leaves' inputs in canonical order, and a
/// digest of their vertex keys to check the receiver lists its leaves in the same order.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RootInputs {
    leaves: Vec<LeafInputs>,
    keys: u64,
}

/// A root's job done: its leaves' new states, and the states the iteration started from.
#[derive(Debug, Clone, PartialEq)]
pub struct RootDone {
    /// New states, in canonical leaf order.
    pub states: Vec<Conserved>,
    /// The iteration's first states, in the same order (for the next stage).
    pub starts: Vec<Conserved>,
}

/// One stage of the scheme as a processing level's work on one rank (see the module doc).
pub struct StageJobs<'a> {
    scheme: &'a Scheme,
    mesh: &'a FlowMesh,
    stage: Stage,
    dt: f64,
    /// The leaves of each root held here at the start, as a range of the mesh's leaves.
    ranges: IntMap<u32, Range<usize>>,
    /// The iteration's first states of the roots held here at the start (second stage only).
    starts: IntMap<u32, Vec<Conserved>>,
    /// The jobs whose trees arrived.
    arrived: IntMap<u32, RootInputs>,
    /// The jobs done here.
    done: IntMap<u32, RootDone>,
    /// Leaf-face flux evaluations done here.
    evaluations: u64,
}

impl<'a> StageJobs<'a> {
    /// `stage` of the scheme over `dt` on the leaves of `mesh`; `starts` holds the iteration's
    /// first states of the roots held here (from the first stage's [`StageJobs::finish`]) when
    /// `stage` reads them.
    pub fn new(
        scheme: &'a Scheme,
        mesh: &'a FlowMesh,
        (stage, dt): (Stage, f64),
        starts: IntMap<u32, Vec<Conserved>>,
    ) -> Self {
        let mut ranges: IntMap<u32, Range<usize>> = IntMap::default();
        for (i, id) in mesh.halo.adjacency.leaves.iter().enumerate() {
            ranges
                .entry(id.root)
                .and_modify(|r| r.end = i + 1)
                .or_insert(i..i + 1);
        }
        StageJobs {
            scheme,
            mesh,
            stage,
            dt,
            ranges,
            starts,
            arrived: IntMap::default(),
            done: IntMap::default(),
            evaluations: 0,
        }
    }

    /// The jobs done here, by root, and the leaf-face flux evaluations they took.
    pub fn finish(self) -> (IntMap<u32, RootDone>, u64) {
        (self.done, self.evaluations)
    }

    /// Root `r`'s inputs from the mesh (its tree is held here since the start).
    fn inputs(&self, r: u32, range: Range<usize>) -> Result<RootInputs> {
        let mesh = self.mesh;
        let starts = self.root_starts(r, range.len())?;
        let leaves = range
            .clone()
            .zip(starts)
            .map(|(i, start)| LeafInputs {
                geometry: mesh.geometry[i],
                state: mesh.state[i],
                start: start.unwrap_or(mesh.state[i]),
                beyond: std::array::from_fn(|k| match mesh.halo.adjacency.across[i][k] {
                    Across::Boundary { tag } => BeyondInput::Boundary(tag),
                    _ => BeyondInput::Leaf(
                        mesh.neighbour_state(i, k)
                            .expect("the halo resolves every face between leaves"),
                    ),
                }),
            })
            .collect();
        Ok(RootInputs {
            leaves,
            keys: keys_digest(range.map(|i| mesh.keys(i))),
        })
    }

    /// The iteration's first states of root `r`'s `n` leaves when the stage reads them, else
    /// `None` for each.
    fn root_starts(&self, r: u32, n: usize) -> Result<Vec<Option<Conserved>>> {
        if self.stage != Stage::Average {
            return Ok(vec![None; n]);
        }
        match self.starts.get(&r) {
            Some(s) if s.len() == n => Ok(s.iter().copied().map(Some).collect()),
            _ => Err(Error::Invalid(format!(
                "root {r}'s first states of the iteration are not here"
            ))),
        }
    }

    /// Runs the job `inputs` of root `r`.
    fn run(&mut self, r: u32, inputs: &RootInputs) -> Processed {
        let mut states = Vec::with_capacity(inputs.leaves.len());
        let mut starts = Vec::with_capacity(inputs.leaves.len());
        let mut digest = mix64(u64::from(r));
        for leaf in &inputs.leaves {
            let (w, c) = with_speed(&leaf.state);
            // A boundary face's side is never read: the leaf's own stands in.
            let sides = leaf.beyond.map(|b| {
                let u = match b {
                    BeyondInput::Leaf(u) => u,
                    BeyondInput::Boundary(_) => leaf.state,
                };
                let (w, c) = with_speed(&u);
                (u, w, c)
            });
            let beyond = std::array::from_fn(|k| match leaf.beyond[k] {
                BeyondInput::Leaf(_) => {
                    let (u, w, c) = &sides[k];
                    Beyond::Leaf((u, w, *c))
                }
                BeyondInput::Boundary(tag) => Beyond::Boundary(tag),
            });
            let rate = self
                .scheme
                .leaf_rate((&leaf.state, &w, c), &leaf.geometry, beyond);
            let new = self.stage.update(&leaf.state, &leaf.start, &rate, self.dt);
            digest = new
                .iter()
                .fold(digest, |d, x| mix64(d.rotate_left(5) ^ x.to_bits()));
            states.push(new);
            starts.push(leaf.start);
        }
        let leaves = states.len() as u64;
        self.evaluations += 4 * leaves;
        self.done.insert(r, RootDone { states, starts });
        Processed { leaves, digest }
    }
}

impl RootWork for StageJobs<'_> {
    fn process(&mut self, forest: &Forest, r: u32) -> Result<Processed> {
        let inputs = match self.arrived.remove(&r) {
            Some(inputs) => {
                let keys = tree_keys_digest(forest, r);
                if keys != inputs.keys {
                    return Err(Error::Invalid(format!(
                        "root {r}'s tree arrived with its leaves in another order than its job's"
                    )));
                }
                inputs
            }
            None => {
                let range = self.ranges.get(&r).cloned().ok_or_else(|| {
                    Error::Invalid(format!("root {r}'s job is neither here nor arrived"))
                })?;
                self.inputs(r, range)?
            }
        };
        Ok(self.run(r, &inputs))
    }

    fn pack(&mut self, r: u32) -> Result<Vec<u8>> {
        let inputs = match self.arrived.remove(&r) {
            Some(inputs) => inputs,
            None => {
                let range = self.ranges.get(&r).cloned().ok_or_else(|| {
                    Error::Invalid(format!("root {r}'s job is neither here nor arrived"))
                })?;
                self.inputs(r, range)?
            }
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

/// A digest of the vertex keys of root `r`'s leaves in `forest`, in canonical order.
fn tree_keys_digest(forest: &Forest, r: u32) -> u64 {
    let verts = forest.vertices();
    let mut keys = Vec::new();
    forest.for_each_leaf_in(&[r], |leaf| keys.push(leaf.verts.map(|v| verts[v].key)));
    keys_digest(keys.into_iter())
}

/// A digest of leaves' vertex keys, in order.
fn keys_digest(leaves: impl Iterator<Item = [u64; 4]>) -> u64 {
    leaves.fold(0, |d, keys| {
        keys.iter().fold(d, |d, &k| mix64(d.rotate_left(7) ^ k))
    })
}
