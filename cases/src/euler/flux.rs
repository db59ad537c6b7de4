//! Numerical fluxes across a face of unit normal `n` from the left state (behind `n`) to the
//! right one (ahead of it): HLLC (Toro, *Riemann Solvers and Numerical Methods for Fluid
//! Dynamics*, 3rd ed., §10.4–10.6, wave speeds of Davis §10.5.1) and Rusanov (local
//! Lax–Friedrichs) as the simple fallback. Both work in the face's frame directly: the normal
//! velocity `u·n` plays the 1-D velocity and the tangential velocity is carried, which is
//! Toro's rotation without building the rotation matrix.

use super::gas::{Conserved, Gas, Primitive, NVARS};

/// Which numerical flux the scheme uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FluxScheme {
    /// Harten–Lax–van Leer–Contact: resolves contacts exactly.
    #[default]
    Hllc,
    /// Rusanov (local Lax–Friedrichs): more diffusive, very robust.
    Rusanov,
}

impl FluxScheme {
    /// The flux across a face of unit normal `n` between `left` (behind `n`) and `right`, in
    /// `gas`.
    #[inline]
    pub fn flux(self, gas: Gas, left: &Conserved, right: &Conserved, n: [f64; 3]) -> Conserved {
        let (wl, wr) = (Primitive::of(left, gas), Primitive::of(right, gas));
        let (cl, cr) = (wl.sound_speed(gas), wr.sound_speed(gas));
        self.flux_of(gas, (left, &wl, cl), (right, &wr, cr), n)
    }

    /// [`FluxScheme::flux`] of two sides given as what the fluxes read of them ([`FaceSide`]:
    /// primitive variables and sound speeds computed once per leaf or face rather than once
    /// per flux, conserved variables only where the flux needs them).
    #[inline]
    pub fn flux_of<S: FaceSide>(self, gas: Gas, left: S, right: S, n: [f64; 3]) -> Conserved {
        match self {
            FluxScheme::Hllc => hllc(gas, left, right, n),
            FluxScheme::Rusanov => rusanov(gas, left, right, n),
        }
    }

    /// The flux through a reflective wall of outward unit normal `n` of the cell in state `u`:
    /// the flux against the mirrored state, whose mass and energy components are zero in exact
    /// arithmetic and are set to exactly zero (so a closed box conserves them to round-off), in
    /// `gas`.
    pub fn wall_flux(self, gas: Gas, u: &Conserved, n: [f64; 3]) -> Conserved {
        let w = Primitive::of(u, gas);
        let mirror = w.mirrored(n).conserved(gas);
        let mut f = self.flux(gas, u, &mirror, n);
        f[0] = 0.0;
        f[4] = 0.0;
        f
    }
}

/// One side of a face as the fluxes read it: its primitive variables and speed of sound, and
/// its conserved variables, asked for only where a flux needs them (a state kept in primitive
/// variables computes them then; [`Primitive::conserved`] gives the same bits wherever it
/// runs).
pub trait FaceSide: Copy {
    /// Primitive variables.
    fn primitive(&self) -> &Primitive;
    /// Speed of sound.
    fn sound_speed(&self) -> f64;
    /// Conserved variables in `gas`.
    fn conserved(&self, gas: Gas) -> Conserved;
}

/// A side held as its conserved state, its primitive state and its sound speed (a leaf's own
/// state on its faces at first order).
pub type Side<'a> = (&'a Conserved, &'a Primitive, f64);

impl FaceSide for Side<'_> {
    #[inline(always)]
    fn primitive(&self) -> &Primitive {
        self.1
    }
    #[inline(always)]
    fn sound_speed(&self) -> f64 {
        self.2
    }
    #[inline(always)]
    fn conserved(&self, _: Gas) -> Conserved {
        *self.0
    }
}

/// Rusanov: the mean of the physical fluxes minus the jump scaled by the largest signal speed
/// `|u·n| + c`.
fn rusanov<S: FaceSide>(gas: Gas, left: S, right: S, n: [f64; 3]) -> Conserved {
    let (wl, wr) = (left.primitive(), right.primitive());
    let (ul, ur) = (left.conserved(gas), right.conserved(gas));
    let (fl, fr) = (wl.flux(&ul, n), wr.flux(&ur, n));
    let s = (wl.normal_velocity(n).abs() + left.sound_speed())
        .max(wr.normal_velocity(n).abs() + right.sound_speed());
    std::array::from_fn(|k| 0.5 * (fl[k] + fr[k]) - 0.5 * s * (ur[k] - ul[k]))
}

/// HLLC (Toro eq. 10.71–10.73 with the star states of eq. 10.39 and the contact speed of
/// eq. 10.37). Reads the conserved variables of one side only: the upwind one.
fn hllc<S: FaceSide>(gas: Gas, left: S, right: S, n: [f64; 3]) -> Conserved {
    let (wl, wr) = (left.primitive(), right.primitive());
    let (unl, unr) = (wl.normal_velocity(n), wr.normal_velocity(n));
    let (cl, cr) = (left.sound_speed(), right.sound_speed());
    let sl = (unl - cl).min(unr - cr);
    let sr = (unl + cl).max(unr + cr);
    if sl >= 0.0 {
        return wl.flux(&left.conserved(gas), n);
    }
    if sr <= 0.0 {
        return wr.flux(&right.conserved(gas), n);
    }
    let (ml, mr) = (wl.rho * (sl - unl), wr.rho * (sr - unr));
    let s_star = (wr.p - wl.p + unl * ml - unr * mr) / (ml - mr);
    let (side, un, s) = if s_star >= 0.0 {
        (left, unl, sl)
    } else {
        (right, unr, sr)
    };
    let (u, w) = (side.conserved(gas), side.primitive());
    let f = w.flux(&u, n);
    let star = star_state(&u, w, un, s, s_star, n);
    std::array::from_fn(|k| f[k] + s * (star[k] - u[k]))
}

/// The HLLC star state next to `u` (primitive `w`, normal velocity `un`) behind the wave of
/// speed `s`, with contact speed `s_star` (Toro eq. 10.39).
fn star_state(
    u: &Conserved,
    w: &Primitive,
    un: f64,
    s: f64,
    s_star: f64,
    n: [f64; 3],
) -> Conserved {
    let m = w.rho * (s - un);
    let factor = m / (s - s_star);
    let dv = s_star - un;
    let mut star = [0.0; NVARS];
    star[0] = factor;
    for d in 0..3 {
        star[1 + d] = factor * (w.vel[d] + dv * n[d]);
    }
    star[4] = factor * (u[4] / w.rho + dv * (s_star + w.p / m));
    star
}

/// What lies beyond one face of a leaf, as [`super::scheme::Scheme::leaf_rate`] reads it.
#[derive(Debug, Clone, Copy)]
pub enum Beyond<S> {
    /// A leaf: its side of the face.
    Leaf(S),
    /// The boundary, with the face's physical tag.
    Boundary(u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMES: [FluxScheme; 2] = [FluxScheme::Hllc, FluxScheme::Rusanov];

    fn unit(v: [f64; 3]) -> [f64; 3] {
        let l = plume::mesh::geometry::norm(v);
        v.map(|x| x / l)
    }

    fn close(a: &Conserved, b: &Conserved, tol: f64) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
    }

    fn state(rho: f64, vel: [f64; 3], p: f64) -> (Conserved, Primitive) {
        let w = Primitive { rho, vel, p };
        (w.conserved(Gas::default()), w)
    }

    #[test]
    fn consistency_the_flux_of_equal_states_is_the_physical_flux() {
        let n = unit([0.3, -0.5, 0.8]);
        for (vel, p) in [
            ([0.2, 0.1, -0.3], 1.0),
            ([3.0, 0.0, 0.0], 0.5),
            ([-4.0, 1.0, 2.0], 2.0),
        ] {
            let (u, w) = state(1.2, vel, p);
            for scheme in SCHEMES {
                assert!(
                    close(
                        &scheme.flux(Gas::default(), &u, &u, n),
                        &w.flux(&u, n),
                        1e-14
                    ),
                    "{scheme:?} at {vel:?}"
                );
            }
        }
    }

    #[test]
    fn hllc_is_exact_on_a_stationary_contact() {
        // Same pressure, zero normal velocity, density jump, different tangential velocity:
        // the exact flux is pressure only.
        let n = unit([1.0, 2.0, -0.5]);
        let t = unit([2.0, -1.0, 0.0]);
        let (ul, _) = state(1.0, t, 1.0);
        let (ur, _) = state(0.125, t.map(|x| -3.0 * x), 1.0);
        let f = FluxScheme::Hllc.flux(Gas::default(), &ul, &ur, n);
        let exact = [0.0, n[0], n[1], n[2], 0.0];
        assert!(close(&f, &exact, 1e-14), "{f:?}");
        // Rusanov smears it.
        assert!(FluxScheme::Rusanov.flux(Gas::default(), &ul, &ur, n)[0].abs() > 1e-3);
    }

    #[test]
    fn the_flux_is_symmetric_under_mirroring() {
        // Swapping the sides and flipping the normal flips the flux.
        let n = unit([0.6, 0.0, -0.8]);
        let (ul, _) = state(1.0, [0.5, 0.2, 0.1], 1.0);
        let (ur, _) = state(0.3, [-0.4, 0.0, 0.7], 0.2);
        for scheme in SCHEMES {
            let f = scheme.flux(Gas::default(), &ul, &ur, n);
            let g = scheme.flux(Gas::default(), &ur, &ul, n.map(|x| -x));
            assert!(close(&f, &g.map(|x| -x), 1e-14), "{scheme:?}: {f:?} {g:?}");
        }
    }

    #[test]
    fn a_wall_passes_pressure_only() {
        let n = unit([0.0, 1.0, 1.0]);
        let (u, w) = state(1.0, [0.3, 0.4, -0.2], 1.0);
        for scheme in SCHEMES {
            let f = scheme.wall_flux(Gas::default(), &u, n);
            assert_eq!((f[0], f[4]), (0.0, 0.0));
            // Momentum along the normal only, and pushing outwards.
            let along = plume::mesh::geometry::dot([f[1], f[2], f[3]], n);
            let tangential = [
                f[1] - along * n[0],
                f[2] - along * n[1],
                f[3] - along * n[2],
            ];
            assert!(tangential.iter().all(|x| x.abs() < 1e-12), "{scheme:?}");
            assert!(
                along > 0.0 && (along - w.p).abs() < 1.0,
                "{scheme:?}: {along}"
            );
        }
    }
}
