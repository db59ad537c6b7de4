//! Slope limiters: the factor `φ ∈ [0, 1]` per primitive variable that scales a leaf's
//! gradient so the states it reconstructs at its face centroids stay within the range of the
//! leaf and its neighbours (Barth and Jespersen 1989), or nearly so where the flow is smooth
//! (Venkatakrishnan 1995).
//!
//! With `Δ = φ ∇W·r_f` the change from the leaf's value `W` to face `f` (`r_f`: from the
//! centroid to the face's centroid) and `Δ⁺` the room towards the neighbours' maximum (Δ > 0)
//! or minimum (Δ < 0), each face asks for
//! - Barth–Jespersen: `min(1, Δ⁺/Δ)`;
//! - Venkatakrishnan: `(Δ⁺² + ε² + 2ΔΔ⁺) / (Δ⁺² + 2Δ² + ΔΔ⁺ + ε²)` (at most 1), `ε² = (K h)³
//!   = K³ V` with `h` the cube root of the leaf's volume `V` and `K` the user's constant:
//!   smooth, so it
//!   does not clip smooth extrema to first order as Barth–Jespersen does; with `K = 0` it
//!   keeps the range as strictly;
//!
//! and the leaf takes the smallest factor over its faces, which the largest change each way
//! decides ([`Limiter::factors`]).

use super::gas::NVARS;
use super::lsq::Gradient;
use plume::mesh::geometry::dot;

/// How the gradients are limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    /// Barth and Jespersen's: strictly within the neighbours' range, clips smooth extrema.
    BarthJespersen,
    /// Venkatakrishnan's, smooth, with the constant `SchemeOptions::venkat_k`.
    #[default]
    Venkatakrishnan,
    /// No limiting: the unlimited gradient (smooth flows only: oscillates at shocks).
    None,
}

/// `changes[v][f]`: how much the gradient `grad` changes variable `v` from a leaf's centroid
/// to its face `f`, at `to_faces[f]` from it.
#[inline]
pub fn changes(grad: &Gradient, to_faces: &[[f64; 3]; 4]) -> [[f64; 4]; NVARS] {
    let mut changes = [[0.0; 4]; NVARS];
    for (c, g) in changes.iter_mut().zip(grad) {
        for (cf, r) in c.iter_mut().zip(to_faces) {
            *cf = dot(*g, *r);
        }
    }
    changes
}

/// The range of each primitive variable over a leaf and its neighbours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Smallest values.
    pub min: [f64; NVARS],
    /// Largest values.
    pub max: [f64; NVARS],
}

impl Range {
    /// The range of `values`.
    #[inline]
    pub fn of<'a>(values: impl IntoIterator<Item = &'a [f64; NVARS]>) -> Range {
        let mut r = Range {
            min: [f64::INFINITY; NVARS],
            max: [f64::NEG_INFINITY; NVARS],
        };
        for v in values {
            for ((lo, hi), x) in r.min.iter_mut().zip(&mut r.max).zip(v) {
                *lo = smaller(*lo, *x);
                *hi = larger(*hi, *x);
            }
        }
        r
    }
}

/// `x` when below `m`, else `m`: `f64::min` on numbers (a NaN `x` is passed over), as one
/// comparison (`f64::min` also orders NaN `m` and signed zeros, at several instructions).
#[inline(always)]
fn smaller(m: f64, x: f64) -> f64 {
    if x < m {
        x
    } else {
        m
    }
}

/// `x` when above `m`, else `m` (as [`smaller`]).
#[inline(always)]
fn larger(m: f64, x: f64) -> f64 {
    if x > m {
        x
    } else {
        m
    }
}

impl Limiter {
    /// The factor of each variable of a leaf of value `w` whose unlimited gradient changes
    /// variable `v` by `changes[v][f]` from its centroid to face `f` ([`changes`]), of volume
    /// `volume`, its neighbours' range being `range` (the leaf's included); `k` is
    /// Venkatakrishnan's constant.
    #[inline]
    pub fn factors(
        self,
        (w, changes): (&[f64; NVARS], &[[f64; 4]; NVARS]),
        (range, volume, k): (&Range, f64, f64),
    ) -> [f64; NVARS] {
        let eps2 = match self {
            Limiter::None => return [1.0; NVARS],
            Limiter::BarthJespersen => 0.0,
            Limiter::Venkatakrishnan => k * k * k * volume,
        };
        let mut phi = [1.0; NVARS];
        for (v, (phi, changes)) in phi.iter_mut().zip(changes).enumerate() {
            // The faces asking least are the largest changes each way (see `face_factor`).
            let rise = changes.iter().fold(0.0, |m, &d| larger(m, d));
            let fall = changes.iter().fold(0.0, |m, &d| smaller(m, d));
            let up = self.face_factor(rise, range.max[v] - w[v], eps2);
            let down = self.face_factor(fall, range.min[v] - w[v], eps2);
            *phi = 1.0f64.min(up).min(down).max(0.0);
        }
        phi
    }

    /// The factor a face asks for: its change `delta`, `room` towards the neighbours'
    /// extreme that way (1 when nothing changes: it asks for nothing). Of the faces changing
    /// a variable one way (the same room), the largest change asks least: Barth–Jespersen's
    /// `room/Δ` falls as `Δ` grows; Venkatakrishnan's, with `Δ = t·room`, is
    /// `(R²(1 + 2t) + ε²) / (R²(1 + t + 2t²) + ε²)`, which rises from 1 at `t = 0` and then
    /// falls (its derivative has the sign of `R²(1 − 4t − 4t²) + ε²(1 − 4t)`, which falls
    /// with `t`: it changes sign once), so a smaller change asks either more than the largest
    /// or more than 1.
    #[inline(always)]
    fn face_factor(self, delta: f64, room: f64, eps2: f64) -> f64 {
        if delta == 0.0 {
            return 1.0;
        }
        match self {
            Limiter::BarthJespersen => room / delta,
            _ => {
                let (d2, r2) = (delta * delta, room * room);
                (r2 + eps2 + 2.0 * delta * room) / (r2 + 2.0 * d2 + delta * room + eps2)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values in [-10, 10].
    fn value() -> impl Strategy<Value = f64> {
        -10.0..10.0f64
    }

    fn vector() -> impl Strategy<Value = [f64; 3]> {
        [value(), value(), value()]
    }

    proptest! {
        /// Whatever the gradient, the limited reconstruction at every face stays within the
        /// range of the leaf and its neighbours (Venkatakrishnan with K = 0 as strictly as
        /// Barth–Jespersen).
        #[test]
        fn limited_faces_stay_within_the_neighbours_range(
            w in [value(), value(), value(), value(), value()],
            grad in [vector(), vector(), vector(), vector(), vector()],
            to_faces in [vector(), vector(), vector(), vector()],
            neighbours in prop::collection::vec([value(), value(), value(), value(), value()], 1..5),
        ) {
            let range = Range::of(neighbours.iter().chain([&w]));
            for limiter in [Limiter::BarthJespersen, Limiter::Venkatakrishnan] {
                let changes = changes(&grad, &to_faces);
                let phi = limiter.factors((&w, &changes), (&range, 1.0, 0.0));
                for v in 0..NVARS {
                    prop_assert!((0.0..=1.0).contains(&phi[v]));
                    for change in changes[v] {
                        let face = w[v] + phi[v] * change;
                        let slack = 1e-12 * (1.0 + w[v].abs() + range.max[v].abs() + range.min[v].abs());
                        prop_assert!(
                            face <= range.max[v] + slack && face >= range.min[v] - slack,
                            "{limiter:?} variable {v}: {face} outside {:?}", (range.min[v], range.max[v])
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_linear_field_inside_its_range_is_not_limited() {
        let w = [1.0; NVARS];
        let grad = [[1.0, 0.0, 0.0]; NVARS];
        let to_faces = [
            [0.5, 0.0, 0.0],
            [-0.5, 0.0, 0.0],
            [0.0, 0.5, 0.0],
            [0.0, 0.0, 0.5],
        ];
        // Neighbours one unit away each side: the faces at half a unit are well inside.
        let range = Range::of(&[[0.0; NVARS], [2.0; NVARS]]);
        let changes = changes(&grad, &to_faces);
        let phi = Limiter::BarthJespersen.factors((&w, &changes), (&range, 1.0, 0.0));
        assert_eq!(phi, [1.0; NVARS]);
        // A local maximum: Barth–Jespersen flattens it.
        let peak = Range::of(&[[0.5; NVARS], [1.0; NVARS]]);
        let phi = Limiter::BarthJespersen.factors((&w, &changes), (&peak, 1.0, 0.0));
        assert_eq!(phi, [0.0; NVARS]);
    }
}
