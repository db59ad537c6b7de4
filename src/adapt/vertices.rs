//! Vertices of the forest: the initial mesh's vertices, then the midpoints created by
//! bisection.
//!
//! **Identity.** Every vertex has a 64-bit *key* that does not depend on which element, thread
//! or rank created it: an initial vertex's key is its index; a midpoint's key is a hash of the
//! unordered pair of its endpoints' keys, with the top bit set so it never equals an initial
//! index. The local `u32` id of a vertex is only a slot number in this store; inside one store
//! a midpoint is found through its edge (exactly), so keys serve as identity only where trees
//! cross ranks. That is where collisions are guarded against: [`Vertices::check_keys`] (called
//! when trees are unpacked, and by the structural check) fails if two live vertices share a
//! key.
//!
//! **Support.** `support[v]` lists the initial vertices whose convex hull is the smallest face
//! of a root holding `v` (one vertex, a root edge, a root face or a root's interior). The
//! closure uses it to find which trees share a newly bisected edge.

use crate::hash::{mix64, IntMap};
use crate::{Error, Result};

/// Sentinel for "no vertex" in `u32` slots.
pub const NO_VERTEX: u32 = u32::MAX;

/// Support of a vertex: initial vertex ids, ascending, padded with [`NO_VERTEX`].
pub type Support = [u32; 4];

/// One vertex: everything the engine reads about it together, in one cache line.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub struct Vertex {
    /// Position.
    pub pos: [f64; 3],
    /// Rank-independent key.
    pub key: u64,
    /// Initial vertices spanning the smallest root face that holds the vertex.
    pub support: Support,
    /// Endpoints of the bisected edge a midpoint was created on (`NO_VERTEX` for initial
    /// vertices and free slots).
    pub parents: [u32; 2],
    /// Set once an edge from the vertex has been bisected: a leaf whose edge midpoints are all
    /// unset cannot have bisected edges among its future children's.
    pub on_bisected: bool,
}

/// The vertex store (see the module doc), indexed by vertex id: `verts[v].pos`.
#[derive(Debug, Clone)]
pub struct Vertices {
    data: Vec<Vertex>,
    free: Vec<u32>,
    ninitial: usize,
}

impl std::ops::Index<u32> for Vertices {
    type Output = Vertex;
    #[inline]
    fn index(&self, v: u32) -> &Vertex {
        &self.data[v as usize]
    }
}

impl std::ops::IndexMut<u32> for Vertices {
    #[inline]
    fn index_mut(&mut self, v: u32) -> &mut Vertex {
        &mut self.data[v as usize]
    }
}

/// The bit set in every midpoint's key and in no initial vertex's.
pub const MIDPOINT_BIT: u64 = 1 << 63;

/// Key of the midpoint of the edge between vertices with keys `a` and `b`.
pub(crate) fn midpoint_key(a: u64, b: u64) -> u64 {
    let (lo, hi) = (a.min(b), a.max(b));
    mix64(mix64(lo) ^ hi.rotate_left(17)) | MIDPOINT_BIT
}

impl Vertices {
    /// The store holding the initial vertices (their keys are their indices).
    #[cfg(test)]
    pub(crate) fn new(coords: &[[f64; 3]]) -> Vertices {
        Vertices::with_keys(coords, u64::from)
    }

    /// The store holding the initial vertices `coords`, vertex `v` with key `key(v)` (its
    /// global id: below [`MIDPOINT_BIT`]).
    pub(crate) fn with_keys(coords: &[[f64; 3]], key: impl Fn(u32) -> u64) -> Vertices {
        let data = coords
            .iter()
            .enumerate()
            .map(|(v, &pos)| Vertex {
                pos,
                key: key(v as u32),
                support: [v as u32, NO_VERTEX, NO_VERTEX, NO_VERTEX],
                parents: [NO_VERTEX; 2],
                on_bisected: false,
            })
            .collect();
        Vertices {
            data,
            free: Vec::new(),
            ninitial: coords.len(),
        }
    }

    /// Number of initial vertices.
    pub fn ninitial(&self) -> usize {
        self.ninitial
    }

    /// Number of live vertices.
    pub fn nlive(&self) -> usize {
        self.data.len() - self.free.len()
    }

    /// Number of vertex slots (live or free): ids are below this.
    pub fn nslots(&self) -> usize {
        self.data.len()
    }

    /// Every slot, live or free (a free slot has `parents == [NO_VERTEX; 2]` and is not
    /// initial).
    pub fn slots(&self) -> &[Vertex] {
        &self.data
    }

    /// True when slot `v` holds a vertex.
    pub fn is_live(&self, v: u32) -> bool {
        (v as usize) < self.ninitial || self.data[v as usize].parents[0] != NO_VERTEX
    }

    /// Reserves room for `n` more vertices.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.data.reserve(n.saturating_sub(self.free.len()));
    }

    /// Creates the midpoint of `(a, b)` (the caller knows the edge is not bisected yet); fails
    /// when vertex ids, 32-bit, run out.
    pub(crate) fn create_midpoint(&mut self, a: u32, b: u32) -> Result<u32> {
        let (va, vb) = (&self[a], &self[b]);
        let vertex = Vertex {
            pos: crate::mesh::geometry::midpoint(va.pos, vb.pos),
            key: midpoint_key(va.key, vb.key),
            support: union(&va.support, &vb.support),
            parents: [a, b],
            on_bisected: false,
        };
        match self.free.pop() {
            Some(id) => {
                self[id] = vertex;
                // Free slots are scattered: the next midpoint's starts loading now.
                if let Some(&next) = self.free.last() {
                    super::prefetch(&self[next]);
                }
                Ok(id)
            }
            None if self.data.len() >= NO_VERTEX as usize => Err(Error::Invalid(format!(
                "the mesh needs more than {NO_VERTEX} vertices (32-bit vertex ids)"
            ))),
            None => {
                self.data.push(vertex);
                Ok((self.data.len() - 1) as u32)
            }
        }
    }

    /// This store on another part of the mesh, whose store of initial vertices is `fresh`:
    /// initial vertex `v` here is `initial[v]` there ([`NO_VERTEX`]: not there, its flag
    /// `on_bisected` carried over otherwise). The live midpoints whose support lies there
    /// follow, in slot order, their parents and supports renumbered; the others are dropped.
    /// Returns the store and each slot's id in it (`NO_VERTEX`: dropped or free).
    pub(crate) fn renumbered(&self, mut fresh: Vertices, initial: &[u32]) -> (Vertices, Vec<u32>) {
        let mut map = Vec::with_capacity(self.nslots());
        map.extend_from_slice(&initial[..self.ninitial]);
        for (v, &to) in map.iter().enumerate() {
            if to != NO_VERTEX {
                fresh[to].on_bisected = self.data[v].on_bisected;
            }
        }
        let mut next = fresh.data.len() as u32;
        let renumber = |s: &Support| {
            s.map(|u| {
                if u == NO_VERTEX {
                    u
                } else {
                    initial[u as usize]
                }
            })
        };
        for v in self.ninitial as u32..self.nslots() as u32 {
            let support = &self[v].support[..support_len(&self[v].support)];
            let inside =
                self.is_live(v) && support.iter().all(|&u| initial[u as usize] != NO_VERTEX);
            map.push(if inside {
                next += 1;
                next - 1
            } else {
                NO_VERTEX
            });
        }
        fresh.data.reserve(next as usize - fresh.data.len());
        for v in self.ninitial..self.nslots() {
            if map[v] == NO_VERTEX {
                continue;
            }
            let mut vertex = self.data[v];
            // A support is ascending and the renumbering keeps the order of initial vertices.
            vertex.support = renumber(&vertex.support);
            vertex.parents = vertex.parents.map(|p| map[p as usize]);
            fresh.data.push(vertex);
        }
        (fresh, map)
    }

    /// Fails if two live vertices share a key (a hash collision between midpoints of
    /// different edges): the guard for every place where keys identify vertices.
    pub fn check_keys(&self) -> Result<()> {
        let mut seen: IntMap<u64, u32> = IntMap::default();
        seen.reserve(self.nlive());
        for v in (0..self.nslots() as u32).filter(|&v| self.is_live(v)) {
            if let Some(other) = seen.insert(self[v].key, v) {
                return Err(Error::Inconsistent {
                    check: "vertex keys",
                    message: format!(
                        "vertices {other} and {v} share key {:#x} (a hash collision)",
                        self[v].key
                    ),
                });
            }
        }
        Ok(())
    }

    /// Frees a midpoint whose edge is no longer bisected.
    #[track_caller]
    pub(crate) fn free_midpoint(&mut self, v: u32) {
        debug_assert!(
            v as usize >= self.ninitial,
            "initial vertices are never freed"
        );
        self[v].parents = [NO_VERTEX; 2];
        self.free.push(v);
    }
}

/// Union of two supports (each at most 4 ids, and together at most 4: both vertices lie in one
/// closed root).
#[track_caller]
pub fn union(a: &Support, b: &Support) -> Support {
    let mut out = [NO_VERTEX; 4];
    let mut n = 0;
    let (mut i, mut j) = (0, 0);
    while (i < 4 && a[i] != NO_VERTEX) || (j < 4 && b[j] != NO_VERTEX) {
        let x = if i < 4 { a[i] } else { NO_VERTEX };
        let y = if j < 4 { b[j] } else { NO_VERTEX };
        let v = x.min(y);
        if x == v {
            i += 1;
        }
        if y == v {
            j += 1;
        }
        assert!(n < 4, "support of a midpoint spans more than one root");
        out[n] = v;
        n += 1;
    }
    out
}

/// Number of initial vertices in a support.
pub fn support_len(s: &Support) -> usize {
    s.iter().take_while(|&&v| v != NO_VERTEX).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoint_key_is_symmetric_and_never_initial() {
        assert_eq!(midpoint_key(3, 9), midpoint_key(9, 3));
        assert_ne!(midpoint_key(3, 9), midpoint_key(3, 10));
        assert!(midpoint_key(0, 1) >= 1 << 63);
    }

    #[test]
    fn supports_merge() {
        let n = NO_VERTEX;
        assert_eq!(union(&[2, n, n, n], &[5, n, n, n]), [2, 5, n, n]);
        assert_eq!(union(&[2, 5, n, n], &[5, 7, n, n]), [2, 5, 7, n]);
        assert_eq!(union(&[1, 2, 3, n], &[0, 3, n, n]), [0, 1, 2, 3]);
    }

    #[test]
    fn identity_does_not_depend_on_creation_order() {
        let coords = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let mut a = Vertices::new(&coords);
        let mut b = Vertices::new(&coords);
        let a01 = a.create_midpoint(0, 1).unwrap();
        let a12 = a.create_midpoint(1, 2).unwrap();
        let b12 = b.create_midpoint(2, 1).unwrap();
        let b01 = b.create_midpoint(1, 0).unwrap();
        assert_eq!(a[a01].key, b[b01].key);
        assert_eq!(a[a12].key, b[b12].key);
        let am = a.create_midpoint(a01, a12).unwrap();
        let bm = b.create_midpoint(b12, b01).unwrap();
        assert_eq!(a[am].key, b[bm].key);
        assert_eq!(a[am].pos, b[bm].pos);
        a.check_keys().unwrap();
    }

    #[test]
    fn a_key_collision_is_detected() {
        let coords = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let mut a = Vertices::new(&coords);
        let m = a.create_midpoint(0, 1).unwrap();
        a.create_midpoint(1, 2).unwrap();
        a[m].key = a[m + 1].key; // forge a collision
        assert!(a
            .check_keys()
            .unwrap_err()
            .to_string()
            .contains("collision"));
    }
}
