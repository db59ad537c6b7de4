//! The initial mesh with what the forest derives from it once: its faces, the vertex →
//! elements adjacency and the root across each face of each root. None of it changes during a
//! run, so clones share one copy. The [`Locator`] over its roots is built on first use and
//! shared the same way.
//!
//! **Global ids.** An initial mesh is the whole input mesh ([`InitialMesh::new`]: a root's
//! global id is its index) or one rank's part of it ([`InitialMesh::part`]: the rank's roots
//! and their ghost layer, numbered locally in ascending global id, with the global ids of its
//! roots and vertices). A vertex's key ([`crate::adapt::Vertices`]) is its global id, so keys
//! do not depend on which part a vertex is in; ranks name roots by global id to each other.

use std::sync::{Arc, OnceLock};

use super::locate::Locator;

use super::tree::NO_ELEM;
use crate::mesh::{Mesh, Topology};
use crate::{Error, Result};

/// The initial mesh and its topology, read-only (see the module doc); a clone is a pointer.
#[derive(Debug, Clone)]
pub struct InitialMesh(Arc<Parts>);

/// What an [`InitialMesh`] shares.
#[derive(Debug)]
struct Parts {
    mesh: Mesh,
    topo: Topology,
    /// Root across each local face of each root (`NO_ELEM` on the boundary).
    face_nbr: Vec<[u32; 4]>,
    /// The R*-tree over the roots, built on first use.
    locator: OnceLock<Locator>,
    /// Global ids of a part's roots and vertices (`None`: the whole mesh, ids are indices).
    ids: Option<GlobalIds>,
}

/// The global ids of a part's roots and vertices, each ascending (local id = rank in it).
#[derive(Debug)]
struct GlobalIds {
    roots: Vec<u32>,
    verts: Vec<u32>,
}

/// Local id of `gid` in the ascending `ids`.
fn local_of(ids: &[u32], gid: u32) -> Option<u32> {
    ids.binary_search(&gid).ok().map(|i| i as u32)
}

impl InitialMesh {
    /// Checks `mesh` and derives its topology.
    ///
    /// # Errors
    /// [`Error::Mesh`](crate::Error) when the mesh has no element, an index out of range or a
    /// face shared by more than two elements.
    pub fn new(mesh: Mesh) -> Result<InitialMesh> {
        InitialMesh::build(mesh, None)
    }

    /// One rank's part of a mesh: `mesh` holds the part's roots and vertices numbered
    /// locally, `roots` and `verts` their global ids (both strictly ascending, so that local
    /// order is global order).
    ///
    /// # Errors
    /// [`InitialMesh::new`]'s (but an empty part is one); [`Error::LengthMismatch`] when there
    /// is not one id per root and per vertex; [`Error::Invalid`] when the ids are not strictly ascending.
    pub fn part(mesh: Mesh, roots: Vec<u32>, verts: Vec<u32>) -> Result<InitialMesh> {
        Error::check_len("part root ids", mesh.nelems(), roots.len())?;
        Error::check_len("part vertex ids", mesh.coords.len(), verts.len())?;
        for (what, ids) in [("root", &roots), ("vertex", &verts)] {
            if !ids.windows(2).all(|w| w[0] < w[1]) {
                return Err(Error::Invalid(format!(
                    "part: the {what} ids are not strictly ascending"
                )));
            }
        }
        InitialMesh::build(mesh, Some(GlobalIds { roots, verts }))
    }

    /// [`InitialMesh::new`] or [`InitialMesh::part`].
    fn build(mesh: Mesh, ids: Option<GlobalIds>) -> Result<InitialMesh> {
        // A rank's part may be empty; the whole mesh may not.
        if mesh.tets.is_empty() && ids.is_none() {
            return Err(Error::mesh("forest", "no tetrahedra"));
        }
        mesh.check_indices("forest")?;
        let topo = Topology::new(&mesh).map_err(|nm| {
            Error::mesh(
                "forest",
                format!("face {:?} is shared by more than two elements", nm.verts),
            )
        })?;
        let face_nbr = face_neighbours(&topo, mesh.nelems());
        Ok(InitialMesh(Arc::new(Parts {
            mesh,
            topo,
            face_nbr,
            locator: OnceLock::new(),
            ids,
        })))
    }

    /// True when `other` is this very mesh (a clone of it), not just an equal one.
    pub fn same(&self, other: &InitialMesh) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// True when this is one rank's part of a mesh ([`InitialMesh::part`]).
    pub fn is_part(&self) -> bool {
        self.0.ids.is_some()
    }

    /// Global id of local root `r`.
    #[inline]
    pub fn root_gid(&self, r: u32) -> u32 {
        self.0.ids.as_ref().map_or(r, |ids| ids.roots[r as usize])
    }

    /// Local id of the root with global id `gid`, if it is in this mesh.
    pub fn local_root(&self, gid: u32) -> Option<u32> {
        match &self.0.ids {
            Some(ids) => local_of(&ids.roots, gid),
            None => ((gid as usize) < self.nroots()).then_some(gid),
        }
    }

    /// Global id of local vertex `v` (its key).
    #[inline]
    pub fn vertex_gid(&self, v: u32) -> u32 {
        self.0.ids.as_ref().map_or(v, |ids| ids.verts[v as usize])
    }

    /// Local id of the vertex with global id `gid`, if it is in this mesh.
    pub fn local_vertex(&self, gid: u32) -> Option<u32> {
        match &self.0.ids {
            Some(ids) => local_of(&ids.verts, gid),
            None => ((gid as usize) < self.0.mesh.coords.len()).then_some(gid),
        }
    }

    /// The mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.0.mesh
    }

    /// Its faces and vertex → elements adjacency.
    pub fn topology(&self) -> &Topology {
        &self.0.topo
    }

    /// Number of roots (elements).
    pub fn nroots(&self) -> usize {
        self.0.mesh.nelems()
    }

    /// The point-location and region-query index over the roots (built on the first call,
    /// then shared by every clone).
    pub fn locator(&self) -> &Locator {
        self.0.locator.get_or_init(|| Locator::new(&self.0.mesh))
    }

    /// The root across each local face of each root (`NO_ELEM` on the boundary).
    pub(crate) fn face_nbr(&self) -> &[[u32; 4]] {
        &self.0.face_nbr
    }
}

/// Root across each local face of each root (`NO_ELEM` on the boundary).
fn face_neighbours(topo: &Topology, nroots: usize) -> Vec<[u32; 4]> {
    let mut nbr = vec![[NO_ELEM; 4]; nroots];
    for f in topo.faces.iter().filter(|f| !f.is_boundary()) {
        nbr[f.elems[0] as usize][f.local[0] as usize] = f.elems[1];
        nbr[f.elems[1] as usize][f.local[1] as usize] = f.elems[0];
    }
    nbr
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::{AdaptOptions, Forest};
    use crate::mesh::generate_box;

    #[test]
    fn forests_on_one_initial_mesh_share_it_and_hold_what_they_are_given() {
        let initial = InitialMesh::new(generate_box([2, 1, 1], [1.0; 3]).unwrap()).unwrap();
        let n = initial.nroots();
        let held: Vec<bool> = (0..n).map(|r| r % 3 == 0).collect();
        let part = Forest::holding(&initial, AdaptOptions::default(), held.clone());
        let mut all = Forest::on(&initial, AdaptOptions::default());
        assert!(std::ptr::eq(part.mesh(), all.mesh()));
        assert!(std::ptr::eq(part.topology(), initial.topology()));
        assert_eq!(part.nleaves(), held.iter().filter(|&&h| h).count());
        assert!((0..n as u32).all(|r| part.holds(r) == held[r as usize]));
        let mut seen = Vec::new();
        part.for_each_leaf(|leaf| seen.push(leaf.id.root));
        assert!(seen.iter().all(|&r| held[r as usize]));
        // Refining one forest leaves the shared mesh, and the other forest, as they were.
        all.mark_refine_where(|_| true);
        all.adapt().unwrap();
        assert_eq!(all.nleaves(), 8 * n);
        assert_eq!(part.nleaves(), seen.len());
        assert_eq!(initial.mesh().nelems(), n);
    }

    #[test]
    fn a_face_held_by_three_elements_is_refused() {
        let coords = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 1.0, 1.0],
            [-1.0, -1.0, -1.0],
        ];
        let tets = vec![[0, 1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 5]];
        let err = InitialMesh::new(Mesh::new(coords, tets)).unwrap_err();
        assert!(err.to_string().contains("more than two elements"), "{err}");
    }
}
