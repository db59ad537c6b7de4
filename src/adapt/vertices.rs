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

/// The vertex store (see the module doc).
#[derive(Debug, Clone)]
pub struct Vertices {
    /// Positions, by vertex id.
    pub pos: Vec<[f64; 3]>,
    /// Rank-independent keys, by vertex id.
    pub key: Vec<u64>,
    /// Endpoints of the bisected edge a midpoint was created on (`NO_VERTEX` for initial ones).
    pub parents: Vec<[u32; 2]>,
    /// Supports, by vertex id.
    pub support: Vec<Support>,
    /// Set once an edge from the vertex has been bisected: a leaf whose edge midpoints are all
    /// unset cannot have bisected edges among its future children's.
    pub on_bisected: Vec<bool>,
    free: Vec<u32>,
    ninitial: usize,
}

/// Key of the midpoint of the edge between vertices with keys `a` and `b`.
pub fn midpoint_key(a: u64, b: u64) -> u64 {
    let (lo, hi) = (a.min(b), a.max(b));
    mix64(mix64(lo) ^ hi.rotate_left(17)) | (1 << 63)
}

impl Vertices {
    /// The store holding the initial vertices.
    pub fn new(coords: &[[f64; 3]]) -> Vertices {
        let n = coords.len();
        Vertices {
            pos: coords.to_vec(),
            key: (0..n as u64).collect(),
            parents: vec![[NO_VERTEX; 2]; n],
            support: (0..n as u32)
                .map(|v| [v, NO_VERTEX, NO_VERTEX, NO_VERTEX])
                .collect(),
            on_bisected: vec![false; n],
            free: Vec::new(),
            ninitial: n,
        }
    }

    /// Number of initial vertices.
    pub fn ninitial(&self) -> usize {
        self.ninitial
    }

    /// Number of live vertices.
    pub fn nlive(&self) -> usize {
        self.pos.len() - self.free.len()
    }

    /// Number of vertex slots (live or free): ids are below this.
    pub fn nslots(&self) -> usize {
        self.pos.len()
    }

    /// Reserves room for `n` more vertices.
    pub fn reserve(&mut self, n: usize) {
        let n = n.saturating_sub(self.free.len());
        self.pos.reserve(n);
        self.key.reserve(n);
        self.parents.reserve(n);
        self.support.reserve(n);
        self.on_bisected.reserve(n);
    }

    /// Creates the midpoint of `(a, b)` (the caller knows the edge is not bisected yet); fails
    /// when vertex ids, 32-bit, run out.
    pub fn create_midpoint(&mut self, a: u32, b: u32) -> Result<u32> {
        let (a, b) = (a as usize, b as usize);
        let key = midpoint_key(self.key[a], self.key[b]);
        let pos = crate::mesh::geometry::midpoint(self.pos[a], self.pos[b]);
        let support = union(&self.support[a], &self.support[b]);
        let id = match self.free.pop() {
            Some(id) => {
                let i = id as usize;
                self.pos[i] = pos;
                self.key[i] = key;
                self.parents[i] = [a as u32, b as u32];
                self.support[i] = support;
                self.on_bisected[i] = false;
                id
            }
            None if self.pos.len() >= NO_VERTEX as usize => {
                return Err(Error::Invalid(format!(
                    "the mesh needs more than {} vertices (32-bit vertex ids)",
                    NO_VERTEX
                )))
            }
            None => {
                self.pos.push(pos);
                self.key.push(key);
                self.parents.push([a as u32, b as u32]);
                self.support.push(support);
                self.on_bisected.push(false);
                (self.pos.len() - 1) as u32
            }
        };
        Ok(id)
    }

    /// Fails if two live vertices share a key (a hash collision between midpoints of
    /// different edges): the guard for every place where keys identify vertices.
    pub fn check_keys(&self) -> Result<()> {
        let mut seen: IntMap<u64, u32> = IntMap::default();
        seen.reserve(self.nlive());
        for v in 0..self.nslots() as u32 {
            if v as usize >= self.ninitial && self.parents[v as usize][0] == NO_VERTEX {
                continue; // a free slot
            }
            if let Some(other) = seen.insert(self.key[v as usize], v) {
                return Err(Error::Invalid(format!(
                    "vertex key collision: vertices {other} and {v} share key {:#x}",
                    self.key[v as usize]
                )));
            }
        }
        Ok(())
    }

    /// Frees a midpoint whose edge is no longer bisected.
    #[track_caller]
    pub fn free_midpoint(&mut self, v: u32) {
        debug_assert!(
            v as usize >= self.ninitial,
            "initial vertices are never freed"
        );
        self.parents[v as usize] = [NO_VERTEX; 2];
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
        assert_eq!(a.key[a01 as usize], b.key[b01 as usize]);
        assert_eq!(a.key[a12 as usize], b.key[b12 as usize]);
        let am = a.create_midpoint(a01, a12).unwrap();
        let bm = b.create_midpoint(b12, b01).unwrap();
        assert_eq!(a.key[am as usize], b.key[bm as usize]);
        assert_eq!(a.pos[am as usize], b.pos[bm as usize]);
        a.check_keys().unwrap();
    }

    #[test]
    fn a_key_collision_is_detected() {
        let coords = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let mut a = Vertices::new(&coords);
        let m = a.create_midpoint(0, 1).unwrap();
        a.create_midpoint(1, 2).unwrap();
        a.key[m as usize] = a.key[m as usize + 1]; // forge a collision
        assert!(a
            .check_keys()
            .unwrap_err()
            .to_string()
            .contains("collision"));
    }
}
