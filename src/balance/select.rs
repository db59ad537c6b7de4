//! [Pearce 2014]'s choice, at a decision point, among doing nothing, a diffusive step and a global
//! repartition (§3.3.2; `docs/design/diffusive.md`): each action's application time over the coming
//! steps is predicted and the smallest wins.
//!
//! - none, eq. 3.7: `steps · max(L)`;
//! - global, eq. 3.5: `C_global + steps · mean(L)`;
//! - diffusive, eq. 3.6 with Algorithm 5 ([`simulate`], the sign and γ corrected): one sweep
//!   before each step, each costing `C_dec_diff + α + β · moved` when it moves anything, then
//!   the step at the loads' maximum after the sweep. The sums run over `steps` terms (defect
//!   D0-4).
//!
//! Ties go to none, then diffusive, then global: an action must predict a strictly smaller
//! time to be chosen over a simpler one.

use crate::partition::{simulate, Quotient};
use crate::Result;

/// One of the three actions of a decision point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Keep the assignment.
    None,
    /// One diffusion sweep before each step (the diffusive repartitioner).
    Diffusive,
    /// A global repartition now (PLUM).
    Global,
}

impl Action {
    /// The action of the smallest of the predicted times `none`, `diffusive` and `global`;
    /// ties go to the first of none, diffusive, global (`docs/design/diffusive.md`).
    pub fn fastest(none: f64, diffusive: f64, global: f64) -> Action {
        let mut best = (Action::None, none);
        for candidate in [(Action::Diffusive, diffusive), (Action::Global, global)] {
            if candidate.1 < best.1 {
                best = candidate;
            }
        }
        best.0
    }
}

/// What the actions cost, in the loads' unit (seconds of a step).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActionCosts {
    /// `α`: the latency of a sweep that moves anything.
    pub alpha: f64,
    /// `β`: the time per element moved by the busiest part.
    pub beta: f64,
    /// `C_dec_diff`: deciding one diffusion sweep.
    pub diffusive_decision: f64,
    /// `C_global`: the whole global repartition (deciding it and moving its elements).
    pub global: f64,
}

/// The three predictions of a decision point and the choice.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Selection {
    /// `AppTime_none` (eq. 3.7).
    pub none: f64,
    /// `AppTime_diff` (eq. 3.6).
    pub diffusive: f64,
    /// `AppTime_global` (eq. 3.5).
    pub global: f64,
    /// The sweeps Algorithm 5 started above the threshold.
    pub convergence_steps: usize,
    /// The action of the smallest time.
    pub choice: Action,
}

impl Selection {
    /// The selection with the global action's time `global` in place of eq. 3.5's (e.g. with
    /// the largest load the proposed repartition leaves, not the mean), chosen again.
    pub fn with_global(self, global: f64) -> Selection {
        Selection {
            global,
            choice: Action::fastest(self.none, self.diffusive, global),
            ..self
        }
    }
}

/// Predicts the three actions' times over `steps` steps of parts with `loads` (each part's
/// time of a step) holding `elements`, over the quotient graph `q`, diffusing with `gamma` to
/// the threshold `threshold_pct` (λ, percent), and chooses.
///
/// # Errors
/// As [`simulate`]: loads that are not finite and non-negative, a `gamma` outside
/// `(0, 1/(1 + Δ)]`, lengths that differ from the parts.
pub fn select(
    loads: &[f64],
    elements: &[f64],
    q: &Quotient,
    (gamma, threshold_pct): (f64, f64),
    steps: usize,
    costs: &ActionCosts,
) -> Result<Selection> {
    let sim = simulate(loads, elements, q, gamma, threshold_pct, steps)?;
    let max = |x: &[f64]| x.iter().copied().fold(0.0, f64::max);
    let diffusive = sim
        .loads
        .iter()
        .zip(&sim.moved)
        .map(|(after, &moved)| {
            let movement = match moved > 0.0 {
                true => costs.alpha + costs.beta * moved,
                false => 0.0,
            };
            costs.diffusive_decision + movement + max(after)
        })
        .sum();
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let none = steps as f64 * max(loads);
    let global = costs.global + steps as f64 * mean;
    Ok(Selection {
        none,
        diffusive,
        global,
        convergence_steps: sim.convergence_steps,
        choice: Action::fastest(none, diffusive, global),
    })
}

/// The times the three actions took from one decision point, each replayed on the same state
/// (`docs/design/diffusive.md`), in the predictions' unit.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Replay {
    /// Keeping the assignment.
    pub none: f64,
    /// The diffusive action.
    pub diffusive: f64,
    /// The global repartition.
    pub global: f64,
}

impl Replay {
    /// The time action `a` took.
    pub fn time(&self, a: Action) -> f64 {
        match a {
            Action::None => self.none,
            Action::Diffusive => self.diffusive,
            Action::Global => self.global,
        }
    }

    /// The action that took the least time (ties as [`Action::fastest`]).
    pub fn fastest(&self) -> Action {
        Action::fastest(self.none, self.diffusive, self.global)
    }

    /// What choosing `a` cost over the fastest action, percent of the fastest's time: 0 when
    /// `a` took no longer (or nothing took any time).
    pub fn penalty_pct(&self, a: Action) -> f64 {
        let best = self.time(self.fastest());
        match best > 0.0 {
            true => 100.0 * (self.time(a) - best).max(0.0) / best,
            false => 0.0,
        }
    }
}

/// How the choices of a run's decision points fared in their replays (`docs/design/diffusive.md`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ReplaySummary {
    /// Decision points replayed.
    pub decisions: usize,
    /// Those whose choice took no longer than the fastest action.
    pub fastest_chosen: usize,
    /// Their share, percent (100 without decision points).
    pub fastest_pct: f64,
    /// The largest cost of a wrong choice over the fastest action, percent (0 without one).
    pub worst_wrong_pct: f64,
    /// The mean cost of the wrong choices, percent (0 without one).
    pub mean_wrong_pct: f64,
    /// The replayed times of the choices, summed.
    pub chosen_total: f64,
    /// The replayed times of the fastest actions, summed.
    pub fastest_total: f64,
}

impl ReplaySummary {
    /// The summary of the decision points `points` (the choice made, its replay).
    pub fn of(points: impl IntoIterator<Item = (Action, Replay)>) -> ReplaySummary {
        let mut out = ReplaySummary {
            decisions: 0,
            fastest_chosen: 0,
            fastest_pct: 100.0,
            worst_wrong_pct: 0.0,
            mean_wrong_pct: 0.0,
            chosen_total: 0.0,
            fastest_total: 0.0,
        };
        let mut wrong = 0.0;
        for (choice, replay) in points {
            let penalty = replay.penalty_pct(choice);
            out.decisions += 1;
            out.chosen_total += replay.time(choice);
            out.fastest_total += replay.time(replay.fastest());
            match penalty > 0.0 {
                false => out.fastest_chosen += 1,
                true => {
                    wrong += penalty;
                    out.worst_wrong_pct = out.worst_wrong_pct.max(penalty);
                }
            }
        }
        let wrongs = out.decisions - out.fastest_chosen;
        if out.decisions > 0 {
            out.fastest_pct = 100.0 * out.fastest_chosen as f64 / out.decisions as f64;
        }
        if wrongs > 0 {
            out.mean_wrong_pct = wrong / wrongs as f64;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(n: u32) -> Quotient {
        Quotient::from_edges(n as usize, (1..n).map(|k| (k - 1, k)))
    }

    /// Costs of `α`, `β`, `C_dec_diff` and `C_global`, in that order.
    fn costs([alpha, beta, diffusive_decision, global]: [f64; 4]) -> ActionCosts {
        ActionCosts {
            alpha,
            beta,
            diffusive_decision,
            global,
        }
    }

    /// On a path of 8 at mean 2, a clustered imbalance (c) is
    /// diffusion's case and a distant one (d) a global repartition's.
    #[test]
    fn locality_decides_c7_test2() {
        let q = path(8);
        let costs = costs([0.0, 0.0, 0.0, 2.0]);
        let clustered = [1.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0];
        let distant = [1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0];
        let elements = [10.0; 8];
        let run = |loads: &[f64]| select(loads, &elements, &q, (1.0 / 3.0, 12.0), 20, &costs);
        let (c, d) = (run(&clustered).unwrap(), run(&distant).unwrap());
        assert_eq!((c.convergence_steps, d.convergence_steps), (2, 14));
        assert!((c.diffusive - 40.879).abs() < 5e-4, "{}", c.diffusive);
        assert!((d.diffusive - 46.325).abs() < 5e-4, "{}", d.diffusive);
        assert_eq!(
            (c.global, d.global, c.none, d.none),
            (42.0, 42.0, 60.0, 60.0)
        );
        assert_eq!((c.choice, d.choice), (Action::Diffusive, Action::Global));
        // A repartition leaving a largest load of 2.3 (2 + 46 > 46.325): diffusion for (d).
        let d = d.with_global(2.0 + 20.0 * 2.3);
        assert!((d.global - 48.0).abs() < 1e-12);
        assert_eq!(d.choice, Action::Diffusive);
    }

    /// Equal times pick none, then diffusive; the same input gives
    /// the same choice.
    #[test]
    fn ties_pick_the_simpler_action_c7_test6() {
        assert_eq!(Action::fastest(5.0, 5.0, 5.0), Action::None);
        assert_eq!(Action::fastest(6.0, 5.0, 5.0), Action::Diffusive);
        assert_eq!(Action::fastest(6.0, 6.0, 5.0), Action::Global);
        // Balanced loads: nothing to gain, and none wins the tie with a free diffusion.
        let q = path(4);
        let free = costs([0.0; 4]);
        let even = select(&[2.0; 4], &[1.0; 4], &q, (0.25, 5.0), 10, &free).unwrap();
        assert_eq!((even.none, even.diffusive, even.global), (20.0, 20.0, 20.0));
        assert_eq!(even.choice, Action::None);
        let loads = [1.0, 4.0, 2.0, 3.0];
        let once = select(&loads, &[1.0; 4], &q, (0.25, 5.0), 10, &free).unwrap();
        assert_eq!(
            once,
            select(&loads, &[1.0; 4], &q, (0.25, 5.0), 10, &free).unwrap()
        );
    }

    /// [Pearce 2014, table 3.4]'s published runtimes (original, diffusive, global) of rows
    /// (a)–(d) give its "Scheme Selected by Model".
    #[test]
    fn table_3_4_choices_c7_test7() {
        let rows = [
            (226.0, 212.0, 248.0),
            (344.0, 459.0, 269.0),
            (286.0, 355.0, 239.0),
            (270.0, 267.0, 235.0),
        ];
        let chosen: Vec<Action> = rows
            .iter()
            .map(|&(none, diffusive, global)| Action::fastest(none, diffusive, global))
            .collect();
        use Action::{Diffusive, Global};
        assert_eq!(chosen, [Diffusive, Global, Global, Global]);
    }

    /// A sweep's movement is charged `α + β · moved` only when it moves anything.
    #[test]
    fn movement_costs_only_sweeps_that_move() {
        let q = path(2);
        let costs = costs([1.0, 0.5, 0.25, 100.0]);
        // Loads 0 and 4 holding 0 and 8 elements: the first sweep (γ = 1/2) sends 2 of load,
        // 4 elements, and balances; the second moves nothing.
        let s = select(&[0.0, 4.0], &[0.0, 8.0], &q, (0.5, 1.0), 2, &costs).unwrap();
        let first = 0.25 + 1.0 + 0.5 * 4.0 + 2.0;
        let second = 0.25 + 2.0;
        assert_eq!(s.diffusive, first + second);
        assert_eq!((s.none, s.global), (8.0, 104.0));
        assert_eq!(s.choice, Action::Diffusive);
    }

    /// The replay's summary, worked by hand: three points, one wrong choice costing 25 %.
    #[test]
    fn replay_summary_by_hand() {
        let replay = |none, diffusive, global| Replay {
            none,
            diffusive,
            global,
        };
        let points = [
            (Action::Global, replay(10.0, 9.0, 8.0)),
            (Action::None, replay(10.0, 8.0, 9.0)),
            (Action::Diffusive, replay(5.0, 5.0, 6.0)),
        ];
        let s = ReplaySummary::of(points);
        assert_eq!((s.decisions, s.fastest_chosen), (3, 2));
        assert!((s.fastest_pct - 200.0 / 3.0).abs() < 1e-12);
        assert_eq!((s.worst_wrong_pct, s.mean_wrong_pct), (25.0, 25.0));
        assert_eq!((s.chosen_total, s.fastest_total), (23.0, 21.0));
        // A tie is not a wrong choice: none and diffusive both took 5.
        assert_eq!(points[2].1.penalty_pct(Action::Diffusive), 0.0);
        assert_eq!(points[2].1.fastest(), Action::None);
        let empty = ReplaySummary::of([]);
        assert_eq!((empty.decisions, empty.fastest_pct), (0, 100.0));
    }
}
