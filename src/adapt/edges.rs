//! The bisected edges: every edge (pair of vertex ids) that currently carries a midpoint, with
//! the number of divided elements that use it (`users`). Together with the initial mesh, this
//! set determines the whole forest.
//!
//! The set is an open-addressing table with linear probing: a key and its entry share one
//! 16-byte slot, so a lookup costs one cache line (a chained or control-byte table costs two),
//! and [`Edges::prefetch`] lets a caller start the loads of several edges before using them.
//! The table is far larger than the caches, so on large meshes these loads are what the
//! closure and the coarsening wait for.

/// Key of the unordered edge `(a, b)`; never 0, since `a != b`.
pub fn edge_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// Key of an empty slot.
const EMPTY: u64 = 0;

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

/// A slot of the table: an edge key ([`EMPTY`] when free) and its entry.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    entry: Bisected,
}

const FREE: Slot = Slot {
    key: EMPTY,
    entry: Bisected {
        mid: 0,
        users: 0,
        released: 0,
    },
};

/// The set of bisected edges (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Edges {
    /// Power-of-two number of slots (or none), at most 3/4 full.
    slots: Vec<Slot>,
    len: usize,
    /// 64 minus the base-2 logarithm of the number of slots.
    shift: u32,
}

impl Edges {
    /// Home slot of a key.
    #[inline]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing (the top bits of the product depend on every bit of the key),
        // after folding the two vertex ids together, which spreads the regular keys of a
        // mesh's edges better (tested on a grid's edges).
        ((key ^ (key >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Slot holding `key`, or the empty slot ending its probe sequence (`Err`).
    #[inline]
    fn find(&self, key: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.slots[i].key {
                k if k == key => return Ok(i),
                EMPTY => return Err(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Slot of `key` if present (the table may be empty).
    #[inline]
    fn position(&self, key: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(key).ok()
    }

    /// Starts loading the slot where edge `(a, b)` would be; a hint with no effect on the
    /// set, for callers about to look up several edges.
    #[inline]
    pub(crate) fn prefetch(&self, a: u32, b: u32) {
        if !self.slots.is_empty() {
            self.prefetch_slot(self.home(edge_key(a, b)) as u32);
        }
    }

    /// Starts loading slot `i` (see [`Edges::slot`]).
    #[inline]
    pub(crate) fn prefetch_slot(&self, i: u32) {
        super::prefetch(&self.slots[i as usize]);
    }

    /// The slot holding edge `(a, b)`, if bisected: a handle for [`Edges::at`] that stays
    /// valid until the next insertion or removal.
    #[inline]
    pub(crate) fn slot(&self, a: u32, b: u32) -> Option<u32> {
        self.position(edge_key(a, b)).map(|i| i as u32)
    }

    /// The entry in slot `i` (from [`Edges::slot`]).
    #[inline]
    pub(crate) fn at(&self, i: u32) -> &Bisected {
        &self.slots[i as usize].entry
    }

    /// Mutable entry in slot `i` (from [`Edges::slot`]).
    #[inline]
    pub(crate) fn at_mut(&mut self, i: u32) -> &mut Bisected {
        &mut self.slots[i as usize].entry
    }

    /// The entry of edge `(a, b)`, if bisected.
    #[inline]
    pub fn get(&self, a: u32, b: u32) -> Option<Bisected> {
        self.position(edge_key(a, b)).map(|i| self.slots[i].entry)
    }

    /// Mutable entry of edge `(a, b)`, if bisected.
    #[inline]
    pub(crate) fn get_mut(&mut self, a: u32, b: u32) -> Option<&mut Bisected> {
        self.position(edge_key(a, b))
            .map(|i| &mut self.slots[i].entry)
    }

    /// Records a new bisected edge with no users yet.
    pub(crate) fn insert(&mut self, a: u32, b: u32, mid: u32) {
        self.reserve(1);
        let key = edge_key(a, b);
        let i = self.find(key).expect_err("an edge is bisected only once");
        self.fill(i, key, mid, 0);
    }

    /// These edges on another numbering of the vertices: vertex `v` becomes `map[v]`; an edge
    /// with an end or its midpoint dropped ([`NO_VERTEX`](super::vertices::NO_VERTEX)) is
    /// dropped, the others keep their entries.
    pub(crate) fn renumbered(&self, map: &[u32]) -> Edges {
        use super::vertices::NO_VERTEX;
        let mut out = Edges::default();
        out.reserve(self.len);
        for (a, b, x) in self.iter() {
            let (a, b, mid) = (map[a as usize], map[b as usize], map[x.mid as usize]);
            if a == NO_VERTEX || b == NO_VERTEX || mid == NO_VERTEX {
                continue;
            }
            let key = edge_key(a, b);
            let i = out.find(key).expect_err("an edge is bisected only once");
            out.slots[i] = Slot {
                key,
                entry: Bisected { mid, ..x },
            };
            out.len += 1;
        }
        out
    }

    /// Stores a new edge in the empty slot `i`.
    #[inline]
    fn fill(&mut self, i: usize, key: u64, mid: u32, users: u16) {
        self.slots[i] = Slot {
            key,
            entry: Bisected {
                mid,
                users,
                released: 0,
            },
        };
        self.len += 1;
    }

    /// Counts one more user of edge `(a, b)`, creating it with the midpoint `make_mid()` when
    /// it is not bisected yet. Returns the midpoint and whether the edge is new.
    #[inline]
    pub(crate) fn use_or_insert<E>(
        &mut self,
        a: u32,
        b: u32,
        make_mid: impl FnOnce() -> Result<u32, E>,
    ) -> Result<(u32, bool), E> {
        self.reserve(1);
        let key = edge_key(a, b);
        match self.find(key) {
            Ok(i) => {
                let x = &mut self.slots[i].entry;
                x.users += 1;
                Ok((x.mid, false))
            }
            Err(i) => {
                let mid = make_mid()?;
                self.fill(i, key, mid, 1);
                Ok((mid, true))
            }
        }
    }

    /// Removes edge `(a, b)`, returning its entry.
    pub(crate) fn remove(&mut self, a: u32, b: u32) -> Option<Bisected> {
        self.position(edge_key(a, b)).map(|i| self.remove_slot(i))
    }

    /// Empties slot `i` and moves later entries of its probe run back so that every entry
    /// stays reachable from its home without tombstones.
    fn remove_slot(&mut self, mut i: usize) -> Bisected {
        let removed = self.slots[i].entry;
        let mask = self.slots.len() - 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let key = self.slots[j].key;
            if key == EMPTY {
                break;
            }
            // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
            let home = self.home(key);
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(i) & mask) {
                self.slots[i] = self.slots[j];
                i = j;
            }
        }
        self.slots[i] = FREE;
        self.len -= 1;
        removed
    }

    /// Number of bisected edges.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no edge is bisected.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bisected edges as `(vertex, vertex, entry)`, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32, Bisected)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.key != EMPTY)
            .map(|s| ((s.key >> 32) as u32, s.key as u32, s.entry))
    }

    /// Number of slots allocated (tests bound what a step reserves).
    #[cfg(test)]
    pub(crate) fn nslots(&self) -> usize {
        self.slots.len()
    }

    /// Reserves room for `n` more edges.
    #[inline]
    pub(crate) fn reserve(&mut self, n: usize) {
        let need = self.len + n;
        if 4 * need > 3 * self.slots.len() {
            self.grow(need);
        }
    }

    /// Rebuilds the table with room for `need` edges at most 3/4 full.
    #[cold]
    fn grow(&mut self, need: usize) {
        let size = (need * 4 / 3 + 1).next_power_of_two().max(16);
        let old = std::mem::replace(&mut self.slots, vec![FREE; size]);
        self.shift = 64 - size.trailing_zeros();
        for s in old.into_iter().filter(|s| s.key != EMPTY) {
            let i = self.find(s.key).expect_err("keys are unique");
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_and_remove_keep_every_edge_reachable() {
        let mut edges = Edges::default();
        let pairs: Vec<(u32, u32)> = (0..2000u32).map(|i| (i % 97, 100 + i)).collect();
        for (n, &(a, b)) in pairs.iter().enumerate() {
            assert_eq!(
                edges.use_or_insert(b, a, || Ok::<_, ()>(n as u32)),
                Ok((n as u32, true))
            );
        }
        assert_eq!(edges.len(), pairs.len());
        for (n, &(a, b)) in pairs.iter().enumerate().filter(|(n, _)| n % 3 == 0) {
            assert_eq!(edges.remove(a, b).map(|x| x.mid), Some(n as u32));
        }
        for (n, &(a, b)) in pairs.iter().enumerate() {
            let expected = (n % 3 != 0).then_some(n as u32);
            assert_eq!(edges.get(a, b).map(|x| x.mid), expected, "edge {n}");
        }
        assert_eq!(edges.iter().count(), edges.len());
    }

    #[test]
    fn grid_edges_stay_near_their_home_slots() {
        // Edges of a 40^3 vertex grid along its three axes: keys as regular as a mesh's.
        let mut edges = Edges::default();
        let n = 40u32;
        for v in 0..n * n * n {
            for step in [1, n, n * n] {
                if v + step < n * n * n {
                    edges.use_or_insert(v, v + step, || Ok::<_, ()>(v)).unwrap();
                }
            }
        }
        let mask = edges.slots.len() - 1;
        let total: usize = (0..edges.slots.len())
            .filter(|&i| edges.slots[i].key != EMPTY)
            .map(|i| i.wrapping_sub(edges.home(edges.slots[i].key)) & mask)
            .sum();
        let mean = total as f64 / edges.len() as f64;
        assert!(mean < 1.5, "mean distance to the home slot {mean}");
    }
}
