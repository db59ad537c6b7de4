//! `MaxSR`: the least possible sum of the largest send and the largest receive
//! (`docs/design/plum.md`, [Harvey 2001, §5.3.1]).

use super::matching::Matching;
use super::{check_buffer, swap, Dense, Objective, RemapInfo, Remapper, SimilarityMatrix};
use crate::Result;

/// Minimizes `MaxSR = max_i sent_i + max_i recv_i`, the redistribution cost that [Harvey 2001]
/// compares balancers by (§5.3.1; `docs/design/plum.md`).
///
/// - `F = 1` and `P ≤ exact_max_procs`, exact (`"maxsr-thresholds"`): mapping part j to
///   processor i makes i send `R_i − S[i][j]` and receive `C_j − S[i][j]`, so a mapping has
///   `max sent ≤ Ts` and `max recv ≤ Tr` exactly when it uses only pairs within both
///   thresholds. The least feasible `Tr` does not increase as `Ts` grows, so one sweep of `Ts`
///   upwards over its `P²` candidate values with `Tr` moving downwards over its own tests at
///   most `2P²` pairs `(Ts, Tr)` for a perfect matching (Hopcroft–Karp, warm-started) and
///   keeps the least `Ts + Tr`. Among the mappings reaching it, the one moving least
///   `TotalV` is kept when `tie_break_totalv` is set (Kuhn–Munkres within each threshold
///   pair reaching the least sum).
/// - otherwise, heuristic (`"maxsr-swaps"`): start from [`super::TotalVOptimal`]'s mapping
///   (`O((P·F)³)`) and apply pairwise swaps of parts while `MaxSR` (then the number of
///   processors attaining a maximum, then `TotalV`) decreases, at most `max_passes` times.
///   It is never worse than the `TotalV` optimum's `MaxSR`.
///
/// ```
/// use plume::remap::{MaxSR, Remapper, SimilarityMatrix};
/// let s = SimilarityMatrix::from_dense(3, 1, &[9, 0, 3, 0, 4, 4, 5, 5, 0]).unwrap();
/// let mut part2proc = vec![0; 3];
/// let info = MaxSR::default().remap(&s, &mut part2proc).unwrap();
/// assert_eq!((info.solver, info.exact), ("maxsr-thresholds", true));
/// assert_eq!(info.volumes.max_sr, info.volumes.sent.iter().max().unwrap()
///     + info.volumes.recv.iter().max().unwrap());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MaxSR {
    /// Largest `P` solved exactly (for `F = 1`); above it the swap heuristic runs.
    pub exact_max_procs: usize,
    /// Among mappings with the least `MaxSR`, keep one moving the least `TotalV` (exact case).
    pub tie_break_totalv: bool,
    /// Most swap passes of the heuristic.
    pub max_passes: usize,
}

impl Default for MaxSR {
    fn default() -> Self {
        MaxSR {
            exact_max_procs: 64,
            tie_break_totalv: true,
            max_passes: 10_000,
        }
    }
}

impl Remapper for MaxSR {
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> Result<RemapInfo> {
        check_buffer(s, part2proc)?;
        let d = Dense::new(s)?;
        if d.f > 1 || d.nprocs > self.exact_max_procs {
            d.max_retained(None, part2proc);
            swap::improve(&d, Objective::MaxSR, self.max_passes, part2proc);
            return Ok(RemapInfo::new(
                "maxsr-swaps",
                Some(Objective::MaxSR),
                false,
                s,
                part2proc,
            ));
        }
        let n = d.nparts;
        let send: Vec<i64> = (0..n * n).map(|k| d.rows[k / n] - d.s[k]).collect();
        let recv: Vec<i64> = (0..n * n).map(|k| d.cols[k % n] - d.s[k]).collect();
        let sorted = |v: &[i64]| {
            let mut c = v.to_vec();
            c.sort_unstable();
            c.dedup();
            c
        };
        let (ts_cand, tr_cand) = (sorted(&send), sorted(&recv));
        let (send, recv) = (&send, &recv);
        let allowed = |ts: i64, tr: i64| {
            move |i: usize, j: usize| send[i * n + j] <= ts && recv[i * n + j] <= tr
        };

        // `m` is a perfect matching for (ts, tr_cand[k]) once `feasible` is set. Every
        // (ts, least feasible tr) reaching the least sum is kept: the optimal mappings are
        // those within one of these threshold pairs.
        let mut k = tr_cand.len() - 1;
        let mut m = Matching::empty(n);
        let mut feasible = false;
        let mut best_sum = i64::MAX;
        let mut best: Vec<(i64, i64, Matching)> = Vec::new();
        for &ts in &ts_cand {
            if ts + tr_cand[0] > best_sum {
                break;
            }
            if !feasible {
                feasible = m.complete(allowed(ts, tr_cand[k]));
                if !feasible {
                    continue;
                }
            }
            while k > 0 {
                let mut tighter = m.clone();
                if tighter.complete(allowed(ts, tr_cand[k - 1])) {
                    m = tighter;
                    k -= 1;
                } else {
                    break;
                }
            }
            let sum = ts + tr_cand[k];
            if sum < best_sum {
                best_sum = sum;
                best.clear();
            }
            if sum == best_sum {
                best.push((ts, tr_cand[k], m.clone()));
            }
        }
        assert!(!best.is_empty(), "the loosest thresholds allow every pair");
        if self.tie_break_totalv {
            // The mapping keeping most data in place within each optimal threshold pair.
            let mut candidate = vec![0u32; n];
            let mut kept = -1;
            for &(ts, tr, _) in &best {
                d.max_retained(Some(&allowed(ts, tr)), &mut candidate);
                let c: i64 = candidate
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| d.at(i as usize, j))
                    .sum();
                if c > kept {
                    kept = c;
                    part2proc.copy_from_slice(&candidate);
                }
            }
        } else {
            for (j, &i) in best[0].2.col2row.iter().enumerate() {
                part2proc[j] = i as u32;
            }
        }
        let info = RemapInfo::new(
            "maxsr-thresholds",
            Some(Objective::MaxSR),
            true,
            s,
            part2proc,
        );
        debug_assert_eq!(info.volumes.max_sr as i64, best_sum);
        Ok(info)
    }
}
