//! Perfect matching in a dense bipartite graph given by a predicate (Hopcroft–Karp), with a
//! warm start: the threshold searches of MaxV and MaxSR test many nested graphs in a row.

/// Marks a free row or column.
pub(crate) const FREE: usize = usize::MAX;

/// A matching between `n` rows and `n` columns.
#[derive(Debug, Clone)]
pub(crate) struct Matching {
    pub row2col: Vec<usize>,
    pub col2row: Vec<usize>,
}

impl Matching {
    pub fn empty(n: usize) -> Matching {
        Matching {
            row2col: vec![FREE; n],
            col2row: vec![FREE; n],
        }
    }

    /// Completes this matching into a perfect one in the graph where `(r, c)` is an edge when
    /// `allowed(r, c)`; pairs no longer allowed are dropped first. Returns whether the result
    /// is perfect (when not, `self` is a maximum matching of that graph).
    pub fn complete(&mut self, allowed: impl Fn(usize, usize) -> bool) -> bool {
        let n = self.row2col.len();
        for r in 0..n {
            let c = self.row2col[r];
            if c != FREE && !allowed(r, c) {
                self.row2col[r] = FREE;
                self.col2row[c] = FREE;
            }
        }
        let mut size = self.row2col.iter().filter(|&&c| c != FREE).count();
        let mut dist = vec![usize::MAX; n];
        let mut queue = Vec::with_capacity(n);
        while size < n {
            // Layers of rows by alternating-path distance from the free rows.
            queue.clear();
            for (r, (d, &c)) in dist.iter_mut().zip(&self.row2col).enumerate() {
                *d = if c == FREE { 0 } else { usize::MAX };
                if c == FREE {
                    queue.push(r);
                }
            }
            let mut found = false;
            let mut head = 0;
            while head < queue.len() {
                let r = queue[head];
                head += 1;
                for c in 0..n {
                    if allowed(r, c) {
                        let r2 = self.col2row[c];
                        if r2 == FREE {
                            found = true;
                        } else if dist[r2] == usize::MAX {
                            dist[r2] = dist[r] + 1;
                            queue.push(r2);
                        }
                    }
                }
            }
            if !found {
                return false;
            }
            // Vertex-disjoint shortest augmenting paths along the layers.
            for r in 0..n {
                if self.row2col[r] == FREE && self.augment(r, &allowed, &mut dist) {
                    size += 1;
                }
            }
        }
        true
    }

    fn augment(
        &mut self,
        r: usize,
        allowed: &impl Fn(usize, usize) -> bool,
        dist: &mut [usize],
    ) -> bool {
        let n = self.row2col.len();
        for c in 0..n {
            if !allowed(r, c) {
                continue;
            }
            let r2 = self.col2row[c];
            if r2 == FREE
                || (dist[r2] == dist[r].wrapping_add(1) && self.augment(r2, allowed, dist))
            {
                self.row2col[r] = c;
                self.col2row[c] = r;
                return true;
            }
        }
        dist[r] = usize::MAX;
        false
    }
}
