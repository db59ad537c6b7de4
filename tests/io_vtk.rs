//! plume's `.vtu` files seen by VTK itself, and VTK's files seen by plume. Needs Debian's
//! `/usr/bin/python3` with `python3-vtk9` (`.ci/run` installs it); fails (not skips) when it is
//! missing.

mod external;

use plume::io::{read_mesh, read_vtu, write_vtu, CellArray, CellValues};
use plume::mesh::generate_box;
use std::path::{Path, PathBuf};

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("plume-io-vtk-{}-{name}", std::process::id()))
}

/// Runs `tests/vtk_check.py` with `args`; panics with install instructions when VTK is missing.
fn vtk_check(args: &[&str]) -> String {
    let has_vtk = external::program("python3")
        .args(["-c", "import vtk"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_vtk,
        "/usr/bin/python3 cannot `import vtk`: `bash .ci/run` installs python3-vtk9"
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vtk_check.py");
    let out = external::program("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "vtk_check.py {args:?} failed: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The value after `key ` on its line of `report`.
fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no '{key}' in {report}"))
}

#[test]
fn vtk_reads_plume_vtu_with_cell_arrays() {
    let mesh = generate_box([3, 2, 2], [3.0, 2.0, 1.5]).unwrap();
    let n = mesh.nelems();
    let arrays = [
        CellArray::int("root", (0..n as i32).collect()),
        CellArray::int("level", vec![2; n]),
        CellArray::float("density", (0..n).map(|e| 0.5 * e as f64).collect()),
    ];
    let path = temp_path("box.vtu");
    write_vtu(&path, &mesh.coords, &mesh.tets, &arrays).unwrap();
    let report = vtk_check(&["read", path.to_str().unwrap()]);
    assert_eq!(field(&report, "cells"), "72");
    assert_eq!(field(&report, "tetras"), "72");
    assert_eq!(field(&report, "points"), "36");
    let volume: f64 = field(&report, "volume").parse().unwrap();
    assert!((volume - 9.0).abs() < 1e-12, "VTK's volume {volume}");
    assert_eq!(field(&report, "arrays"), "root,level,density");
    assert_eq!(field(&report, "array root"), "int 0 71");
    assert_eq!(field(&report, "array density"), "double 0 35.5");
    std::fs::remove_file(path).ok();
}

#[test]
fn plume_reads_vtk_written_vtu_in_every_data_mode() {
    for mode in ["appended", "appended-base64", "binary", "ascii"] {
        let path = temp_path(&format!("by-vtk-{mode}.vtu"));
        vtk_check(&["write", path.to_str().unwrap(), mode]);
        let vtu = read_vtu(&path).unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(vtu.mesh.tets, vec![[0, 1, 2, 3], [1, 2, 3, 4]], "{mode}");
        assert_eq!(vtu.mesh.coords[4], [1.0, 1.0, 1.0], "{mode}");
        assert_eq!(vtu.mesh.skipped, vec![("lines".to_string(), 1)], "{mode}");
        let expect = vec![
            CellArray::int("id", vec![10, 11]),
            CellArray {
                name: "value".into(),
                values: CellValues::Float(vec![0.5, -2.25]),
            },
        ];
        assert_eq!(vtu.cell_data, expect, "{mode}");
        let (mesh, report) = read_mesh(&path).unwrap();
        assert!((mesh.volume() - 0.5).abs() < 1e-15, "{mode}");
        assert_eq!(report.notes(), vec!["skipped 1 lines".to_string()]);
        std::fs::remove_file(path).ok();
    }
}
