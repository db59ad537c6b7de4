//! The solver's errors in words a user can act on, numbers in them short whatever their size
//! ([`plume::numbers::short`]).

use plume::adapt::LeafId;
use plume::numbers::short;

use super::flux::FluxScheme;
use super::gas::{Conserved, Gas, Primitive};
use super::riemann::State1d;

/// Largest magnitude an input state's values (conserved variables, flux along x, fastest
/// signal speed) may reach. The scheme multiplies up to three such values (HLLC's wave speeds
/// times states, a flux times a face's area over a leaf's volume): below 1e100 each, none of
/// its intermediates comes near `f64::MAX` (1.8e308), and no physical problem needs more.
pub const STATE_LIMIT: f64 = 1e100;

/// Refuses an input state (`option` names it) whose values in `gas` reach [`STATE_LIMIT`]: the
/// scheme would overflow on it at its first iteration.
///
/// # Errors
/// The message naming `option`, the state and its largest value.
pub fn check_state(option: &str, s: State1d, gas: Gas) -> Result<(), String> {
    let w = Primitive {
        rho: s.rho,
        vel: [s.u, 0.0, 0.0],
        p: s.p,
    };
    let u: Conserved = w.conserved(gas);
    let flux = w.flux(&u, [1.0, 0.0, 0.0]);
    let speed = s.u.abs() + w.sound_speed(gas);
    let largest = u.iter().chain(&flux).chain([&speed]).fold(0.0f64, |m, x| {
        if x.is_nan() {
            f64::NAN
        } else {
            m.max(x.abs())
        }
    });
    match largest <= STATE_LIMIT {
        true => Ok(()),
        false => Err(format!(
            "{option} {},{},{}: its conserved variables, fluxes or sound speed reach {}, \
             beyond the {} the scheme can carry without overflowing",
            short(s.rho),
            short(s.u),
            short(s.p),
            short(largest),
            short(STATE_LIMIT)
        )),
    }
}

/// The error of a leaf whose state `w` is no longer physical (density or pressure not
/// positive and finite), with advice that holds for `flux`.
pub fn unphysical(leaf: LeafId, w: &Primitive, flux: FluxScheme) -> String {
    let [u, v, x] = w.vel.map(short);
    let state = format!(
        "density {}, velocity ({u}, {v}, {x}), pressure {}",
        short(w.rho),
        short(w.p)
    );
    let advice = match flux {
        FluxScheme::Hllc => {
            "HLLC does not keep every strong rarefaction or near-vacuum \
                             positive: try --flux rusanov, more diffusive and more robust"
        }
        FluxScheme::Rusanov => {
            "the initial states or the mesh are beyond what this \
                                first-order scheme carries"
        }
    };
    format!(
        "the flow is no longer physical in leaf {} of root {} ({state}); {advice}",
        leaf.elem, leaf.root
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_that_would_overflow_are_refused_naming_the_option() {
        let s = |rho, u, p| State1d { rho, u, p };
        assert!(check_state("--left", s(1.0, 0.0, 1000.0), Gas::default()).is_ok());
        assert!(check_state("--left", s(1e-8, 0.0, 1e-8), Gas::default()).is_ok());
        let e = check_state("--left", s(1.0, 0.0, 1e300), Gas::default()).unwrap_err();
        assert!(
            e.starts_with("--left 1,0,1e300: ") && e.contains("reach 2.5e300"),
            "{e}"
        );
        let e = check_state("--right", s(1.0, 1e200, 1.0), Gas::default()).unwrap_err();
        assert!(
            e.contains("--right 1,1e200,1") && e.contains("reach inf"),
            "{e}"
        );
        // A tiny density: a sound speed of 1.2e150.
        assert!(check_state("--left", s(1e-300, 0.0, 1.0), Gas::default()).is_err());
    }

    #[test]
    fn an_unphysical_leaf_is_named_and_the_advice_fits_the_flux() {
        let leaf = LeafId {
            root: 49,
            elem: 25,
            generation: 0,
        };
        let w = Primitive {
            rho: 0.9781992861908897,
            vel: [1e-300, 0.0, -2.0],
            p: f64::NEG_INFINITY,
        };
        let hllc = unphysical(leaf, &w, FluxScheme::Hllc);
        assert!(hllc.contains("leaf 25 of root 49"), "{hllc}");
        assert!(
            hllc.contains("density 0.978199, velocity (1e-300, 0, -2), pressure -inf"),
            "{hllc}"
        );
        assert!(hllc.contains("try --flux rusanov") && !hllc.contains("--cfl"));
        let rusanov = unphysical(leaf, &w, FluxScheme::Rusanov);
        assert!(
            !rusanov.contains("--flux") && !rusanov.contains("--cfl"),
            "{rusanov}"
        );
    }
}
