//! `TotalV`: keep as much data in place as possible (`docs/design/plum.md`).

use super::{check_buffer, Dense, Objective, RemapInfo, Remapper, SimilarityMatrix};
use crate::Result;

/// The mapping with the least total data moved: a maximum-weight assignment on the
/// `P·F × P·F` matrix that repeats each processor's row of `S` F times, solved by
/// Kuhn–Munkres in `O((P·F)³)` ([Harvey 2001, §5.1.3]; `docs/design/plum.md`). Always exact.
#[derive(Debug, Clone, Copy, Default)]
pub struct TotalVOptimal;

impl Remapper for TotalVOptimal {
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> Result<RemapInfo> {
        check_buffer(s, part2proc)?;
        Dense::new(s)?.max_retained(None, part2proc);
        Ok(RemapInfo::new(
            "totalv-kuhn-munkres",
            Some(Objective::TotalV),
            true,
            s,
            part2proc,
        ))
    }
}

/// PLUM's fast `TotalV` heuristic ([Harvey 2001, §5.1.3]; `docs/design/plum.md`): take the entries
/// of `S` in decreasing order and give part j to processor i when j is still free and i has fewer
/// than F parts; then place each leftover part, in increasing order, on the processor with
/// room that already holds most of its data (lowest number on ties).
///
/// Ties between equal entries go to the lower processor, then the lower part, so the result
/// is deterministic. Like any greedy matching it keeps in place at least half of what the
/// optimum keeps; the published claim is within 3% of [`TotalVOptimal`]'s `TotalV` at about
/// 1% of its time (`benches/remap.rs` measures it).
///
/// ```
/// use plume::remap::{Remapper, SimilarityMatrix, TotalVGreedy};
/// // Largest entry 9 = S[0][1] first, then S[1][0] = 4; S[0][0] = 5 is skipped (processor 0 full).
/// let s = SimilarityMatrix::from_dense(2, 1, &[5, 9, 4, 0]).unwrap();
/// let mut part2proc = vec![0; 2];
/// let info = TotalVGreedy.remap(&s, &mut part2proc).unwrap();
/// assert_eq!(part2proc, vec![1, 0]);
/// assert!(!info.exact);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TotalVGreedy;

impl Remapper for TotalVGreedy {
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> Result<RemapInfo> {
        check_buffer(s, part2proc)?;
        greedy(s, part2proc);
        Ok(RemapInfo::new(
            "totalv-greedy",
            Some(Objective::TotalV),
            false,
            s,
            part2proc,
        ))
    }
}

const UNSET: u32 = u32::MAX;

fn greedy(s: &SimilarityMatrix, part2proc: &mut [u32]) {
    let f = s.parts_per_proc();
    // One integer key per entry: decreasing value, then increasing processor, then part.
    let mut entries: Vec<u128> = s
        .matrix()
        .iter()
        .map(|(&w, (i, j))| ((!w as u128) << 64) | ((i as u128) << 32) | j as u128)
        .collect();
    entries.sort_unstable();
    part2proc.fill(UNSET);
    let mut room = vec![f; s.nprocs()];
    let mut placed = 0;
    for key in entries {
        let (i, j) = ((key >> 32) as u32, key as u32);
        if part2proc[j as usize] == UNSET && room[i as usize] > 0 {
            part2proc[j as usize] = i;
            room[i as usize] -= 1;
            placed += 1;
            if placed == part2proc.len() {
                break;
            }
        }
    }
    for (j, p) in part2proc.iter_mut().enumerate() {
        if *p != UNSET {
            continue;
        }
        let best = (0..s.nprocs())
            .filter(|&i| room[i] > 0)
            .max_by(|&a, &b| s.get(a, j).cmp(&s.get(b, j)).then(b.cmp(&a)))
            .expect("a free part leaves a processor with room");
        *p = best as u32;
        room[best] -= 1;
    }
}
