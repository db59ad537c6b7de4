//! The flow cases: the Sod shock tube along x (any left and right states and interface, so
//! other Riemann problems run too, Toro's five tests among them), a blast (a sphere of high
//! pressure at rest) and a smooth density wave carried at uniform velocity and pressure.

use super::gas::Primitive;
use super::riemann::State1d;
use super::validation::RiemannReference;

/// Sod's left state (Toro's test 1).
pub const SOD_LEFT: State1d = State1d {
    rho: 1.0,
    u: 0.0,
    p: 1.0,
};

/// Sod's right state (Toro's test 1).
pub const SOD_RIGHT: State1d = State1d {
    rho: 0.125,
    u: 0.0,
    p: 0.1,
};

/// One of Toro's five Riemann problems (*Riemann Solvers and Numerical Methods for Fluid
/// Dynamics*, ch. 4, table 4.1) as the book runs it: on `[0, 1]`, the interface at 0.5, the
/// solution shown at `t_end` (figures 4.7–4.11).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ToroTest {
    /// The test's number, 1 to 5.
    pub number: u8,
    /// State left of the interface.
    pub left: State1d,
    /// State right of it.
    pub right: State1d,
    /// The interface.
    pub interface: f64,
    /// The output time.
    pub t_end: f64,
}

/// Toro's tests 1–5 (table 4.1; output times of figures 4.7–4.11): Sod's problem, two
/// rarefactions leaving a near vacuum, the left and right halves of Woodward and Colella's
/// blast waves, and the collision of two strong shocks.
pub const TORO_TESTS: [ToroTest; 5] = [
    toro(1, [1.0, 0.0, 1.0], [0.125, 0.0, 0.1], 0.25),
    toro(2, [1.0, -2.0, 0.4], [1.0, 2.0, 0.4], 0.15),
    toro(3, [1.0, 0.0, 1000.0], [1.0, 0.0, 0.01], 0.012),
    toro(4, [1.0, 0.0, 0.01], [1.0, 0.0, 100.0], 0.035),
    toro(
        5,
        [5.99924, 19.5975, 460.894],
        [5.99242, -6.19633, 46.0950],
        0.035,
    ),
];

/// Toro's test `number` of states `[ρ, u, p]` on `[0, 1]`, output at `t_end`.
const fn toro(number: u8, l: [f64; 3], r: [f64; 3], t_end: f64) -> ToroTest {
    ToroTest {
        number,
        left: State1d {
            rho: l[0],
            u: l[1],
            p: l[2],
        },
        right: State1d {
            rho: r[0],
            u: r[1],
            p: r[2],
        },
        interface: 0.5,
        t_end,
    }
}

impl ToroTest {
    /// The test as a case.
    pub fn case(&self) -> Case {
        Case::Sod {
            left: self.left,
            right: self.right,
            interface: self.interface,
        }
    }
}

/// A compactly supported bump of class C² on `[-1, 1]`: `(1 − s²)³`, zero outside.
pub fn bump(s: f64) -> f64 {
    let inside = 1.0 - s * s;
    if inside > 0.0 {
        inside * inside * inside
    } else {
        0.0
    }
}

/// A flow case: its initial state everywhere.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum Case {
    /// A Riemann problem along x: `left` where x < `interface`, `right` elsewhere.
    Sod {
        /// State at x < `interface`.
        left: State1d,
        /// State at x ≥ `interface`.
        right: State1d,
        /// Position of the initial discontinuity.
        interface: f64,
    },
    /// Density `rho` at rest; pressure `inside` within `radius` of `centre`, `outside` else.
    Blast {
        /// Centre of the sphere.
        centre: [f64; 3],
        /// Its radius.
        radius: f64,
        /// Density everywhere.
        rho: f64,
        /// Pressure inside.
        inside: f64,
        /// Pressure outside.
        outside: f64,
    },
    /// A smooth density (entropy) wave carried along x at uniform velocity and pressure:
    /// density `base.rho + amplitude · bump((x − centre) / half_width)` ([`bump`]), velocity
    /// `base.u` along x, pressure `base.p`. The exact solution at `t` is the initial state
    /// moved by `base.u · t`.
    Wave {
        /// The uniform state the wave rides on.
        base: State1d,
        /// The bump's height over `base.rho`.
        amplitude: f64,
        /// The bump's centre along x at t = 0.
        centre: f64,
        /// Half the width of the bump's support.
        half_width: f64,
    },
}

impl Case {
    /// Sod's problem (Toro's test 1) with its interface at `interface`.
    pub fn sod(interface: f64) -> Case {
        Case::Sod {
            left: SOD_LEFT,
            right: SOD_RIGHT,
            interface,
        }
    }

    /// A blast of pressure 1 within `radius` of `centre` in gas of density 1 and pressure 0.1.
    pub fn blast(centre: [f64; 3], radius: f64) -> Case {
        Case::Blast {
            centre,
            radius,
            rho: 1.0,
            inside: 1.0,
            outside: 0.1,
        }
    }

    /// The case's name.
    pub fn name(&self) -> &'static str {
        match self {
            Case::Sod { .. } => "sod",
            Case::Blast { .. } => "blast",
            Case::Wave { .. } => "wave",
        }
    }

    /// The exact density of a wave case at `x` at time `t` (`None` for the other cases, whose
    /// references are [`Case::reference`] and the spherical solver).
    pub fn wave_density(&self, x: [f64; 3], t: f64) -> Option<f64> {
        match *self {
            Case::Wave {
                base,
                amplitude,
                centre,
                half_width,
            } => Some(base.rho + amplitude * bump((x[0] - base.u * t - centre) / half_width)),
            _ => None,
        }
    }

    /// The initial state at `x`.
    pub fn state_at(&self, x: [f64; 3]) -> Primitive {
        match *self {
            Case::Sod {
                left,
                right,
                interface,
            } => along_x(if x[0] < interface { left } else { right }),
            Case::Blast {
                centre,
                radius,
                rho,
                inside,
                outside,
            } => {
                let d2: f64 = (0..3).map(|d| (x[d] - centre[d]).powi(2)).sum();
                Primitive::at_rest(
                    rho,
                    if d2 < radius * radius {
                        inside
                    } else {
                        outside
                    },
                )
            }
            Case::Wave { base, .. } => along_x(State1d {
                rho: self.wave_density(x, 0.0).unwrap_or(base.rho),
                ..base
            }),
        }
    }

    /// The exact solution in `gas` a Sod case is measured against (`None` for the blast, or
    /// states the exact solver refuses).
    pub fn reference(&self, gas: super::Gas) -> Option<RiemannReference> {
        match *self {
            Case::Sod {
                left,
                right,
                interface,
            } => RiemannReference::new((left, right), interface, gas).ok(),
            Case::Blast { .. } | Case::Wave { .. } => None,
        }
    }

    /// The state outside inflow boundaries: Sod's left state, the blast's outside gas, the
    /// wave's uniform state.
    pub fn inflow(&self) -> Primitive {
        match *self {
            Case::Sod { left, .. } => along_x(left),
            Case::Blast { rho, outside, .. } => Primitive::at_rest(rho, outside),
            Case::Wave { base, .. } => along_x(base),
        }
    }
}

/// The 3-D state of the 1-D state `s` along x.
pub(crate) fn along_x(s: State1d) -> Primitive {
    Primitive {
        rho: s.rho,
        vel: [s.u, 0.0, 0.0],
        p: s.p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bump_is_c2_with_compact_support() {
        assert_eq!(bump(0.0), 1.0);
        assert_eq!((bump(1.0), bump(-1.5), bump(3.0)), (0.0, 0.0, 0.0));
        // Its first and second derivatives vanish at s = ±1: one-sided differences of
        // step h near the edge fall as h² and h.
        let h = 1e-3;
        let first = (bump(1.0) - bump(1.0 - h)) / h;
        let second = (bump(1.0) - 2.0 * bump(1.0 - h) + bump(1.0 - 2.0 * h)) / (h * h);
        assert!(
            first.abs() < 1e-4 && second.abs() < 1e-1,
            "{first} {second}"
        );
    }

    #[test]
    fn the_wave_moves_at_the_base_velocity_and_keeps_the_pressure() {
        let base = State1d {
            rho: 1.0,
            u: 2.0,
            p: 0.7,
        };
        let wave = Case::Wave {
            base,
            amplitude: 0.5,
            centre: 1.0,
            half_width: 0.25,
        };
        let at = |x: f64, t: f64| wave.wave_density([x, 0.3, 0.1], t).unwrap();
        assert_eq!(at(1.0, 0.0), 1.5);
        assert_eq!(at(1.6, 0.3), 1.5);
        assert_eq!(at(1.0 + 0.3, 0.0), 1.0);
        let w = wave.state_at([1.1, 0.0, 0.0]);
        assert_eq!((w.vel, w.p), ([2.0, 0.0, 0.0], 0.7));
        assert_eq!(w.rho, at(1.1, 0.0));
        assert!(Case::sod(0.5).wave_density([0.0; 3], 0.0).is_none());
    }

    #[test]
    fn toro_tests_have_their_waves_inside_the_unit_tube_at_their_output_times() {
        for test in TORO_TESTS {
            let exact = RiemannReference::new(
                (test.left, test.right),
                test.interface,
                crate::euler::Gas::default(),
            )
            .unwrap();
            let until = exact.unbounded_until(0.0, 1.0);
            assert!(test.t_end < until, "test {}: {until}", test.number);
        }
    }
}
