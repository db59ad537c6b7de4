//! Which roots a processor gives away [Harvey 2001, §5.2.1]: the differential edge cut of moving a
//! root from p to q, the smallest of a random sample, and breadth-first growth through the
//! neighbours queued at p until enough weight is chosen.

use std::collections::VecDeque;

use super::costs::RootCosts;
use super::queue::JobQueue;
use crate::rng::Rng;

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
    /// Most roots moved at once ([Harvey 2001] caps a move; §4.2).
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

#[cfg(test)]
mod tests {
    //! The differential edge cut on [Harvey 2001]'s worked example (§5.2.3, tables 4 and 5): P4
    //! gives work to the underloaded P2.

    use super::*;
    use crate::metrics::SysLoad;

    /// Table 4's `Wgt` and tables 4–5's `Comm` and `Remap` of P4's vertices on P4 and on P2.
    struct Table;

    const VERTICES: [u32; 7] = [3, 4, 7, 8, 11, 12, 16];
    const WGT: [f64; 7] = [2.0, 1.0, 4.0, 1.0, 3.0, 1.0, 1.0];
    const REMAP_P2: [f64; 7] = [1.0, 2.0, 0.0, 3.0, 1.0, 1.0, 1.0];
    const REMAP_P4: [f64; 7] = [0.0, 0.0, 7.0, 0.0, 1.0, 0.0, 1.0];
    const COMM_P2: [f64; 7] = [6.0, 1.0, 11.0, 6.0, 3.0, 7.0, 1.0];
    const COMM_P4: [f64; 7] = [3.0, 0.0, 12.0, 0.0, 3.0, 3.0, 3.0];

    fn row(v: u32) -> usize {
        VERTICES
            .iter()
            .position(|&x| x == v)
            .expect("a vertex of P4")
    }

    impl RootCosts for Table {
        fn wgt(&self, v: u32) -> f64 {
            WGT[row(v)]
        }
        fn comm(&self, v: u32, p: u32) -> f64 {
            [COMM_P2, COMM_P4][usize::from(p == 4)][row(v)]
        }
        fn remap(&self, v: u32, p: u32) -> f64 {
            [REMAP_P2, REMAP_P4][usize::from(p == 4)][row(v)]
        }
    }

    #[test]
    fn table_5_delta_cuts_before_normalisation() {
        // ΔCut row of table 5; positive values are then divided by Wgt.
        let printed = [4.0, 3.0, -8.0, 9.0, 0.0, 5.0, -2.0];
        for (i, &v) in VERTICES.iter().enumerate() {
            let raw = Table.remap(v, 2) - Table.remap(v, 4) + Table.comm(v, 2) - Table.comm(v, 4);
            assert_eq!(raw, printed[i], "vertex {v}");
            let expected = if raw > 0.0 { raw / WGT[i] } else { raw };
            assert_eq!(Table.delta_cut(v, 4, 2), expected, "vertex {v}");
        }
    }

    #[test]
    fn vertex_7_is_chosen_and_balances_p2_and_p4() {
        let (v, d) = min_delta_cut(&Table, &VERTICES, 4, 2).unwrap();
        assert_eq!((v, d), (7, -8.0));
        // QWgt of P1..P4 from table 4; moving v takes its queued weight off P4 and adds its
        // queued weight on P2.
        let mut qwgt = [17.0, 3.0, 28.0, 46.0];
        assert_eq!(SysLoad::new(&qwgt).ceil(), 24.0);
        qwgt[3] -= Table.queued_weight(v, 4);
        qwgt[1] += Table.queued_weight(v, 2);
        assert_eq!((qwgt[3], qwgt[1]), (23.0, 18.0));
        assert_eq!(SysLoad::new(&qwgt).ceil(), 22.0);
        // §5.4.1's load (the balancer's default, `LoadView::QWgt`): P2 holds vertex 7's data
        // for P4, so it also carries that move's `Remap_P4^7 = 7` (10, not 3). Taking vertex
        // 7 drops the share and adds its queued weight on P2: 18 again, and P4 still 23.
        let share = Table.remap(v, 4);
        let p2_before = 3.0 + share;
        assert_eq!(p2_before, 10.0);
        assert_eq!(p2_before - share + Table.queued_weight(v, 2), 18.0);
    }

    #[test]
    fn ties_keep_the_first_candidate_and_no_candidate_gives_none() {
        assert_eq!(min_delta_cut(&Table, &[], 4, 2), None);
        // Vertices 3 (ΔCut 4/2 = 2) and 16 (−2) then 11 (0): the smallest wins whatever the order.
        assert_eq!(min_delta_cut(&Table, &[3, 11, 16], 4, 2), Some((16, -2.0)));
        assert_eq!(min_delta_cut(&Table, &[11, 11], 4, 2), Some((11, 0.0)));
    }
}
