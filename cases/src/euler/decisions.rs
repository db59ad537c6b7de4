//! What an Euler run records of its decision points (`metrics.json`'s `decisions`, written
//! under a `--policy` other than the default and with `--balancer hier`): one record per
//! adaptation step ([`EulerDecision`]: the balancer's verdict, `select`'s predictions and
//! choice, the hierarchical balancer's numbers, the step's modelled time) and their summary
//! ([`DecisionsSummary`]).
//!
//! The modelled time is the model `select` predicts with, PLUM's ([`RemapCostModel`]): a step
//! costs the modelled cost of what its balance moved (`O + M · MaxSR`) and then `N_adapt`
//! iterations at the largest load it left, `T_iter · LoadImb · leaves / P` each. It counts no
//! decision time (measured times would make the runs' totals differ from run to run), so every
//! policy's run is weighed the same way, bit for bit reproducibly.

use plume::balance::RemapCostModel;
use plume::dist::{HierStats, LevelMetrics};

use crate::selection::{LevelSelect, SelectSummary};

/// One adaptation step's decision (`decisions[]`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EulerDecision {
    /// Iterations done before the step (0: the initial refinement's steps).
    pub iteration: usize,
    /// Leaves after the step.
    pub leaves: u64,
    /// `LoadImb` of the ranks' loads (`PWgt`, the leaves they will hold) before the balance.
    pub load_imb_before: f64,
    /// `LoadImb` the step left: the balance's when it was carried out, else as before.
    pub load_imb: f64,
    /// The balance was carried out.
    pub balanced: bool,
    /// `MaxSR` of what moved (elements: the trees' sizes when they moved).
    pub max_sr: u64,
    /// The step's modelled time (see the module doc), seconds.
    pub modelled_s: f64,
    /// `--policy select`: the predictions, the choice and its replay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<LevelSelect>,
    /// `--balancer hier`, when it balanced: its numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hier: Option<HierStats>,
}

impl EulerDecision {
    /// The decision of the step after `iteration` iterations whose numbers are `metrics`, on
    /// `procs` ranks, its time modelled by `model`; `None` when the balancer reported no
    /// decision.
    pub fn of(
        iteration: usize,
        metrics: &LevelMetrics,
        model: &RemapCostModel,
        procs: usize,
    ) -> Option<EulerDecision> {
        let o = metrics.balance.as_ref()?;
        let balanced = o.accepted && o.volumes[0] > 0;
        let load_imb = match balanced {
            true => o.load_imb_after,
            false => o.load_imb_before,
        };
        let max_sr = if balanced { o.volumes[2] } else { 0 };
        let moving = if balanced { model.cost(max_sr) } else { 0.0 };
        let largest = load_imb * metrics.leaves as f64 / procs.max(1) as f64;
        let steps = model.iterations as f64;
        Some(EulerDecision {
            iteration,
            leaves: metrics.leaves,
            load_imb_before: o.load_imb_before,
            load_imb,
            balanced,
            max_sr,
            modelled_s: moving + steps * model.time_per_load * largest,
            select: o.select.as_ref().map(LevelSelect::of),
            hier: metrics.hier.clone(),
        })
    }
}

/// A run's decision points summed up (`summary.decisions`, and `summary.select` under
/// `--policy select`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct DecisionsSummary {
    /// Decision points (adaptation steps).
    pub points: usize,
    /// Those whose balance was carried out.
    pub balances: usize,
    /// Their modelled times summed: the run's modelled total (`docs/design/diffusive.md`), seconds.
    pub modelled_s: f64,
}

impl DecisionsSummary {
    /// The summary of `decisions`.
    pub fn of(decisions: &[EulerDecision]) -> DecisionsSummary {
        DecisionsSummary {
            points: decisions.len(),
            balances: decisions.iter().filter(|d| d.balanced).count(),
            modelled_s: decisions.iter().map(|d| d.modelled_s).sum(),
        }
    }

    /// `select`'s summary of `decisions` (`None` without a selection).
    pub fn select(decisions: &[EulerDecision]) -> Option<SelectSummary> {
        SelectSummary::of(decisions.iter().filter_map(|d| d.select.as_ref()))
    }

    /// The line `summary.md` gives it.
    pub fn text(&self) -> String {
        format!(
            "\ndecision points: {} (the initial refinement's included), {} balanced; modelled \
             total {:.4} s (PLUM's model: what moved, then N_adapt iterations at the largest \
             load)\n",
            self.points, self.balances, self.modelled_s
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plume::dist::BalanceOutcome;

    /// A step of 400 leaves on 4 ranks that balanced from LoadImb 1.5 to 1.1, moving MaxSR 30.
    fn balanced_step() -> LevelMetrics {
        LevelMetrics {
            leaves: 400,
            balance: Some(BalanceOutcome {
                load_imb_before: 1.5,
                load_imb_after: 1.1,
                triggered: true,
                accepted: true,
                gain: 0.0,
                cost: 0.0,
                volumes: [40, 20, 30],
                select: None,
            }),
            ..LevelMetrics::default()
        }
    }

    #[test]
    fn a_step_costs_what_moved_and_n_adapt_iterations_at_the_largest_load_left() {
        let model = RemapCostModel {
            time_per_load: 0.5,
            iterations: 2,
            per_element: 0.25,
            overhead: 1.0,
        };
        let d = EulerDecision::of(7, &balanced_step(), &model, 4).unwrap();
        // 1 + 0.25 · 30 = 8.5 to move; the largest load 1.1 · 100 = 110, 2 · 0.5 · 110 = 110.
        assert_eq!((d.iteration, d.max_sr, d.balanced), (7, 30, true));
        assert!((d.modelled_s - 118.5).abs() < 1e-9, "{}", d.modelled_s);
        // Not carried out: nothing moves, the load stays at LoadImb 1.5 (150 leaves).
        let mut refused = balanced_step();
        refused.balance.as_mut().unwrap().accepted = false;
        let d = EulerDecision::of(7, &refused, &model, 4).unwrap();
        assert_eq!((d.max_sr, d.balanced, d.load_imb), (0, false, 1.5));
        assert!((d.modelled_s - 150.0).abs() < 1e-9, "{}", d.modelled_s);
        // No decision reported: no record.
        assert!(EulerDecision::of(7, &LevelMetrics::default(), &model, 4).is_none());
        let both = [
            EulerDecision::of(0, &balanced_step(), &model, 4).unwrap(),
            d,
        ];
        let s = DecisionsSummary::of(&both);
        assert_eq!((s.points, s.balances), (2, 1));
        assert!((s.modelled_s - 268.5).abs() < 1e-9);
    }
}
