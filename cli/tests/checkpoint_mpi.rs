//! Checkpoint and restart across backends (issue 27.3; built only with `--features mpi`):
//! a shock run written on thread ranks continues under `mpirun` on another number of
//! processes, and one written by an `mpirun` job continues on thread ranks, each giving the
//! uninterrupted run's P-independent records (`level`, `leaves`); an Euler flow written on
//! threads continues under `mpirun` bit for bit (the clocks and the balancer's fields aside);
//! an erosion run written on 2 thread ranks continues under `mpirun -n 2` with every record
//! bit for bit.
//! `harness = false`: each scenario starts its own `mpirun` job on the built `plume`.

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;

use std::path::Path;

use common::{ok, records_without, TempDir, EULER_BALANCER_FIELDS};
use serde_json::Value;

fn main() {
    shock_continues_between_threads_and_mpi();
    euler_continues_under_mpi_bit_for_bit();
    erosion_continues_under_mpi_bit_for_bit();
    println!("checkpoint_mpi: all scenarios passed");
}

/// `mpirun -n procs plume args…`, ended after two minutes, failing unless the job succeeds.
fn mpirun_ok(procs: usize, args: &[&str]) {
    let plume = Path::new(env!("CARGO_BIN_EXE_plume"));
    let output = external::mpirun(procs, 120, plume, args);
    assert!(
        output.status.success(),
        "mpirun -n {procs} {args:?}: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `level` and `leaves` of each record of run folder `dir`'s `metrics.json`.
fn leaves(dir: &Path) -> Vec<(u64, u64)> {
    records_without(dir, "levels", &[])
        .iter()
        .map(|r| (r["level"].as_u64().unwrap(), r["leaves"].as_u64().unwrap()))
        .collect()
}

fn shock_continues_between_threads_and_mpi() {
    let dir = TempDir::new("ckpt-mpi-shock");
    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "8", "4", "4", "-o", &mesh]);
    let (whole, threads, mpi) = (dir.arg("whole"), dir.arg("threads"), dir.arg("mpi"));
    let (mpi_first, threads_then) = (dir.arg("mpi-first"), dir.arg("threads-then"));
    // `run shock` of the box up to `levels` into `out`, with `more` options.
    let shock = |levels: &'static str, out: &str, more: &[&str]| -> Vec<String> {
        let args = [
            "run", "shock", "--mesh", &mesh, "--levels", levels, "--vtk", "none",
        ];
        let all = [&args[..], &["--out", out], more].concat();
        all.into_iter().map(String::from).collect()
    };
    let run_ok = |args: Vec<String>| ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let job_ok = |n: usize, args: Vec<String>| {
        mpirun_ok(n, &args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    run_ok(shock("6", &whole, &["--procs", "1"]));
    let expected = leaves(&dir.path("whole"));
    // Threads (P = 2) → MPI (3 processes), after level 2.
    run_ok(shock(
        "2",
        &threads,
        &["--procs", "2", "--checkpoint-every", "2"],
    ));
    let from = dir.path("threads").join("checkpoint").display().to_string();
    job_ok(
        3,
        shock("6", &mpi, &["--backend", "mpi", "--restart", &from]),
    );
    assert_eq!(leaves(&dir.path("mpi")), expected[2..], "threads → MPI");
    // MPI (4 processes) → threads (P = 3), after level 3.
    job_ok(
        4,
        shock(
            "3",
            &mpi_first,
            &["--backend", "mpi", "--checkpoint-every", "3"],
        ),
    );
    let from = dir
        .path("mpi-first")
        .join("checkpoint")
        .display()
        .to_string();
    run_ok(shock(
        "6",
        &threads_then,
        &["--procs", "3", "--restart", &from],
    ));
    assert_eq!(
        leaves(&dir.path("threads-then")),
        expected[3..],
        "MPI → threads"
    );
}

fn euler_continues_under_mpi_bit_for_bit() {
    let dir = TempDir::new("ckpt-mpi-euler");
    let sod = ["run", "euler", "--output-every", "20", "--vtk", "none"];
    let whole = dir.arg("whole");
    ok(&[
        &sod[..],
        &["--procs", "2", "--t-end", "0.05", "--out", &whole],
    ]
    .concat());
    let first = dir.arg("first");
    let args = [
        "--procs",
        "1",
        "--t-end",
        "0.02",
        "--checkpoint-every",
        "40",
        "--out",
        &first,
    ];
    ok(&[&sod[..], &args].concat());
    let from = dir.path("first").join("checkpoint").display().to_string();
    let then = dir.arg("mpi");
    let args = [
        "--backend",
        "mpi",
        "--t-end",
        "0.05",
        "--out",
        &then,
        "--restart",
        &from,
    ];
    mpirun_ok(2, &[&sod[..], &args].concat());
    let flow = |name: &str| records_without(&dir.path(name), "iterations", &EULER_BALANCER_FIELDS);
    let got = flow("mpi");
    let start = got
        .first()
        .map(|r: &Value| r["iteration"].as_u64().unwrap());
    // The checkpoint is at iteration 80, the last multiple of 40 the first run output.
    assert_eq!(start, Some(100));
    let expected: Vec<Value> = flow("whole")
        .into_iter()
        .filter(|r| r["iteration"].as_u64() > Some(80))
        .collect();
    assert_eq!(got, expected, "threads → MPI");
}

fn erosion_continues_under_mpi_bit_for_bit() {
    let dir = TempDir::new("ckpt-mpi-erosion");
    let run = ["run", "erosion", "--cells", "8", "8", "1", "--vtk", "none"];
    let policy = ["--policy", "ulba"];
    let (whole, first, then) = (dir.arg("whole"), dir.arg("first"), dir.arg("mpi"));
    let on_threads = ["--procs", "2", "--iterations", "30", "--out", &whole];
    ok(&[&run[..], &policy, &on_threads].concat());
    let writing = [
        "--procs",
        "2",
        "--iterations",
        "15",
        "--checkpoint-every",
        "10",
        "--out",
        &first,
    ];
    ok(&[&run[..], &policy, &writing].concat());
    let from = dir.path("first").join("checkpoint").display().to_string();
    let continuing = [
        "--backend",
        "mpi",
        "--iterations",
        "30",
        "--out",
        &then,
        "--restart",
        &from,
    ];
    mpirun_ok(2, &[&run[..], &policy, &continuing].concat());
    let records = |name: &str| records_without(&dir.path(name), "iterations", &[]);
    assert_eq!(records("mpi"), records("whole")[10..], "threads → MPI");
}
