//! [Boulmier 2019]'s model-only studies, on its analytic model ([`plume::balance::AppModel`], eq.
//! 1–12) and random application instances drawn from its table II:
//!
//! - figure 3 ([`share_study`]): for every share of overloading PEs, the standard method
//!   balancing every Menon interval against ULBA balancing every `σ+` with the best of 100
//!   values of α in `[0, 1]`, on many instances; ULBA's gain and the best α;
//! - figure 2 ([`anneal::anneal_study`]): ULBA balancing every `σ+` against the balancing steps
//!   a simulated annealing finds.
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | table II's instances, figure 3, quartiles |
//! | `anneal.rs` | the simulated annealing and figure 2 |
//! | `report.rs` | both studies together, their JSON, markdown tables and charts |
//!
//! Instance `i` of a study draws from its own stream (the study's seed and `i`), so the
//! instances are the same whatever the number of threads.

pub mod anneal;
pub mod report;

use plume::balance::AppModel;
use plume::hash::mix64;
use plume::rng::Rng;
use rayon::prelude::*;
use serde::Serialize;

/// [Boulmier 2019]'s PE speed: 1 Gflop/s.
pub const OMEGA: f64 = 1e9;
/// [Boulmier 2019]'s run length γ: 100 iterations.
pub const STEPS: usize = 100;

/// One random application (table II).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Instance {
    /// The model, with the drawn α.
    pub model: AppModel,
    /// `W_tot(0)`, flop.
    pub w0: f64,
}

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit()
}

impl Instance {
    /// Draws an instance from table II: `P` among 256, 512, 1024, 2048; `N = P·v` with
    /// `v = share` when given, else `v ~ U(0.01, 0.2)` (at least 1, below `P`);
    /// `W_tot(0) ~ U(52·10⁷, 1165·10⁷)·P`; `ΔW = W_tot(0)/P · x`, `x ~ U(0.01, 0.3)`;
    /// `a = ΔW/P · (1 − y)`, `m = ΔW/N · y`, `y ~ U(0.8, 1)`; `α ~ U(0, 1)`;
    /// `C = W_tot(0)/P · z` flop, `z ~ U(0.1, 3)`, at `ω` = 1 Gflop/s.
    pub fn draw(rng: &mut Rng, share: Option<f64>) -> Instance {
        let p = [256usize, 512, 1024, 2048][rng.below(4)];
        let v = share.unwrap_or_else(|| uniform(rng, 0.01, 0.2));
        let n = ((p as f64 * v).round() as usize).clamp(1, p - 1);
        let w0 = uniform(rng, 52e7, 1165e7) * p as f64;
        let per_pe = w0 / p as f64;
        let delta_w = per_pe * uniform(rng, 0.01, 0.3);
        let y = uniform(rng, 0.8, 1.0);
        let alpha = uniform(rng, 0.0, 1.0);
        let cost = per_pe * uniform(rng, 0.1, 3.0) / OMEGA;
        Instance {
            model: AppModel {
                ranks: p,
                overloading: n,
                a: delta_w / p as f64 * (1.0 - y),
                m: delta_w / n as f64 * y,
                alpha,
                omega: OMEGA,
                cost,
            },
            w0,
        }
    }

    /// The instance with another α.
    pub fn with_alpha(&self, alpha: f64) -> Instance {
        Instance {
            model: AppModel {
                alpha,
                ..self.model
            },
            w0: self.w0,
        }
    }

    /// Time of the run when it balances every `σ+` (eq. 4): ULBA's eq. 5 when `ulba`, else
    /// the standard method's eq. 2 balancing every Menon interval (`α = 0`).
    pub fn sigma_plus_time(&self, ulba: bool) -> f64 {
        let model = if ulba {
            self.model
        } else {
            self.with_alpha(0.0).model
        };
        let balances = model.sigma_plus_schedule(self.w0, STEPS);
        model.run_time(self.w0, &balances, STEPS, ulba)
    }
}

/// The random stream of instance `i` of a study seeded `seed`, in group `group`.
pub fn stream(seed: u64, group: u64, i: usize) -> Rng {
    Rng::new(mix64(
        seed ^ mix64(group.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64),
    ))
}

/// Minimum, first quartile, median, third quartile and maximum (linear interpolation
/// between order statistics); NaN when empty.
pub fn quartiles(values: &[f64]) -> [f64; 5] {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        if v.is_empty() {
            return f64::NAN;
        }
        let x = q * (v.len() - 1) as f64;
        let (i, f) = (x.floor() as usize, x.fract());
        v[i] + (v[(i + 1).min(v.len() - 1)] - v[i]) * f
    };
    [at(0.0), at(0.25), at(0.5), at(0.75), at(1.0)]
}

/// ULBA against the standard method at one share of overloading PEs (one box of figure 3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShareResult {
    /// `N/P` asked for.
    pub share: f64,
    /// `1 − T_ULBA/T_standard` of every instance, percent, ULBA at its best α.
    pub gains_pct: Vec<f64>,
    /// The best α of every instance.
    pub best_alphas: Vec<f64>,
    /// Quartiles of the gains (min, q1, median, q3, max).
    pub gain_quartiles: [f64; 5],
    /// Mean gain, percent.
    pub mean_gain_pct: f64,
    /// Mean best α.
    pub mean_alpha: f64,
}

/// Figure 3: for every share, `instances` instances of table II (P, N from the share; α
/// ignored), the standard method against ULBA at the best of `alpha_steps` values of α evenly
/// spaced over `[0, 1]` (α = 0 included, so ULBA is never worse). Instances in parallel.
pub fn share_study(
    shares: &[f64],
    instances: usize,
    alpha_steps: usize,
    seed: u64,
) -> Vec<ShareResult> {
    let alphas: Vec<f64> = (0..alpha_steps.max(1))
        .map(|k| k as f64 / (alpha_steps.max(2) - 1) as f64)
        .collect();
    shares
        .iter()
        .enumerate()
        .map(|(group, &share)| {
            let per_instance: Vec<(f64, f64)> = (0..instances)
                .into_par_iter()
                .map(|i| {
                    let inst = Instance::draw(&mut stream(seed, group as u64, i), Some(share));
                    let standard = inst.sigma_plus_time(false);
                    let (best_alpha, best) = alphas
                        .iter()
                        .map(|&a| (a, inst.with_alpha(a).sigma_plus_time(true)))
                        .fold((0.0, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b });
                    ((1.0 - best / standard) * 100.0, best_alpha)
                })
                .collect();
            let gains_pct: Vec<f64> = per_instance.iter().map(|x| x.0).collect();
            let best_alphas: Vec<f64> = per_instance.iter().map(|x| x.1).collect();
            let n = per_instance.len().max(1) as f64;
            ShareResult {
                share,
                gain_quartiles: quartiles(&gains_pct),
                mean_gain_pct: gains_pct.iter().sum::<f64>() / n,
                mean_alpha: best_alphas.iter().sum::<f64>() / n,
                gains_pct,
                best_alphas,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_follow_table_two() {
        for i in 0..200 {
            let inst = Instance::draw(&mut stream(7, 0, i), None);
            let m = inst.model;
            let p = m.ranks as f64;
            assert!([256, 512, 1024, 2048].contains(&m.ranks));
            assert!(m.overloading >= 1 && (m.overloading as f64) <= 0.2 * p + 0.5);
            let per_pe = inst.w0 / p;
            assert!((52e7..=1165e7).contains(&per_pe));
            let dw = m.delta_w();
            assert!(dw >= 0.01 * per_pe * 0.999 && dw <= 0.3 * per_pe * 1.001);
            // 80–100% of the growth goes to the overloading PEs.
            let y = m.m * m.overloading as f64 / dw;
            assert!((0.8 - 1e-9..=1.0 + 1e-9).contains(&y), "{y}");
            let z = m.cost * OMEGA / per_pe;
            assert!((0.1..=3.0).contains(&z));
        }
        let share = Instance::draw(&mut stream(7, 0, 0), Some(0.1)).model;
        assert_eq!(
            share.overloading,
            (share.ranks as f64 * 0.1).round() as usize
        );
    }

    #[test]
    fn quartiles_interpolate() {
        assert_eq!(
            quartiles(&[3.0, 1.0, 2.0, 4.0, 5.0]),
            [1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!(quartiles(&[1.0, 2.0])[2], 1.5);
        assert!(quartiles(&[])[0].is_nan());
    }
}
