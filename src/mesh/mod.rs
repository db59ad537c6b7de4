//! The initial mesh: vertices and positively oriented tetrahedra that never change during a run.
//! Its elements are the *roots* of the refinement forest ([`crate::adapt`]).
//!
//! Vocabulary: `coords[v]` is vertex `v`'s position; `tets[e]` lists element `e`'s four vertices,
//! ordered so that its signed volume is positive; local vertex `i` of an element faces local face
//! `i` (the face made of the other three vertices).

mod apart;
mod box_gen;
pub mod cell;
pub mod chunk;
mod duplicates;
pub mod geometry;
mod info;
mod naming;
pub mod physical;
mod tiling;
pub mod topology;
mod validate;

pub use box_gen::{box_size, check_box, generate_box, generate_box_chunk};
pub use chunk::Chunk;
pub use info::MeshInfo;
pub use physical::{PhysicalName, PhysicalTags};
pub use topology::{Face, Topology};
pub use validate::ValidationReport;

/// A tetrahedral mesh: the input of a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mesh {
    /// Vertex positions.
    pub coords: Vec<[f64; 3]>,
    /// Element vertices, positively oriented.
    pub tets: Vec<[u32; 4]>,
    /// Gmsh physical groups of the elements and of the boundary faces (empty when the source
    /// has none).
    #[serde(default)]
    pub tags: PhysicalTags,
}

impl Mesh {
    /// Validates raw vertices and elements read from `source` (a file path or a generator's name)
    /// and builds a mesh: rejects empty meshes, indices out of range, NaN or infinite
    /// coordinates, zero-volume elements and elements too large for double precision,
    /// elements listed twice, faces shared by more than two elements, cracks (faces lying on
    /// each other through coincident vertices), overlapping elements (two on the same side of
    /// their face, more than one turn around an edge, an element's centroid inside another), a
    /// boundary that is not a closed manifold
    /// surface and tangled meshes (some elements inverted, others not); re-orients a mesh whose
    /// elements are all inverted and reports them (callers print the warning), counts unused and
    /// coincident vertices.
    pub fn from_parts(
        coords: Vec<[f64; 3]>,
        tets: Vec<[u32; 4]>,
        source: &str,
    ) -> crate::Result<(Mesh, ValidationReport)> {
        validate::validate(coords, tets, source)
    }

    /// A mesh of `coords` and `tets` (taken as they are: see [`Mesh::from_parts`] to validate)
    /// without physical groups.
    pub fn new(coords: Vec<[f64; 3]>, tets: Vec<[u32; 4]>) -> Mesh {
        Mesh {
            coords,
            tets,
            tags: PhysicalTags::default(),
        }
    }

    /// Gives the mesh the physical groups read from `source`: a tag per element (`volume`,
    /// empty or one per element), the tagged `triangles` of the file (each tags the boundary
    /// face it lies on) and the groups' `names`.
    ///
    /// # Errors
    /// [`Error::Mesh`](crate::Error::Mesh) when `volume` has neither 0 nor one tag per element,
    /// or a tagged triangle is not a face of any element.
    pub fn set_physical(
        &mut self,
        volume: Vec<u32>,
        triangles: &[physical::TaggedTriangle],
        names: Vec<PhysicalName>,
        source: &str,
    ) -> crate::Result<()> {
        if !volume.is_empty() && volume.len() != self.nelems() {
            return Err(crate::Error::mesh(
                source,
                format!(
                    "{} volume tags for {} elements",
                    volume.len(),
                    self.nelems()
                ),
            ));
        }
        let boundary = if triangles.iter().any(|t| t.1 != 0) {
            let topo = Topology::new(self).map_err(|nm| {
                crate::Error::mesh(source, format!("face {:?} is non-manifold", nm.verts))
            })?;
            PhysicalTags::boundary_from_triangles(&topo, self.nelems(), triangles)
                .map_err(|message| crate::Error::mesh(source, message))?
        } else {
            Vec::new()
        };
        let volume = if volume.iter().all(|&t| t == 0) {
            Vec::new()
        } else {
            volume
        };
        self.tags = PhysicalTags {
            volume,
            boundary,
            names,
        };
        Ok(())
    }

    /// Tags every boundary face with `tag(centre, outward area vector)` (0: untagged), e.g.
    /// the sides of a generated box; keeps the volume tags and names.
    ///
    /// # Errors
    /// [`Error::Mesh`](crate::Error::Mesh) when a face is shared by more than two elements.
    pub fn tag_boundary(&mut self, tag: impl Fn([f64; 3], [f64; 3]) -> u32) -> crate::Result<()> {
        let topo = Topology::new(self).map_err(|nm| {
            crate::Error::mesh("mesh", format!("face {:?} is non-manifold", nm.verts))
        })?;
        let mut boundary = vec![[0u32; 4]; self.nelems()];
        for f in topo.faces.iter().filter(|f| f.is_boundary()) {
            let (e, k) = (f.elems[0] as usize, f.local[0] as usize);
            let p = self.corners(e);
            let centre = topology::FACE_VERTS[k].iter().fold([0.0; 3], |c, &i| {
                std::array::from_fn(|d| c[d] + p[i][d] / 3.0)
            });
            boundary[e][k] = tag(centre, geometry::face_area_vector(&p, k));
        }
        self.tags.boundary = boundary;
        Ok(())
    }

    /// Checks that every element names four distinct existing vertices, what a forest needs
    /// of a mesh built by hand rather than by [`Mesh::from_parts`].
    pub(crate) fn check_indices(&self, source: &str) -> crate::Result<()> {
        for (e, t) in self.tets.iter().enumerate() {
            validate::check_indices(e, t, self.nverts())
                .map_err(|message| crate::Error::mesh(source, message))?;
        }
        Ok(())
    }

    /// Number of elements.
    pub fn nelems(&self) -> usize {
        self.tets.len()
    }

    /// Number of vertices.
    pub fn nverts(&self) -> usize {
        self.coords.len()
    }

    /// The four corner positions of element `e`.
    pub fn corners(&self, e: usize) -> [[f64; 3]; 4] {
        self.tets[e].map(|v| self.coords[v as usize])
    }

    /// Sum of the element volumes.
    pub fn volume(&self) -> f64 {
        (0..self.nelems())
            .map(|e| geometry::volume(&self.corners(e)))
            .sum()
    }
}
