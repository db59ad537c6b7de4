//! Random mutations (byte changes, truncations, inserted and deleted bytes) of a valid `.vtu`
//! and `.msh` written by `plume mesh box`: the library reader never panics and never accepts a
//! mesh that fails validation; on a sample, `plume info` exits 0 exactly when the library
//! accepts the file, else 1 with one `plume:` line.

use plume::io::{read_mesh, read_msh, read_vtu, RawMesh};
use plume::mesh::{geometry, Mesh, Topology};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::collections::HashSet;
use std::path::Path;

mod common;
use common::{ok, plume, TempDir};

/// One edit of a file: (kind, position, byte). Kinds: 0 sets the byte, 1 truncates there,
/// 2 inserts the byte, 3 deletes the byte; positions wrap around the file's length.
type Edit = (u8, u32, u8);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((0u8..4, any::<u32>(), any::<u8>()), 1..5)
}

/// `good` with `edits` applied in order.
fn mutate(good: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = good.to_vec();
    for &(kind, at, byte) in edits {
        let i = at as usize % (bytes.len() + 1);
        match kind {
            0 if i < bytes.len() => bytes[i] = byte,
            1 => bytes.truncate(i),
            2 => bytes.insert(i, byte),
            3 if i < bytes.len() => {
                bytes.remove(i);
            }
            _ => {}
        }
    }
    bytes
}

/// A valid mesh file written by `plume mesh box`, and where its mutations go.
struct Case {
    /// Kept for its removal when the test ends.
    _dir: TempDir,
    good: Vec<u8>,
    mutated: String,
}

impl Case {
    fn new(extension: &str) -> Case {
        let dir = TempDir::new(&format!("mutations-{extension}"));
        let good = dir.arg(&format!("good.{extension}"));
        ok(&[
            "mesh", "box", "--cells", "2", "1", "1", "--size", "2", "1", "0.5", "-o", &good,
        ]);
        Case {
            good: std::fs::read(&good).unwrap(),
            mutated: dir.arg(&format!("mutated.{extension}")),
            _dir: dir,
        }
    }
}

/// The unvalidated content of a mesh file.
fn raw(path: &Path) -> plume::Result<RawMesh> {
    if path.extension().is_some_and(|e| e == "vtu") {
        read_vtu(path).map(|v| v.mesh)
    } else {
        read_msh(path)
    }
}

/// Reads the mutated file with the library (always) and the binary (on one case in five).
fn check(case: &Case, edits: &[Edit]) -> Result<(), TestCaseError> {
    std::fs::write(&case.mutated, mutate(&case.good, edits)).unwrap();
    let path = Path::new(&case.mutated);
    let read = read_mesh(path);
    let validated = raw(path).and_then(|r| Mesh::from_parts(r.coords, r.tets, "raw"));
    prop_assert_eq!(read.is_ok(), validated.is_ok(), "{:?}", read.as_ref().err());
    match &read {
        Ok((mesh, _)) => {
            // Independent of the validator: positive volumes, manifold faces, no element twice.
            for e in 0..mesh.nelems() {
                prop_assert!(geometry::volume(&mesh.corners(e)) > 0.0);
            }
            prop_assert!(Topology::new(mesh).is_ok());
            let distinct: HashSet<[u32; 4]> = mesh
                .tets
                .iter()
                .map(|t| {
                    let mut k = *t;
                    k.sort_unstable();
                    k
                })
                .collect();
            prop_assert_eq!(distinct.len(), mesh.nelems());
        }
        Err(e) => prop_assert!(e.to_string().starts_with(&case.mutated), "{}", e),
    }
    if edits[0].1.is_multiple_of(5) {
        let run = plume(&["info", &case.mutated]);
        prop_assert_eq!(run.code == 0, read.is_ok(), "{}", run.stderr);
        if run.code != 0 {
            prop_assert_eq!(run.code, 1);
            let lines: Vec<&str> = run.stderr.lines().collect();
            prop_assert!(
                lines.len() == 1 && lines[0].starts_with("plume: "),
                "{:?}",
                lines
            );
        }
    }
    Ok(())
}

fn config(seed: u64) -> Config {
    Config {
        cases: 300,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(9))]

    #[test]
    fn mutated_vtu_never_panics_nor_passes_an_invalid_mesh(e in edits()) {
        thread_local!(static CASE: Case = Case::new("vtu"));
        CASE.with(|case| check(case, &e))?;
    }
}

proptest! {
    #![proptest_config(config(10))]

    #[test]
    fn mutated_msh_never_panics_nor_passes_an_invalid_mesh(e in edits()) {
        thread_local!(static CASE: Case = Case::new("msh"));
        CASE.with(|case| check(case, &e))?;
    }
}
