//! An indexed binary min-heap (`docs/design/minex.md`, [Harvey 2001]'s VList `*heap`): at most one
//! entry per item id, each id's position kept so that an entry can be replaced or removed in
//! `O(log n)` without searching.

/// No position: the id has no entry.
const ABSENT: u32 = u32::MAX;

/// A min-heap of `(key, id)` entries, one per id in `0..capacity`.
#[derive(Debug, Clone)]
pub(crate) struct IndexedHeap<K> {
    /// The entries in heap order.
    entries: Vec<(K, u32)>,
    /// `position[id]`: the index of `id`'s entry in `entries`, or [`ABSENT`].
    position: Vec<u32>,
}

impl<K: Ord + Copy> IndexedHeap<K> {
    /// An empty heap for ids below `capacity`.
    pub(crate) fn new(capacity: usize) -> Self {
        IndexedHeap {
            entries: Vec::new(),
            position: vec![ABSENT; capacity],
        }
    }

    /// The smallest key, if any.
    pub(crate) fn peek_key(&self) -> Option<K> {
        self.entries.first().map(|e| e.0)
    }

    /// Sets `id`'s entry to `key` (inserted or replaced).
    pub(crate) fn set(&mut self, id: u32, key: K) {
        match self.position[id as usize] {
            ABSENT => {
                self.entries.push((key, id));
                let last = self.entries.len() - 1;
                self.position[id as usize] = last as u32;
                self.up(last);
            }
            at => {
                let at = at as usize;
                let old = std::mem::replace(&mut self.entries[at].0, key);
                if key < old {
                    self.up(at);
                } else {
                    self.down(at);
                }
            }
        }
    }

    /// Removes every entry.
    pub(crate) fn clear(&mut self) {
        for &(_, id) in &self.entries {
            self.position[id as usize] = ABSENT;
        }
        self.entries.clear();
    }

    /// Removes `id`'s entry if it has one.
    pub(crate) fn remove(&mut self, id: u32) {
        let at = self.position[id as usize];
        if at != ABSENT {
            self.take(at as usize);
        }
    }

    /// Removes and returns the entry of smallest key.
    pub(crate) fn pop(&mut self) -> Option<(K, u32)> {
        (!self.entries.is_empty()).then(|| self.take(0))
    }

    /// Removes the entry at index `at` and returns it.
    fn take(&mut self, at: usize) -> (K, u32) {
        let last = self.entries.len() - 1;
        self.swap(at, last);
        let entry = self.entries.pop().expect("an entry");
        self.position[entry.1 as usize] = ABSENT;
        if at < self.entries.len() {
            self.up(at);
            self.down(at);
        }
        entry
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.entries.swap(i, j);
        self.position[self.entries[i].1 as usize] = i as u32;
        self.position[self.entries[j].1 as usize] = j as u32;
    }

    fn up(&mut self, mut at: usize) {
        while at > 0 {
            let parent = (at - 1) / 2;
            if self.entries[at] >= self.entries[parent] {
                break;
            }
            self.swap(at, parent);
            at = parent;
        }
    }

    fn down(&mut self, mut at: usize) {
        loop {
            let (left, right) = (2 * at + 1, 2 * at + 2);
            let mut least = at;
            if left < self.entries.len() && self.entries[left] < self.entries[least] {
                least = left;
            }
            if right < self.entries.len() && self.entries[right] < self.entries[least] {
                least = right;
            }
            if least == at {
                break;
            }
            self.swap(at, least);
            at = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_after_updates_and_removals() {
        let mut heap = IndexedHeap::new(8);
        for (id, key) in [(0, 5), (1, 3), (2, 9), (3, 1), (4, 7), (5, 4)] {
            heap.set(id, key);
        }
        heap.set(2, 0); // decrease
        heap.set(3, 8); // increase
        heap.remove(5);
        heap.remove(6); // absent: nothing
        assert_eq!(heap.peek_key(), Some(0));
        let order: Vec<u32> = std::iter::from_fn(|| heap.pop().map(|e| e.1)).collect();
        assert_eq!(order, [2, 1, 0, 4, 3]);
        assert_eq!(heap.peek_key(), None);
        heap.set(5, 2);
        heap.set(1, 6);
        heap.clear();
        assert_eq!(heap.peek_key(), None);
        heap.set(1, 3);
        assert_eq!(heap.pop(), Some((3, 1)));
    }
}
