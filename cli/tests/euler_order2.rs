//! The second-order reconstruction on a real flow mesh: a face whose reconstructed density or
//! pressure would not be positive falls back to the leaf's own state and is counted, never a
//! negative or NaN state; the limiters keep every face within its leaf's neighbourhood, so
//! they need no fallback.

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::dist::GatheredPlum;
use plume::mesh::generate_box;
use plume_cases::euler::reconstruct::Reconstruction;
use plume_cases::euler::scheme::Boundaries;
use plume_cases::euler::{
    Case, EulerConfig, EulerRun, IndicatorOptions, InitialRefinement, Limiter, MemoryBudget,
    SchemeOptions, State1d,
};
use plume_cases::ranks::launch_threads;

/// Toro's test 3 (a pressure jump of 10⁵) on a tube refined once, at t = 0: per limiter, the
/// faces that fell back and whether every face state is physical.
fn toro3_faces(limiters: &[Limiter]) -> Vec<(u64, bool)> {
    let initial = InitialMesh::new(generate_box([8, 1, 1], [1.0, 0.125, 0.125]).unwrap()).unwrap();
    let state = |rho, p| State1d { rho, u: 0.0, p };
    let case = Case::Sod {
        left: state(1.0, 1000.0),
        right: state(1.0, 0.01),
        interface: 0.5,
    };
    let cfg = EulerConfig {
        case,
        scheme: SchemeOptions::default(),
        indicator: IndicatorOptions::default(),
        initial: InitialRefinement::Uniform(1),
        adapt_every: 0,
        t_end: 1.0,
        memory: MemoryBudget::UNLIMITED,
    };
    let boundaries = Boundaries::from_tags(&initial.mesh().tags, &[], case.inflow()).unwrap();
    launch_threads(1, |comm| {
        let plum = Plum::new(PlumOptions::new(1))?;
        let euler = EulerRun::new(comm, &initial, cfg, GatheredPlum::new(plum))?;
        Ok(limiters
            .iter()
            .map(|&limiter| {
                let reconstruction = Reconstruction {
                    limiter,
                    venkat_k: 0.0,
                    boundaries: &boundaries,
                    gas: plume_cases::euler::Gas::default(),
                };
                let (faces, fallbacks) = reconstruction.leaf_faces(&euler.mesh);
                let physical = faces
                    .iter()
                    .flatten()
                    .all(|f| f.w.rho > 0.0 && f.w.p > 0.0 && f.c.is_finite());
                (fallbacks, physical)
            })
            .collect())
    })
    .unwrap()
    .remove(0)
}

#[test]
fn a_face_that_would_not_be_physical_falls_back_to_first_order_and_is_counted() {
    let [unlimited, barth, venkat] = toro3_faces(&[
        Limiter::None,
        Limiter::BarthJespersen,
        Limiter::Venkatakrishnan,
    ])[..] else {
        panic!("three limiters asked")
    };
    // Unlimited, the low-pressure leaves next to the jump extrapolate far below zero.
    assert!(unlimited.0 > 0 && unlimited.1, "{unlimited:?}");
    assert_eq!(barth, (0, true));
    assert_eq!(venkat, (0, true));
}
