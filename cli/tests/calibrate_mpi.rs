//! `plume calibrate --backend mpi` under `mpirun` (built only with `--features mpi`): on 2 and
//! 3 processes it measures and writes constants `--machine` accepts, every rank agreeing; on 1
//! it stops every process with one `plume:` line (the ping-pong needs a partner).
//! `harness = false`: each scenario starts its own `mpirun` job on the built `plume`.

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;

use std::path::Path;
use std::process::Output;

use common::TempDir;
use serde_json::Value;

fn main() {
    for procs in [2, 3] {
        writes_constants_compare_reads(procs);
    }
    one_process_is_refused_in_one_line();
    println!("calibrate_mpi: all scenarios passed");
}

/// `mpirun -n procs plume calibrate --backend mpi --quick args…`, ended after two minutes.
fn calibrate(procs: usize, args: &[&str]) -> Output {
    let args = [&["calibrate", "--backend", "mpi", "--quick"], args].concat();
    external::mpirun(procs, 120, Path::new(env!("CARGO_BIN_EXE_plume")), &args)
}

fn writes_constants_compare_reads(procs: usize) {
    let dir = TempDir::new(&format!("calibrate-mpi-{procs}"));
    let file = dir.arg("mpi.json");
    let output = calibrate(procs, &["--out", &file]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{procs} processes: {output:?}");
    // Rank 0 alone reports.
    assert_eq!(
        stdout.matches("# This machine (mpi backend)").count(),
        1,
        "{stdout}"
    );
    let machine: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // Measured ranks answer data requests between their jobs; every constant is positive.
    assert_eq!(machine["served_between_jobs"], true, "{procs} processes");
    for (name, x) in machine.as_object().unwrap() {
        if name != "served_between_jobs" {
            let x = x.as_f64().unwrap_or(f64::NAN);
            assert!(x.is_finite() && x > 0.0, "{procs} processes: {name} = {x}");
        }
    }
    common::ok(&[
        "compare",
        "shock",
        "--procs",
        "2",
        "--levels",
        "1",
        "--machine",
        &file,
        "--out",
        &dir.arg("cmp"),
    ]);
}

fn one_process_is_refused_in_one_line() {
    let output = calibrate(1, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("plume: "))
        .collect();
    assert_eq!(
        lines,
        ["plume: calibration needs at least 2 ranks for its ping-pong, got 1"]
    );
}
