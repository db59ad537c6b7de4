//! `plume calibrate` and `plume compare shock --machine`: measured constants written as JSON
//! and read back, shown in the comparison's reports; bad machine files and words refused with
//! one line.

use std::path::Path;

mod common;
use common::{calibrate_ok, fails, ok, TempDir};
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
    let run = calibrate_ok(&["--quick", "--out", &file]);
    assert!(run.stdout.contains("µs per leaf") && run.stdout.contains("| bandwidth |"));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let written = written.as_object().unwrap();
    assert_eq!(written.keys().count(), CONSTANTS.len() + 1);
    // Measured on ranks that answer data requests between their roots.
    assert_eq!(written["served_between_jobs"], true);
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

/// `plume run shock --levels 1` on 2 thread ranks, processing with a kernel of 10 sweeps, with
/// `args`; its `metrics.json` and printed report.
fn run_on_ranks(dir: &TempDir, out: &str, args: &[&str]) -> (Value, String) {
    let mesh = shock_mesh();
    let out = dir.arg(out);
    let mut all = vec![
        "run",
        "shock",
        "--procs",
        "2",
        "--levels",
        "1",
        "--kernel-sweeps",
        "10",
        "--vtk",
        "none",
        "--mesh",
        &mesh,
        "--out",
        &out,
    ];
    all.extend_from_slice(args);
    let run = ok(&all);
    let text = std::fs::read_to_string(Path::new(&out).join("metrics.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), run.stdout)
}

/// A level's measured wall time, predicted time and error.
fn prediction(metrics: &Value) -> (f64, f64, f64) {
    let m = &metrics["levels"][0]["measured"];
    let f = |name: &str| m[name].as_f64().unwrap_or_else(|| panic!("{name} in {m}"));
    (f("wall_s"), f("predicted_s"), f("error_pct"))
}

#[test]
fn run_shock_on_ranks_sets_each_level_against_the_given_machines_prediction() {
    let dir = TempDir::new("predicted");
    let machine = |t_leaf: f64, t_face: f64| {
        let m = serde_json::json!({
            "t_leaf": t_leaf, "t_face": t_face, "latency": 1e-5, "bandwidth": 1e9,
            "element_bytes": 60.0, "t_handle": 1e-7, "t_pack": 5e-7, "check_interval": 1e-3,
            "served_between_jobs": true
        });
        m.to_string()
    };
    let (a, b) = (dir.arg("a.json"), dir.arg("b.json"));
    std::fs::write(&a, machine(2e-6, 1e-7)).unwrap();
    std::fs::write(&b, machine(4e-6, 2e-7)).unwrap();
    let (plum_a, printed) = run_on_ranks(&dir, "plum-a", &["--process", "--machine", &a]);
    let (plum_b, _) = run_on_ranks(&dir, "plum-b", &["--process", "--machine", &b]);
    // The run's machine is the file's.
    assert_eq!(plum_a["config"]["machine"]["t_leaf"], 2e-6);
    let (wall, predicted, error) = prediction(&plum_a);
    assert!(wall > 0.0 && predicted > 0.0, "{wall} {predicted}");
    assert!(
        (error - 100.0 * (predicted - wall) / wall).abs() < 1e-9,
        "{error}"
    );
    // A static level's prediction is its slowest rank's leaves and cut faces at the machine's
    // costs: twice the costs, twice the time.
    let (_, doubled, _) = prediction(&plum_b);
    assert!(
        (doubled - 2.0 * predicted).abs() <= 1e-12 * predicted,
        "{doubled} {predicted}"
    );
    assert!(printed.contains("| pred. s | pred. err % |"), "{printed}");
    let total = format!("{wall:.3} s measured, {predicted:.3} s predicted");
    assert!(printed.contains(&total), "{total} not in {printed}");
    // SBN's level is predicted from where it starts (the initial partition), whatever the
    // ranks' timing did: the same on every run.
    let sbn = ["--balancer", "sbn", "--backend", "threads", "--machine", &a];
    let (sbn_1, _) = run_on_ranks(&dir, "sbn-1", &sbn);
    let (sbn_2, _) = run_on_ranks(&dir, "sbn-2", &sbn);
    let (wall, predicted, error) = prediction(&sbn_1);
    assert!(predicted > 0.0 && (error - 100.0 * (predicted - wall) / wall).abs() < 1e-9);
    assert_eq!(prediction(&sbn_2).1, predicted);
}

#[test]
fn run_shock_on_ranks_shows_no_prediction_unless_a_machine_is_given() {
    let dir = TempDir::new("unpredicted");
    for (out, args) in [
        ("plum", &["--process"][..]),
        ("sbn", &["--balancer", "sbn", "--backend", "threads"][..]),
    ] {
        let (metrics, printed) = run_on_ranks(&dir, out, args);
        // The default SP2 model predicts another machine: the table leaves it out, the
        // records keep it.
        assert!(printed.contains("| r. wall s |"), "{printed}");
        assert!(!printed.contains("pred."), "{printed}");
        assert!(prediction(&metrics).1 > 0.0);
    }
}

#[test]
fn run_shock_refuses_a_machine_it_cannot_have_in_one_line() {
    let dir = TempDir::new("run-machine");
    let out = dir.arg("o");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "shock", "--levels", "1", "--process", "--out", &out];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let absent = dir.arg("absent.json");
    let cases: [(Vec<String>, i32, Vec<&str>); 3] = [
        // Calibrating on the run's ranks needs two of them for its ping-pong.
        (
            run(&["--procs", "1", "--machine", "measured"]),
            1,
            vec!["at least 2 ranks"],
        ),
        (
            run(&["--procs", "2", "--machine", &absent]),
            1,
            vec![&absent, "cannot read"],
        ),
        (
            run(&["--machine", "fastest"]),
            2,
            vec!["unknown machine \"fastest\""],
        ),
    ];
    for (args, code, needles) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&args, code, &needles);
    }
    assert!(!dir.path("o").join("metrics.json").exists());
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
