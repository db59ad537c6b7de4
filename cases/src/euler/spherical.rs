//! A 1-D reference of flows with spherical symmetry (the blast) computed on a fine radial
//! grid: a second-order finite-volume solver of the Euler equations in `r`, written apart from
//! the 3-D scheme it checks. MUSCL reconstruction of the primitive variables with the
//! monotonized-central limiter, the HLLC flux ([`FluxScheme::Hllc`] along one axis), SSP-RK2
//! in time.
//!
//! In spherical geometry a cell `[r₋, r₊]` has the volume `(r₊³ − r₋³)/3` and faces of area
//! `r²` (per steradian); the momentum gains the geometric source `p·(r₊² − r₋²)`, so a gas at
//! rest under uniform pressure stays at rest to round-off. With the source terms off (planar
//! geometry: unit areas) it is an ordinary 1-D scheme, which its tests compare with the exact
//! Riemann solution. Both ends are reflective walls (the centre has zero area): mass and
//! energy are conserved to round-off.

use super::flux::FluxScheme;
use super::gas::{Conserved, Gas, Primitive, NVARS};
use super::riemann::State1d;
use crate::error::{Error, Result};

/// The geometry of the radial grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Geometry {
    /// Slabs: unit face areas, no source term.
    Planar,
    /// Spherical shells: face areas `r²`, the geometric pressure source.
    Spherical,
}

impl Geometry {
    /// The area of the face at radius `r` (per steradian).
    fn area(self, r: f64) -> f64 {
        match self {
            Geometry::Planar => 1.0,
            Geometry::Spherical => r * r,
        }
    }

    /// The volume of the cell between radii `a < b` (per steradian).
    fn volume(self, a: f64, b: f64) -> f64 {
        match self {
            Geometry::Planar => b - a,
            Geometry::Spherical => (b * b * b - a * a * a) / 3.0,
        }
    }
}

/// The CFL number of the reference solver.
const CFL: f64 = 0.4;

/// The flow on a uniform radial grid, advanced in time (see the module doc).
#[derive(Debug, Clone)]
pub struct RadialFlow {
    geometry: Geometry,
    /// The faces' radii, from the inner end to the outer.
    faces: Vec<f64>,
    /// Per cell: its volume.
    volumes: Vec<f64>,
    /// Per cell: the conserved state `(ρ, ρu, 0, 0, E)` (the 3-D layout, along x).
    state: Vec<Conserved>,
    /// The gas.
    gas: Gas,
    /// The time reached.
    pub time: f64,
}

impl RadialFlow {
    /// `cells` equal cells between radii `lo` and `hi` of `gas`, each set to `initial` at its
    /// middle.
    ///
    /// # Errors
    /// [`Error::Input`] for fewer than 2 cells, a range that is not `0 ≤ lo < hi` and finite,
    /// or an initial state that is not physical.
    pub fn new(
        geometry: Geometry,
        (lo, hi): (f64, f64),
        (cells, gas): (usize, Gas),
        initial: impl Fn(f64) -> State1d,
    ) -> Result<RadialFlow> {
        if cells < 2 || !(lo >= 0.0 && hi > lo && hi.is_finite()) {
            return Err(Error::Input(format!(
                "a radial grid needs at least 2 cells (got {cells}) over 0 ≤ lo < hi (got {lo} \
                 to {hi})"
            )));
        }
        let dr = (hi - lo) / cells as f64;
        let faces: Vec<f64> = (0..=cells).map(|i| lo + dr * i as f64).collect();
        let mut state = Vec::with_capacity(cells);
        for i in 0..cells {
            let s = initial(0.5 * (faces[i] + faces[i + 1]));
            let w = super::cases::along_x(s);
            if !(w.is_physical() && s.u.is_finite()) {
                return Err(Error::Input(format!(
                    "the radial reference's initial state at r = {} is not physical: {s:?}",
                    0.5 * (faces[i] + faces[i + 1])
                )));
            }
            state.push(w.conserved(gas));
        }
        let volumes = faces
            .windows(2)
            .map(|f| geometry.volume(f[0], f[1]))
            .collect();
        Ok(RadialFlow {
            geometry,
            faces,
            volumes,
            state,
            gas,
            time: 0.0,
        })
    }

    /// Advances the flow to time `t_end` (SSP-RK2 steps at CFL 0.4, the last cut to end
    /// there).
    ///
    /// # Errors
    /// [`Error::Input`] when the flow stops being physical.
    pub fn advance_to(&mut self, t_end: f64) -> Result<()> {
        while self.time < t_end {
            let dt = (CFL * self.stable_step()?).min(t_end - self.time);
            let start = self.state.clone();
            let rate = self.rate();
            for (u, r) in self.state.iter_mut().zip(&rate) {
                *u = std::array::from_fn(|k| u[k] + dt * r[k]);
            }
            let rate = self.rate();
            for ((u, s), r) in self.state.iter_mut().zip(&start).zip(&rate) {
                *u = std::array::from_fn(|k| 0.5 * s[k] + 0.5 * (u[k] + dt * r[k]));
            }
            self.time = if dt == t_end - self.time {
                t_end
            } else {
                self.time + dt
            };
        }
        Ok(())
    }

    /// The largest stable step at CFL 1: the smallest `Δr / (|u| + c)`.
    fn stable_step(&self) -> Result<f64> {
        let mut dt = f64::INFINITY;
        for (i, u) in self.state.iter().enumerate() {
            let w = Primitive::of(u, self.gas);
            if !w.is_physical() {
                return Err(Error::Input(format!(
                    "the radial reference is no longer physical at r = {} (t = {})",
                    self.centre(i),
                    self.time
                )));
            }
            let dr = self.faces[i + 1] - self.faces[i];
            dt = dt.min(dr / (w.vel[0].abs() + w.sound_speed(self.gas)));
        }
        Ok(dt)
    }

    /// The rate of change of every cell: fluxes through its two faces, and the geometric
    /// source.
    fn rate(&self) -> Vec<Conserved> {
        let n = self.state.len();
        let gas = self.gas;
        let prim: Vec<Primitive> = self.state.iter().map(|u| Primitive::of(u, gas)).collect();
        let slopes: Vec<[f64; 3]> = (0..n)
            .map(|i| match (i.checked_sub(1), prim.get(i + 1)) {
                (Some(l), Some(r)) => {
                    let (a, b, c) = (packed(&prim[l]), packed(&prim[i]), packed(r));
                    std::array::from_fn(|k| monotonized_central(b[k] - a[k], c[k] - b[k]))
                }
                _ => [0.0; 3],
            })
            .collect();
        let face_state = |i: usize, side: f64| {
            let w = packed(&prim[i]);
            super::cases::along_x(State1d {
                rho: w[0] + side * 0.5 * slopes[i][0],
                u: w[1] + side * 0.5 * slopes[i][1],
                p: w[2] + side * 0.5 * slopes[i][2],
            })
            .conserved(gas)
        };
        let x = [1.0, 0.0, 0.0];
        let flux = FluxScheme::Hllc;
        // The flux through each face (outward at the inner end, along +r elsewhere).
        let fluxes: Vec<Conserved> = (0..=n)
            .map(|f| match f {
                0 => flux
                    .wall_flux(gas, &face_state(0, -1.0), [-1.0, 0.0, 0.0])
                    .map(|v| -v),
                f if f == n => flux.wall_flux(gas, &face_state(n - 1, 1.0), x),
                f => flux.flux(gas, &face_state(f - 1, 1.0), &face_state(f, -1.0), x),
            })
            .collect();
        (0..n)
            .map(|i| {
                let (a, b) = (
                    self.geometry.area(self.faces[i]),
                    self.geometry.area(self.faces[i + 1]),
                );
                let mut r: Conserved =
                    std::array::from_fn(|k| a * fluxes[i][k] - b * fluxes[i + 1][k]);
                r[1] += prim[i].p * (b - a);
                r.map(|v| v / self.volumes[i])
            })
            .collect()
    }

    /// The middle of cell `i`.
    fn centre(&self, i: usize) -> f64 {
        0.5 * (self.faces[i] + self.faces[i + 1])
    }

    /// The state of every cell at its middle radius.
    pub fn profile(&self) -> Vec<(f64, State1d)> {
        self.state
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let w = Primitive::of(u, self.gas);
                (
                    self.centre(i),
                    State1d {
                        rho: w.rho,
                        u: w.vel[0],
                        p: w.p,
                    },
                )
            })
            .collect()
    }

    /// The state at radius `r`, interpolated linearly between the cells' middles (the end
    /// cells' states beyond them).
    pub fn state_at(&self, r: f64) -> State1d {
        let n = self.state.len();
        let dr = self.faces[1] - self.faces[0];
        let s = (r - self.faces[0]) / dr - 0.5;
        let i = (s.floor().max(0.0) as usize).min(n - 2);
        let t = (s - i as f64).clamp(0.0, 1.0);
        let (a, b) = (
            Primitive::of(&self.state[i], self.gas),
            Primitive::of(&self.state[i + 1], self.gas),
        );
        let mix = |x: f64, y: f64| x + t * (y - x);
        State1d {
            rho: mix(a.rho, b.rho),
            u: mix(a.vel[0], b.vel[0]),
            p: mix(a.p, b.p),
        }
    }

    /// The totals of mass and energy (per steradian in spherical geometry).
    pub fn totals(&self) -> [f64; 2] {
        self.state
            .iter()
            .zip(&self.volumes)
            .fold([0.0; 2], |[m, e], (u, v)| {
                [m + u[0] * v, e + u[NVARS - 1] * v]
            })
    }

    /// The width of a cell.
    pub fn cell_width(&self) -> f64 {
        self.faces[1] - self.faces[0]
    }
}

/// The radius of the outermost shock of a pressure profile `(r, p)` (sorted by `r`) running
/// into gas of pressure `ambient`: from the outer end inward, past the first point above
/// `ambient` by 1 %, up to the first local maximum `p_s` (the post-shock pressure); the shock
/// lies where the pressure crosses `(ambient + p_s)/2`, interpolated linearly. `None` when no
/// point rises above the ambient pressure.
pub fn shock_radius(profile: &[(f64, f64)], ambient: f64) -> Option<f64> {
    let outer = profile.iter().rposition(|&(_, p)| p > 1.01 * ambient)?;
    let mut peak = outer;
    while peak > 0 && profile[peak - 1].1 >= profile[peak].1 {
        peak -= 1;
    }
    let half = 0.5 * (ambient + profile[peak].1);
    let above = (peak..profile.len())
        .rev()
        .find(|&i| profile[i].1 >= half)?;
    match profile.get(above + 1) {
        Some(&(r1, p1)) => {
            let (r0, p0) = profile[above];
            Some(r0 + (r1 - r0) * (p0 - half) / (p0 - p1))
        }
        None => Some(profile[above].0),
    }
}

/// The minmod of `2a`, `2b` and `(a + b)/2`: the monotonized-central slope of the one-sided
/// differences `a` and `b` (zero at an extremum).
fn monotonized_central(a: f64, b: f64) -> f64 {
    if a * b <= 0.0 {
        return 0.0;
    }
    let m = (2.0 * a.abs()).min(2.0 * b.abs()).min(0.5 * (a + b).abs());
    m.copysign(a)
}

/// `(ρ, u, p)` of a primitive state along x.
fn packed(w: &Primitive) -> [f64; 3] {
    [w.rho, w.vel[0], w.p]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::euler::cases::{SOD_LEFT, SOD_RIGHT};
    use crate::euler::validation::RiemannReference;

    fn sod(geometry: Geometry, cells: usize) -> RadialFlow {
        let s = |r: f64| if r < 0.5 { SOD_LEFT } else { SOD_RIGHT };
        RadialFlow::new(geometry, (0.0, 1.0), (cells, Gas::default()), s).unwrap()
    }

    /// The L1 density error of planar Sod on `cells` cells at t = 0.2.
    fn planar_sod_error(cells: usize) -> f64 {
        let mut flow = sod(Geometry::Planar, cells);
        flow.advance_to(0.2).unwrap();
        let exact = RiemannReference::new((SOD_LEFT, SOD_RIGHT), 0.5, Gas::default()).unwrap();
        let dr = flow.cell_width();
        flow.profile()
            .iter()
            .map(|(r, s)| dr * (s.rho - exact.density(*r, 0.2)).abs())
            .sum()
    }

    #[test]
    fn planar_it_converges_to_the_exact_riemann_solution() {
        let (coarse, fine) = (planar_sod_error(200), planar_sod_error(400));
        eprintln!("planar Sod L1: {coarse} {fine}");
        // Measured: 2.6e-3 and 1.45e-3 (order 0.84: the contact and the shock bound it). The
        // bound leaves 40 % over the fine error and asks an order of at least 0.75.
        assert!(fine < 2.0e-3, "{coarse} {fine}");
        assert!((coarse / fine).log2() > 0.75, "{coarse} {fine}");
    }

    #[test]
    fn spherical_it_conserves_mass_and_energy_in_shells() {
        let mut flow = sod(Geometry::Spherical, 300);
        let before = flow.totals();
        // Long enough for the shock to reflect off the outer wall and the centre.
        flow.advance_to(0.8).unwrap();
        let after = flow.totals();
        for k in 0..2 {
            assert!(
                ((after[k] - before[k]) / before[k]).abs() < 1e-13,
                "{before:?} {after:?}"
            );
        }
    }

    #[test]
    fn spherical_a_gas_at_rest_stays_at_rest() {
        let rest = State1d {
            rho: 1.3,
            u: 0.0,
            p: 0.7,
        };
        let mut flow = RadialFlow::new(
            Geometry::Spherical,
            (0.0, 2.0),
            (64, Gas::default()),
            |_| rest,
        )
        .unwrap();
        flow.advance_to(1.0).unwrap();
        for (_, s) in flow.profile() {
            assert!((s.rho - 1.3).abs() < 1e-13 && s.u.abs() < 1e-13, "{s:?}");
            assert!((s.p - 0.7).abs() < 1e-13, "{s:?}");
        }
    }

    #[test]
    fn a_spherical_shock_is_slower_than_a_planar_one_and_converges() {
        let radius = |geometry, cells| {
            let mut flow = sod(geometry, cells);
            flow.advance_to(0.2).unwrap();
            let p: Vec<(f64, f64)> = flow.profile().iter().map(|(r, s)| (*r, s.p)).collect();
            shock_radius(&p, SOD_RIGHT.p).unwrap()
        };
        // Planar: the exact shock at 0.5 + 1.7522 · 0.2 within a cell.
        let planar = radius(Geometry::Planar, 400);
        assert!((planar - 0.85044).abs() < 1.0 / 400.0, "{planar}");
        // The spreading shell weakens the spherical shock.
        let (coarse, fine) = (
            radius(Geometry::Spherical, 400),
            radius(Geometry::Spherical, 800),
        );
        assert!(0.5 < fine && fine < planar - 0.01, "{fine} {planar}");
        assert!((coarse - fine).abs() < 1.0 / 400.0, "{coarse} {fine}");
    }

    #[test]
    fn bad_grids_and_states_are_errors() {
        let s = |_| SOD_LEFT;
        assert!(RadialFlow::new(Geometry::Planar, (0.0, 1.0), (1, Gas::default()), s).is_err());
        assert!(RadialFlow::new(Geometry::Planar, (1.0, 1.0), (8, Gas::default()), s).is_err());
        assert!(RadialFlow::new(Geometry::Spherical, (-1.0, 1.0), (8, Gas::default()), s).is_err());
        let vacuum = |_| State1d { p: 0.0, ..SOD_LEFT };
        assert!(
            RadialFlow::new(Geometry::Planar, (0.0, 1.0), (8, Gas::default()), vacuum).is_err()
        );
    }

    #[test]
    fn the_shock_radius_is_where_the_outer_jump_is_half_way() {
        let profile = [
            (0.0, 2.0),
            (1.0, 1.0),
            (2.0, 1.5),
            (3.0, 1.0),
            (4.0, 0.5),
            (5.0, 0.5),
        ];
        // From outside: rises at r = 3, peaks at r = 2 (1.5), half way to 0.5 is 1.0: r = 3.
        assert_eq!(shock_radius(&profile, 0.5), Some(3.0));
        assert_eq!(shock_radius(&[(0.0, 0.5), (1.0, 0.5)], 0.5), None);
    }
}
