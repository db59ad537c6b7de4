//! The flow cases: the Sod shock tube along x (any left and right states and interface, so
//! other Riemann problems run too) and a blast (a sphere of high pressure at rest).

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
        }
    }

    /// The exact solution a Sod case is measured against (`None` for the blast, or states
    /// the exact solver refuses).
    pub fn reference(&self) -> Option<RiemannReference> {
        match *self {
            Case::Sod {
                left,
                right,
                interface,
            } => RiemannReference::new(left, right, interface).ok(),
            Case::Blast { .. } => None,
        }
    }

    /// The state outside inflow boundaries: Sod's left state, the blast's outside gas.
    pub fn inflow(&self) -> Primitive {
        match *self {
            Case::Sod { left, .. } => along_x(left),
            Case::Blast { rho, outside, .. } => Primitive::at_rest(rho, outside),
        }
    }
}

/// The 3-D state of the 1-D state `s` along x.
fn along_x(s: State1d) -> Primitive {
    Primitive {
        rho: s.rho,
        vel: [s.u, 0.0, 0.0],
        p: s.p,
    }
}
