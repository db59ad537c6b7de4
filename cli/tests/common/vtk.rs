//! Reading the written VTK files with VTK's own reader (`tests/vtk_check.py`), for the tests
//! that include this module beside `tests/external/mod.rs` as `external`.
#![allow(dead_code)]

use std::path::Path;

/// Runs `tests/vtk_check.py read path` and returns its report.
pub fn vtk_read(path: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vtk_check.py");
    let out = crate::external::program("python3")
        .arg(script)
        .arg("read")
        .arg(path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "vtk_check.py {path:?}: {stderr}");
    // VTK reports a missing or unreadable piece on stderr and reads on.
    assert!(!stderr.contains("ERROR"), "vtk_check.py {path:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// The value after `key ` on its line of `report`.
pub fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no '{key}' in {report}"))
}
