//! The bisected edges: every edge (pair of vertex ids) that currently carries a midpoint, with
//! the number of divided elements that use it (`users`). Together with the initial mesh, this
//! set determines the whole forest.

use crate::hash::IntMap;

/// Key of the unordered edge `(a, b)`.
pub fn edge_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// One bisected edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bisected {
    /// Its midpoint vertex.
    pub mid: u32,
    /// Number of divided elements whose split includes this edge.
    pub users: u16,
    /// During coarsening: how many of those splits are candidates for removal.
    pub released: u16,
}

/// The set of bisected edges.
#[derive(Debug, Clone, Default)]
pub struct Edges {
    map: IntMap<u64, Bisected>,
}

impl Edges {
    /// The entry of edge `(a, b)`, if bisected.
    #[inline]
    pub fn get(&self, a: u32, b: u32) -> Option<Bisected> {
        self.map.get(&edge_key(a, b)).copied()
    }

    /// Mutable entry of edge `(a, b)`, if bisected.
    #[inline]
    pub fn get_mut(&mut self, a: u32, b: u32) -> Option<&mut Bisected> {
        self.map.get_mut(&edge_key(a, b))
    }

    /// Records a new bisected edge with no users yet.
    pub fn insert(&mut self, a: u32, b: u32, mid: u32) {
        let old = self.map.insert(
            edge_key(a, b),
            Bisected {
                mid,
                users: 0,
                released: 0,
            },
        );
        debug_assert!(old.is_none(), "edge ({a}, {b}) bisected twice");
    }

    /// Counts one more user of edge `(a, b)`, creating it with the midpoint `make_mid()` when
    /// it is not bisected yet. Returns the midpoint and whether the edge is new.
    #[inline]
    pub fn use_or_insert<E>(
        &mut self,
        a: u32,
        b: u32,
        make_mid: impl FnOnce() -> Result<u32, E>,
    ) -> Result<(u32, bool), E> {
        use std::collections::hash_map::Entry;
        match self.map.entry(edge_key(a, b)) {
            Entry::Occupied(mut o) => {
                o.get_mut().users += 1;
                Ok((o.get().mid, false))
            }
            Entry::Vacant(v) => {
                let mid = make_mid()?;
                v.insert(Bisected {
                    mid,
                    users: 1,
                    released: 0,
                });
                Ok((mid, true))
            }
        }
    }

    /// Drops one released user of edge `(a, b)` (coarsening removed a split counted in
    /// `released`); when no user is left, un-bisects the edge and returns its midpoint, which
    /// the caller frees.
    pub fn drop_user(&mut self, a: u32, b: u32) -> Option<u32> {
        use std::collections::hash_map::Entry;
        match self.map.entry(edge_key(a, b)) {
            Entry::Occupied(mut o) => {
                let x = o.get_mut();
                x.users -= 1;
                x.released -= 1;
                (x.users == 0).then(|| o.remove().mid)
            }
            Entry::Vacant(_) => panic!("edge ({a}, {b}) is not bisected"),
        }
    }

    /// Removes edge `(a, b)`, returning its entry.
    pub fn remove(&mut self, a: u32, b: u32) -> Option<Bisected> {
        self.map.remove(&edge_key(a, b))
    }

    /// Number of bisected edges.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no edge is bisected.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Bisected edges as `(vertex, vertex, entry)`, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32, Bisected)> + '_ {
        self.map
            .iter()
            .map(|(&k, &b)| ((k >> 32) as u32, k as u32, b))
    }

    /// Reserves room for `n` more edges.
    pub fn reserve(&mut self, n: usize) {
        self.map.reserve(n);
    }
}
