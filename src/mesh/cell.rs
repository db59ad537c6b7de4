//! The finite-volume geometry of a leaf (or a ghost): its volume, centroid, and its faces'
//! unit normals and areas in a *canonical orientation*. A face's normal is computed from its
//! three vertices sorted by vertex key (`(p1 − p0) × (p2 − p0)`); vertex keys name a vertex
//! the same way on every rank and positions are the same bits on every rank, so the two
//! leaves of a face, on one rank or two, compute the same normal bit for bit, and the leaf
//! it points out of is the face's *left* side. [`Run::leaf_geometry`] and
//! [`GhostLeaf::geometry`] give it for the leaves held here and the halo's ghosts.
//!
//! [`Run::leaf_geometry`]: crate::dist::Run::leaf_geometry
//! [`GhostLeaf::geometry`]: crate::dist::GhostLeaf::geometry

use super::geometry::{self, centroid, cross, dot, sub};
use super::topology::{sort3_by_key, FACE_VERTS};

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
    /// The centroid ([`centroid`], of the corners in the order given: a leaf and its ghost on
    /// another rank list their corners alike, so they get the same bits).
    pub centroid: [f64; 3],
    /// The four faces.
    pub faces: [FaceGeometry; 4],
    /// From the centroid to each face's centroid: where the scheme reconstructs the state.
    pub to_faces: [[f64; 3]; 4],
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
