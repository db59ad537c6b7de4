//! The initial mesh in chunks, one per rank (`docs/performance.md`; issue 23 item 3): no rank
//! holds the whole mesh, except rank 0 while it reads and [`spread`]s it.
//!
//! Vocabulary: of N items (roots, or vertices) over P ranks, the **block** of rank k is the
//! items `N·k/P .. N·(k+1)/P` ([`block`]); blocks cover `0..N` in rank order and differ in size
//! by at most one. A [`Chunk`] is the block of roots of one rank with their tetrahedra in
//! *global* vertex ids (indices in the whole mesh) and the coordinates of the vertices they
//! reference. Chunks come from [`spread`] (a mesh rank 0 holds) or
//! [`super::generate_box_chunk`] (each rank generates its own block of a box).
//!
//! The **directory** of the vertices answers which roots share a vertex without any rank
//! holding the whole mesh: vertex v's home is the rank whose block of the vertex ids holds v.
//! [`root_stars`] gives every root of a rank the roots sharing a vertex with it (what a ghost
//! layer is made of), [`fetch_roots`] the tetrahedra and coordinates of any roots from the
//! chunks holding them.

mod directory;
mod spread;

pub use directory::{fetch_roots, root_stars, FetchedRoots, RootStars};
pub use spread::{gather, spread};

use super::geometry::centroid;
use super::PhysicalTags;
use std::ops::Range;

/// The block of rank `k` of `n` items over `p` ranks: `n·k/p .. n·(k+1)/p` (computed without
/// overflow).
///
/// ```
/// use plume::mesh::chunk::block;
/// let blocks: Vec<_> = (0..3).map(|k| block(10, 3, k)).collect();
/// assert_eq!(blocks, [0..3, 3..6, 6..10]);
/// ```
///
/// # Panics
/// If `p` is 0 or `k` is above `p`.
#[track_caller]
pub fn block(n: usize, p: usize, k: usize) -> Range<usize> {
    assert!(p > 0 && k <= p, "block {k} of {p}");
    let at = |k: usize| (n as u128 * k as u128 / p as u128) as usize;
    at(k)..at(k + 1).min(n)
}

/// The rank whose [`block`] of `n` items over `p` ranks holds item `i`.
///
/// ```
/// use plume::mesh::chunk::{block, block_of};
/// assert!((0..10).all(|i| block(10, 3, block_of(10, 3, i)).contains(&i)));
/// ```
///
/// # Panics
/// If `i` is not below `n` or `p` is 0.
#[track_caller]
pub fn block_of(n: usize, p: usize, i: usize) -> usize {
    assert!(i < n && p > 0, "item {i} of {n} over {p} ranks");
    // The largest k with n·k/p <= i, i.e. n·k < (i + 1)·p.
    (((i as u128 + 1) * p as u128 - 1) / n as u128) as usize
}

/// What a chunk answers of one of its roots ([`fetch_roots`]): tetrahedron, corners, volume
/// tag and boundary tags.
type Answer = ([u32; 4], [[f64; 3]; 4], u32, [u32; 4]);

/// Vertices by global id, with their coordinates: `ids` ascending, each once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vertices {
    ids: Vec<u32>,
    coords: Vec<[f64; 3]>,
}

impl Vertices {
    /// The vertices of `pairs` (global id, coordinates), sorted by id, each once (a vertex
    /// listed twice has the same coordinates both times: the first is kept).
    pub(crate) fn from_pairs(mut pairs: Vec<(u32, [f64; 3])>) -> Vertices {
        pairs.sort_unstable_by_key(|&(v, _)| v);
        pairs.dedup_by_key(|&mut (v, _)| v);
        let (ids, coords) = pairs.into_iter().unzip();
        Vertices { ids, coords }
    }

    /// Their global ids, ascending.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Their coordinates, in the order of [`Vertices::ids`].
    pub fn coords(&self) -> &[[f64; 3]] {
        &self.coords
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The coordinates of global vertex `v`, if it is one of these.
    pub fn coord(&self, v: u32) -> Option<[f64; 3]> {
        self.ids.binary_search(&v).ok().map(|i| self.coords[i])
    }

    /// The corners of a tetrahedron given in global vertex ids, if all four are here.
    pub fn corners(&self, tet: [u32; 4]) -> Option<[[f64; 3]; 4]> {
        let [a, b, c, d] = tet.map(|v| self.coord(v));
        Some([a?, b?, c?, d?])
    }
}

/// One rank's block of the roots of a mesh (see the module doc): roots `first..first + len`
/// by global id, their tetrahedra in global vertex ids, the vertices they reference and their
/// physical tags. Every vertex a tetrahedron names is in [`Chunk::vertices`].
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    first: u32,
    tets: Vec<[u32; 4]>,
    vertices: Vertices,
    tags: PhysicalTags,
    mesh_roots: usize,
    mesh_verts: usize,
}

impl Chunk {
    /// A chunk of these parts, which the caller makes consistent (see the fields' accessors).
    pub(crate) fn from_parts(
        first: u32,
        tets: Vec<[u32; 4]>,
        vertices: Vertices,
        tags: PhysicalTags,
        (mesh_roots, mesh_verts): (usize, usize),
    ) -> Chunk {
        Chunk {
            first,
            tets,
            vertices,
            tags,
            mesh_roots,
            mesh_verts,
        }
    }

    /// The global id of its first root.
    pub fn first(&self) -> u32 {
        self.first
    }

    /// The global ids of its roots, `first..first + len`.
    pub fn roots(&self) -> Range<u32> {
        self.first..self.first + self.tets.len() as u32
    }

    /// Number of roots it holds.
    pub fn len(&self) -> usize {
        self.tets.len()
    }

    /// Whether it holds no roots (never, for a chunk of [`spread`] or
    /// [`super::generate_box_chunk`]: they refuse more ranks than roots).
    pub fn is_empty(&self) -> bool {
        self.tets.is_empty()
    }

    /// The vertices of each root, in global vertex ids, positively oriented: `tets()[i]` is
    /// root `first + i`'s.
    pub fn tets(&self) -> &[[u32; 4]] {
        &self.tets
    }

    /// The vertices its roots reference, with their coordinates.
    pub fn vertices(&self) -> &Vertices {
        &self.vertices
    }

    /// The physical tags of its roots: `volume` and `boundary` indexed like [`Chunk::tets`]
    /// (each empty when the mesh has none), and the names of the whole mesh's groups.
    pub fn tags(&self) -> &PhysicalTags {
        &self.tags
    }

    /// Number of roots of the whole mesh.
    pub fn mesh_roots(&self) -> usize {
        self.mesh_roots
    }

    /// Number of vertices of the whole mesh.
    pub fn mesh_verts(&self) -> usize {
        self.mesh_verts
    }

    /// The four corner positions of its `i`-th root (root `first + i`).
    ///
    /// # Panics
    /// If `i` is not below [`Chunk::len`].
    #[track_caller]
    pub fn corners(&self, i: usize) -> [[f64; 3]; 4] {
        self.vertices
            .corners(self.tets[i])
            .expect("a chunk holds the vertices of its roots")
    }

    /// What [`fetch_roots`] answers of its `i`-th root: tetrahedron, corners, volume tag and
    /// boundary tags.
    fn answer(&self, i: usize) -> Answer {
        let tags = &self.tags;
        let boundary = std::array::from_fn(|k| tags.boundary_tag(i, k));
        (self.tets[i], self.corners(i), tags.volume_tag(i), boundary)
    }

    /// The centroid of each of its roots, equal bit for bit to the whole mesh's
    /// [`crate::graph::root_centroids`] at the same roots: the input of
    /// [`crate::partition::sfc_first_owners`].
    pub fn centroids(&self) -> Vec<[f64; 3]> {
        (0..self.len())
            .map(|i| centroid(&self.corners(i)))
            .collect()
    }
}
