//! The analytic application model of [Boulmier 2019] (§II-C and §III, eq. 1–12), after Menon et
//! al.: `P` ranks of speed `ω`; every step adds `a` units of work to every rank and `m` more to `N`
//! overloading ones (`ΔW = a·P + m·N`); a balance costs `C` seconds. It gives the time of the
//! standard method and of ULBA over a run, and the window `[σ−, σ+]` in which ULBA's next
//! balance should fall (`σ+` alone for the standard method, `α = 0`).

/// The model's parameters [Boulmier 2019, Table I].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AppModel {
    /// `P`: ranks.
    pub ranks: usize,
    /// `N`: overloading ranks (`N < P`).
    pub overloading: usize,
    /// `a`: work added to every rank per step.
    pub a: f64,
    /// `m`: work added per step to each overloading rank on top of `a`.
    pub m: f64,
    /// `α`: fraction of the mean load taken off each overloading rank at a balance.
    pub alpha: f64,
    /// `ω`: work per second of one rank.
    pub omega: f64,
    /// `C`: cost of one balance, seconds.
    pub cost: f64,
}

impl AppModel {
    /// `ΔW = a·P + m·N`: growth of the total work per step (eq. 1).
    pub fn delta_w(&self) -> f64 {
        self.a * self.ranks as f64 + self.m * self.overloading as f64
    }

    /// `m̂ = m·(P − N)/P`: growth of the most loaded rank above the mean (Menon's model).
    pub fn m_hat(&self) -> f64 {
        self.m * (self.ranks - self.overloading) as f64 / self.ranks as f64
    }

    /// `αN/(P − N)`: the extra fraction of the mean load each other rank takes on.
    fn spread(&self) -> f64 {
        self.alpha * self.overloading as f64 / (self.ranks - self.overloading) as f64
    }

    /// Eq. 2: time of the `t`-th step after a standard balance of total work `w_lb`.
    pub fn standard_step_time(&self, w_lb: f64, t: usize) -> f64 {
        (w_lb / self.ranks as f64 + (self.m + self.a) * t as f64) / self.omega
    }

    /// Eq. 5: time of the `t`-th step after a ULBA balance of total work `w_lb`: the other
    /// ranks are slowest until step `σ−`, the overloading ones after.
    pub fn ulba_step_time(&self, w_lb: f64, t: usize) -> f64 {
        let mean = w_lb / self.ranks as f64;
        let t_f = t as f64;
        let work = if t_f <= self.sigma_minus(w_lb) {
            (1.0 + self.spread()) * mean + self.a * t_f
        } else {
            (1.0 - self.alpha) * mean + (self.m + self.a) * t_f
        };
        work / self.omega
    }

    /// Eq. 8: `σ− = ⌊(1 + N/(P − N))·α·W/(m·P)⌋`, the steps after a balance of total work
    /// `w_lb` until the overloading ranks catch up with the others (infinite when `m = 0` and
    /// `α > 0`).
    pub fn sigma_minus(&self, w_lb: f64) -> f64 {
        if self.alpha == 0.0 {
            return 0.0;
        }
        let (p, n) = (self.ranks as f64, self.overloading as f64);
        ((1.0 + n / (p - n)) * self.alpha * w_lb / (self.m * p)).floor()
    }

    /// Eq. 9–12: `σ+ = σ− + τ`, `τ` the larger root of
    /// `m̂/(2ω)·τ² − αNΔW/((P−N)ωP)·τ − [αN/(P−N)·(W + σ−ΔW)/(ωP) + C] = 0`: the step after
    /// a balance of total work `w_lb` at which the imbalance has cost as much as a balance
    /// plus ULBA's overhead. With `α = 0` this is Menon's `√(2Cω/m̂)`.
    pub fn sigma_plus(&self, w_lb: f64) -> f64 {
        let sigma_minus = self.sigma_minus(w_lb);
        let p = self.ranks as f64;
        let qa = self.m_hat() / (2.0 * self.omega);
        let qb = -self.spread() * self.delta_w() / (self.omega * p);
        let qc =
            -(self.spread() * (w_lb + sigma_minus * self.delta_w()) / (self.omega * p) + self.cost);
        let tau = (-qb + (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
        sigma_minus + tau
    }

    /// The steps at which a run of `steps` steps from total work `w0` balances when it
    /// balances every `σ+` steps (§III-B, [Boulmier 2019]'s rule): each balance comes
    /// `max(1, round(σ+(W)))` steps after the previous one (step 0, balanced for free), `W`
    /// the total work at the previous one. With `α = 0` this is the standard method every
    /// Menon interval. No balance when `σ+` is not finite (no imbalance grows, `m = 0`).
    pub fn sigma_plus_schedule(&self, w0: f64, steps: usize) -> Vec<usize> {
        let mut balances = Vec::new();
        let mut at = 0usize;
        loop {
            let sigma_plus = self.sigma_plus(w0 + at as f64 * self.delta_w());
            if !sigma_plus.is_finite() {
                return balances;
            }
            at += (sigma_plus.round() as usize).max(1);
            if at >= steps {
                return balances;
            }
            balances.push(at);
        }
    }

    /// Eq. 1, 3 and 4: the time of a run of `steps` steps starting from total work `w0`,
    /// balanced (at cost `C` each) just before each step listed in `balances` (ascending), by
    /// ULBA when `ulba` is true, else by the standard method. The work is balanced at step 0
    /// without cost.
    pub fn run_time(&self, w0: f64, balances: &[usize], steps: usize, ulba: bool) -> f64 {
        let mut starts = vec![0];
        starts.extend(balances.iter().copied().filter(|&b| b > 0 && b < steps));
        let mut total = self.cost * (starts.len() - 1) as f64;
        for (k, &start) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(steps);
            let w_lb = w0 + start as f64 * self.delta_w();
            total += (start..end)
                .map(|i| {
                    if ulba {
                        self.ulba_step_time(w_lb, i - start)
                    } else {
                        self.standard_step_time(w_lb, i - start)
                    }
                })
                .sum::<f64>();
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(alpha: f64) -> AppModel {
        AppModel {
            ranks: 8,
            overloading: 2,
            a: 1.0,
            m: 10.0,
            alpha,
            omega: 1.0,
            cost: 50.0,
        }
    }

    #[test]
    fn sigma_minus_by_hand() {
        // (1 + 2/6) · 0.3 · 800 / (10 · 8) = 4/3 · 240 / 80 = 4.
        assert_eq!(model(0.3).sigma_minus(800.0), 4.0);
        // 0.25 instead: 4/3 · 200 / 80 = 3.33… → 3.
        assert_eq!(model(0.25).sigma_minus(800.0), 3.0);
    }

    #[test]
    fn alpha_zero_is_menon() {
        let m = model(0.0);
        assert_eq!(m.sigma_minus(800.0), 0.0);
        // m̂ = 10 · 6/8 = 7.5.
        assert!((m.sigma_plus(800.0) - (2.0 * 50.0 / 7.5f64).sqrt()).abs() < 1e-12);
        // And ULBA's step times are the standard's.
        for t in 0..10 {
            assert_eq!(m.ulba_step_time(800.0, t), m.standard_step_time(800.0, t));
        }
    }

    #[test]
    fn sigma_plus_solves_eq_12_and_ulba_steps_meet_at_sigma_minus() {
        let m = model(0.3);
        let (w, s) = (800.0, m.sigma_plus(800.0));
        let tau = s - m.sigma_minus(w);
        let spread = 0.3 * 2.0 / 6.0;
        let residual = m.m_hat() / 2.0 * tau * tau
            - spread * m.delta_w() / 8.0 * tau
            - (spread * (w + m.sigma_minus(w) * m.delta_w()) / 8.0 + m.cost);
        assert!(residual.abs() < 1e-9, "{residual}");
        assert!(s > m.sigma_minus(w));
        // Right after the balance the others are slowest, (1 + 0.1)·100 = 110.
        assert!((m.ulba_step_time(w, 0) - 110.0).abs() < 1e-12);
        // After σ− the overloading ranks lead: 70 + 11·5 = 125.
        assert!((m.ulba_step_time(w, 5) - 125.0).abs() < 1e-12);
    }

    #[test]
    fn run_time_counts_every_interval_and_cost() {
        let m = model(0.0);
        // No balance: Σ_{t<4} (100 + 11 t) = 400 + 66.
        assert!((m.run_time(800.0, &[], 4, false) - 466.0).abs() < 1e-12);
        // Balance before step 2: 2 steps from W=800, then 2 from W = 800 + 2·28 = 856.
        let expect = 50.0 + (100.0 + 111.0) + (107.0 + 118.0);
        assert!((m.run_time(800.0, &[2], 4, false) - expect).abs() < 1e-12);
        // With an anticipated balance and a growing imbalance ULBA beats the standard method.
        let u = model(0.3);
        let balances: Vec<usize> = (1..10).map(|k| k * 10).collect();
        assert!(u.run_time(800.0, &balances, 100, true) < u.run_time(800.0, &balances, 100, false));
    }

    #[test]
    fn sigma_plus_schedule_steps_by_sigma_plus() {
        // α = 0: σ+ = √(2·50/7.5) = 3.65 → every 4 steps.
        assert_eq!(model(0.0).sigma_plus_schedule(800.0, 14), [4, 8, 12]);
        // ULBA: each gap is σ+ at the work of the previous balance, so gaps grow with W.
        let u = model(0.3);
        let s = u.sigma_plus_schedule(800.0, 200);
        assert_eq!(s[0], u.sigma_plus(800.0).round() as usize);
        let w1 = 800.0 + s[0] as f64 * u.delta_w();
        assert_eq!(s[1] - s[0], u.sigma_plus(w1).round() as usize);
        assert!(s.windows(3).all(|g| g[2] - g[1] >= g[1] - g[0]));
        // No growing imbalance, no balance.
        let flat = AppModel {
            m: 0.0,
            ..model(0.3)
        };
        assert!(flat.sigma_plus_schedule(800.0, 100).is_empty());
    }
}
