//! `MaxV`: the least possible largest flow out of or into one processor (`docs/design/plum.md`).

use super::matching::Matching;
use super::{check_buffer, swap, Dense, Objective, RemapInfo, Remapper, SimilarityMatrix};
use crate::Result;

/// Minimizes `MaxV = max(max_i sent_i, max_i recv_i)` ([Harvey 2001, §5.1.3];
/// `docs/design/plum.md`).
///
/// - `F = 1`, exact (`"maxv-bottleneck"`): a bottleneck assignment. Mapping part j to
///   processor i makes i send `R_i − S[i][j]` and receive `C_j − S[i][j]`, so `MaxV ≤ T`
///   exactly when every chosen pair has `max(R_i − S[i][j], C_j − S[i][j]) ≤ T`. A binary
///   search over the `P²` candidate values of T finds the least T whose allowed pairs contain
///   a perfect matching (Hopcroft–Karp, warm-started from the last feasible matching).
///   Among the mappings reaching it, the one moving least `TotalV` is kept
///   (Kuhn–Munkres on the allowed pairs) when `tie_break_totalv` is set.
/// - `F > 1`, heuristic (`"maxv-swaps"`): start from [`super::TotalVOptimal`]'s mapping and
///   apply pairwise swaps of parts while `MaxV` (then the number of processors attaining it,
///   then `TotalV`) decreases, at most `max_passes` times.
///
/// ```
/// use plume::remap::{MaxVExact, Remapper, SimilarityMatrix};
/// // S = [[10, 7], [8, 1]]: R = (17, 9), C = (18, 8).
/// // TotalV keeps 7 + 8 (parts swapped), but then processor 1 receives 18 − 8 = 10;
/// // keeping 10 + 1 moves more in total, yet no processor sends or receives more than 8.
/// let s = SimilarityMatrix::from_dense(2, 1, &[10, 7, 8, 1]).unwrap();
/// let mut part2proc = vec![0; 2];
/// let info = MaxVExact::default().remap(&s, &mut part2proc).unwrap();
/// assert_eq!(part2proc, vec![0, 1]);
/// assert_eq!((info.volumes.max_v, info.solver, info.exact), (8, "maxv-bottleneck", true));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MaxVExact {
    /// Among mappings with the least `MaxV`, keep one moving the least `TotalV` (`F = 1`).
    pub tie_break_totalv: bool,
    /// Most swap passes of the `F > 1` heuristic.
    pub max_passes: usize,
}

impl Default for MaxVExact {
    fn default() -> Self {
        MaxVExact {
            tie_break_totalv: true,
            max_passes: 10_000,
        }
    }
}

impl Remapper for MaxVExact {
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> Result<RemapInfo> {
        check_buffer(s, part2proc)?;
        let d = Dense::new(s)?;
        if d.f > 1 {
            d.max_retained(None, part2proc);
            swap::improve(&d, Objective::MaxV, self.max_passes, part2proc);
            return Ok(RemapInfo::new(
                "maxv-swaps",
                Some(Objective::MaxV),
                false,
                s,
                part2proc,
            ));
        }
        let n = d.nparts;
        // cost[i·n + j]: MaxV contribution of mapping part j to processor i.
        let cost: Vec<i64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                (d.rows[i] - d.s[k]).max(d.cols[j] - d.s[k])
            })
            .collect();
        let mut cand = cost.clone();
        cand.sort_unstable();
        cand.dedup();
        // The loosest threshold allows every pair: always feasible.
        let (mut lo, mut hi) = (0, cand.len() - 1);
        let mut best = Matching::empty(n);
        let ok = best.complete(|i, j| cost[i * n + j] <= cand[hi]);
        debug_assert!(ok);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let mut m = best.clone();
            if m.complete(|i, j| cost[i * n + j] <= cand[mid]) {
                best = m;
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let t = cand[hi];
        if self.tie_break_totalv {
            d.max_retained(Some(&|i, j| cost[i * n + j] <= t), part2proc);
        } else {
            for (j, &i) in best.col2row.iter().enumerate() {
                part2proc[j] = i as u32;
            }
        }
        let info = RemapInfo::new("maxv-bottleneck", Some(Objective::MaxV), true, s, part2proc);
        debug_assert_eq!(info.volumes.max_v as i64, t);
        Ok(info)
    }
}
