//! `plume run euler --backend mpi` under `mpirun` (built only with `--features mpi`): for 2
//! and 3 processes the job's records (times aside) and its last pieces' densities are the
//! threads backend's on as many ranks, bit for bit; balanced by SBN on 3 processes (trees
//! moving between processes while they compute), the records are the unbalanced run's, what
//! SBN decided aside; the hierarchical balancer on 4 processes (tree 2,2) decides as on 4
//! thread ranks: the same records and decision points, the clocks aside. `harness = false`: each scenario starts its own `mpirun` job on the
//! built `plume`.

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;

use std::path::Path;

use common::{euler_moved_trees, ok, records_without, TempDir, EULER_BALANCER_FIELDS};
use plume::io::{read_vtu, CellValues};
use serde_json::Value;

fn main() {
    for procs in [2, 3] {
        the_job_gives_the_threads_flow(procs);
    }
    sbn_between_processes_gives_the_unbalanced_flow();
    hier_between_processes_decides_as_on_threads();
    println!("euler_mpi: all scenarios passed");
}

/// The records of `dir`'s `metrics.json`, wall-clock fields taken out.
fn records(dir: &Path) -> Vec<Value> {
    records_without(dir, "iterations", &["time_ms", "flux_rate"])
}

/// The density of every leaf of output `step`'s pieces, rank by rank, as bits.
fn densities(dir: &Path, step: usize, procs: usize) -> Vec<u64> {
    (0..procs)
        .flat_map(|rank| {
            let vtu = read_vtu(&dir.join(format!("step_{step:04}/r{rank:04}.vtu"))).unwrap();
            match vtu.cell_data.into_iter().find(|a| a.name == "density") {
                Some(a) => match a.values {
                    CellValues::Float(v) => v.into_iter().map(f64::to_bits).collect::<Vec<_>>(),
                    other => panic!("density is {other:?}"),
                },
                None => panic!("no density"),
            }
        })
        .collect()
}

/// Runs `plume run euler --backend mpi --out DIR/mpi MPI_ARGS` under `mpirun -n procs`, then
/// `plume run euler --procs procs --out DIR/threads THREADS_ARGS` on thread ranks.
fn mpi_and_threads(dir: &TempDir, procs: usize, mpi_args: &[&str], threads_args: &[&str]) {
    let (mpi, threads) = (dir.arg("mpi"), dir.arg("threads"));
    let output = external::mpirun(
        procs,
        120,
        Path::new(env!("CARGO_BIN_EXE_plume")),
        &[
            &["run", "euler", "--backend", "mpi", "--out", &mpi][..],
            mpi_args,
        ]
        .concat(),
    );
    assert!(
        output.status.success(),
        "mpirun -n {procs} {}: {}",
        mpi_args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    let p = procs.to_string();
    ok(&[
        &["run", "euler", "--procs", &p, "--out", &threads][..],
        threads_args,
    ]
    .concat());
}

fn the_job_gives_the_threads_flow(procs: usize) {
    let dir = TempDir::new(&format!("euler-mpi-{procs}"));
    let common = ["--t-end", "0.03", "--output-every", "20", "--vtk", "last"];
    mpi_and_threads(&dir, procs, &common, &common);
    let (a, b) = (records(&dir.path("mpi")), records(&dir.path("threads")));
    assert_eq!(a, b, "P = {procs}");
    let last = a.len() - 1;
    assert_eq!(
        densities(&dir.path("mpi"), last, procs),
        densities(&dir.path("threads"), last, procs),
        "P = {procs}"
    );
}

fn sbn_between_processes_gives_the_unbalanced_flow() {
    let dir = TempDir::new("euler-mpi-sbn");
    let common = ["--t-end", "0.03", "--output-every", "20", "--vtk", "none"];
    let (sbn, none) = (["--balancer", "sbn"], ["--balancer", "none"]);
    mpi_and_threads(
        &dir,
        3,
        &[&sbn[..], &common].concat(),
        &[&none[..], &common].concat(),
    );
    assert_eq!(
        records_without(&dir.path("mpi"), "iterations", &EULER_BALANCER_FIELDS),
        records_without(&dir.path("threads"), "iterations", &EULER_BALANCER_FIELDS)
    );
    assert!(
        euler_moved_trees(&dir.path("mpi")) > 0,
        "SBN moved no tree between the processes"
    );
}

fn hier_between_processes_decides_as_on_threads() {
    let dir = TempDir::new("euler-mpi-hier");
    let common = [
        "--balancer",
        "hier",
        "--tree",
        "2,2",
        "--t-end",
        "0.03",
        "--output-every",
        "20",
        "--vtk",
        "none",
    ];
    mpi_and_threads(&dir, 4, &common, &common);
    assert_eq!(records(&dir.path("mpi")), records(&dir.path("threads")));
    let decisions = |name: &str| records_without(&dir.path(name), "decisions", &[]);
    let on_threads = decisions("threads");
    assert!(
        on_threads.iter().any(|d| d["balanced"] == true),
        "hier never balanced"
    );
    assert_eq!(decisions("mpi"), on_threads);
}
