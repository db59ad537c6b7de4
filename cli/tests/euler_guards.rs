//! What a failing Euler run says: a leaf whose state is no longer physical is named readably,
//! with short numbers and advice that fits the flux; a run that would outgrow its memory is
//! refused before the adaptation step that would, not aborted by the allocator.

mod common;
mod euler_common;

use common::limited::plume;
use common::TempDir;

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::dist::GatheredPlum;
use plume::mesh::generate_box;
use plume_cases::euler::EulerRun;
use plume_cases::euler::{Case, FluxScheme, Primitive, TimeScheme};
use plume_cases::ranks::launch_threads;

/// The error of a run whose leaf `i` is set to a negative pressure before its first iteration.
fn error_with(flux: FluxScheme) -> String {
    let initial = InitialMesh::new(generate_box([2, 1, 1], [1.0; 3]).unwrap()).unwrap();
    let cfg = euler_common::adaptive(Case::blast([0.5; 3], 0.3), flux, TimeScheme::Euler, 0);
    let err = launch_threads(1, |comm| {
        let plum = Plum::new(PlumOptions::new(1))?;
        let mut euler = EulerRun::new(comm, &initial, cfg, GatheredPlum::new(plum))?;
        let broken = Primitive {
            rho: 0.9781992861908897,
            vel: [0.0; 3],
            p: -1e-300,
        };
        euler.mesh.state[3] = broken.conserved(plume_cases::euler::Gas::default());
        euler.iterate().map(|_| ())
    })
    .unwrap_err();
    err.to_string()
}

#[test]
fn an_unphysical_leaf_is_named_with_short_numbers_and_advice_that_fits_the_flux() {
    let hllc = error_with(FluxScheme::Hllc);
    assert!(hllc.contains("at iteration 0, t = 0:"), "{hllc}");
    assert!(
        hllc.contains(" of root ") && !hllc.contains("LeafId"),
        "{hllc}"
    );
    assert!(
        hllc.contains("density 0.978199") && hllc.contains("pressure -1e-300"),
        "{hllc}"
    );
    assert!(
        hllc.contains("--flux rusanov") && !hllc.contains("--cfl"),
        "{hllc}"
    );
    let rusanov = error_with(FluxScheme::Rusanov);
    assert!(
        !rusanov.contains("--flux") && !rusanov.contains("--cfl"),
        "{rusanov}"
    );
}

#[test]
fn a_run_that_would_outgrow_its_memory_is_refused_before_the_step() {
    let dir = TempDir::new("euler-memory");
    let out = dir.arg("out");
    // Under 300 MB of address space (about 100 MB the estimates may take), the initial
    // refinement to depth 8 and the blast's adaptation steps to depth 3 outgrow it (to depth
    // 4 its initial refinement, which resolves the pressure sphere, already does).
    for (args, needle) in [
        ("--max-depth 8", "plume: the initial refinement (about "),
        (
            "--case blast --max-depth 3",
            "plume: the adaptation step at iteration ",
        ),
    ] {
        let line = format!("run euler {args} --vtk none --out {out}");
        let words: Vec<&str> = line.split_whitespace().collect();
        let (code, stderr) = {
            let run = plume(&words, Some(300_000 * 1024));
            (run.code, run.stderr)
        };
        assert_eq!(code, 1, "{args}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args}: {stderr}");
        assert!(lines[0].starts_with(needle), "{args}: {stderr}");
        assert!(lines[0].contains("lower --max-depth"), "{stderr}");
    }
}
