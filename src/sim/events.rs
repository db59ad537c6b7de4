//! The event queue of the simulated machine: events in time order, ties in creation order.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A timed event carrying `E`.
struct Timed<E> {
    time: f64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Timed<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<E> Eq for Timed<E> {}

impl<E> PartialOrd for Timed<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Timed<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.time
            .total_cmp(&other.time)
            .then(self.seq.cmp(&other.seq))
    }
}

/// Pending events, earliest first.
pub(crate) struct Events<E> {
    heap: BinaryHeap<Reverse<Timed<E>>>,
    seq: u64,
}

impl<E> Events<E> {
    pub(crate) fn new() -> Self {
        Events {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Schedules `event` at `time`.
    pub(crate) fn push(&mut self, time: f64, event: E) {
        self.seq += 1;
        self.heap.push(Reverse(Timed {
            time,
            seq: self.seq,
            event,
        }));
    }

    /// The earliest event and its time.
    pub(crate) fn pop(&mut self) -> Option<(f64, E)> {
        self.heap.pop().map(|Reverse(t)| (t.time, t.event))
    }

    /// Events created so far.
    pub(crate) fn created(&self) -> u64 {
        self.seq
    }

    /// Events pending.
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Bytes one pending event takes in the queue.
    pub(crate) const fn entry_bytes() -> usize {
        std::mem::size_of::<Reverse<Timed<E>>>()
    }

    /// Drops the pending events `keep` refuses. The others keep their time and creation order,
    /// so they come out as they would have.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) {
        self.heap.retain(|Reverse(t)| keep(&t.event));
    }
}
