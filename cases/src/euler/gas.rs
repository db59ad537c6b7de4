//! The ideal gas: conserved and primitive states of the 3-D Euler equations, the physical flux
//! along a direction and the speed of sound (`docs/euler.md`), for the ratio of specific heats
//! γ of a [`Gas`] (1.4, air, unless chosen).

/// Ratio of specific heats of the gas unless chosen (air).
pub const GAMMA: f64 = 1.4;

/// The ideal gas the flow is made of: its ratio of specific heats γ (a small value passed
/// down to where a state is converted; serialized as the bare number).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct Gas {
    /// Ratio of specific heats γ (> 1).
    gamma: f64,
}

impl Default for Gas {
    /// Air: γ = [`GAMMA`].
    fn default() -> Self {
        Gas { gamma: GAMMA }
    }
}

impl Gas {
    /// The gas of ratio of specific heats `gamma`, `None` unless it is finite and above 1.
    pub fn new(gamma: f64) -> Option<Gas> {
        (gamma.is_finite() && gamma > 1.0).then_some(Gas { gamma })
    }

    /// Its ratio of specific heats γ.
    #[inline]
    pub fn gamma(self) -> f64 {
        self.gamma
    }
}

/// Number of conserved variables per leaf: ρ, ρu, ρv, ρw, E.
pub const NVARS: usize = 5;

/// A conserved state `(ρ, ρu, ρv, ρw, E)`.
pub type Conserved = [f64; NVARS];

/// A primitive state: density, velocity, pressure.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Primitive {
    /// Density ρ.
    pub rho: f64,
    /// Velocity (u, v, w).
    pub vel: [f64; 3],
    /// Pressure p.
    pub p: f64,
}

impl Primitive {
    /// A state at rest.
    pub fn at_rest(rho: f64, p: f64) -> Primitive {
        Primitive {
            rho,
            vel: [0.0; 3],
            p,
        }
    }

    /// Its conserved variables in `gas`.
    #[inline]
    pub fn conserved(&self, gas: Gas) -> Conserved {
        let [u, v, w] = self.vel;
        let kinetic = 0.5 * self.rho * (u * u + v * v + w * w);
        [
            self.rho,
            self.rho * u,
            self.rho * v,
            self.rho * w,
            self.p / (gas.gamma - 1.0) + kinetic,
        ]
    }

    /// The primitive variables of `u` in `gas`.
    #[inline]
    pub fn of(u: &Conserved, gas: Gas) -> Primitive {
        let rho = u[0];
        let inv = 1.0 / rho;
        let vel = [u[1] * inv, u[2] * inv, u[3] * inv];
        let kinetic = 0.5 * (u[1] * vel[0] + u[2] * vel[1] + u[3] * vel[2]);
        Primitive {
            rho,
            vel,
            p: (gas.gamma - 1.0) * (u[4] - kinetic),
        }
    }

    /// Speed of sound √(γp/ρ) in `gas`.
    #[inline]
    pub fn sound_speed(&self, gas: Gas) -> f64 {
        (gas.gamma * self.p / self.rho).sqrt()
    }

    /// Velocity along the unit vector `n`.
    pub fn normal_velocity(&self, n: [f64; 3]) -> f64 {
        plume::mesh::geometry::dot(self.vel, n)
    }

    /// True when density and pressure are finite and positive (a state the scheme can use).
    pub fn is_physical(&self) -> bool {
        self.rho.is_finite() && self.p.is_finite() && self.rho > 0.0 && self.p > 0.0
    }

    /// The physical flux along the unit vector `n` of the conserved state `u` (whose
    /// primitive variables these are).
    pub fn flux(&self, u: &Conserved, n: [f64; 3]) -> Conserved {
        let un = self.normal_velocity(n);
        [
            u[0] * un,
            u[1] * un + self.p * n[0],
            u[2] * un + self.p * n[1],
            u[3] * un + self.p * n[2],
            (u[4] + self.p) * un,
        ]
    }

    /// The state with its velocity reflected across the plane of unit normal `n` (the ghost
    /// state of a reflective wall).
    pub fn mirrored(&self, n: [f64; 3]) -> Primitive {
        let un = self.normal_velocity(n);
        Primitive {
            vel: std::array::from_fn(|d| self.vel[d] - 2.0 * un * n[d]),
            ..*self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitive_and_conserved_round_trip() {
        let w = Primitive {
            rho: 1.3,
            vel: [0.2, -0.7, 1.1],
            p: 2.5,
        };
        let gas = Gas::default();
        let back = Primitive::of(&w.conserved(gas), gas);
        assert!((back.rho - w.rho).abs() < 1e-15);
        assert!((back.p - w.p).abs() < 1e-14);
        for d in 0..3 {
            assert!((back.vel[d] - w.vel[d]).abs() < 1e-15);
        }
        assert!((w.sound_speed(gas) - (1.4f64 * 2.5 / 1.3).sqrt()).abs() < 1e-15);
    }

    #[test]
    fn mirroring_flips_the_normal_velocity_only() {
        let w = Primitive {
            rho: 1.0,
            vel: [1.0, 2.0, 3.0],
            p: 1.0,
        };
        let n = [0.0, 1.0, 0.0];
        assert_eq!(w.mirrored(n).vel, [1.0, -2.0, 3.0]);
    }
}
