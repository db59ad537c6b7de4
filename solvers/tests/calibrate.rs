//! `plume calibrate` and `plume compare shock --machine`: measured constants written as JSON
//! and read back, shown in the comparison's reports; bad machine files and words refused with
//! one line.

use std::path::Path;

mod common;
use common::{fails, ok, TempDir};
use serde_json::Value;

/// The constants of a machine, in the order `plume::sim::Machine` declares them.
const CONSTANTS: [&str; 8] = [
    "t_leaf",
    "t_face",
    "latency",
    "bandwidth",
    "element_bytes",
    "t_handle",
    "t_pack",
    "check_interval",
];

fn shock_mesh() -> String {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh");
    mesh.display().to_string()
}

/// `plume compare shock` on P = 2 for one level with `--machine machine` (none: the default);
/// returns `compare.json` without its provenance (which holds the command line) and the
/// printed report.
fn compare(dir: &TempDir, out: &str, machine: Option<&str>) -> (Value, String) {
    let mesh = shock_mesh();
    let out = dir.arg(out);
    let mut args = vec![
        "compare", "shock", "--procs", "2", "--levels", "1", "--mesh", &mesh, "--out", &out,
    ];
    if let Some(m) = machine {
        args.extend(["--machine", m]);
    }
    let run = ok(&args);
    let text = std::fs::read_to_string(Path::new(&out).join("compare.json")).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    json.as_object_mut().unwrap().remove("provenance");
    (json, run.stdout)
}

#[test]
fn calibrate_writes_constants_that_compare_reads_and_reports() {
    let dir = TempDir::new("calibrate");
    let file = dir.arg("machines/here.json");
    let run = ok(&["calibrate", "--quick", "--out", &file]);
    assert!(run.stdout.contains("µs per leaf") && run.stdout.contains("| bandwidth |"));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let written = written.as_object().unwrap();
    assert_eq!(written.keys().count(), CONSTANTS.len());
    for name in CONSTANTS {
        let x = written[name].as_f64().unwrap();
        assert!(x.is_finite() && x > 0.0, "{name} = {x}");
    }
    // The comparison runs on the file's constants, names the file and prints them.
    let (json, stdout) = compare(&dir, "cmp", Some(&file));
    assert_eq!(json["machine"]["name"], file.as_str());
    for name in CONSTANTS {
        assert_eq!(json["machine"][name], written[name], "{name}");
    }
    assert!(stdout.contains(&format!("The simulated machine: `{file}`")));
    assert!(stdout.contains("| t_pack |"));
    // Given the constants, the simulated times are the same on every run.
    let (again, _) = compare(&dir, "cmp2", Some(&file));
    assert_eq!(json, again);
    // And they are this machine's, not the SP2's: the simulated level times differ.
    let (sp2, _) = compare(&dir, "sp2", None);
    assert_eq!(sp2["machine"]["name"], "sp2");
    assert_eq!(sp2["machine"]["latency"], 40e-6);
    let time = |j: &Value, method: &str| j[method][0]["sim"]["time_s"].as_f64().unwrap();
    for method in ["plum", "sbn"] {
        assert_ne!(time(&json, method), time(&sp2, method), "{method}");
    }
}

#[test]
fn bad_machine_files_and_words_are_refused_in_one_line() {
    let dir = TempDir::new("bad-machine");
    let sp2 = serde_json::json!({
        "t_leaf": 1e-4, "t_face": 2e-5, "latency": 4e-5, "bandwidth": 3.6e7,
        "element_bytes": 50.0, "t_handle": 5e-6, "t_pack": 0.0, "check_interval": 1e-3
    });
    let with = |name: &str, value: Value| {
        let mut m = sp2.clone();
        m[name] = value;
        m.to_string()
    };
    let mut missing = sp2.clone();
    missing.as_object_mut().unwrap().remove("bandwidth");
    let cases = [
        (
            "missing.json",
            missing.to_string(),
            "missing field `bandwidth`",
        ),
        ("zero.json", with("t_leaf", 0.0.into()), "t_leaf is 0"),
        (
            "negative.json",
            with("t_pack", (-1.0).into()),
            "t_pack is -1",
        ),
        (
            "word.json",
            with("latency", "fast".into()),
            "not the constants",
        ),
        (
            "typo.json",
            with("latancy", 1.0.into()),
            "unknown field `latancy`",
        ),
        ("empty.json", String::new(), "not the constants"),
    ];
    for (name, text, needle) in cases {
        let path = dir.arg(name);
        std::fs::write(&path, text).unwrap();
        fails(
            &[
                "compare",
                "shock",
                "--machine",
                &path,
                "--out",
                &dir.arg("o"),
            ],
            1,
            &[&path, needle],
        );
    }
    let absent = dir.arg("absent.json");
    fails(
        &["compare", "shock", "--machine", &absent],
        1,
        &[&absent, "cannot read"],
    );
    fails(
        &["compare", "shock", "--machine", "fastest"],
        2,
        &["--machine", "unknown machine \"fastest\""],
    );
    fails(
        &["calibrate", "--out", &dir.arg("m.txt")],
        2,
        &["--out", "json"],
    );
    // Nothing was written for the refused runs.
    assert!(!dir.path("o").exists());
}

#[cfg(not(feature = "mpi"))]
#[test]
fn calibrate_on_mpi_needs_a_plume_built_with_it() {
    fails(&["calibrate", "--backend", "mpi"], 2, &["--features mpi"]);
}

#[test]
fn calibrate_has_help() {
    let run = ok(&["calibrate", "--help"]);
    assert!(run.stdout.contains("Usage: plume calibrate") && run.stdout.contains("--quick"));
    let run = ok(&["compare", "shock", "--help"]);
    assert!(run.stdout.contains("--machine"));
}
