//! How far a run is from a reference solution (`docs/euler.md`, cases and checks): the
//! volume-weighted L1 error of the density against any exact density field (a Riemann
//! problem's along x, the smooth wave's, the spherical blast's), and profiles of the flow along
//! a coordinate (x, or the radius) for the reports and the charts.
//!
//! The error is summed exactly ([`LeafSums`]), so it does not depend on P.

use plume::adapt::Forest;
use plume::comm::{Comm, CommExt};
use plume::mesh::geometry;
use plume::Result;

use super::gas::{Conserved, Gas, Primitive};
use super::riemann::{ExactRiemann, RiemannError, State1d};
use super::totals::LeafSums;

/// The exact solution of a Riemann problem whose discontinuity starts at `x = interface`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RiemannReference {
    exact: ExactRiemann,
    interface: f64,
}

impl RiemannReference {
    /// The reference of the problem of `left` and `right` in `gas` with its interface at
    /// `interface`.
    ///
    /// # Errors
    /// [`RiemannError`] for unphysical states or a vacuum.
    pub fn new(
        (left, right): (State1d, State1d),
        interface: f64,
        gas: Gas,
    ) -> std::result::Result<Self, RiemannError> {
        Ok(RiemannReference {
            exact: ExactRiemann::solve(left, right, gas)?,
            interface,
        })
    }

    /// The exact density at `x` at time `t` (at `t = 0`, the initial states).
    pub fn density(&self, x: f64, t: f64) -> f64 {
        self.state(x, t).rho
    }

    /// The exact state at `x` at time `t` (at `t = 0`, the initial states).
    pub fn state(&self, x: f64, t: f64) -> State1d {
        let dx = x - self.interface;
        if t > 0.0 {
            self.exact.sample(dx / t)
        } else if dx < 0.0 {
            self.exact.left
        } else {
            self.exact.right
        }
    }

    /// The time at which the first wave of the exact solution reaches `x = lo` or `x = hi`
    /// (the ends of a tube). From then on the
    /// solution in the tube depends on what its ends do, and the unbounded one is no
    /// reference.
    pub fn unbounded_until(&self, lo: f64, hi: f64) -> f64 {
        let (left, right) = self.exact.wave_speeds();
        let reach = |distance: f64, speed: f64| match speed > 0.0 {
            true => distance / speed,
            false => f64::INFINITY,
        };
        reach(self.interface - lo, -left).min(reach(hi - self.interface, right))
    }

    /// The volume-weighted L1 error of the density at time `t` over the leaves of every
    /// rank's `forest` (a collective): `Σ V·|ρ − ρ_exact(x_c)| / Σ V`, `x_c` a leaf's
    /// centroid.
    ///
    /// # Errors
    /// Transport errors.
    pub fn density_l1<C: Comm + ?Sized>(&self, comm: &C, forest: &Forest, t: f64) -> Result<f64> {
        density_l1(comm, forest, |x| self.density(x[0], t))
    }
}

/// The volume-weighted L1 error of the density over the leaves of every rank's `forest`
/// against the exact density `exact(x)` at each leaf's centroid `x` (a collective):
/// `Σ V·|ρ − exact(x_c)| / Σ V`.
///
/// # Errors
/// Transport errors.
pub fn density_l1<C: Comm + ?Sized>(
    comm: &C,
    forest: &Forest,
    exact: impl Fn([f64; 3]) -> f64,
) -> Result<f64> {
    let [error, volume] = LeafSums::gather(comm, forest, |leaf, v| {
        [v * (leaf.data[0] - exact(leaf.centroid)).abs(), v]
    })?;
    Ok(if volume > 0.0 { error / volume } else { 0.0 })
}

/// The density along x over every rank's leaves (a collective): `slabs` slabs of equal width
/// between `lo` and `hi`, each the volume-weighted mean density of the leaves whose centroid
/// lies in it, at the slab's middle; empty slabs are left out.
///
/// # Errors
/// [`crate::Error::Input`] for no slab or an empty or non-finite range; transport errors.
pub fn density_profile<C: Comm + ?Sized>(
    comm: &C,
    forest: &Forest,
    range: (f64, f64),
    slabs: usize,
) -> crate::Result<Vec<(f64, f64)>> {
    // The density of a leaf does not depend on the gas.
    let rho = |w: &Primitive| w.rho;
    profile(
        comm,
        forest,
        (|x| x[0], range, slabs),
        (rho, Gas::default()),
    )
}

/// A value of the flow along a coordinate over every rank's leaves (a collective): with
/// `(along, (lo, hi), slabs)`, `slabs` slabs of equal width of the coordinate `along(x)`
/// between `lo` and `hi` (x, or the distance from a centre), each the volume-weighted mean of
/// `value` (of a leaf's primitive state in `gas`) over the leaves whose centroid lies in it, at the
/// slab's middle; empty slabs are left out, centroids beyond the range count in the end slabs.
///
/// # Errors
/// [`crate::Error::Input`] for no slab or an empty or non-finite range; transport errors.
pub fn profile<C: Comm + ?Sized>(
    comm: &C,
    forest: &Forest,
    (along, (lo, hi), slabs): (impl Fn([f64; 3]) -> f64, (f64, f64), usize),
    (value, gas): (impl Fn(&Primitive) -> f64, Gas),
) -> crate::Result<Vec<(f64, f64)>> {
    let range = hi - lo;
    if slabs == 0 || !(range.is_finite() && range > 0.0) {
        return Err(crate::Error::Input(format!(
            "a profile needs slabs (got {slabs}) over a finite range lo < hi (got {lo} to {hi})"
        )));
    }
    let width = range / slabs as f64;
    let slab = |x: f64| (((x - lo) / width).floor().max(0.0) as usize).min(slabs - 1);
    let mut mass = vec![0.0; 2 * slabs];
    forest.for_each_leaf(|leaf| {
        let v = geometry::volume(&leaf.corners).abs();
        let s = slab(along(leaf.centroid));
        let u: Conserved = std::array::from_fn(|k| leaf.data[k]);
        mass[2 * s] += v * value(&Primitive::of(&u, gas));
        mass[2 * s + 1] += v;
    });
    // Slab sums travel whole and add in rank order; a slab's mean then depends on P only
    // through the order of that addition, which the profile (a picture) can afford.
    let all = comm.all_gather_serde(&mass)?;
    Ok((0..slabs)
        .filter_map(|s| {
            let (m, v) = all
                .iter()
                .fold((0.0, 0.0), |(m, v), r| (m + r[2 * s], v + r[2 * s + 1]));
            (v > 0.0).then(|| (lo + (s as f64 + 0.5) * width, m / v))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::launch_threads;
    use plume::adapt::{AdaptOptions, Transfer};
    use plume::mesh::generate_box;

    /// A box refined once, its density `rho(x)` at each leaf's centroid.
    fn forest(rho: impl Fn(f64) -> f64) -> Forest {
        let mesh = generate_box([4, 1, 1], [1.0, 0.25, 0.25]).unwrap();
        let mut forest = Forest::new(
            mesh,
            AdaptOptions::with_fields(vec![Transfer::Conservative; crate::euler::NVARS]),
        )
        .unwrap();
        forest.mark_refine_where(|_| true);
        forest.adapt().unwrap();
        let mut set = Vec::new();
        forest.for_each_leaf(|l| set.push((l.id, rho(l.centroid[0]))));
        for (id, r) in set {
            forest.leaf_data_mut(id)[0] = r;
        }
        forest
    }

    #[test]
    fn a_uniform_density_profiles_flat_and_bad_slabs_are_errors() {
        let forest = forest(|_| 2.0);
        let profiles = launch_threads(1, |comm| {
            assert!(density_profile(comm, &forest, (0.0, 1.0), 0).is_err());
            assert!(density_profile(comm, &forest, (1.0, 1.0), 8).is_err());
            assert!(density_profile(comm, &forest, (0.0, f64::INFINITY), 8).is_err());
            density_profile(comm, &forest, (0.0, 1.0), 8)
        })
        .unwrap();
        let profile = &profiles[0];
        assert_eq!(profile.len(), 8, "every slab holds a centroid");
        assert!(profile.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(profile.iter().all(|&(_, rho)| rho == 2.0), "{profile:?}");
    }

    #[test]
    fn the_reference_holds_until_a_wave_reaches_an_end() {
        let sod = |interface| {
            RiemannReference::new(
                (
                    crate::euler::cases::SOD_LEFT,
                    crate::euler::cases::SOD_RIGHT,
                ),
                interface,
                Gas::default(),
            )
            .unwrap()
        };
        // The right shock (1.7522) reaches x = 1 at t = 0.5 / 1.7522 = 0.2854; the left
        // rarefaction's head (−1.1832) x = 0 at 0.4226.
        let t = sod(0.5).unbounded_until(0.0, 1.0);
        assert!((t - 0.2854).abs() < 1e-4, "{t}");
        let t = sod(0.9).unbounded_until(0.0, 10.0);
        assert!((t - 0.9 / 1.4f64.sqrt()).abs() < 1e-12, "{t}");
        // Equal states at rest: the outermost signals still travel at ∓c.
        let still = RiemannReference::new(
            (crate::euler::cases::SOD_LEFT, crate::euler::cases::SOD_LEFT),
            0.5,
            Gas::default(),
        )
        .unwrap();
        let t = still.unbounded_until(0.0, 1.0);
        assert!((t - 0.5 / 1.4f64.sqrt()).abs() < 1e-12, "{t}");
    }

    #[test]
    fn the_l1_error_of_the_exact_initial_state_is_zero_and_of_a_shifted_one_is_not() {
        let left = State1d {
            rho: 1.0,
            u: 0.0,
            p: 1.0,
        };
        let right = State1d {
            rho: 0.125,
            u: 0.0,
            p: 0.1,
        };
        let exact = RiemannReference::new((left, right), 0.5, Gas::default()).unwrap();
        let initial = forest(|x| exact.density(x, 0.0));
        // Moving the interface by a quarter of the box puts the density wrong by 0.875 on a
        // quarter of the volume.
        let shifted = forest(|x| if x < 0.25 { 1.0 } else { 0.125 });
        let errors = launch_threads(1, |comm| {
            Ok((
                exact.density_l1(comm, &initial, 0.0)?,
                exact.density_l1(comm, &shifted, 0.0)?,
            ))
        })
        .unwrap();
        assert_eq!(errors[0].0, 0.0);
        assert!(
            (errors[0].1 - 0.875 * 0.25).abs() < 1e-12,
            "{:?}",
            errors[0]
        );
    }
}
