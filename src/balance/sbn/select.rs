//! Which roots a processor gives away (seed 004 §5.2.1): the differential edge cut of moving a
//! root from p to q, the smallest of a random sample, and breadth-first growth through the
//! neighbours queued at p until enough weight is chosen.

use std::collections::VecDeque;

use super::queue::JobQueue;
use crate::metrics::CostModel;
use crate::rng::Rng;

/// The costs of one root on one processor as a balancing processor sees them
/// (`dual-graph-and-metrics.md`): `Wgt_v`, `Comm_p^v`, `Remap_p^v`.
pub trait RootCosts {
    /// `Wgt_v`: processing cost.
    fn wgt(&self, v: u32) -> f64;
    /// `Comm_p^v`: communication with the neighbours whose data is not on p.
    fn comm(&self, v: u32, p: u32) -> f64;
    /// `Remap_p^v`: bringing v's data to p (0 when it is there).
    fn remap(&self, v: u32, p: u32) -> f64;

    /// The weight root v adds to the queue of p: `Wgt_v + Comm_p^v + Remap_p^v`.
    fn queued_weight(&self, v: u32, p: u32) -> f64 {
        self.wgt(v) + self.comm(v, p) + self.remap(v, p)
    }

    /// `ΔCut = Remap_q^v − Remap_p^v + Comm_q^v − Comm_p^v`, divided by `Wgt_v` when positive:
    /// the increase in communication and redistribution per unit of work moved (negative: the
    /// move saves).
    fn delta_cut(&self, v: u32, p: u32, q: u32) -> f64 {
        let d = self.remap(v, q) - self.remap(v, p) + self.comm(v, q) - self.comm(v, p);
        if d > 0.0 {
            d / self.wgt(v).max(f64::MIN_POSITIVE)
        } else {
            d
        }
    }
}

/// The costs of the cost model with the roots' data where `location` says (a processor's
/// location table, or the data's actual places).
#[derive(Debug, Clone, Copy)]
pub struct Located<'a> {
    /// Weights, graph and unit costs.
    pub model: &'a CostModel<'a>,
    /// `D(v)` for every root.
    pub location: &'a [u32],
}

impl RootCosts for Located<'_> {
    fn wgt(&self, v: u32) -> f64 {
        self.model.wgt(v, 0)
    }
    fn comm(&self, v: u32, p: u32) -> f64 {
        self.model.comm(v, p, self.location)
    }
    fn remap(&self, v: u32, p: u32) -> f64 {
        self.model.remap(v, p, self.location)
    }
}

/// The root of `candidates` with the smallest `ΔCut` for moving from p to q (the first one on
/// ties), with that value; `None` when there are no candidates.
pub fn min_delta_cut(
    costs: &impl RootCosts,
    candidates: &[u32],
    p: u32,
    q: u32,
) -> Option<(u32, f64)> {
    candidates
        .iter()
        .map(|&v| (v, costs.delta_cut(v, p, q)))
        .fold(None, |best, (v, d)| match best {
            Some((_, b)) if b <= d => best,
            _ => Some((v, d)),
        })
}

/// How roots are chosen for a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Selection {
    /// Roots sampled at random to seed a breadth-first group (the seed: 10).
    pub sample: usize,
    /// Most roots moved at once (the seed caps a move; §4.2).
    pub max_roots: usize,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            sample: 10,
            max_roots: 256,
        }
    }
}

/// Chooses roots queued at p to give q until their queued weight at p reaches `amount` (or
/// `opts.max_roots`): first the roots whose data already sits on q (migration heap q), then
/// breadth-first groups, each grown from the root with the smallest `ΔCut` of `opts.sample`
/// roots drawn at random, through its neighbours queued at p. `neighbours(v)` lists v's
/// neighbours in the dual graph. The chosen roots leave the queue; they are returned in the
/// order chosen.
pub fn choose_roots<'n>(
    costs: &impl RootCosts,
    queue: &mut JobQueue,
    neighbours: impl Fn(u32) -> &'n [u32],
    (p, q): (u32, u32),
    amount: f64,
    opts: Selection,
    rng: &mut Rng,
) -> Vec<u32> {
    let mut chosen = Vec::new();
    let mut moved = 0.0;
    let enough = |moved: f64, n: usize| moved >= amount || n >= opts.max_roots;
    while !enough(moved, chosen.len()) {
        let Some(v) = queue.peek_data_on(q) else {
            break;
        };
        moved += queue.remove(v);
        chosen.push(v);
    }
    let mut frontier = VecDeque::new();
    while !enough(moved, chosen.len()) && !queue.is_empty() {
        let sample: Vec<u32> = (0..opts.sample.min(queue.len()))
            .map(|_| queue.nth(rng.below(queue.len())))
            .collect();
        let Some((seed, _)) = min_delta_cut(costs, &sample, p, q) else {
            break;
        };
        frontier.push_back(seed);
        while let Some(v) = frontier.pop_front() {
            if !queue.contains(v) {
                continue;
            }
            moved += queue.remove(v);
            chosen.push(v);
            if enough(moved, chosen.len()) {
                break;
            }
            frontier.extend(neighbours(v).iter().filter(|&&w| queue.contains(w)));
        }
        frontier.clear();
    }
    chosen
}
