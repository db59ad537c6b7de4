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
use plume::mesh::geometry::{self, cross, dot, sub};
use plume::mesh::topology::{sort3_by_key, FACE_VERTS};
use plume::metrics::Phase;

use std::sync::OnceLock;

use super::gas::{Conserved, NVARS};
use super::lsq::LeastSquares;

/// One face of a leaf in the canonical orientation (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FaceGeometry {
    /// Unit normal in the canonical orientation.
    pub normal: [f64; 3],
    /// Area.
    pub area: f64,
    /// True when `normal` points out of this leaf: the leaf is the face's left side.
    pub outward: bool,
}

impl FaceGeometry {
    /// The unit normal pointing out of this leaf.
    pub fn outward_normal(&self) -> [f64; 3] {
        if self.outward {
            self.normal
        } else {
            self.normal.map(|x| -x)
        }
    }
}

/// A leaf's volume, centroid and faces (local face `k` opposite local vertex `k`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LeafGeometry {
    /// Volume.
    pub volume: f64,
    /// The centroid ([`centroid`]).
    pub centroid: [f64; 3],
    /// The four faces.
    pub faces: [FaceGeometry; 4],
    /// From the centroid to each face's centroid: where the scheme reconstructs the state.
    pub to_faces: [[f64; 3]; 4],
}

/// The centroid of a tetrahedron's corners, summed in the order given: a leaf and its ghost
/// on another rank list their corners alike, so they get the same bits.
pub fn centroid(corners: &[[f64; 3]; 4]) -> [f64; 3] {
    std::array::from_fn(|d| 0.25 * (corners[0][d] + corners[1][d] + corners[2][d] + corners[3][d]))
}

impl LeafGeometry {
    /// The geometry of the tetrahedron with corners `corners` and vertex keys `keys`.
    pub fn new(corners: &[[f64; 3]; 4], keys: &[u64; 4]) -> LeafGeometry {
        let faces = std::array::from_fn(|k| {
            let fv = sort3_by_key(FACE_VERTS[k], |j| keys[j]);
            let [a, b, c] = fv.map(|j| corners[j]);
            let n = cross(sub(b, a), sub(c, a));
            let twice_area = dot(n, n).sqrt();
            FaceGeometry {
                normal: n.map(|x| x / twice_area),
                area: 0.5 * twice_area,
                // The vertex opposite the face lies behind an outward normal.
                outward: dot(n, sub(corners[k], a)) < 0.0,
            }
        });
        let centre = centroid(corners);
        let to_faces = std::array::from_fn(|k| {
            let [a, b, c] = FACE_VERTS[k].map(|j| corners[j]);
            std::array::from_fn(|d| (a[d] + b[d] + c[d]) / 3.0 - centre[d])
        });
        LeafGeometry {
            volume: geometry::volume(corners).abs(),
            centroid: centre,
            faces,
            to_faces,
        }
    }

    /// The sum of the faces' areas.
    pub fn surface(&self) -> f64 {
        self.faces.iter().map(|f| f.area).sum()
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_faces_of_a_leaf_close_and_their_orientation_does_not_depend_on_vertex_order() {
        let corners = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let keys = [7, 3, 9, 1];
        let g = LeafGeometry::new(&corners, &keys);
        assert!((g.volume - 1.0 / 6.0).abs() < 1e-15);
        let closed = (0..3).map(|d| {
            g.faces
                .iter()
                .map(|f| f.area * f.outward_normal()[d])
                .sum::<f64>()
        });
        assert!(closed.into_iter().all(|s| s.abs() < 1e-15));
        // The same tetrahedron with its vertices listed in another order: each face has the
        // same canonical normal (bit for bit) and the same side.
        let perm = [2, 0, 3, 1];
        let h = LeafGeometry::new(&perm.map(|j| corners[j]), &perm.map(|j| keys[j]));
        for (k, &j) in perm.iter().enumerate() {
            assert_eq!(h.faces[k], g.faces[j]);
        }
    }
}
