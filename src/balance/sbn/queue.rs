//! The roots queued at one processor [Harvey 2001, §4.2, table 1]: a processing heap keyed by
//! `(Comm_p^v + Remap_p^v) / Wgt_v` so that interior roots run first and boundary roots, which
//! may still migrate, wait; one migration heap per data location so that a processor giving
//! work to q first offers the roots whose data already sits on q; and random access for the
//! differential-edge-cut sample. Heap entries are invalidated lazily: an entry is live while
//! its root is queued here with the same stamp.
//!
//! The migration heaps exist only for the locations of roots queued here (a map, not one heap
//! per processor), and the index of the queued roots is a map too, so a queue's size is that
//! of what it holds: P queues cost `O(roots)` and the entries their heaps left behind, neither
//! `O(P · roots)` nor `O(P²)`.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::costs::RootCosts;
use crate::hash::IntMap;

/// An `f64` heap key ordered by `total_cmp`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f64);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

type Entry = Reverse<(Key, u32, u32)>;

/// A queued root: its place in `roots`, the stamp of its live heap entries, its weight.
#[derive(Debug, Clone, Copy)]
struct Slot {
    index: u32,
    stamp: u32,
    weight: f64,
}

/// The job queue of processor `p`.
#[derive(Debug, Clone)]
pub struct JobQueue {
    p: u32,
    roots: Vec<u32>,
    slots: IntMap<u32, Slot>,
    /// The stamp of the next push: a heap entry is live while its root's slot has its stamp.
    stamps: u32,
    processing: BinaryHeap<Entry>,
    by_data: IntMap<u32, BinaryHeap<Entry>>,
    total: f64,
}

impl JobQueue {
    /// An empty queue of processor `p`.
    pub fn new(p: u32) -> JobQueue {
        JobQueue {
            p,
            roots: Vec::new(),
            slots: IntMap::default(),
            stamps: 0,
            processing: BinaryHeap::new(),
            by_data: IntMap::default(),
            total: 0.0,
        }
    }

    /// Queues root v whose data is on `data`, with its costs as this processor sees them.
    pub fn push(&mut self, v: u32, data: u32, costs: &impl RootCosts) {
        debug_assert!(!self.contains(v), "root {v} queued twice");
        let w = costs.queued_weight(v, self.p);
        let s = self.stamps;
        self.stamps = self.stamps.wrapping_add(1);
        let slot = Slot {
            index: self.roots.len() as u32,
            stamp: s,
            weight: w,
        };
        self.slots.insert(v, slot);
        self.roots.push(v);
        self.total += w;
        let key = (costs.comm(v, self.p) + costs.remap(v, self.p)) / costs.wgt(v).max(1.0);
        self.processing.push(Reverse((Key(key), v, s)));
        if data != self.p {
            let gain = costs.delta_cut(v, self.p, data);
            self.by_data
                .entry(data)
                .or_default()
                .push(Reverse((Key(gain), v, s)));
        }
    }

    /// Removes root v from the queue (processed or given away); returns its queued weight.
    pub fn remove(&mut self, v: u32) -> f64 {
        let slot = self.slots.remove(&v);
        debug_assert!(slot.is_some(), "root {v} is not queued");
        let Some(slot) = slot else { return 0.0 };
        let last = self.roots.pop().expect("queue holds v");
        if last != v {
            self.roots[slot.index as usize] = last;
            if let Some(moved) = self.slots.get_mut(&last) {
                moved.index = slot.index;
            }
        }
        self.total -= slot.weight;
        if self.roots.is_empty() {
            self.total = 0.0; // no drift from rounding once empty
        }
        slot.weight
    }

    /// The queued root to process next (smallest `(Comm + Remap) / Wgt`), removed.
    pub fn pop_next(&mut self) -> Option<u32> {
        while let Some(Reverse((_, v, s))) = self.processing.pop() {
            if self.live(v, s) {
                self.remove(v);
                return Some(v);
            }
        }
        None
    }

    /// A queued root whose data sits on `q` (the best `ΔCut` first), not removed.
    pub fn peek_data_on(&mut self, q: u32) -> Option<u32> {
        let heap = self.by_data.get_mut(&q)?;
        while let Some(&Reverse((_, v, s))) = heap.peek() {
            if self.slots.get(&v).is_some_and(|slot| slot.stamp == s) {
                return Some(v);
            }
            heap.pop();
        }
        self.by_data.remove(&q);
        None
    }

    /// Sum of the queued weights (this processor's `QWgt` estimate).
    pub fn total(&self) -> f64 {
        self.total.max(0.0)
    }

    fn live(&self, v: u32, stamp: u32) -> bool {
        self.slots.get(&v).is_some_and(|s| s.stamp == stamp)
    }
}

impl JobQueue {
    /// Number of roots queued.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The i-th queued root (`i < len()`, any fixed order): for random samples.
    pub fn nth(&self, i: usize) -> u32 {
        self.roots[i]
    }

    /// True when root v is queued here.
    pub fn contains(&self, v: u32) -> bool {
        self.slots.contains_key(&v)
    }
}
