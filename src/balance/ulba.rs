//! ULBA, the underloading load balancing approach of [Boulmier 2019] (§III, Alg. 1 and 2): balance
//! when the accumulated degradation reaches the mean balancing cost plus ULBA's overhead
//! (eq. 9 and 11: the extra time of one iteration of a rank that takes on the overloading
//! ranks' work, `αN/(P − N) · W/(ωP)`), with the standard method's trigger ([`Degradation`]),
//! but give the ranks whose workload grows fastest *less* than the mean, so that they take
//! longer to become the bottleneck again.
//!
//! Every rank's workload increase rate (WIR) is the mean per-step growth of its load over the
//! last [`RATE_WINDOW`] steps, skipping the jump a balance causes. A rank is *overloading* when
//! the z-score of its WIR among all ranks' exceeds the threshold (3.0 in [Boulmier 2019]);
//! overloading ranks get `(1 − α)·W/P`, the others share the rest, `(1 + α·N/(P − N))·W/P` each.
//! When half of the ranks or more overload, unloading them would be counter-productive: every rank
//! gets `W/P`, the standard method. With `α = 0` ULBA *is* the standard method.

use std::collections::VecDeque;

use super::policy::{decode_history, encode_history, BalancePolicy, Degradation, Observation};
use crate::Result;

/// Steps over which a workload increase rate is averaged.
pub const RATE_WINDOW: usize = 10;

/// The workload increase rate of every rank ([Boulmier 2019]'s `irdb`), from the loads seen at
/// successive steps.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IncreaseRates {
    previous: Option<Vec<f64>>,
    increments: VecDeque<Vec<f64>>,
}

impl IncreaseRates {
    /// Records the loads of one step; the growth since the previous step counts unless a
    /// balance came in between.
    pub fn observe(&mut self, loads: &[f64]) {
        if let Some(prev) = self.previous.as_ref().filter(|p| p.len() == loads.len()) {
            if self.increments.len() == RATE_WINDOW {
                self.increments.pop_front();
            }
            self.increments
                .push_back(loads.iter().zip(prev).map(|(l, p)| l - p).collect());
        }
        self.previous = Some(loads.to_vec());
    }

    /// Forgets the last loads: the next step's growth would include the balance's moves.
    pub fn rebalanced(&mut self) {
        self.previous = None;
    }

    /// Mean growth per step of every rank over the window, or `None` before two steps were
    /// seen.
    pub fn rates(&self) -> Option<Vec<f64>> {
        let first = self.increments.front()?;
        let mut sum = vec![0.0; first.len()];
        for inc in &self.increments {
            sum.iter_mut().zip(inc).for_each(|(s, x)| *s += x);
        }
        let n = self.increments.len() as f64;
        Some(sum.into_iter().map(|s| s / n).collect())
    }

    /// The ranks whose rate has a z-score above `threshold` (population standard deviation);
    /// none when every rate is the same or no rate is known yet.
    pub fn overloading(&self, threshold: f64) -> Vec<bool> {
        let Some(rates) = self.rates() else {
            return Vec::new();
        };
        let n = rates.len() as f64;
        let mean = rates.iter().sum::<f64>() / n;
        let std = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n).sqrt();
        rates
            .iter()
            .map(|r| std > 0.0 && (r - mean) / std > threshold)
            .collect()
    }
}

/// [Boulmier 2019, Alg. 2]'s shares: `(1 − α)/P` for an overloading rank, `(1 + α·N/(P − N))/P` for
/// the others (they sum to 1), or `None` (equal shares) when `α = 0`, no rank overloads, or
/// half of the ranks or more do.
pub fn ulba_shares(overloading: &[bool], alpha: f64) -> Option<Vec<f64>> {
    let p = overloading.len();
    let n = overloading.iter().filter(|&&o| o).count();
    if alpha == 0.0 || n == 0 || 2 * n >= p {
        return None;
    }
    let (pf, nf) = (p as f64, n as f64);
    let over = (1.0 - alpha) / pf;
    let under = (1.0 + alpha * nf / (pf - nf)) / pf;
    Some(
        overloading
            .iter()
            .map(|&o| if o { over } else { under })
            .collect(),
    )
}

/// The ULBA policy (see the [module doc](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct Ulba {
    /// Fraction of the mean load taken off every overloading rank, in `[0, 1]`.
    pub alpha: f64,
    /// z-score above which a rank's increase rate marks it overloading (seed: 3.0).
    pub z_threshold: f64,
    /// Whether the trigger waits for the mean cost plus ULBA's overhead (eq. 9, [Boulmier 2019]'s
    /// rule) or for the mean cost alone (Alg. 1 as printed).
    pub overhead: bool,
    trigger: Degradation,
    rates: IncreaseRates,
}

impl Ulba {
    /// [Boulmier 2019]'s ULBA: Alg. 1's trigger (median of three) with the overhead term, `alpha`,
    /// the z-score threshold, and `initial_cost` seconds assumed per balance until one is
    /// measured.
    pub fn new(alpha: f64, z_threshold: f64, initial_cost: f64) -> Self {
        Self::with_trigger(alpha, z_threshold, Degradation::new(initial_cost), true)
    }

    /// ULBA on the given trigger, with or without the overhead term.
    pub fn with_trigger(
        alpha: f64,
        z_threshold: f64,
        trigger: Degradation,
        overhead: bool,
    ) -> Self {
        Ulba {
            alpha,
            z_threshold,
            overhead,
            trigger,
            rates: IncreaseRates::default(),
        }
    }

    /// The ranks currently seen as overloading.
    pub fn overloading(&self) -> Vec<bool> {
        self.rates.overloading(self.z_threshold)
    }

    /// Eq. 11: the extra time one iteration of a non-overloading rank would take after a
    /// ULBA balance now, `αN/(P − N)` of the mean load's time; 0 when the balance would give
    /// equal shares (`α = 0`, nobody or half the ranks or more overloading).
    pub fn overhead_time(&self, obs: &Observation) -> f64 {
        let over = self.overloading();
        if over.len() != obs.loads.len() || ulba_shares(&over, self.alpha).is_none() {
            return 0.0;
        }
        let n = over.iter().filter(|&&o| o).count() as f64;
        let p = over.len() as f64;
        self.alpha * n / (p - n) * obs.mean() * obs.time_per_load
    }
}

impl BalancePolicy for Ulba {
    fn name(&self) -> String {
        format!("ulba:{}", self.alpha)
    }
    fn should_balance(&mut self, obs: &Observation) -> bool {
        self.rates.observe(obs.loads);
        let degradation = self.trigger.accumulate(obs);
        let overhead = if self.overhead {
            self.overhead_time(obs)
        } else {
            0.0
        };
        degradation >= self.trigger.costs.mean() + overhead
    }
    fn balanced(&mut self, cost: f64) {
        self.trigger.balanced(cost);
        self.rates.rebalanced();
    }
    fn target_shares(&self, nranks: usize) -> Option<Vec<f64>> {
        let over = self.overloading();
        (over.len() == nranks)
            .then(|| ulba_shares(&over, self.alpha))
            .flatten()
    }
    /// The trigger's history and the loads and increments of the rates.
    fn save_state(&self) -> Vec<u8> {
        encode_history(&(self.trigger.history(), &self.rates))
    }
    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let (trigger, rates) = decode_history(&self.name(), bytes)?;
        self.trigger.restore(trigger);
        self.rates = rates;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(loads: &[f64]) -> Observation<'_> {
        Observation {
            loads,
            time_per_load: 1e-3,
            iterations: 1,
        }
    }

    /// 16 ranks, rank 3 growing by 10 per step, the others by 1.
    fn growing(step: usize) -> Vec<f64> {
        (0..16)
            .map(|p| 100.0 + step as f64 * if p == 3 { 10.0 } else { 1.0 })
            .collect()
    }

    #[test]
    fn rates_skip_the_jump_of_a_balance_and_spot_the_outlier() {
        let mut r = IncreaseRates::default();
        assert_eq!(r.rates(), None);
        r.observe(&growing(0));
        r.observe(&growing(1));
        r.rebalanced();
        r.observe(&[0.0; 16]); // after the balance: no increment recorded
        r.observe(&growing(1).iter().map(|x| x - 100.0).collect::<Vec<_>>());
        let rates = r.rates().unwrap();
        assert!((rates[3] - 10.0).abs() < 1e-12 && (rates[0] - 1.0).abs() < 1e-12);
        let over = r.overloading(3.0);
        assert_eq!(over.iter().filter(|&&o| o).count(), 1);
        assert!(over[3]);
    }

    #[test]
    fn shares_follow_alg2_and_sum_to_one() {
        let mut over = vec![false; 8];
        over[2] = true;
        let s = ulba_shares(&over, 0.4).unwrap();
        assert!((s[2] - 0.6 / 8.0).abs() < 1e-15);
        assert!((s[0] - (1.0 + 0.4 / 7.0) / 8.0).abs() < 1e-15);
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(ulba_shares(&over, 0.0), None);
        assert_eq!(ulba_shares(&[false; 8], 0.4), None);
        // Half overloading: the standard method.
        assert_eq!(ulba_shares(&[true, false, true, false], 0.4), None);
        assert!(ulba_shares(&[true, false, false, false], 0.4).is_some());
    }

    #[test]
    fn alpha_zero_decides_exactly_as_the_standard_method() {
        let mut ulba = Ulba::new(0.0, 3.0, 0.05);
        let mut std = Degradation::new(0.05);
        for step in 0..40 {
            let loads = growing(step);
            let (a, b) = (
                ulba.should_balance(&obs(&loads)),
                std.should_balance(&obs(&loads)),
            );
            assert_eq!(a, b, "step {step}");
            assert_eq!(ulba.target_shares(16), None);
            if a {
                ulba.balanced(0.05);
                std.balanced(0.05);
            }
        }
        let mut ulba = Ulba::new(0.4, 3.0, 0.05);
        for step in 0..3 {
            ulba.should_balance(&obs(&growing(step)));
        }
        let shares = ulba.target_shares(16).unwrap();
        assert!(shares[3] < shares[0]);
    }

    #[test]
    fn the_overhead_term_delays_the_balance_by_eq_11() {
        // 16 ranks of mean load ≈ 100 at 1 ms per unit, one overloading: the overhead is
        // 0.4 · 1/15 of the mean iteration time.
        let mut ulba = Ulba::new(0.4, 3.0, 0.05);
        for step in 0..3 {
            ulba.should_balance(&obs(&growing(step)));
        }
        let loads = growing(3);
        let o = obs(&loads);
        let mean = loads.iter().sum::<f64>() / 16.0;
        assert!((ulba.overhead_time(&o) - 0.4 / 15.0 * mean * 1e-3).abs() < 1e-15);
        assert_eq!(Ulba::new(0.0, 3.0, 0.05).overhead_time(&o), 0.0);
        // Medians of the slowest rank's times 0.1, 0.105, 0.11, 0.12 s: the degradation is
        // 0, 5, 15, 35 ms. Against a 14 ms cost the plain trigger fires at step 2; with the
        // overhead (0.4/15 · 103.1 ms = 2.75 ms at step 2) the threshold is 16.75 ms: step 3.
        let first = |overhead: bool| {
            let mut u = Ulba::with_trigger(0.4, 3.0, Degradation::new(0.014), overhead);
            (0..100).find(|&s| u.should_balance(&obs(&growing(s))))
        };
        assert_eq!((first(false), first(true)), (Some(2), Some(3)));
    }
}
