//! A run owns its output folder (issue 9, item 2): a re-run into a used folder leaves only the
//! new run's files (and the user's own), and a run stopped by SIGINT or SIGTERM exits 130 or
//! 143 with one line, removes its temporary files and never leaves a folder that looks
//! complete, even when the signal comes while METIS partitions.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{calibrate_ok, ok, TempDir};

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
        "hier.svg",
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
        "iter_0000",
        "iter_0000.pvtu",
        "iter_0001",
        "iter_0001.pvtu",
        "iter_0002",
        "iter_0002.pvtu",
        "iter_0003",
        "iter_0003.pvtu",
    ];
    assert_eq!(names(&out), sorted(&[&reports[..], &first].concat()));
    assert_eq!(names(&out.join("iter_0003")), ["r0000.vtu", "r0001.vtu"]);
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

/// The names `.plume-manifest` lists, in the order the run listed (then wrote) them.
fn manifest(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(".plume-manifest")).unwrap();
    text.lines().skip(1).map(str::to_string).collect()
}

/// Issue 21 (1, 2, 16): a study owns its folder like `run` (a re-run leaves none of the
/// earlier run's charts), writes every file by renaming a whole new one into place (a hard
/// link to the old record keeps the old content) and its record last; a chart with nothing
/// to draw is skipped with a note instead of failing after the results were written.
#[test]
fn studies_own_their_folder_and_write_whole_files_record_last() {
    let dir = TempDir::new("studies");
    let out = dir.path("out");
    let erosion2d = |fixed: &str| {
        ok(&[
            "study",
            "erosion2d",
            "--procs",
            "2",
            "--strong",
            "1",
            "--seeds",
            "1",
            "--iterations",
            "5",
            "--stripe-width",
            "10",
            "--height",
            "10",
            "--radius",
            "2",
            "--alphas",
            "0,0.5",
            "--lb-fixed-ms",
            fixed,
            "--out",
            &dir.arg("out"),
        ])
    };
    erosion2d("0,8");
    std::fs::write(out.join("notes.txt"), "my notes").unwrap();
    let fixed = |names: Vec<String>| names.into_iter().filter(|n| n.contains("fixed")).count();
    assert_eq!(fixed(names(&out)), 5, "{:?}", names(&out));
    std::fs::hard_link(out.join("erosion2d.json"), dir.path("old.json")).unwrap();
    let old = std::fs::read_to_string(dir.path("old.json")).unwrap();
    erosion2d("0");
    assert_eq!(fixed(names(&out)), 0, "{:?}", names(&out));
    let charts = [
        "fig4a_calls.svg",
        "fig4a_gain.svg",
        "fig4a_time.svg",
        "fig4b_usage.svg",
        "fig5_alpha.svg",
    ];
    let written = [&["erosion2d.json", "erosion2d.md"][..], &charts].concat();
    assert_eq!(names(&out), sorted(&written));
    assert_eq!(std::fs::read_to_string(dir.path("old.json")).unwrap(), old);
    assert_eq!(manifest(&out).last().unwrap(), "erosion2d.json");

    // Seed 1: of 2 instances one balances (figure 2 drawn); of 1, none does.
    let model = |instances: &str| {
        let args = [
            "study",
            "model",
            "--instances",
            instances,
            "--seed",
            "1",
            "--shares",
            "5,10",
            "--alpha-steps",
            "3",
            "--anneal-moves",
            "300",
            "--out",
            &dir.arg("out"),
        ];
        ok(&args)
    };
    model("2");
    let drawn = ["fig2_anneal.svg", "fig3_alpha.svg", "fig3_gain.svg"];
    assert_eq!(
        names(&out),
        sorted(&[&drawn[..], &["model.json", "model.md"]].concat())
    );
    let run = model("1");
    let note = format!(
        "plume: note: {}: not drawn: in none of the 1 instances",
        out.join("fig2_anneal.svg").display()
    );
    assert!(run.stderr.starts_with(&note), "{}", run.stderr);
    assert_eq!(
        names(&out),
        sorted(&["fig3_alpha.svg", "fig3_gain.svg", "model.json", "model.md"])
    );
    assert_eq!(manifest(&out).last().unwrap(), "model.json");
}

/// Issue 21 (1): `calibrate --out` replaces its file whole, never writing into the old one.
#[test]
fn calibrate_replaces_its_file_whole() {
    let dir = TempDir::new("calibrate-atomic");
    let out = dir.arg("machine.json");
    std::fs::write(&out, "an earlier machine").unwrap();
    std::fs::hard_link(&out, dir.path("old.json")).unwrap();
    calibrate_ok(&["--quick", "--out", &out]);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("t_leaf"), "{written}");
    assert_eq!(
        std::fs::read_to_string(dir.path("old.json")).unwrap(),
        "an earlier machine"
    );
    assert_eq!(names(&dir.0), ["machine.json", "old.json"]);
}

/// A quick `plume study model` into `out`.
fn quick_model(out: &str) -> common::Run {
    common::plume(&[
        "study",
        "model",
        "--instances",
        "2",
        "--shares",
        "5",
        "--alpha-steps",
        "2",
        "--anneal-moves",
        "10",
        "--out",
        out,
    ])
}

/// Holds the lock of `dir` as a run would: `.plume-lock` holding this process's id, locked.
fn hold_lock(dir: &Path) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::create(dir.join(".plume-lock")).unwrap();
    std::fs::write(dir.join(".plume-lock"), format!("{}\n", std::process::id())).unwrap();
    // SAFETY: flock on a file descriptor this test owns.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(locked, 0);
    file
}

/// Issue 21 (3): a run into a folder another live run holds is refused with one line naming
/// the folder and that process, before it prints or removes anything; a lock left by a dead
/// run (its process gone, `kill -9`) is taken over, and a finished run leaves no lock.
#[test]
fn a_second_run_into_a_held_folder_is_refused_and_a_dead_runs_lock_taken_over() {
    let dir = TempDir::new("lock");
    let out = dir.path("out");
    assert_eq!(quick_model(&dir.arg("out")).code, 0);
    let before = names(&out);
    assert!(!before.contains(&".plume-lock".to_string()), "{before:?}");
    let held = hold_lock(&out);
    let refused = quick_model(&dir.arg("out"));
    let line = format!(
        "plume: {}: in use by another plume run (process {}): wait for it to end or choose \
         another --out\n",
        out.display(),
        std::process::id()
    );
    assert_eq!((refused.code, refused.stderr.as_str()), (1, line.as_str()));
    assert_eq!(refused.stdout, "");
    let mut with_lock = before.clone();
    with_lock.push(".plume-lock".into());
    with_lock.sort();
    assert_eq!(names(&out), with_lock, "the refused run changed the folder");
    // Released (the process that held it still lives): taken.
    drop(held);
    assert_eq!(quick_model(&dir.arg("out")).code, 0);
    assert_eq!(names(&out), before);

    // Two plume processes: the first holds the folder for a long study, the second is
    // refused naming it; after `kill -9` its lock is stale and the next run takes it.
    let first = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args([
            "study",
            "model",
            "--instances",
            "1000000",
            "--out",
            &dir.arg("out"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = first.id();
    let lock = out.join(".plume-lock");
    let holds = wait_until(Duration::from_secs(60), || {
        std::fs::read_to_string(&lock).is_ok_and(|t| t == format!("{pid}\n"))
    });
    assert!(holds, "the first run never locked the folder");
    let second = quick_model(&dir.arg("out"));
    assert_eq!(second.code, 1, "{}", second.stderr);
    assert!(
        second.stderr.contains(&format!("(process {pid})")),
        "{}",
        second.stderr
    );
    send(&first, libc::SIGKILL);
    let mut first = first;
    first.wait().unwrap();
    assert!(lock.exists(), "kill -9 leaves the lock file");
    assert_eq!(quick_model(&dir.arg("out")).code, 0);
    assert!(!lock.exists());
}

/// Issue 21 (20): `--out` naming a file, or a folder under a file, is refused with a message
/// saying so, before any output: for every command that writes a folder.
#[test]
fn an_out_that_is_a_file_is_refused_before_anything_is_printed() {
    let dir = TempDir::new("out-file");
    let mesh = mesh_box(&dir, "box.msh", ["4", "2", "2"]);
    let file = dir.arg("results");
    std::fs::write(&file, "mine").unwrap();
    let under = format!("{file}/sub");
    let commands: [&[&str]; 6] = [
        &[
            "run", "shock", "--procs", "2", "--levels", "1", "--mesh", &mesh,
        ],
        &[
            "run",
            "erosion",
            "--procs",
            "2",
            "--cells",
            "4",
            "4",
            "1",
            "--iterations",
            "2",
        ],
        &[
            "run",
            "euler",
            "--procs",
            "2",
            "--max-depth",
            "1",
            "--t-end",
            "0.001",
        ],
        &[
            "compare", "shock", "--procs", "2", "--levels", "1", "--mesh", &mesh,
        ],
        &[
            "study",
            "erosion2d",
            "--procs",
            "2",
            "--strong",
            "1",
            "--seeds",
            "1",
            "--iterations",
            "2",
            "--stripe-width",
            "10",
            "--height",
            "10",
            "--radius",
            "2",
        ],
        &[
            "study",
            "model",
            "--instances",
            "1",
            "--alpha-steps",
            "2",
            "--anneal-moves",
            "1",
        ],
    ];
    for command in commands {
        for (out, says) in [
            (&file, "not a folder".to_string()),
            (&under, format!("{file} is a file, not a folder")),
        ] {
            let run = common::plume(&[command, &["--out", out.as_str()]].concat());
            assert_eq!(run.code, 1, "{command:?}: {}", run.stderr);
            assert_eq!(run.stdout, "", "{command:?} printed before failing");
            assert!(
                run.stderr.starts_with(&format!("plume: {out}: "))
                    && run.stderr.contains(&says)
                    && run.stderr.lines().count() == 1,
                "{command:?}: {}",
                run.stderr
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}
