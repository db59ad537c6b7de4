//! The finite-volume view of one rank's leaves between two adaptation steps: their volumes,
//! their faces' normals and areas in a canonical orientation, their states, and the halo of
//! the other ranks' leaves around them ([`plume::dist::Run::halo`]).
//!
//! *Canonical orientation*: a face's normal is computed from its three vertices sorted by
//! vertex key (`(p1 − p0) × (p2 − p0)`), which name a vertex the same way on every rank, and
//! vertex positions are the same on every rank; so the two leaves of a face, on one rank or
//! two, compute the same normal bit for bit, and the leaf it points out of is the face's
//! *left* side. Both sides then evaluate the flux `F(left, right, n)` on the same operands and
//! get the same bits, and a leaf sums its four faces in local face order: the update of a leaf
//! does not depend on P, on the backend or on which rank holds its neighbours.

use crate::error::{Error, Result};
use plume::adapt::{Across, LeafId};
use plume::comm::Comm;
use plume::dist::{Halo, Run};
pub use plume::mesh::cell::{FaceGeometry, LeafGeometry};
pub use plume::mesh::geometry::centroid;
use plume::mesh::geometry::dot;
use plume::metrics::Phase;

use std::sync::OnceLock;

use super::gas::{Conserved, NVARS};
use super::lsq::LeastSquares;

/// One rank's leaves as the scheme sees them (see the module doc); rebuilt after every
/// adaptation step.
#[derive(Debug, Clone)]
pub struct FlowMesh {
    /// Adjacency and ghosts.
    pub halo: Halo,
    /// Per leaf (adjacency order), its geometry.
    pub geometry: Vec<LeafGeometry>,
    /// Per leaf, its conserved state (kept in step with the forest's leaf data).
    pub state: Vec<Conserved>,
    /// Per leaf, its depth below its root.
    pub level: Vec<u8>,
    /// The global id of each root of the part the mesh was built on (by local id, ascending):
    /// the roots of `halo.adjacency.root_offsets`.
    pub root_gids: Vec<u32>,
    /// Per ghost, its centroid ([`centroid`] of the corners the halo carries).
    pub ghost_centroids: Vec<[f64; 3]>,
    /// Per leaf, what its geometry was computed from, to reuse it in the next build.
    shapes: Vec<Shape>,
    /// Per leaf, its least-squares operator, once asked for.
    least_squares: OnceLock<Vec<LeastSquares>>,
}

/// The corners and vertex keys of a leaf: all [`LeafGeometry::new`] reads.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shape {
    corners: [[f64; 3]; 4],
    keys: [u64; 4],
}

impl Shape {
    /// True when `self` and `other` hold the same bits (so give the same geometry).
    fn same_bits(&self, other: &Shape) -> bool {
        let bits = |s: &Shape| s.corners.map(|c| c.map(f64::to_bits));
        self.keys == other.keys && bits(self) == bits(other)
    }
}

impl FlowMesh {
    /// The flow mesh of the leaves `run` holds, their states read from the forest (a
    /// collective: builds the halo).
    ///
    /// # Errors
    /// [`Error::Input`] when the run does not carry [`NVARS`] fields; the halo's errors.
    pub fn build<C: Comm + ?Sized>(run: &Run<C>) -> Result<FlowMesh> {
        Self::with_halo(run, run.halo()?, None)
    }

    /// As [`FlowMesh::build`] after an adaptation step or after trees moved between ranks,
    /// `self` being the mesh before: the same mesh, reusing the adjacency of the trees held
    /// here before and after, unchanged ([`Run::halo_after_step`]), and the geometry of the
    /// leaves with the same corners and keys (a collective).
    ///
    /// # Errors
    /// As [`FlowMesh::build`].
    pub fn rebuild<C: Comm + ?Sized>(&self, run: &Run<C>) -> Result<FlowMesh> {
        Self::with_halo(run, run.halo_after_step(&self.halo)?, Some(self))
    }

    /// The flow mesh of the leaves `run` holds around `halo`, taking each leaf's geometry from
    /// `previous` when it held the same leaf with the same shape.
    fn with_halo<C: Comm + ?Sized>(
        run: &Run<C>,
        halo: Halo,
        previous: Option<&FlowMesh>,
    ) -> Result<FlowMesh> {
        let forest = run.forest();
        let nfields = forest.options().nfields;
        if nfields != NVARS {
            return Err(Error::Input(format!(
                "the flow needs {NVARS} fields per leaf, the run has {nfields}"
            )));
        }
        let n = halo.adjacency.nleaves();
        let mut mesh = FlowMesh {
            geometry: Vec::with_capacity(n),
            state: Vec::with_capacity(n),
            level: Vec::with_capacity(n),
            root_gids: (0..forest.initial().nroots() as u32)
                .map(|r| forest.initial().root_gid(r))
                .collect(),
            ghost_centroids: halo.ghosts.iter().map(|g| centroid(&g.corners)).collect(),
            shapes: Vec::with_capacity(n),
            least_squares: OnceLock::new(),
            halo,
        };
        let verts = forest.vertices();
        forest.for_each_leaf(|leaf| {
            let shape = Shape {
                corners: leaf.corners,
                keys: leaf.verts.map(|v| verts[v].key),
            };
            let geometry = previous
                .and_then(|p| p.geometry_of(leaf.id, &shape))
                .unwrap_or_else(|| LeafGeometry::new(&shape.corners, &shape.keys));
            mesh.geometry.push(geometry);
            mesh.shapes.push(shape);
            mesh.state.push(std::array::from_fn(|k| leaf.data[k]));
            mesh.level.push(leaf.level);
        });
        Ok(mesh)
    }

    /// The geometry of leaf `id` when this mesh holds it with the shape `shape`.
    fn geometry_of(&self, id: LeafId, shape: &Shape) -> Option<LeafGeometry> {
        let i = self.halo.adjacency.index_of(id)? as usize;
        self.shapes[i].same_bits(shape).then_some(self.geometry[i])
    }

    /// Where each neighbour of leaf `i` lies, from its centroid: a leaf's or a ghost's
    /// centroid, or across a boundary face the leaf's mirror image through the face.
    pub fn neighbour_offsets(&self, i: usize) -> [[f64; 3]; 4] {
        let g = &self.geometry[i];
        let from = |x: [f64; 3]| std::array::from_fn(|d| x[d] - g.centroid[d]);
        std::array::from_fn(|k| match self.halo.adjacency.across[i][k] {
            Across::Leaf { leaf, .. } => from(self.geometry[leaf as usize].centroid),
            Across::Ghost { ghost, .. } => from(self.ghost_centroids[ghost as usize]),
            Across::Remote { .. } => unreachable!("the halo resolves every face between leaves"),
            Across::Boundary { .. } => {
                let n = g.faces[k].outward_normal();
                let along = 2.0 * dot(g.to_faces[k], n);
                n.map(|x| along * x)
            }
        })
    }

    /// The least-squares operator of each leaf ([`LeastSquares`]), built on first use.
    pub fn least_squares(&self) -> &[LeastSquares] {
        self.least_squares.get_or_init(|| {
            (0..self.nleaves())
                .map(|i| LeastSquares::new(&self.neighbour_offsets(i)))
                .collect()
        })
    }

    /// The vertex keys of leaf `i`'s corners.
    pub fn keys(&self, i: usize) -> [u64; 4] {
        self.shapes[i].keys
    }

    /// Number of leaves held here.
    pub fn nleaves(&self) -> usize {
        self.state.len()
    }

    /// The state of ghost `g`.
    pub fn ghost_state(&self, g: u32) -> Conserved {
        let at = g as usize * NVARS;
        std::array::from_fn(|k| self.halo.ghost_data[at + k])
    }

    /// The state across face `k` of leaf `i`, when a leaf lies there.
    pub fn neighbour_state(&self, i: usize, k: usize) -> Option<Conserved> {
        match self.halo.adjacency.across[i][k] {
            Across::Leaf { leaf, .. } => Some(self.state[leaf as usize]),
            Across::Ghost { ghost, .. } => Some(self.ghost_state(ghost)),
            Across::Boundary { .. } | Across::Remote { .. } => None,
        }
    }

    /// Writes the states into the forest and exchanges the ghosts' (a collective), the
    /// exchange accounted as [`Phase::Halo`] ([`Run::account`]).
    ///
    /// # Errors
    /// The halo's errors.
    pub fn publish<C: Comm + ?Sized>(&mut self, run: &mut Run<C>) -> Result<()> {
        for (id, u) in self.halo.adjacency.leaves.iter().zip(&self.state) {
            run.leaf_data_mut(*id)?.copy_from_slice(u);
        }
        run.account(Phase::Halo);
        Ok(run.refresh_halo(&mut self.halo)?)
    }
}
