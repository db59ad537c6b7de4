//! The Sod shock tube along x in a small generated box with the first-order scheme: the
//! density's L1 error against the exact Riemann solution falls with uniform refinement at
//! about first order, the shock sits within a leaf of its exact position, and the adaptive run
//! reaches the finest uniform level's error with at most a third of its leaves. (The second
//! order's figures are the validation study's, `plume_studies::euler`.)

mod euler_common;

use euler_common::{density_l1, run, sod_states, LeafSample};
use plume::adapt::InitialMesh;
use plume::mesh::generate_box;
use plume_cases::euler::{
    Case, EulerConfig, ExactRiemann, Gas, IndicatorOptions, InitialRefinement, MemoryBudget,
    SchemeOptions,
};

const T_END: f64 = 0.2;

/// A tube of `n` cubes of edge 1/16 along x.
fn tube(n: usize) -> InitialMesh {
    let h = 1.0 / 16.0;
    InitialMesh::new(generate_box([n, 1, 1], [n as f64 * h, h, h]).unwrap()).unwrap()
}

fn config(initial: InitialRefinement, indicator: IndicatorOptions, t_end: f64) -> EulerConfig {
    EulerConfig {
        case: Case::sod(0.5),
        scheme: SchemeOptions::first_order(),
        indicator,
        initial,
        adapt_every: 2,
        t_end,
        memory: MemoryBudget::UNLIMITED,
    }
}

/// Uniform refinement to `level`, no adaptation.
fn uniform(level: u8, t_end: f64) -> EulerConfig {
    let indicator = IndicatorOptions {
        max_depth: level,
        ..IndicatorOptions::default()
    };
    EulerConfig {
        adapt_every: 0,
        ..config(InitialRefinement::Uniform(level), indicator, t_end)
    }
}

fn error(leaves: &[LeafSample], t_end: f64) -> f64 {
    let (l, r) = sod_states();
    density_l1(leaves, (l, r), (0.5, t_end), Gas::default())
}

#[test]
fn the_error_falls_at_first_order_and_the_shock_is_within_a_leaf() {
    let initial = tube(16);
    let mut errors = Vec::new();
    for level in 0..=2u8 {
        let out = run(1, &initial, uniform(level, T_END), None);
        errors.push(error(&out.leaves, T_END));
        if level == 2 {
            shock_within_a_leaf(&out.leaves);
        }
    }
    eprintln!("L1 errors by level: {errors:?}");
    // h halves each level. The shock converges at first order but the contact smears as
    // h^(1/2) under a first-order scheme, so the density's L1 error falls at an order between
    // (about 0.6 on these meshes): ask for at least 0.5 over the three levels and a fall at
    // each.
    let order = (errors[0] / errors[2]).log2() / 2.0;
    assert!(order >= 0.5, "order {order}: {errors:?}");
    assert!(errors.windows(2).all(|w| w[1] < 0.75 * w[0]), "{errors:?}");
}

/// The numerical shock (where the density crosses halfway between the post-shock and the
/// right state, right of the contact) lies within one leaf of the exact shock.
fn shock_within_a_leaf(leaves: &[LeafSample]) {
    let (l, r) = sod_states();
    let exact = ExactRiemann::solve(l, r, Gas::default()).unwrap();
    let shock = 0.5 + exact.right_shock_speed().unwrap() * T_END;
    let contact = 0.5 + exact.u_star * T_END;
    let post = exact.sample(exact.u_star + 1e-9).rho;
    let half = 0.5 * (post + r.rho);
    let found = leaves
        .iter()
        .filter(|l| l.centroid[0] > contact && l.state[0] > half)
        .map(|l| l.centroid[0])
        .fold(f64::MIN, f64::max);
    // A leaf's extent along x at level 2: the cubes' edge 1/16 split twice.
    let leaf = 1.0 / 16.0 / 4.0;
    eprintln!("shock at {found}, exact {shock}");
    assert!(
        (found - shock).abs() <= leaf,
        "shock at {found}, exact {shock}"
    );
}

#[test]
fn the_adaptive_run_reaches_the_finest_uniform_error_with_a_third_of_its_leaves() {
    // A tube twice as long as the waves need by t = 0.1, as a domain is in practice.
    let (initial, t_end) = (tube(32), 0.1);
    let uniform = run(1, &initial, uniform(2, t_end), None);
    let indicator = IndicatorOptions {
        refine_above: 0.01,
        coarsen_below: 0.002,
        max_depth: 2,
        ..IndicatorOptions::default()
    };
    let adaptive = run(
        1,
        &initial,
        config(InitialRefinement::Adaptive, indicator, t_end),
        None,
    );
    let (eu, ea) = (
        error(&uniform.leaves, t_end),
        error(&adaptive.leaves, t_end),
    );
    let (nu, na) = (uniform.leaves.len(), adaptive.leaves.len());
    eprintln!("uniform: {eu} on {nu} leaves; adaptive: {ea} on {na} leaves");
    // The same error to 2 % (the waves reach each newly refined leaf before it is refined,
    // a lag of a few iterations).
    assert!(ea <= eu * 1.02, "adaptive error {ea} against uniform {eu}");
    assert!(3 * na <= nu, "{na} adaptive leaves against {nu} uniform");
}

/// A monatomic gas (γ = 5/3): the run follows the exact solution at γ = 5/3 (the shock is
/// faster and the post-shock density lower than in air), not the one at γ = 1.4.
#[test]
fn a_sod_run_in_a_monatomic_gas_follows_its_own_exact_solution() {
    let initial = tube(16);
    let monatomic = Gas::new(5.0 / 3.0).unwrap();
    let cfg = EulerConfig {
        scheme: SchemeOptions {
            gas: monatomic,
            ..SchemeOptions::first_order()
        },
        ..uniform(2, T_END)
    };
    let out = run(1, &initial, cfg, None);
    let (l, r) = sod_states();
    let against = |gas| density_l1(&out.leaves, (l, r), (0.5, T_END), gas);
    let (own, air) = (against(monatomic), against(Gas::default()));
    eprintln!("L1 density error at γ = 5/3: {own}, against the γ = 1.4 solution: {air}");
    // Measured: 0.0172 against its own solution at level 2 (about the γ = 1.4 run's error at
    // the same level), 0.0304 (1.77 times more) against air's: bounds 10 % above the one and
    // below the ratio.
    assert!(own < 0.019, "{own}");
    assert!(air > 1.6 * own, "{own} against {air}");
}
