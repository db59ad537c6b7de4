//! The roots queued at one processor (seed 004 §4.2, table 1): a processing heap keyed by
//! `(Comm_p^v + Remap_p^v) / Wgt_v` so that interior roots run first and boundary roots, which
//! may still migrate, wait; one migration heap per data location so that a processor giving
//! work to q first offers the roots whose data already sits on q; and random access for the
//! differential-edge-cut sample. Heap entries are invalidated lazily: an entry is live while
//! its root is queued here with the same stamp.
//!
//! The migration heaps exist only for the locations of roots queued here (a map, not one heap
//! per processor), so a queue's size does not grow with P: P queues cost `O(P · roots)`, the
//! per-root index every processor keeps, not `O(P²)`.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::costs::RootCosts;
use crate::hash::IntMap;

const ABSENT: u32 = u32::MAX;

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

/// The job queue of processor `p` over `n` roots.
#[derive(Debug, Clone)]
pub struct JobQueue {
    p: u32,
    roots: Vec<u32>,
    slot: Vec<u32>,
    stamp: Vec<u32>,
    weight: Vec<f64>,
    processing: BinaryHeap<Entry>,
    by_data: IntMap<u32, BinaryHeap<Entry>>,
    total: f64,
}

impl JobQueue {
    /// An empty queue of processor `p` for `nroots` roots.
    pub fn new(p: u32, nroots: usize) -> JobQueue {
        JobQueue {
            p,
            roots: Vec::new(),
            slot: vec![ABSENT; nroots],
            stamp: vec![0; nroots],
            weight: vec![0.0; nroots],
            processing: BinaryHeap::new(),
            by_data: IntMap::default(),
            total: 0.0,
        }
    }

    /// Queues root v whose data is on `data`, with its costs as this processor sees them.
    pub fn push(&mut self, v: u32, data: u32, costs: &impl RootCosts) {
        debug_assert!(!self.contains(v), "root {v} queued twice");
        let vi = v as usize;
        self.slot[vi] = self.roots.len() as u32;
        self.roots.push(v);
        self.stamp[vi] = self.stamp[vi].wrapping_add(1);
        let w = costs.queued_weight(v, self.p);
        self.weight[vi] = w;
        self.total += w;
        let key = (costs.comm(v, self.p) + costs.remap(v, self.p)) / costs.wgt(v).max(1.0);
        let s = self.stamp[vi];
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
        let vi = v as usize;
        let i = self.slot[vi];
        debug_assert!(i != ABSENT, "root {v} is not queued");
        let last = self.roots.pop().expect("queue holds v");
        if last != v {
            self.roots[i as usize] = last;
            self.slot[last as usize] = i;
        }
        self.slot[vi] = ABSENT;
        self.total -= self.weight[vi];
        if self.roots.is_empty() {
            self.total = 0.0; // no drift from rounding once empty
        }
        self.weight[vi]
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
            if self.slot[v as usize] != ABSENT && self.stamp[v as usize] == s {
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
        self.slot[v as usize] != ABSENT && self.stamp[v as usize] == stamp
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
        self.slot[v as usize] != ABSENT
    }
}
