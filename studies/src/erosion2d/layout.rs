//! Stripes of whole columns ([Boulmier 2019]'s centralized partitioning): stripe `k` is on PE `k`,
//! cut from the column work sums so that it holds its share of the fluid work within one
//! column's work ([`plume::partition::stripe_ends`]).

use std::ops::Range;

use plume::partition::stripe_ends;

/// Prefix sums of `values`: entry `i` is the sum of the first `i` values.
pub fn prefix(values: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut out = vec![0u64];
    let mut sum = 0u64;
    for v in values {
        sum += v;
        out.push(sum);
    }
    out
}

/// The stripe of every PE and the owner of every column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    ends: Vec<usize>,
    owner: Vec<u32>,
}

impl Layout {
    /// `procs` stripes of `width` columns each: one rock per PE, as the run starts.
    pub fn uniform(procs: usize, width: usize) -> Layout {
        Layout::from_ends((1..=procs).map(|k| k * width).collect())
    }

    /// Stripes cut from the prefix sums of the column work, stripe `k` aiming at
    /// `shares[k]` of the total.
    ///
    /// # Errors
    /// When there are fewer columns than stripes or the shares are invalid.
    pub fn cut(prefix_work: &[u64], shares: &[f64]) -> plume::Result<Layout> {
        Ok(Layout::from_ends(stripe_ends(prefix_work, shares)?))
    }

    fn from_ends(ends: Vec<usize>) -> Layout {
        let mut owner = vec![0u32; ends.last().copied().unwrap_or(0)];
        let mut start = 0;
        for (k, &end) in ends.iter().enumerate() {
            owner[start..end].fill(k as u32);
            start = end;
        }
        Layout { ends, owner }
    }

    /// The columns of PE `k`'s stripe.
    pub fn range(&self, k: usize) -> Range<usize> {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        start..self.ends[k]
    }

    /// The PE owning column `x`.
    pub fn owner(&self, x: usize) -> usize {
        self.owner[x] as usize
    }

    /// Every PE's sum of `prefix`'s values over its stripe (its work, for the work prefix).
    pub fn sums(&self, prefix: &[u64]) -> Vec<u64> {
        (0..self.ends.len())
            .map(|k| {
                let r = self.range(k);
                prefix[r.end] - prefix[r.start]
            })
            .collect()
    }

    /// `MaxSR` of going from this layout to `next`: the largest sum, over PEs, of the data
    /// (prefix sums `prefix_data` over columns) a PE sends and receives.
    pub fn max_sr(&self, next: &Layout, prefix_data: &[u64]) -> u64 {
        let data = |a: usize, b: usize| {
            if a < b {
                prefix_data[b] - prefix_data[a]
            } else {
                0
            }
        };
        // Columns of `r` outside `s`: below s and above s.
        let outside = |r: Range<usize>, s: Range<usize>| {
            data(r.start, r.end.min(s.start)) + data(r.start.max(s.end), r.end)
        };
        (0..self.ends.len())
            .map(|k| {
                let (old, new) = (self.range(k), next.range(k));
                outside(old.clone(), new.clone()) + outside(new, old)
            })
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_cut_sums_and_moves() {
        let a = Layout::uniform(3, 4);
        assert_eq!((a.range(1), a.owner(11)), (4..8, 2));
        let work = prefix([1u64; 12].into_iter());
        assert_eq!(a.sums(&work), [4, 4, 4]);
        // All the work in the first six columns, equal shares: 2 columns each... and the
        // last stripe takes the empty rest.
        let heavy = prefix((0..12).map(|x| if x < 6 { 10 } else { 0 }));
        let b = Layout::cut(&heavy, &[1.0; 3]).unwrap();
        assert_eq!((b.range(0), b.range(1), b.range(2)), (0..2, 2..4, 4..12));
        // PE 0 sends 2 columns, PE 1 receives 2 and sends 4 = 6, PE 2 receives 4.
        assert_eq!(a.max_sr(&b, &work), 6);
        assert_eq!(a.max_sr(&a, &work), 0);
    }
}
