//! `plume run shock --backend mpi` under `mpirun` (built only with `--features mpi`; `.ci/run`
//! runs it): for N = 2…4 processes the job's level records are the threads backend's on N
//! ranks (times aside), its pieces are all written; a conflicting `--procs` is a usage error
//! and an unreadable mesh ends every process with one `plume:` line, never by the timeout.
//! `plume run shock --balancer sbn --backend mpi` processes its levels and leaves PLUM's mesh.
//! `plume run erosion --backend mpi` likewise gives the threads backend's records and pieces.
//! An interrupted job prints one `interrupted` line, not one per rank. `--balancer hier` on 4
//! MPI ranks writes the threads backend's records, in `run shock` and in `run erosion`.
//! `harness = false`: each scenario starts its own `mpirun` job on the built `plume`.

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;

use std::path::Path;
use std::process::Output;

use common::{ok, records_without, TempDir};
use serde_json::Value;

/// `mpirun`'s exit code when its `--timeout` ends the job.
const MPIRUN_TIMEOUT_EXIT: i32 = 110;

fn main() {
    for procs in 2..=4 {
        the_job_gives_the_threads_records(procs);
        the_erosion_job_gives_the_threads_records(procs);
    }
    for procs in [2, 3] {
        sbn_on_mpi_ranks_keeps_the_mesh(procs);
    }
    hier_on_mpi_ranks_decides_as_on_threads();
    minex_on_mpi_ranks_decides_as_on_threads();
    erosion_hier_on_mpi_ranks_decides_as_on_threads();
    a_conflicting_procs_is_a_usage_error();
    an_unreadable_mesh_ends_every_process_with_one_message();
    an_interrupted_job_says_it_once();
    println!("shock_mpi: all scenarios passed");
}

/// `mpirun -n procs plume args…`, ended after two minutes.
fn mpirun(procs: usize, args: &[&str]) -> Output {
    external::mpirun(procs, 120, Path::new(env!("CARGO_BIN_EXE_plume")), args)
}

/// [`mpirun`], failing the test unless the job succeeds.
fn mpirun_ok(procs: usize, args: &[&str]) -> Output {
    let output = mpirun(procs, args);
    assert!(
        output.status.success(),
        "mpirun -n {procs}: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs `case` as a job of `procs` processes (`--backend mpi --out DIR/mpi`), then on `procs`
/// thread ranks (`--out DIR/threads`); returns the job's output.
fn job_and_threads(dir: &TempDir, procs: usize, case: &[&str]) -> Output {
    let (mpi, threads) = (dir.arg("mpi"), dir.arg("threads"));
    let output = mpirun_ok(
        procs,
        &[case, &["--backend", "mpi", "--out", &mpi]].concat(),
    );
    let p = procs.to_string();
    ok(&[case, &["--procs", &p, "--out", &threads]].concat());
    output
}

/// The records of `dir`'s `metrics.json`, wall-clock fields taken out.
fn records(dir: &Path) -> Vec<Value> {
    records_without(dir, "levels", &["time_ms", "balance_pct"])
}

/// The lines of `text` that are plume's messages.
fn plume_lines(text: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| l.starts_with("plume: "))
        .map(String::from)
        .collect()
}

fn the_job_gives_the_threads_records(procs: usize) {
    let dir = TempDir::new(&format!("shock-mpi-{procs}"));
    let (mpi, threads) = (dir.path("mpi"), dir.path("threads"));
    let case = ["run", "shock", "--levels", "2", "--vtk", "last"];
    let output = job_and_threads(&dir, procs, &case);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.matches("| avg |").count(),
        1,
        "only rank 0 prints:\n{stdout}"
    );
    assert_eq!(records(&mpi), records(&threads), "N = {procs}");
    for rank in 0..procs {
        let piece = mpi.join(format!("level_0002/r{rank:04}.vtu"));
        assert!(piece.is_file(), "{piece:?}");
    }
    assert!(mpi.join("level_0002.pvtu").is_file() && mpi.join("shock.pvd").is_file());
}

fn sbn_on_mpi_ranks_keeps_the_mesh(procs: usize) {
    let dir = TempDir::new(&format!("shock-mpi-sbn-{procs}"));
    let (mpi, plum) = (dir.path("mpi"), dir.path("plum"));
    let case = ["run", "shock", "--levels", "2", "--vtk", "none"];
    let sbn = ["--balancer", "sbn", "--backend", "mpi", "--out"];
    mpirun_ok(procs, &[&case[..], &sbn, &[mpi.to_str().unwrap()]].concat());
    let p = procs.to_string();
    ok(&[&case[..], &["--procs", &p, "--out", plum.to_str().unwrap()]].concat());
    for (s, p) in records(&mpi).iter().zip(&records(&plum)) {
        // SBN moves data and never changes the mesh.
        assert_eq!(s["leaves"], p["leaves"], "N = {procs}");
        assert!(s["measured"]["processing_s"].as_f64().unwrap() > 0.0, "{s}");
    }
    println!("test shock_mpi: SBN on {procs} MPI ranks keeps the mesh ... ok");
}

/// Issue 24 (2): `--balancer hier --tree 2,2` on 4 MPI ranks writes the threads backend's
/// records (times aside): the same decisions, bit for bit.
fn hier_on_mpi_ranks_decides_as_on_threads() {
    let dir = TempDir::new("shock-mpi-hier");
    let (mpi, threads) = (dir.path("mpi"), dir.path("threads"));
    let case = [
        "run",
        "shock",
        "--levels",
        "2",
        "--vtk",
        "none",
        "--balancer",
        "hier",
        "--tree",
        "2,2",
    ];
    job_and_threads(&dir, 4, &case);
    let got = records(&mpi);
    assert!(got.iter().all(|r| r["hier"].is_object()), "{got:?}");
    assert_eq!(got, records(&threads));
    println!("test shock_mpi: hier on 4 MPI ranks decides as on threads ... ok");
}

/// Issue 25 (A.10 test 9): `run shock --partitioner minex` on a grid of 2 clusters on 4 MPI
/// ranks writes the threads backend's records: MinEX on the graph rank 0 gathers decides
/// alike, and the grid times the remap from the same moving sizes.
fn minex_on_mpi_ranks_decides_as_on_threads() {
    let dir = TempDir::new("shock-mpi-minex");
    let (mpi, threads) = (dir.path("mpi"), dir.path("threads"));
    let case = [
        "run",
        "shock",
        "--levels",
        "2",
        "--vtk",
        "none",
        "--partitioner",
        "minex",
        "--grid",
        "clusters=2,interconnect=10",
    ];
    job_and_threads(&dir, 4, &case);
    // MinEX's step times are wall-clock times too.
    let without_steps = |records: Vec<Value>| -> Vec<Value> {
        let mut records = records;
        for r in &mut records {
            if let Some(m) = r.get_mut("minex").and_then(Value::as_object_mut) {
                m.remove("time_ms");
            }
        }
        records
    };
    let got = without_steps(records(&mpi));
    assert!(got[0]["minex"].is_object(), "{got:?}");
    assert!(got.iter().all(|r| r["minex_model"].is_object()), "{got:?}");
    assert_eq!(got, without_steps(records(&threads)));
    println!("test shock_mpi: minex on 4 MPI ranks decides as on threads ... ok");
}

/// Issue 24 (2): `run erosion --balancer hier --tree 2,2` on 4 MPI ranks writes the threads
/// backend's records: the same decisions, bit for bit, and what rank 0 gathered for them.
fn erosion_hier_on_mpi_ranks_decides_as_on_threads() {
    let dir = TempDir::new("erosion-mpi-hier");
    let (mpi, threads) = (dir.path("mpi"), dir.path("threads"));
    let case = [
        "run",
        "erosion",
        "--cells",
        "6",
        "6",
        "1",
        "--iterations",
        "8",
        "--policy",
        "periodic:3",
        "--vtk",
        "none",
        "--balancer",
        "hier",
        "--tree",
        "2,2",
    ];
    job_and_threads(&dir, 4, &case);
    let metrics = |dir: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
    };
    let (mpi_json, threads_json) = (metrics(&mpi), metrics(&threads));
    let balanced: Vec<&Value> = mpi_json["iterations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["balanced"] == true)
        .collect();
    assert!(!balanced.is_empty() && balanced.iter().all(|r| r["hier"].is_object()));
    assert_eq!(mpi_json["iterations"], threads_json["iterations"]);
    assert_eq!(mpi_json["summary"], threads_json["summary"]);
    println!("test shock_mpi: erosion's hier on 4 MPI ranks decides as on threads ... ok");
}

fn the_erosion_job_gives_the_threads_records(procs: usize) {
    let dir = TempDir::new(&format!("erosion-mpi-{procs}"));
    let (mpi, threads) = (dir.path("mpi"), dir.path("threads"));
    let case = [
        "run",
        "erosion",
        "--cells",
        "4",
        "4",
        "1",
        "--iterations",
        "8",
        "--policy",
        "periodic:3",
        "--vtk",
        "last",
    ];
    job_and_threads(&dir, procs, &case);
    let metrics = |dir: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
    };
    let (mpi_json, threads_json) = (metrics(&mpi), metrics(&threads));
    assert_eq!(
        mpi_json["iterations"], threads_json["iterations"],
        "N = {procs}"
    );
    assert_eq!(mpi_json["summary"], threads_json["summary"], "N = {procs}");
    for rank in 0..procs {
        let piece = mpi.join(format!("iter_0008/r{rank:04}.vtu"));
        assert!(piece.is_file(), "{piece:?}");
    }
    assert!(mpi.join("iter_0008.pvtu").is_file() && mpi.join("erosion.pvd").is_file());
}

fn a_conflicting_procs_is_a_usage_error() {
    let dir = TempDir::new("shock-mpi-procs");
    let out = dir.arg("out");
    let output = mpirun(
        2,
        &[
            "run",
            "shock",
            "--backend",
            "mpi",
            "--procs",
            "3",
            "--out",
            &out,
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let lines = plume_lines(&output.stderr);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("--procs 3") && lines[0].contains("2 processes"));
}

fn an_unreadable_mesh_ends_every_process_with_one_message() {
    let dir = TempDir::new("shock-mpi-mesh");
    let (mesh, out) = (dir.arg("missing.msh"), dir.arg("out"));
    let args = [
        "run",
        "shock",
        "--backend",
        "mpi",
        "--mesh",
        &mesh,
        "--out",
        &out,
    ];
    let output = mpirun(3, &args);
    let code = output.status.code();
    assert!(
        code.is_some_and(|c| c != 0 && c != MPIRUN_TIMEOUT_EXIT),
        "mpirun exited with {code:?}"
    );
    let lines = plume_lines(&output.stderr);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("missing.msh"), "{lines:?}");
}

/// Issue 21 (21): SIGINT to `mpirun` reaches every rank (Open MPI forwards it); each stops,
/// but the job prints one `plume: interrupted` line (rank 0's), and `mpirun` exits non-zero
/// (Open MPI's own code, not the ranks' 130).
fn an_interrupted_job_says_it_once() {
    use std::process::Stdio;
    let dir = TempDir::new("shock-mpi-interrupt");
    let out = dir.path("out");
    let plume = env!("CARGO_BIN_EXE_plume");
    let case = ["run", "shock", "--backend", "mpi", "--process"];
    let child = external::program("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "--timeout", "120"])
        .args(["-n", "2", plume])
        .args(case)
        .arg("--out")
        .arg(&out)
        .env("OMPI_MCA_pml", "ob1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mpirun");
    // The ranks run once their output folder exists; then interrupt the job.
    let start = std::time::Instant::now();
    while !out.exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill only sends a signal to our child, which has not been reaped yet.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().expect("wait for mpirun");
    let code = output.status.code();
    assert!(
        code.is_some_and(|c| c != 0 && c != MPIRUN_TIMEOUT_EXIT),
        "mpirun exited with {code:?}"
    );
    let lines = plume_lines(&output.stderr);
    let interrupted: Vec<&String> = lines.iter().filter(|l| l.contains("interrupted")).collect();
    assert_eq!(interrupted.len(), 1, "{lines:?}");
}
