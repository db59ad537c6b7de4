//! `plume study euler`: a small study (levels 0–1, the blast on level 0) writes its tables,
//! JSON and charts; bad options are one-line usage errors (exit 2) before the folder is made.

mod common;
use common::{fails, ok, TempDir};

#[test]
fn a_small_study_writes_its_tables_json_and_charts() {
    let dir = TempDir::new("euler-study");
    let out = dir.arg("out");
    let run = ok(&[
        "study",
        "euler",
        "--levels",
        "1",
        "--blast-levels",
        "0",
        "--blast-cubes",
        "3",
        "--reference-cells",
        "500",
        "--out",
        &out,
    ]);
    let mut files: Vec<String> = ["euler.md", "euler.json", "blast_density.svg"]
        .map(String::from)
        .into();
    for p in ["sod", "toro1", "toro2", "toro3", "toro4", "toro5", "wave"] {
        files.extend(["density", "velocity", "pressure"].map(|q| format!("{p}_{q}.svg")));
    }
    files.extend(["convergence_order1.svg", "convergence_order2.svg"].map(String::from));
    for f in &files {
        assert!(dir.path("out").join(f).is_file(), "{f}");
    }
    assert!(
        run.stdout.contains("### Toro's test 5, t = 0.035"),
        "{}",
        run.stdout
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("out").join("euler.json")).unwrap())
            .unwrap();
    assert!(json["provenance"].is_object());
    // Both orders (the default): 7 tube problems on 2 levels, the blast on 1, and 3 adaptive
    // runs each.
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * (7 * 2 + 1 + 3), "{rows:?}");
    assert!(rows.iter().all(|r| r["l1"].as_f64().unwrap() > 0.0));
    assert_eq!(json["fractions"].as_array().unwrap().len(), 2 * 3);
}

#[test]
fn bad_options_are_one_line_usage_errors() {
    for (args, needle) in [
        (&["--orders", "3"][..], "--orders 3"),
        (&["--levels", "9"], "--levels 9"),
        (&["--blast-cubes", "40"], "--blast-cubes 40"),
        (&["--reference-cells", "10"], "--reference-cells 10"),
        (&["--coarsen-below", "0.5"], "--coarsen-below 0.5"),
    ] {
        let dir = TempDir::new("euler-study-guard");
        let out = dir.arg("out");
        let run = fails(
            &[&["study", "euler"], args, &["--out", &out]].concat(),
            2,
            &[needle],
        );
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(!dir.path("out").exists(), "{args:?} made its folder");
    }
}
