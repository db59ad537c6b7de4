//! The Euler solver against exact and reference solutions, as `plume study euler` measures it
//! (on small meshes: the tube of 8 cubes on levels 1 and 2, the blast in an octant of 4 cubes
//! on level 1): Sod and Toro's tests 1–5 against the exact Riemann solution, the smooth wave
//! against its translated initial state, the blast's shock against the 1-D spherical
//! reference's.
//!
//! The bounds come from measured runs (`plume study euler --levels 2`, the same meshes): an
//! error may exceed the measured one by at most 5 % (room for changes of the scheme's
//! round-off, none for a loss of accuracy), and an observed order may fall at most 0.1 below
//! the measured one (the orders between coarse levels are not yet asymptotic, so a margin
//! below them, not the theoretical value, is what a regression would cross).

use plume_studies::euler::{runs, EulerStudyConfig, Exact, NamedScheme, Problem, Refinement};

/// The study's configuration with the first-order scheme on the small meshes.
fn config() -> EulerStudyConfig {
    EulerStudyConfig {
        blast_cubes: 4,
        reference_cells: 2000,
        ..EulerStudyConfig::standard(vec![NamedScheme::of_order(1).expect("order 1 is built")])
    }
}

/// The problem called `name`.
fn problem(name: &str) -> Problem {
    Problem::all()
        .into_iter()
        .find(|p| p.name == name)
        .expect("a problem of the study")
}

/// The L1 density errors of `name` on uniform levels `levels` with the scheme of `order`.
fn errors(name: &str, order: u8, levels: &[u8]) -> Vec<f64> {
    let cfg = config();
    let problem = problem(name);
    let exact = Exact::of(&problem, cfg.reference_cells).unwrap();
    let scheme = NamedScheme::of_order(order).unwrap();
    levels
        .iter()
        .map(|&level| {
            runs::run(
                &cfg,
                &problem,
                &exact,
                &scheme,
                Refinement::Uniform { level },
            )
            .unwrap()
            .l1
        })
        .collect()
}

/// Checks the error on level 2 and the order from level 1 against `(error, order)` measured.
fn converges(name: &str, order: u8, (error, observed): (f64, f64)) {
    let e = errors(name, order, &[1, 2]);
    let o = (e[0] / e[1]).log2();
    eprintln!("{name}, order {order}: errors {e:?}, observed order {o:.3}");
    assert!(e[1] <= 1.05 * error, "{name}: {} over {error}", e[1]);
    assert!(o >= observed - 0.1, "{name}: order {o} below {observed}");
}

#[test]
fn sod_and_toro_1_to_5_converge_to_the_exact_solution_at_first_order() {
    // Measured (level 2 error, order from level 1): the contacts smear as h^(1/2) at first
    // order, so the orders lie between 0.3 and 0.6; tests 3 and 4's narrow density spikes
    // (between a contact and a shock a few leaves apart) converge slowest.
    let measured = [
        ("sod", (2.458e-2, 0.51)),
        ("toro1", (2.626e-2, 0.55)),
        ("toro2", (4.215e-2, 0.61)),
        ("toro3", (2.721e-1, 0.31)),
        ("toro4", (2.649e-1, 0.33)),
        ("toro5", (1.314, 0.46)),
    ];
    for (name, m) in measured {
        converges(name, 1, m);
    }
}

#[test]
fn sod_and_toro_1_to_5_converge_faster_at_second_order() {
    // Measured with the default second-order scheme (Venkatakrishnan, K = 20, SSP-RK2): the
    // discontinuities bound the order below 1, but every error on level 2 is 1.5 to 2.7 times
    // below the first order's.
    let measured = [
        ("sod", (9.568e-3, 0.92)),
        ("toro1", (9.625e-3, 0.92)),
        ("toro2", (1.197e-2, 0.88)),
        ("toro3", (1.611e-1, 0.62)),
        ("toro4", (1.551e-1, 0.60)),
        ("toro5", (9.004e-1, 0.49)),
    ];
    for (name, m) in measured {
        converges(name, 2, m);
    }
}

#[test]
fn the_smooth_wave_converges_at_first_order() {
    // Measured: 2.557e-2 on level 2, order 0.71 from level 1 (tending to 1 as h falls).
    converges("wave", 1, (2.557e-2, 0.71));
}

#[test]
fn the_smooth_wave_converges_at_second_order() {
    // The wave enters through an inflow end and leaves through a transmissive one. Measured:
    // 2.371e-3 on level 2, order 1.99 from level 1 (and 1.84 from level 2 to 3, which
    // `plume study euler` measures; too slow for the suite): the limiter leaves the smooth
    // extremum alone.
    converges("wave", 2, (2.371e-3, 1.99));
}

#[test]
fn the_blast_shock_lies_within_one_leaf_of_the_spherical_reference() {
    let cfg = config();
    let blast = problem("blast");
    let exact = Exact::of(&blast, cfg.reference_cells).unwrap();
    let reference = exact
        .shock_radius(blast.ambient_pressure().unwrap())
        .unwrap();
    let scheme = NamedScheme::of_order(1).unwrap();
    let m = runs::run(
        &cfg,
        &blast,
        &exact,
        &scheme,
        Refinement::Uniform { level: 1 },
    )
    .unwrap();
    let found = m.shock_radius.unwrap();
    eprintln!(
        "shock at {found}, reference {reference}, leaf {}",
        m.leaf_size
    );
    assert!(
        (found - reference).abs() <= m.leaf_size,
        "{found} {reference}"
    );
    // The reference is converged far below a leaf: half the cells move it by a hundredth of
    // one.
    let coarse = Exact::of(&blast, cfg.reference_cells / 2).unwrap();
    let moved = coarse
        .shock_radius(blast.ambient_pressure().unwrap())
        .unwrap()
        - reference;
    assert!(moved.abs() < 0.01 * m.leaf_size, "{moved}");
}
