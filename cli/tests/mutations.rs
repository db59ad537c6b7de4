//! Random mutations (byte changes, truncations, inserted and deleted bytes) of a valid mesh in
//! each of the three formats (`.vtu` and MSH 4.1 written by `plume mesh box`, the same box in
//! MSH 2.2): the library reader never panics, never shows a reader's internals, and never
//! accepts a mesh that fails validation or whose elements overlap (checked here on their
//! geometry, independently of the validator); on a sample, `plume info` exits 0 exactly when
//! the library accepts the file, else 1 with one `plume:` line.

use plume::io::{read_mesh, read_msh, read_vtu, RawMesh};
use plume::mesh::{generate_box, geometry, Mesh, Topology};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::collections::{HashMap, HashSet};
use std::path::Path;

mod common;
use common::{ok, plume, TempDir};
#[path = "../../tests/msh_text/mod.rs"]
mod msh_text;

/// One edit of a file: (kind, position, byte). Kinds: 0 sets the byte, 1 truncates there,
/// 2 inserts the byte, 3 deletes the byte, 4 changes a digit into another (`byte % 10`: a
/// vertex of an element or a coordinate changed, what folds or tangles a mesh); positions
/// wrap around the file's length.
type Edit = (u8, u32, u8);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((0u8..5, any::<u32>(), any::<u8>()), 1..5)
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
            4 if bytes.get(i).is_some_and(u8::is_ascii_digit) => bytes[i] = b'0' + byte % 10,
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

    /// The same box as [`Case::new`] written as MSH 2.2.
    fn msh22() -> Case {
        let dir = TempDir::new("mutations-msh22");
        let mesh = generate_box([2, 1, 1], [2.0, 1.0, 0.5]).unwrap();
        let nodes: Vec<String> = (mesh.coords.iter().enumerate())
            .map(|(v, p)| format!("{} {} {} {}", v + 1, p[0], p[1], p[2]))
            .collect();
        let tets: Vec<String> = (mesh.tets.iter())
            .map(|t| t.map(|v| (v + 1).to_string()).join(" "))
            .collect();
        let text = msh_text::msh22(&as_strs(&nodes), &as_strs(&tets));
        Case {
            good: text.into_bytes(),
            mutated: dir.arg("mutated.msh"),
            _dir: dir,
        }
    }
}

fn as_strs(lines: &[String]) -> Vec<&str> {
    lines.iter().map(String::as_str).collect()
}

/// The elements of an accepted mesh tile their region once, checked on their geometry: the
/// two elements of an interior face lie on opposite sides of its plane, and every boundary
/// edge is on exactly two boundary faces.
fn tiles_once(mesh: &Mesh, topology: &Topology) -> Result<(), TestCaseError> {
    let mut boundary_edges: HashMap<[u32; 2], usize> = HashMap::new();
    for f in &topology.faces {
        let [a, b, c] = f.verts.map(|v| mesh.coords[v as usize]);
        let apex = |i: usize| {
            let e = f.elems[i] as usize;
            let k = f.local[i] as usize;
            geometry::volume(&[a, b, c, mesh.corners(e)[k]])
        };
        if f.is_boundary() {
            for [p, q] in [[0, 1], [1, 2], [0, 2]] {
                *boundary_edges.entry([f.verts[p], f.verts[q]]).or_default() += 1;
            }
        } else {
            prop_assert!(apex(0) * apex(1) < 0.0, "face {:?} folded", f.verts);
        }
    }
    prop_assert!(boundary_edges.values().all(|&n| n == 2));
    Ok(())
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
            let topology = Topology::new(mesh);
            prop_assert!(topology.is_ok());
            tiles_once(mesh, &topology.unwrap())?;
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
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.starts_with(&case.mutated), "{}", message);
            for internal in ["Deserialization", "Custom(", "range end index", "unwrap()"] {
                prop_assert!(!message.contains(internal), "{}", message);
            }
        }
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

proptest! {
    #![proptest_config(config(11))]

    #[test]
    fn mutated_msh22_never_panics_nor_passes_an_invalid_mesh(e in edits()) {
        thread_local!(static CASE: Case = Case::msh22());
        CASE.with(|case| check(case, &e))?;
    }
}
