//! Gmsh physical groups of the initial mesh: a tag per element (its volume group) and a tag per
//! boundary face of every root (the group of the boundary triangle lying on it), plus the
//! groups' names. Tag 0 means *untagged*; empty tables mean untagged everywhere (a generated
//! box, a `.vtu` file).
//!
//! Leaf faces inherit the tag of the root face they lie on ([`crate::adapt::LeafAdjacency`]);
//! a solver picks its boundary conditions by group name ([`PhysicalTags::tag_named`]).

use super::topology::Topology;
use crate::{Error, Result};

/// One named physical group (`$PhysicalNames` in a Gmsh file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PhysicalName {
    /// Dimension of the group's entities: 2 for surfaces (boundary triangles), 3 for volumes.
    pub dim: u8,
    /// The group's tag.
    pub tag: u32,
    /// The group's name.
    pub name: String,
}

/// Physical tags of the initial mesh (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhysicalTags {
    /// Physical tag of each element (empty: every element untagged).
    pub volume: Vec<u32>,
    /// Physical tag of each local face of each element: the tag of the boundary triangle
    /// lying on it, 0 for an untagged or interior face (empty: every face untagged).
    pub boundary: Vec<[u32; 4]>,
    /// Named groups, in file order.
    pub names: Vec<PhysicalName>,
}

/// A triangle of a mesh file with the physical tag it carries (vertex indices).
pub type TaggedTriangle = ([u32; 3], u32);

impl PhysicalTags {
    /// Tag of element `e` (0 when untagged).
    pub fn volume_tag(&self, e: usize) -> u32 {
        self.volume.get(e).copied().unwrap_or(0)
    }

    /// Tag of local face `k` of element `e` (0 when untagged or interior).
    pub fn boundary_tag(&self, e: usize, k: usize) -> u32 {
        self.boundary.get(e).map_or(0, |t| t[k])
    }

    /// The tag of the group named `name` of dimension `dim` (2: boundary, 3: volume).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the known groups when no group of that dimension has that name.
    pub fn tag_named(&self, name: &str, dim: u8) -> Result<u32> {
        self.names
            .iter()
            .find(|n| n.dim == dim && n.name == name)
            .map(|n| n.tag)
            .ok_or_else(|| {
                let known: Vec<String> = self
                    .names
                    .iter()
                    .filter(|n| n.dim == dim)
                    .map(|n| format!("'{}' ({})", n.name, n.tag))
                    .collect();
                Error::Invalid(format!(
                    "no physical group of dimension {dim} is named '{name}' (known: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            })
    }

    /// The name of the group of dimension `dim` with tag `tag`, if it has one.
    pub fn name_of(&self, tag: u32, dim: u8) -> Option<&str> {
        self.names
            .iter()
            .find(|n| n.dim == dim && n.tag == tag)
            .map(|n| n.name.as_str())
    }

    /// Per-face boundary tags of the elements `tets` from tagged `triangles`: each triangle
    /// gives its tag to the element face it matches (a triangle on an interior face tags
    /// nothing; the first triangle on a face wins). Empty when no triangle carries a tag.
    ///
    /// # Errors
    /// A message naming the first triangle (0-based, among the tagged ones) that matches no
    /// face of any element.
    pub(crate) fn boundary_from_triangles(
        topo: &Topology,
        ntets: usize,
        triangles: &[TaggedTriangle],
    ) -> std::result::Result<Vec<[u32; 4]>, String> {
        if triangles.iter().all(|t| t.1 == 0) {
            return Ok(Vec::new());
        }
        let mut boundary = vec![[0u32; 4]; ntets];
        for (i, (verts, tag)) in triangles.iter().enumerate() {
            let mut key = *verts;
            key.sort_unstable();
            let face = topo
                .faces
                .binary_search_by(|f| f.verts.cmp(&key))
                .map(|at| topo.faces[at])
                .map_err(|_| {
                    format!(
                        "boundary triangle {i} {verts:?} (physical tag {tag}) is not a face of \
                         any tetrahedron"
                    )
                })?;
            if face.is_boundary() {
                let slot = &mut boundary[face.elems[0] as usize][face.local[0] as usize];
                if *slot == 0 {
                    *slot = *tag;
                }
            }
        }
        Ok(boundary)
    }
}
