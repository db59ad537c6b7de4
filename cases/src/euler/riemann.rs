//! The exact solution of the 1-D Riemann problem of the Euler equations for an ideal gas
//! (Toro, *Riemann Solvers and Numerical Methods for Fluid Dynamics*, ch. 4): the star
//! pressure by Newton's method on the pressure function (§4.3), then the solution sampled at
//! `x/t` (§4.5). The reference the Sod tests measure the scheme against.

use super::gas::Gas;

/// A 1-D state: density, velocity, pressure.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct State1d {
    /// Density.
    pub rho: f64,
    /// Velocity.
    pub u: f64,
    /// Pressure.
    pub p: f64,
}

impl State1d {
    fn sound_speed(&self, g: f64) -> f64 {
        (g * self.p / self.rho).sqrt()
    }
}

/// A Riemann problem solved: the two states and the star region between the waves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactRiemann {
    /// State left of the initial discontinuity.
    pub left: State1d,
    /// State right of it.
    pub right: State1d,
    /// Pressure in the star region.
    pub p_star: f64,
    /// Velocity in the star region (the contact's speed).
    pub u_star: f64,
    /// The gas.
    pub gas: Gas,
}

/// Why a Riemann problem has no solution the sampler handles.
#[derive(Debug, Clone, PartialEq)]
pub enum RiemannError {
    /// A density or pressure is not positive and finite.
    Unphysical,
    /// The states create a vacuum (pressure positivity condition, Toro eq. 4.40).
    Vacuum,
}

impl std::fmt::Display for RiemannError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RiemannError::Unphysical => "densities and pressures must be positive",
            RiemannError::Vacuum => "the two states create a vacuum",
        })
    }
}

impl ExactRiemann {
    /// Solves the problem of `left` and `right` in `gas` for the star pressure and velocity.
    ///
    /// # Errors
    /// [`RiemannError`] for unphysical states or a vacuum.
    pub fn solve(left: State1d, right: State1d, gas: Gas) -> Result<ExactRiemann, RiemannError> {
        let g = gas.gamma();
        let ok = |s: &State1d| s.rho > 0.0 && s.p > 0.0 && s.rho.is_finite() && s.p.is_finite();
        if !ok(&left) || !ok(&right) || !left.u.is_finite() || !right.u.is_finite() {
            return Err(RiemannError::Unphysical);
        }
        let (cl, cr) = (left.sound_speed(g), right.sound_speed(g));
        let du = right.u - left.u;
        if 2.0 / (g - 1.0) * (cl + cr) <= du {
            return Err(RiemannError::Vacuum);
        }
        // Two-rarefaction guess (Toro eq. 4.46), then Newton (eq. 4.44).
        let z = (g - 1.0) / (2.0 * g);
        let guess = ((cl + cr - 0.5 * (g - 1.0) * du)
            / (cl / left.p.powf(z) + cr / right.p.powf(z)))
        .powf(1.0 / z);
        let mut p = guess.max(1e-8 * left.p.min(right.p));
        for _ in 0..100 {
            let (fl, dl) = pressure_function(p, &left, g);
            let (fr, dr) = pressure_function(p, &right, g);
            let next = (p - (fl + fr + du) / (dl + dr)).max(1e-12 * p);
            let change = 2.0 * (next - p).abs() / (next + p);
            p = next;
            if change < 1e-14 {
                break;
            }
        }
        let (fl, _) = pressure_function(p, &left, g);
        let (fr, _) = pressure_function(p, &right, g);
        Ok(ExactRiemann {
            left,
            right,
            p_star: p,
            u_star: 0.5 * (left.u + right.u) + 0.5 * (fr - fl),
            gas,
        })
    }

    /// The solution at `s = x/t` (the discontinuity at x = 0 at t = 0; Toro §4.5).
    pub fn sample(&self, s: f64) -> State1d {
        let g = self.gas.gamma();
        let (ps, us) = (self.p_star, self.u_star);
        if s <= us {
            let w = self.left;
            let c = w.sound_speed(g);
            if ps > w.p {
                // Left shock (eq. 4.52).
                let ratio = ps / w.p;
                if s <= shock_speed(&w, ratio, -1.0, g) {
                    w
                } else {
                    State1d {
                        rho: behind_shock(w.rho, ratio, g),
                        u: us,
                        p: ps,
                    }
                }
            } else {
                // Left rarefaction (eq. 4.53–4.56).
                let c_star = c * (ps / w.p).powf((g - 1.0) / (2.0 * g));
                let (head, tail) = (w.u - c, us - c_star);
                if s <= head {
                    w
                } else if s >= tail {
                    State1d {
                        rho: w.rho * (ps / w.p).powf(1.0 / g),
                        u: us,
                        p: ps,
                    }
                } else {
                    fan(&w, s, 1.0, g)
                }
            }
        } else {
            let w = self.right;
            let c = w.sound_speed(g);
            if ps > w.p {
                // Right shock (eq. 4.57).
                let ratio = ps / w.p;
                if s >= shock_speed(&w, ratio, 1.0, g) {
                    w
                } else {
                    State1d {
                        rho: behind_shock(w.rho, ratio, g),
                        u: us,
                        p: ps,
                    }
                }
            } else {
                // Right rarefaction (eq. 4.60–4.63).
                let c_star = c * (ps / w.p).powf((g - 1.0) / (2.0 * g));
                let (head, tail) = (w.u + c, us + c_star);
                if s >= head {
                    w
                } else if s <= tail {
                    State1d {
                        rho: w.rho * (ps / w.p).powf(1.0 / g),
                        u: us,
                        p: ps,
                    }
                } else {
                    fan(&w, s, -1.0, g)
                }
            }
        }
    }

    /// The speed of the right-going shock, when the right wave is one.
    pub fn right_shock_speed(&self) -> Option<f64> {
        let w = self.right;
        (self.p_star > w.p).then(|| shock_speed(&w, self.p_star / w.p, 1.0, self.gas.gamma()))
    }

    /// The speeds of the outermost signals `(leftmost, rightmost)`: each side's shock, or the
    /// head of its rarefaction. Outside them the initial states are untouched.
    pub fn wave_speeds(&self) -> (f64, f64) {
        let g = self.gas.gamma();
        let outer = |w: &State1d, side: f64| match self.p_star > w.p {
            true => shock_speed(w, self.p_star / w.p, side, g),
            false => w.u + side * w.sound_speed(g),
        };
        (outer(&self.left, -1.0), outer(&self.right, 1.0))
    }
}

/// The speed of the shock that multiplies the pressure of `w` by `ratio` (`side` −1 left,
/// 1 right; Toro eq. 4.52 and 4.59).
fn shock_speed(w: &State1d, ratio: f64, side: f64, g: f64) -> f64 {
    w.u + side * (w.sound_speed(g) * ((g + 1.0) / (2.0 * g) * ratio + (g - 1.0) / (2.0 * g)).sqrt())
}

/// Toro's pressure function `f_K(p)` and its derivative (eq. 4.6–4.7, 4.37).
fn pressure_function(p: f64, w: &State1d, g: f64) -> (f64, f64) {
    let c = w.sound_speed(g);
    if p > w.p {
        let a = 2.0 / ((g + 1.0) * w.rho);
        let b = (g - 1.0) / (g + 1.0) * w.p;
        let root = (a / (p + b)).sqrt();
        ((p - w.p) * root, root * (1.0 - 0.5 * (p - w.p) / (p + b)))
    } else {
        let ratio = p / w.p;
        (
            2.0 * c / (g - 1.0) * (ratio.powf((g - 1.0) / (2.0 * g)) - 1.0),
            ratio.powf(-(g + 1.0) / (2.0 * g)) / (w.rho * c),
        )
    }
}

/// The density behind a shock into gas of density `rho` whose pressure it multiplies by
/// `ratio` (Toro eq. 4.50 and 4.57).
fn behind_shock(rho: f64, ratio: f64, g: f64) -> f64 {
    rho * (ratio + (g - 1.0) / (g + 1.0)) / ((g - 1.0) / (g + 1.0) * ratio + 1.0)
}

/// The state inside a rarefaction fan of `w` at `s = x/t` (`side` 1 left, −1 right; Toro eq.
/// 4.56 and 4.63).
fn fan(w: &State1d, s: f64, side: f64, g: f64) -> State1d {
    let c = w.sound_speed(g);
    let base = 2.0 / (g + 1.0) + side * (g - 1.0) / ((g + 1.0) * c) * (w.u - s);
    State1d {
        rho: w.rho * base.powf(2.0 / (g - 1.0)),
        u: 2.0 / (g + 1.0) * (side * c + (g - 1.0) / 2.0 * w.u + s),
        p: w.p * base.powf(2.0 * g / (g - 1.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(l: [f64; 3], r: [f64; 3]) -> ExactRiemann {
        let s = |v: [f64; 3]| State1d {
            rho: v[0],
            u: v[1],
            p: v[2],
        };
        ExactRiemann::solve(s(l), s(r), Gas::default()).unwrap()
    }

    #[test]
    fn toro_test_1_star_values() {
        // Toro table 4.3, test 1 (Sod): p* = 0.30313, u* = 0.92745.
        let e = solve([1.0, 0.0, 1.0], [0.125, 0.0, 0.1]);
        assert!((e.p_star - 0.30313).abs() < 5e-6, "{}", e.p_star);
        assert!((e.u_star - 0.92745).abs() < 5e-6, "{}", e.u_star);
        // Table 4.3: star densities 0.42632 (left) and 0.26557 (right).
        let (l, r) = (e.sample(e.u_star - 1e-9), e.sample(e.u_star + 1e-9));
        assert!((l.rho - 0.42632).abs() < 5e-6 && (r.rho - 0.26557).abs() < 5e-6);
    }

    #[test]
    fn toro_tests_2_to_5_star_values() {
        // Toro table 4.2.
        let cases = [
            ([1.0, -2.0, 0.4], [1.0, 2.0, 0.4], 0.00189, 0.0),
            ([1.0, 0.0, 1000.0], [1.0, 0.0, 0.01], 460.894, 19.5975),
            ([1.0, 0.0, 0.01], [1.0, 0.0, 100.0], 46.0950, -6.19633),
            (
                [5.99924, 19.5975, 460.894],
                [5.99242, -6.19633, 46.0950],
                1691.64,
                8.68975,
            ),
        ];
        for (l, r, p, u) in cases {
            let e = solve(l, r);
            assert!(
                (e.p_star - p).abs() < 1e-4 * p.max(1.0),
                "{l:?}: {}",
                e.p_star
            );
            assert!(
                (e.u_star - u).abs() < 1e-4 * u.abs().max(1.0),
                "{l:?}: {}",
                e.u_star
            );
        }
    }

    #[test]
    fn the_sampled_solution_is_the_data_far_away_and_continuous_in_the_fans() {
        let e = solve([1.0, 0.0, 1.0], [0.125, 0.0, 0.1]);
        assert_eq!(e.sample(-10.0), e.left);
        assert_eq!(e.sample(10.0), e.right);
        // The left fan meets the left state at its head (s = -c_L) continuously.
        let head = -(1.4f64).sqrt();
        assert!((e.sample(head + 1e-9).rho - 1.0).abs() < 1e-6);
        assert!(e.right_shock_speed().unwrap() > e.u_star);
    }

    #[test]
    fn the_outermost_waves_are_the_rarefaction_heads_or_the_shocks() {
        // Sod: the left rarefaction's head at −c_L, the right shock at 1.7522 (Toro §4.3.3).
        let (left, right) = solve([1.0, 0.0, 1.0], [0.125, 0.0, 0.1]).wave_speeds();
        assert_eq!(left, -(1.4f64).sqrt());
        assert!((right - 1.7522).abs() < 1e-4, "{right}");
        // Toro's test 2: two rarefactions, heads at u ∓ c.
        let (left, right) = solve([1.0, -2.0, 0.4], [1.0, 2.0, 0.4]).wave_speeds();
        let c = (1.4f64 * 0.4).sqrt();
        assert_eq!((left, right), (-2.0 - c, 2.0 + c));
        // Toro's test 5: two shocks, both moving right.
        let e = solve([5.99924, 19.5975, 460.894], [5.99242, -6.19633, 46.0950]);
        let (left, right) = e.wave_speeds();
        assert!(
            0.0 < left && left < e.u_star && e.u_star < right,
            "{left} {right}"
        );
        assert_eq!(Some(right), e.right_shock_speed());
    }

    #[test]
    fn a_vacuum_is_refused() {
        let s = |rho, u, p| State1d { rho, u, p };
        let e = ExactRiemann::solve(s(1.0, -20.0, 0.1), s(1.0, 20.0, 0.1), Gas::default());
        assert_eq!(e, Err(RiemannError::Vacuum));
        assert_eq!(
            ExactRiemann::solve(s(-1.0, 0.0, 1.0), s(1.0, 0.0, 1.0), Gas::default()),
            Err(RiemannError::Unphysical)
        );
    }
}
