//! Random mutations (byte changes, truncations, inserted and deleted bytes) of a valid `.vtu`
//! and `.msh` written by plume: reading never panics, and never accepts a mesh that fails
//! validation.

use plume::io::{read_mesh, read_msh, read_vtu, write_mesh, RawMesh};
use plume::mesh::{generate_box, geometry, Mesh, Topology};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One edit of a file: (kind, position, byte). Kinds: 0 set the byte, 1 truncate there,
/// 2 insert the byte, 3 delete the byte; positions wrap around the file's length.
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

/// A valid mesh file written by plume, and where its mutations go.
struct Case {
    good: Vec<u8>,
    path: PathBuf,
}

impl Case {
    fn new(extension: &str) -> Case {
        let dir = std::env::temp_dir();
        let name = |what: &str| {
            dir.join(format!(
                "plume-mut-{}-{what}.{extension}",
                std::process::id()
            ))
        };
        let good_path = name("good");
        write_mesh(
            &good_path,
            &generate_box([2, 1, 1], [2.0, 1.0, 0.5]).unwrap(),
        )
        .unwrap();
        let good = std::fs::read(&good_path).unwrap();
        std::fs::remove_file(good_path).ok();
        Case {
            good,
            path: name("mutated"),
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

/// Reads the mutated file both ways and checks they agree with validation.
fn check(case: &Case, edits: &[Edit]) -> Result<(), TestCaseError> {
    std::fs::write(&case.path, mutate(&case.good, edits)).unwrap();
    let read = read_mesh(&case.path);
    let validated = raw(&case.path).and_then(|r| Mesh::from_parts(r.coords, r.tets, "raw"));
    prop_assert_eq!(read.is_ok(), validated.is_ok(), "{:?}", read.as_ref().err());
    if let Ok((mesh, _)) = read {
        // Independent of the validator: positive volumes, manifold faces, no repeated element.
        for e in 0..mesh.nelems() {
            prop_assert!(geometry::volume(&mesh.corners(e)) > 0.0);
        }
        prop_assert!(Topology::new(&mesh).is_ok());
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
    } else if let Err(e) = read {
        prop_assert!(
            e.to_string().starts_with(&case.path.display().to_string()),
            "the message names the file: {}",
            e
        );
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
    fn mutated_vtu_never_panics_nor_passes_invalid(e in edits()) {
        thread_local!(static CASE: Case = Case::new("vtu"));
        CASE.with(|case| check(case, &e))?;
    }
}

proptest! {
    #![proptest_config(config(10))]

    #[test]
    fn mutated_msh_never_panics_nor_passes_invalid(e in edits()) {
        thread_local!(static CASE: Case = Case::new("msh"));
        CASE.with(|case| check(case, &e))?;
    }
}
