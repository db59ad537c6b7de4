//! The SBN pre-partitioner [Harvey 2001, §5.6], optional before each level: a diffusive P-way
//! partition on `QWgt`, which counts processing, communication and redistribution. Roots of
//! processors above `WSysLL` go to the processor with the smallest `QWgt`: among the neighbours
//! of a random sample of q's roots, the one on an overloaded processor with the smallest `ΔCut`
//! joins q, with its neighbours on overloaded processors breadth-first. An iteration moves each
//! root at most once; `ItNum = 4` iterations, extended by `ItNum` whenever one reaches a new
//! minimum `WSysLL`. When the imbalance `max QWgt / WSysLL` still exceeds 1.75, a refinement
//! pass in the manner of Kernighan–Lin moves boundary roots off the most loaded processor to
//! the lightest neighbouring one while that lowers the maximum. Only the assignment changes:
//! the data stays where it is and moves lazily when processed.

use std::collections::VecDeque;

use super::costs::{Located, RootCosts};
use crate::metrics::{CostModel, SysLoad};
use crate::rng::Rng;

/// Iterations per round (`ItNum`; [Harvey 2001] found 4 best).
pub const IT_NUM: usize = 4;

/// Imbalance above which the refinement pass runs ([Harvey 2001]'s 1.75).
pub const REFINE_ABOVE: f64 = 1.75;

/// Roots sampled on the receiving processor per growth (as the balancer's sample).
const SAMPLE: usize = 10;

/// What the pre-partitioner did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prepartition {
    /// Iterations run.
    pub iterations: usize,
    /// Roots reassigned (a root moved in two iterations counts twice).
    pub moves: usize,
    /// `max QWgt / WSysLL` before.
    pub imbalance_before: f64,
    /// `max QWgt / WSysLL` after.
    pub imbalance_after: f64,
}

/// Reassigns roots of `assigned` (data where `data` says) over `procs` processors so that
/// `QWgt` evens out (see the module doc). Deterministic for a seed.
pub fn prepartition(
    model: &CostModel,
    data: &[u32],
    assigned: &mut [u32],
    procs: usize,
    seed: u64,
) -> Prepartition {
    let costs = Located {
        model,
        location: data,
    };
    let imbalance = |a: &[u32]| {
        let q = model.qwgt(a, data, procs);
        (SysLoad::new(&q).load_imb(&q), SysLoad::new(&q).value())
    };
    let (imbalance_before, mut best_level) = imbalance(assigned);
    let mut rng = Rng::new(seed);
    let (mut iterations, mut budget, mut moves) = (0, IT_NUM, 0);
    while iterations < budget && budget <= 10 * IT_NUM {
        iterations += 1;
        let moved = iterate(&costs, assigned, procs, &mut rng);
        moves += moved;
        let (_, level) = imbalance(assigned);
        if level < best_level {
            best_level = level;
            budget += IT_NUM;
        }
        if moved == 0 {
            break;
        }
    }
    if imbalance(assigned).0 > REFINE_ABOVE {
        moves += refine(&costs, assigned, procs);
    }
    Prepartition {
        iterations,
        moves,
        imbalance_before,
        imbalance_after: imbalance(assigned).0,
    }
}

/// One iteration: processors below `WSysLL`, lightest first, take roots from neighbouring
/// processors, overloaded ones first, else any heavier one (so that load diffuses to a light
/// processor with no overloaded neighbour), each root at most once. Returns the roots moved.
fn iterate(costs: &Located, assigned: &mut [u32], procs: usize, rng: &mut Rng) -> usize {
    let model = costs.model;
    let mut qwgt = model.qwgt(assigned, costs.location, procs);
    let level = SysLoad::new(&qwgt).value();
    let mut moved = vec![false; assigned.len()];
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); procs];
    for (v, &p) in assigned.iter().enumerate() {
        members[p as usize].push(v as u32);
    }
    let neighbours = |v: u32| model.neighbours(v).iter().copied();
    let mut receivers: Vec<usize> = (0..procs).filter(|&q| qwgt[q] < level).collect();
    receivers.sort_by(|&a, &b| qwgt[a].total_cmp(&qwgt[b]).then(a.cmp(&b)));
    let mut count = 0;
    for q in receivers {
        // May w leave its processor for q? Only from a heavier one, once per iteration.
        let gives = |w: u32, qwgt: &[f64], moved: &[bool], assigned: &[u32]| {
            let p = assigned[w as usize] as usize;
            p != q && !moved[w as usize] && qwgt[p] - costs.queued_weight(w, p as u32) > qwgt[q]
        };
        while qwgt[q] < level && !members[q].is_empty() {
            let sample: Vec<u32> = (0..SAMPLE)
                .map(|_| members[q][rng.below(members[q].len())])
                .collect();
            let overloaded = |w: u32| qwgt[assigned[w as usize] as usize] > level;
            let min_v = sample
                .iter()
                .flat_map(|&u| neighbours(u))
                .filter(|&w| gives(w, &qwgt, &moved, assigned))
                .map(|w| {
                    (
                        !overloaded(w),
                        costs.delta_cut(w, assigned[w as usize], q as u32),
                        w,
                    )
                })
                .min_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
            let Some((_, _, seed_root)) = min_v else {
                break;
            };
            let mut frontier = VecDeque::from([seed_root]);
            while let Some(v) = frontier.pop_front() {
                if qwgt[q] >= level {
                    break;
                }
                if !gives(v, &qwgt, &moved, assigned) {
                    continue;
                }
                let p = assigned[v as usize];
                qwgt[p as usize] -= costs.queued_weight(v, p);
                qwgt[q] += costs.queued_weight(v, q as u32);
                assigned[v as usize] = q as u32;
                moved[v as usize] = true;
                members[q].push(v);
                count += 1;
                frontier.extend(neighbours(v));
            }
        }
    }
    count
}

/// Moves boundary roots off the most loaded processor to its lightest neighbouring processor
/// while the receiver stays below it, one pass over its roots per round, at most `4·P`
/// rounds. Returns the roots moved.
fn refine(costs: &Located, assigned: &mut [u32], procs: usize) -> usize {
    let model = costs.model;
    let mut qwgt = model.qwgt(assigned, costs.location, procs);
    let mut count = 0;
    for _ in 0..4 * procs {
        let p = (0..procs)
            .max_by(|&a, &b| qwgt[a].total_cmp(&qwgt[b]))
            .unwrap_or(0);
        let mine: Vec<u32> = (0..assigned.len() as u32)
            .filter(|&v| assigned[v as usize] as usize == p)
            .collect();
        let before = count;
        for v in mine {
            let lightest = model
                .neighbours(v)
                .iter()
                .map(|&w| assigned[w as usize] as usize)
                .filter(|&q| q != p)
                .min_by(|&a, &b| qwgt[a].total_cmp(&qwgt[b]).then(a.cmp(&b)));
            let Some(q) = lightest else {
                continue;
            };
            let (out, into) = (
                costs.queued_weight(v, p as u32),
                costs.queued_weight(v, q as u32),
            );
            // Move while the receiver stays below the giver: each move narrows their gap.
            if qwgt[q] + into < qwgt[p] - out {
                qwgt[p] -= out;
                qwgt[q] += into;
                assigned[v as usize] = q as u32;
                count += 1;
            }
        }
        if count == before {
            break;
        }
    }
    count
}
