//! Stripes along one axis ([Boulmier 2019, §IV-B], the centralized method): the roots are grouped
//! into columns (slabs of the box along x), and the columns, in order, are cut into consecutive
//! stripes of equal `PWgt`, or of given shares of it (ULBA's uneven targets). Each cut falls
//! on the column boundary nearest its target, so every stripe is within one column's weight
//! of its target. Part `k` is the `k`-th stripe from the low end, so a rank keeps its place
//! along the axis from one balance to the next.

use super::{check_arguments, finish, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::{Error, Result};

/// The stripe partitioner: the column of every root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripes {
    column: Vec<u32>,
    ncolumns: usize,
}

impl Stripes {
    /// Stripes over the given column of every root (columns numbered from the low end).
    pub fn new(column: Vec<u32>) -> Self {
        let ncolumns = column.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        Stripes { column, ncolumns }
    }

    /// Columns of equal width `(hi − lo)/ncolumns` along x, from the roots' centroids
    /// ([`crate::graph::root_centroids`]); centroids outside `[lo, hi)` go to the end columns.
    pub fn along_x(centroids: &[[f64; 3]], lo: f64, hi: f64, ncolumns: usize) -> Self {
        let width = (hi - lo) / ncolumns as f64;
        let column = centroids
            .iter()
            .map(|c| {
                ((c[0] - lo) / width)
                    .floor()
                    .clamp(0.0, ncolumns.saturating_sub(1) as f64) as u32
            })
            .collect();
        Stripes { column, ncolumns }
    }

    /// `PWgt` of every column.
    pub fn column_weights(&self, pwgt: &[u64]) -> Vec<u64> {
        let mut w = vec![0u64; self.ncolumns];
        for (&c, &x) in self.column.iter().zip(pwgt) {
            w[c as usize] += x;
        }
        w
    }

    /// The stripe of every column ([`stripe_ends`]); `shares` are checked, and there are at
    /// least as many columns as shares.
    fn cut(&self, weights: &[u64], shares: &[f64]) -> Result<Vec<u32>> {
        let mut prefix = vec![0u64; weights.len() + 1];
        for (i, &w) in weights.iter().enumerate() {
            prefix[i + 1] = prefix[i] + w;
        }
        let mut stripe = vec![0u32; weights.len()];
        let mut start = 0;
        for (k, end) in stripe_ends(&prefix, shares)?.into_iter().enumerate() {
            stripe[start..end].fill(k as u32);
            start = end;
        }
        Ok(stripe)
    }
}

/// Cuts columns of prefix weights `prefix` (`prefix[i]` the weight of columns `0..i`,
/// non-decreasing from 0) into `shares.len()` consecutive stripes, stripe `k` aiming at
/// `shares[k]` of the total (shares are normalised), and returns the end column of every
/// stripe (the last is the column count). Each cut falls on the column boundary nearest its
/// target prefix, so every stripe is within one column's weight of its target, and every
/// stripe gets at least one column.
///
/// # Errors
/// [`Error::Invalid`] when there are fewer columns than stripes, the prefix is empty, or a
/// share is negative or not finite or they sum to zero.
pub fn stripe_ends(prefix: &[u64], shares: &[f64]) -> Result<Vec<usize>> {
    let ncolumns = prefix.len().saturating_sub(1);
    if shares.is_empty() || shares.len() > ncolumns {
        return Err(Error::Invalid(format!(
            "cannot cut {ncolumns} columns into {} stripes",
            shares.len()
        )));
    }
    let share_sum: f64 = shares.iter().sum();
    if shares.iter().any(|s| !(s.is_finite() && *s >= 0.0)) || share_sum <= 0.0 {
        return Err(Error::Invalid(format!(
            "stripes: shares must be non-negative with a positive sum, got {shares:?}"
        )));
    }
    let total = prefix[ncolumns] as f64;
    let nparts = shares.len();
    let mut ends = Vec::with_capacity(nparts);
    let (mut start, mut target_share) = (0usize, 0.0);
    for (k, share) in shares.iter().enumerate() {
        let end = if k + 1 == nparts {
            ncolumns
        } else {
            target_share += share / share_sum;
            let target = target_share * total;
            // First boundary at or past the target, or the one before it if nearer.
            let after = prefix.partition_point(|&x| (x as f64) < target);
            let before = after.saturating_sub(1);
            let nearest = if after > ncolumns
                || target - prefix[before] as f64 <= prefix[after] as f64 - target
            {
                before
            } else {
                after
            };
            nearest.clamp(start + 1, ncolumns - (nparts - 1 - k))
        };
        ends.push(end);
        start = end;
    }
    Ok(ends)
}

impl Partitioner for Stripes {
    fn name(&self) -> &'static str {
        "stripes"
    }

    /// Stripe `k` aims at `targets.fraction(k)` of the total `PWgt`; every stripe gets at
    /// least one column.
    ///
    /// # Errors
    /// Those of [`check_arguments`]; [`Error::LengthMismatch`] unless the graph has one vertex
    /// per root column entry; [`Error::Invalid`] when there are fewer columns than stripes.
    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        Error::check_len("stripe columns", graph.nvertices(), self.column.len())?;
        let nparts = targets.nparts();
        if nparts > self.ncolumns {
            return Err(Error::Invalid(format!(
                "cannot cut {} columns into {nparts} stripes",
                self.ncolumns
            )));
        }
        let weights = self.column_weights(graph.vertex_weights());
        let stripe_of_column = self.cut(&weights, &targets.shares())?;
        for (p, &c) in part.iter_mut().zip(&self.column) {
            *p = stripe_of_column[c as usize];
        }
        Ok(finish("stripes", graph, nparts, part, (1, 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stripes of `pwgt` over a graph without edges.
    fn stripes(s: &Stripes, pwgt: &[u64], shares: &[f64], part: &mut [u32]) -> Result<()> {
        let xadj = vec![0; pwgt.len() + 1];
        let graph = GraphView::new(&xadj, &[], &[], pwgt)?;
        s.partition(&graph, Targets::Shares(shares), part)
            .map(|_| ())
    }

    #[test]
    fn equal_stripes_within_one_column_and_in_order() {
        // 20 columns of uneven weight, 3 roots each.
        let column: Vec<u32> = (0..60).map(|r| r / 3).collect();
        let pwgt: Vec<u64> = (0..60).map(|r| 1 + (r as u64 * 7) % 5).collect();
        let s = Stripes::new(column.clone());
        let cw = s.column_weights(&pwgt);
        let heaviest = *cw.iter().max().unwrap() as f64;
        let total: u64 = pwgt.iter().sum();
        let mut part = vec![0; 60];
        stripes(&s, &pwgt, &[1.0; 4], &mut part).unwrap();
        let mut loads = [0u64; 4];
        for (r, &p) in part.iter().enumerate() {
            loads[p as usize] += pwgt[r];
            if r > 0 {
                assert!(part[r] >= part[r - 1], "stripes keep their order");
            }
        }
        for l in loads {
            assert!(
                (l as f64 - total as f64 / 4.0).abs() <= heaviest,
                "{loads:?}"
            );
        }
    }

    #[test]
    fn shares_shift_the_cuts_and_bad_input_is_an_error() {
        let column: Vec<u32> = (0..100).collect();
        let pwgt = vec![10u64; 100];
        let s = Stripes::new(column);
        let mut part = vec![0; 100];
        stripes(&s, &pwgt, &[0.6, 1.2, 1.2], &mut part).unwrap();
        let first = part.iter().filter(|&&p| p == 0).count();
        assert_eq!(first, 20);
        assert!(stripes(&s, &pwgt, &[1.0; 101], &mut part).is_err());
        assert!(stripes(&s, &pwgt, &[1.0, -1.0], &mut part).is_err());
        assert!(stripes(&s, &pwgt, &[0.0, 0.0], &mut part).is_err());
        assert!(stripe_ends(&[0, 5, 9], &[1.0; 3]).is_err());
        assert!(stripe_ends(&[], &[1.0]).is_err());
        assert_eq!(
            stripe_ends(&[0, 5, 10, 15, 20], &[1.0, 1.0]).unwrap(),
            [2, 4]
        );
        // All weight in one column: every stripe still gets a column.
        let mut heavy = vec![0u64; 100];
        heavy[50] = 1000;
        stripes(&s, &heavy, &[1.0; 5], &mut part).unwrap();
        for k in 0..5 {
            assert!(part.contains(&k));
        }
        // More stripes than columns.
        let few = Stripes::new((0..100).map(|r| r / 50).collect());
        let e = stripes(&few, &pwgt, &[1.0; 3], &mut part).unwrap_err();
        assert!(e.to_string().contains("2 columns into 3 stripes"), "{e}");
    }
}
