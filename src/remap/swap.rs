//! Pairwise-swap local search for the bottleneck objectives (`MaxV`, `MaxSR`) when no exact
//! solver applies: exchange the processors of two parts while that lowers the objective.

use super::{Dense, Objective};

/// Improves `part2proc` for `objective` (`MaxV` or `MaxSR`) by swaps of two parts on
/// different processors, which keep F parts per processor. Each pass applies the best swap
/// among those that move a part off a *critical* processor (one whose sent or received volume
/// attains the maximum), compared by (objective, number of critical flows, `TotalV`); it stops
/// when no swap improves or after `max_passes` passes. The objective never increases.
pub(crate) fn improve(d: &Dense, objective: Objective, max_passes: usize, part2proc: &mut [u32]) {
    let (p, n) = (d.nprocs, d.nparts);
    let mut sent = d.rows.clone();
    let mut recv = vec![0i64; p];
    let mut total_v = d.total;
    for (j, &i) in part2proc.iter().enumerate() {
        let own = d.at(i as usize, j);
        sent[i as usize] -= own;
        recv[i as usize] += d.cols[j] - own;
        total_v -= own;
    }
    let mut current = key(objective, &sent, &recv, total_v);
    for _ in 0..max_passes {
        let ms = *sent.iter().max().expect("P ≥ 1");
        let mr = *recv.iter().max().expect("P ≥ 1");
        let critical = |i: usize| match objective {
            Objective::MaxSR => sent[i] == ms || recv[i] == mr,
            _ => sent[i] == current.0 || recv[i] == current.0,
        };
        let mut best: Option<((i64, usize, i64), usize, usize)> = None;
        let (mut s2, mut r2) = (sent.clone(), recv.clone());
        for j in 0..n {
            let a = part2proc[j] as usize;
            if !critical(a) {
                continue;
            }
            for (k, &b) in part2proc.iter().enumerate() {
                let b = b as usize;
                if b == a {
                    continue;
                }
                let (aj, ak, bj, bk) = (d.at(a, j), d.at(a, k), d.at(b, j), d.at(b, k));
                s2[a] = sent[a] + aj - ak;
                s2[b] = sent[b] + bk - bj;
                r2[a] = recv[a] - (d.cols[j] - aj) + (d.cols[k] - ak);
                r2[b] = recv[b] - (d.cols[k] - bk) + (d.cols[j] - bj);
                let tv = total_v + aj + bk - ak - bj;
                let kk = key(objective, &s2, &r2, tv);
                if kk < best.map_or(current, |b| b.0) {
                    best = Some((kk, j, k));
                }
                (s2[a], s2[b], r2[a], r2[b]) = (sent[a], sent[b], recv[a], recv[b]);
            }
        }
        let Some((kk, j, k)) = best else { break };
        let (a, b) = (part2proc[j] as usize, part2proc[k] as usize);
        let (aj, ak, bj, bk) = (d.at(a, j), d.at(a, k), d.at(b, j), d.at(b, k));
        sent[a] += aj - ak;
        sent[b] += bk - bj;
        recv[a] += (d.cols[k] - ak) - (d.cols[j] - aj);
        recv[b] += (d.cols[j] - bj) - (d.cols[k] - bk);
        total_v += aj + bk - ak - bj;
        part2proc.swap(j, k);
        current = kk;
        debug_assert_eq!(current, key(objective, &sent, &recv, total_v));
    }
}

/// (objective, number of flows attaining the maximum, `TotalV`): the lexicographic order in
/// which swaps are compared, so that a swap that relieves one of several critical
/// processors counts as progress.
fn key(objective: Objective, sent: &[i64], recv: &[i64], total_v: i64) -> (i64, usize, i64) {
    let ms = *sent.iter().max().expect("P ≥ 1");
    let mr = *recv.iter().max().expect("P ≥ 1");
    match objective {
        Objective::MaxSR => {
            let crit = sent.iter().filter(|&&x| x == ms).count()
                + recv.iter().filter(|&&x| x == mr).count();
            (ms + mr, crit, total_v)
        }
        _ => {
            let m = ms.max(mr);
            let crit = sent.iter().chain(recv).filter(|&&x| x == m).count();
            (m, crit, total_v)
        }
    }
}
