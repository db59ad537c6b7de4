//! Figure 2 of [Boulmier 2019]: how far ULBA balancing every `σ+` is from the best balancing steps
//! a search finds. The search is a simulated annealing as in [Boulmier 2019] (the `simanneal`
//! module): a state says, for every step of the run, whether to balance before it; a move flips one
//! step; the energy is the run's time (eq. 4 with eq. 5); the temperature falls geometrically
//! from `C` (one balance's cost) to `10⁻⁴·C`. It starts with no balance at all, so it does not
//! inherit `σ+`'s answer, and keeps the best state it visits.

use plume::rng::Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::{quartiles, stream, Instance, STEPS};

/// The annealing's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Annealing {
    /// Moves tried.
    pub moves: usize,
    /// First temperature, in units of the balance cost `C`.
    pub t_max: f64,
    /// Last temperature, in units of `C`.
    pub t_min: f64,
}

impl Default for Annealing {
    /// 20,000 moves from `C` down to `10⁻⁴·C`.
    fn default() -> Self {
        Annealing {
            moves: 20_000,
            t_max: 1.0,
            t_min: 1e-4,
        }
    }
}

/// The steps (ascending) at which `state` balances.
fn balances(state: &[bool]) -> Vec<usize> {
    (1..state.len()).filter(|&i| state[i]).collect()
}

/// The least run time the annealing finds for `inst` (ULBA's model) and its balancing steps.
pub fn anneal(inst: &Instance, schedule: &Annealing, rng: &mut Rng) -> (f64, Vec<usize>) {
    let energy = |s: &[bool]| inst.model.run_time(inst.w0, &balances(s), STEPS, true);
    let mut state = vec![false; STEPS];
    let mut e = energy(&state);
    let (mut best, mut best_state) = (e, state.clone());
    let (t0, t1) = (
        schedule.t_max * inst.model.cost,
        schedule.t_min * inst.model.cost,
    );
    let cooling = (t1 / t0).ln() / schedule.moves.max(1) as f64;
    for k in 0..schedule.moves {
        let t = t0 * (cooling * k as f64).exp();
        let i = 1 + rng.below(STEPS - 1);
        state[i] = !state[i];
        let e_new = energy(&state);
        if e_new <= e || rng.unit() < ((e - e_new) / t).exp() {
            e = e_new;
            if e < best {
                best = e;
                best_state.clone_from(&state);
            }
        } else {
            state[i] = !state[i];
        }
    }
    (best, balances(&best_state))
}

/// Figure 2's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnealStudy {
    /// The schedule used.
    pub schedule: Annealing,
    /// `(T_SA − T_σ+)/T_SA` of every instance, percent: positive when balancing every `σ+`
    /// beats the annealing.
    pub gains_pct: Vec<f64>,
    /// Balances of every instance when balancing every `σ+`.
    pub sigma_plus_balances: Vec<usize>,
    /// Balances of every instance in the annealing's best state.
    pub annealed_balances: Vec<usize>,
    /// Quartiles of the gains (min, q1, median, q3, max).
    pub gain_quartiles: [f64; 5],
    /// Mean gain, percent.
    pub mean_gain_pct: f64,
}

impl AnnealStudy {
    /// The gains of the instances where `σ+` or the annealing balances at least once (the
    /// others run without a balance either way, at a gain of 0).
    pub fn balanced_gains(&self) -> Vec<f64> {
        (0..self.gains_pct.len())
            .filter(|&i| self.sigma_plus_balances[i] + self.annealed_balances[i] > 0)
            .map(|i| self.gains_pct[i])
            .collect()
    }
}

/// Figure 2: `instances` instances of table II (α drawn too), ULBA every `σ+` against the
/// annealing. Instances in parallel.
pub fn anneal_study(instances: usize, schedule: &Annealing, seed: u64) -> AnnealStudy {
    const GROUP: u64 = 0xA77E;
    let per_instance: Vec<(f64, usize, usize)> = (0..instances)
        .into_par_iter()
        .map(|i| {
            let mut rng = stream(seed, GROUP, i);
            let inst = Instance::draw(&mut rng, None);
            let sigma = inst.sigma_plus_time(true);
            let sigma_balances = inst.model.sigma_plus_schedule(inst.w0, STEPS).len();
            let (annealed, steps) = anneal(&inst, schedule, &mut rng);
            (
                (annealed - sigma) / annealed * 100.0,
                sigma_balances,
                steps.len(),
            )
        })
        .collect();
    let gains_pct: Vec<f64> = per_instance.iter().map(|x| x.0).collect();
    AnnealStudy {
        schedule: *schedule,
        gain_quartiles: quartiles(&gains_pct),
        mean_gain_pct: gains_pct.iter().sum::<f64>() / gains_pct.len().max(1) as f64,
        sigma_plus_balances: per_instance.iter().map(|x| x.1).collect(),
        annealed_balances: per_instance.iter().map(|x| x.2).collect(),
        gains_pct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annealing_beats_no_balance_and_its_answer_is_its_energy() {
        let mut rng = stream(3, 1, 0);
        let inst = Instance::draw(&mut rng, None);
        let never = inst.model.run_time(inst.w0, &[], STEPS, true);
        let schedule = Annealing {
            moves: 3000,
            ..Annealing::default()
        };
        let (best, steps) = anneal(&inst, &schedule, &mut rng);
        assert!(best < never);
        assert_eq!(best, inst.model.run_time(inst.w0, &steps, STEPS, true));
        assert!(steps.windows(2).all(|w| w[0] < w[1]) && steps.iter().all(|&s| s > 0));
    }
}
