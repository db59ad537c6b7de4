//! Second order in space: the state on each face of each leaf, reconstructed linearly from the
//! leaf's limited gradient ([`super::gradient`], [`super::limiter`]) at the face's centroid,
//! `W_f = W + φ ∇W·r_f` in primitive variables. A face whose reconstructed density or
//! pressure is not positive takes the leaf's own state (first order on that face), counted.
//!
//! The rank holding a leaf reconstructs its faces; ghosts' face states come from their owners
//! ([`plume::dist::Run::exchange_halo`]), so both sides of every face, on one rank or two,
//! use the same bits and the flux through it is the same from both sides: conservation and
//! the independence from P hold as at first order. Face states are rebuilt at every stage from
//! the current states and the current flow mesh: nothing survives an adaptation step.

use plume::adapt::Across;
use plume::comm::Comm;
use plume::dist::Run;

use super::boundary::Boundaries;
use super::flux::{Beyond, FaceSide};
use super::gas::{Conserved, Gas, Primitive, NVARS};
use super::gradient::{mesh_primitives, neighbour_values, primitive_array, primitive_of_array};
use super::limiter::{changes, Limiter, Range};
use super::lsq::LeastSquares;
use super::mesh::{FlowMesh, LeafGeometry};
use crate::error::Result;

/// A state on a face as the fluxes read it: its primitive variables and speed of sound (its
/// conserved variables are computed from them where a flux needs them, [`FaceSide`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceState {
    /// Primitive variables.
    pub w: Primitive,
    /// Speed of sound.
    pub c: f64,
}

impl FaceState {
    /// The face state of primitive variables `w` (`[ρ, u, v, w, p]`) in `gas`: the same bits
    /// wherever it is made from them.
    #[inline]
    pub fn of_primitive(w: &[f64; NVARS], gas: Gas) -> FaceState {
        let w = primitive_of_array(w);
        FaceState {
            c: w.sound_speed(gas),
            w,
        }
    }
}

impl FaceSide for &FaceState {
    #[inline(always)]
    fn primitive(&self) -> &Primitive {
        &self.w
    }
    #[inline(always)]
    fn sound_speed(&self) -> f64 {
        self.c
    }
    #[inline(always)]
    fn conserved(&self, gas: Gas) -> Conserved {
        self.w.conserved(gas)
    }
}

/// The face states of a flow mesh's leaves and ghosts (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct FaceStates {
    /// Per leaf, its four faces' states, in local face order.
    pub leaves: Vec<[FaceState; 4]>,
    /// Per ghost, likewise.
    pub ghosts: Vec<[FaceState; 4]>,
    /// Faces of leaves held here that fell back to first order.
    pub fallbacks: u64,
}

/// How a leaf's faces are reconstructed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reconstruction<'a> {
    /// The limiter.
    pub limiter: Limiter,
    /// Venkatakrishnan's constant.
    pub venkat_k: f64,
    /// What stands beyond boundary faces.
    pub boundaries: &'a Boundaries,
    /// The gas.
    pub gas: Gas,
}

impl Reconstruction<'_> {
    /// The face states of `mesh`'s leaves, with the ghosts' from their owners (a collective).
    ///
    /// # Errors
    /// The exchange's errors.
    pub fn face_states<C: Comm + ?Sized>(
        &self,
        run: &Run<C>,
        mesh: &FlowMesh,
    ) -> Result<FaceStates> {
        let (leaves, fallbacks) = self.leaf_faces(mesh);
        let faces_of = |i: usize, out: &mut Vec<f64>| {
            out.extend(leaves[i].iter().flat_map(|f| primitive_array(&f.w)));
        };
        let ghosts = run
            .exchange_halo(&mesh.halo, 4 * NVARS, faces_of)?
            .chunks_exact(4 * NVARS)
            .map(|g| {
                std::array::from_fn(|k| {
                    FaceState::of_primitive(&std::array::from_fn(|v| g[k * NVARS + v]), self.gas)
                })
            })
            .collect();
        Ok(FaceStates {
            leaves,
            ghosts,
            fallbacks,
        })
    }

    /// The face states of the leaves of `mesh` and the number of faces that fell back to first
    /// order.
    pub fn leaf_faces(&self, mesh: &FlowMesh) -> (Vec<[FaceState; 4]>, u64) {
        let (leaves, ghosts) = mesh_primitives(mesh, self.gas);
        let mut fallbacks = 0;
        let faces = mesh
            .least_squares()
            .iter()
            .zip(&mesh.geometry)
            .enumerate()
            .map(|(i, (lsq, geometry))| {
                let beyond = neighbour_values(mesh, self.boundaries, (&leaves, &ghosts), i);
                let (values, fell) = self.leaf_values(&leaves[i], &beyond, lsq, geometry);
                fallbacks += fell;
                face_states(values, self.gas)
            })
            .collect();
        (faces, fallbacks)
    }

    /// The primitive variables on the four faces of a leaf of primitive variables `w`, the
    /// values beyond its faces being `beyond`, its least-squares operator `lsq`; and how many
    /// of its faces fell back to first order.
    #[inline]
    fn leaf_values(
        &self,
        w: &[f64; NVARS],
        beyond: &[[f64; NVARS]; 4],
        lsq: &LeastSquares,
        geometry: &LeafGeometry,
    ) -> ([[f64; NVARS]; 4], u64) {
        let mut deltas = [[0.0; NVARS]; 4];
        for (d, b) in deltas.iter_mut().zip(beyond) {
            for v in 0..NVARS {
                d[v] = b[v] - w[v];
            }
        }
        let grad = lsq.gradient(&deltas);
        let range = Range::of(beyond.iter().chain([w]));
        let changes = changes(&grad, &geometry.to_faces);
        let phi = self
            .limiter
            .factors((w, &changes), (&range, geometry.volume, self.venkat_k));
        let mut faces = [*w; 4];
        let mut fell = 0;
        for (f, face) in faces.iter_mut().enumerate() {
            for v in 0..NVARS {
                face[v] += phi[v] * changes[v][f];
            }
            if !(face[0] > 0.0 && face[4] > 0.0) {
                fell += 1;
                *face = *w;
            }
        }
        (faces, fell)
    }
}

/// The face states in `gas` of four faces' primitive variables, written out so the four
/// are computed side by side.
#[inline(always)]
fn face_states([a, b, c, d]: [[f64; NVARS]; 4], gas: Gas) -> [FaceState; 4] {
    [
        FaceState::of_primitive(&a, gas),
        FaceState::of_primitive(&b, gas),
        FaceState::of_primitive(&c, gas),
        FaceState::of_primitive(&d, gas),
    ]
}

impl FaceStates {
    /// What lies across a face of a leaf (`across`: the face's neighbour in the halo's
    /// adjacency): the neighbour's face state on the same triangle, or the boundary.
    #[inline(always)]
    pub fn across(&self, across: Across) -> Beyond<&FaceState> {
        match across {
            Across::Leaf { leaf, face } => Beyond::Leaf(&self.leaves[leaf as usize][face as usize]),
            Across::Ghost { ghost, face } => {
                Beyond::Leaf(&self.ghosts[ghost as usize][face as usize])
            }
            Across::Boundary { tag } => Beyond::Boundary(tag),
            Across::Remote { .. } => unreachable!("the halo resolves every face between leaves"),
        }
    }

    /// The state beyond face `k` of leaf `i` of `mesh`: its neighbour's face state on the
    /// same triangle (`None` on the boundary).
    pub fn beyond(&self, mesh: &FlowMesh, i: usize, k: usize) -> Option<&FaceState> {
        match self.across(mesh.halo.adjacency.across[i][k]) {
            Beyond::Leaf(face) => Some(face),
            Beyond::Boundary(_) => None,
        }
    }
}
