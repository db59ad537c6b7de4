//! A run owns its output folder (issue 9, item 2): a re-run into a used folder leaves only the
//! new run's files (and the user's own), and a run stopped by SIGINT or SIGTERM exits 130 or
//! 143 with one line, removes its temporary files and never leaves a folder that looks
//! complete, even when the signal comes while METIS partitions.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{ok, TempDir};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `expected` (plume's files, the manifest and the user's `notes.txt`) sorted.
fn sorted(expected: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    names.extend([".plume-manifest".to_string(), "notes.txt".to_string()]);
    names.sort();
    names
}

/// Writes a box of `cells` as `name` in `dir` and returns its path.
fn mesh_box(dir: &TempDir, name: &str, cells: [&str; 3]) -> String {
    let path = dir.arg(name);
    ok(&[
        "mesh", "box", "--cells", cells[0], cells[1], cells[2], "-o", &path,
    ]);
    path
}

#[test]
fn rerunning_shock_and_compare_into_a_used_folder_leaves_only_the_new_runs_files() {
    let dir = TempDir::new("rerun-shock");
    let mesh = mesh_box(&dir, "box.msh", ["6", "2", "2"]);
    let out = dir.path("out");
    let shock = |levels: &str, vtk: &str| {
        let common = ["--procs", "2", "--mesh", &mesh, "--out", &dir.arg("out")];
        ok(&[
            &["run", "shock", "--levels", levels, "--vtk", vtk],
            &common[..],
        ]
        .concat());
    };
    shock("3", "all");
    std::fs::write(out.join("notes.txt"), "my notes").unwrap();
    let reports = ["metrics.csv", "metrics.json", "summary.md"];
    // Level 0 is the initial mesh; each level is an index of the 2 ranks' pieces, in the
    // level's folder.
    let levels = [
        "level_0000",
        "level_0000.pvtu",
        "level_0001",
        "level_0001.pvtu",
        "level_0002",
        "level_0002.pvtu",
        "level_0003",
        "level_0003.pvtu",
    ];
    assert_eq!(
        names(&out),
        sorted(&[&reports[..], &levels, &["shock.pvd"]].concat())
    );
    assert_eq!(names(&out.join("level_0003")), ["r0000.vtu", "r0001.vtu"]);
    shock("1", "last");
    assert_eq!(
        names(&out),
        sorted(&[&reports[..], &levels[..4], &["shock.pvd"]].concat())
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap()).unwrap();
    assert_eq!(json["levels"].as_array().unwrap().len(), 1);
    ok(&[
        "compare",
        "shock",
        "--procs",
        "2",
        "--levels",
        "1",
        "--mesh",
        &mesh,
        "--out",
        &dir.arg("out"),
    ]);
    let compare = [
        "compare.json",
        "compare.md",
        "cut.svg",
        "loadimb.svg",
        "maxsr.svg",
        "time.svg",
    ];
    assert_eq!(names(&out), sorted(&compare));
    shock("1", "none");
    assert_eq!(names(&out), sorted(&reports));
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "my notes"
    );
}

#[test]
fn rerunning_erosion_into_a_used_folder_leaves_only_the_new_runs_files() {
    let dir = TempDir::new("rerun-erosion");
    let out = dir.path("out");
    let erosion = |extra: &[&str]| {
        let common = ["run", "erosion", "--procs", "2", "--cells", "4", "4", "1"];
        ok(&[&common[..], extra, &["--out", &dir.arg("out")]].concat());
    };
    erosion(&[
        "--iterations",
        "3",
        "--vtk",
        "all",
        "--compare",
        "--alphas",
        "0,0.5",
    ]);
    std::fs::write(out.join("notes.txt"), "my notes").unwrap();
    let reports = ["metrics.csv", "metrics.json", "summary.md", "usage.svg"];
    let first = [
        "alpha.svg",
        "compare.md",
        "erosion.pvd",
        "iter_0000.vtu",
        "iter_0001.vtu",
        "iter_0002.vtu",
        "iter_0003.vtu",
    ];
    assert_eq!(names(&out), sorted(&[&reports[..], &first].concat()));
    erosion(&["--iterations", "2", "--vtk", "none"]);
    assert_eq!(names(&out), sorted(&reports));
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "my notes"
    );
}

/// Waits up to `limit` for `ready`; false if it never held.
fn wait_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Sends `signal` to `child`.
fn send(child: &Child, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill only sends a signal to our own child process, which has not been reaped.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
}

/// Waits for `child` to exit (killing it and failing after a minute) and returns its exit
/// code and stderr.
fn finish(mut child: Child) -> (i32, String) {
    let exited = wait_until(Duration::from_secs(60), || {
        child.try_wait().unwrap().is_some()
    });
    if !exited {
        child.kill().unwrap();
        panic!("plume did not stop after the signal");
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    (
        code.unwrap_or_else(|| panic!("plume died by a signal: {stderr}")),
        stderr,
    )
}

/// Runs a short shock case into a folder, then a long one whose METIS partitions (4,096 parts
/// of 96,000 roots per level) take most of its time, sends `signal` once the long one has
/// written its first level and `delay` later, and checks the exit code, the one line on
/// stderr, and a folder that holds no temporary file and no report of either run; then a
/// re-run leaves only its own files.
fn interrupt(name: &str, signal: libc::c_int, delay: Duration, code: i32, line: &str) {
    let dir = TempDir::new(name);
    let small = mesh_box(&dir, "small.msh", ["4", "2", "2"]);
    let big = mesh_box(&dir, "big.msh", ["40", "20", "20"]);
    let out = dir.path("out");
    let short = [
        "run",
        "shock",
        "--procs",
        "2",
        "--levels",
        "1",
        "--vtk",
        "none",
        "--mesh",
        &small,
        "--out",
        &dir.arg("out"),
    ];
    ok(&short);
    assert!(out.join("metrics.json").exists());
    let long = [
        "run",
        "shock",
        "--procs",
        "64",
        "--parts-per-proc",
        "64",
        "--objective",
        "identity",
        "--levels",
        "4",
        "--vtk",
        "all",
        "--mesh",
        &big,
        "--out",
        &dir.arg("out"),
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(long)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = wait_until(Duration::from_secs(120), || {
        out.join("level_0001.pvtu").exists()
    });
    assert!(started, "the long run wrote no level");
    std::thread::sleep(delay);
    send(&child, signal);
    let (exit, stderr) = finish(child);
    assert_eq!(
        (exit, stderr.as_str()),
        (code, format!("{line}\n").as_str())
    );
    let left = names(&out);
    assert!(
        !left.iter().any(|n| n.ends_with(".plume-tmp")),
        "temporary files left: {left:?}"
    );
    assert!(
        !left.iter().any(|n| n == "metrics.json"),
        "a stopped run left a folder that looks complete: {left:?}"
    );
    let manifest = std::fs::read_to_string(out.join(".plume-manifest")).unwrap();
    // Every file left is listed, the ranks' pieces in the levels' folders too.
    for name in left.iter().filter(|n| *n != ".plume-manifest") {
        let files = match out.join(name) {
            sub if sub.is_dir() => names(&sub).iter().map(|f| format!("{name}/{f}")).collect(),
            _ => vec![name.clone()],
        };
        for file in files {
            assert!(
                manifest.lines().any(|l| l == file),
                "{file} not in {manifest}"
            );
        }
    }
    ok(&short);
    assert_eq!(
        names(&out),
        [
            ".plume-manifest",
            "metrics.csv",
            "metrics.json",
            "summary.md"
        ]
    );
}

#[test]
fn sigint_mid_run_exits_130_with_one_line_and_no_complete_looking_folder() {
    interrupt(
        "sigint",
        libc::SIGINT,
        Duration::ZERO,
        130,
        "plume: interrupted by SIGINT",
    );
}

/// Before issue 9, GKlib's own SIGTERM handler longjmped out of METIS and plume said
/// "METIS failed to partition …" with exit code 1.
#[test]
fn sigterm_while_metis_partitions_exits_143_with_one_line_not_metis_failed() {
    interrupt(
        "sigterm",
        libc::SIGTERM,
        Duration::from_millis(500),
        143,
        "plume: interrupted by SIGTERM",
    );
}
