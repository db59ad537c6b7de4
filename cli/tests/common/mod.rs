//! Helpers shared by the command's integration tests.
#![allow(dead_code)]

pub mod limited;

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh folder under the system's temporary folder, removed when the test passes.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh folder named after the test binary's process and `name`.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("plume-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The path of `file` in the folder.
    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// The same path as a command-line argument.
    pub fn arg(&self, file: &str) -> String {
        self.path(file).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Runs the built `plume` with `args`; returns its exit code, stdout and stderr, and fails
/// the test if it panicked or was killed.
pub fn run_plume(args: &[&str]) -> (i32, String, String) {
    let run = plume(args);
    (run.code, run.stdout, run.stderr)
}

/// What one run of `plume` gave.
pub struct Run {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `plume args…`; fails the test if it panicked or was killed.
pub fn plume(args: &[&str]) -> Run {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("run plume");
    let run = Run {
        code: out.status.code().expect("plume was killed by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked") && run.code != 101,
        "plume {args:?} panicked:\n{}",
        run.stderr
    );
    run
}

/// Runs `plume args…` and expects success.
pub fn ok(args: &[&str]) -> Run {
    let run = plume(args);
    assert_eq!(run.code, 0, "plume {args:?} failed:\n{}", run.stderr);
    run
}

/// Runs `plume calibrate args…` and expects success, trying again (up to five times) while a
/// machine loaded by the tests running beside it cannot time the ping-pong: `calibrate`
/// then refuses, rightly, with "the bandwidth cannot be measured".
pub fn calibrate_ok(args: &[&str]) -> Run {
    let args: Vec<&str> = std::iter::once("calibrate")
        .chain(args.iter().copied())
        .collect();
    for _ in 0..4 {
        let run = plume(&args);
        if !(run.code == 1 && run.stderr.contains("cannot be measured")) {
            assert_eq!(run.code, 0, "plume {args:?} failed:\n{}", run.stderr);
            return run;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    ok(&args)
}

/// Runs `plume args…` and expects exit code `code` with a one-line `plume: ` message holding
/// every string of `needles`.
pub fn fails(args: &[&str], code: i32, needles: &[&str]) -> Run {
    let run = plume(args);
    assert_eq!(run.code, code, "plume {args:?}: stderr:\n{}", run.stderr);
    // plume's own messages (not clap's usage errors) are one line.
    if code == 1 || run.stderr.starts_with("plume: ") {
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "plume {args:?}: {lines:?}");
        assert!(lines[0].starts_with("plume: "), "{lines:?}");
    }
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "plume {args:?}: '{needle}' not in:\n{}",
            run.stderr
        );
    }
    run
}

/// The records of the array `series` (`levels`, `iterations`) of run folder `dir`'s
/// `metrics.json`, each without the fields `clocks` (wall-clock measures, which differ from
/// run to run); each of them must be there.
pub fn records_without(
    dir: &std::path::Path,
    series: &str,
    clocks: &[&str],
) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("metrics.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json[series]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let fields = r.as_object_mut().unwrap();
            for clock in clocks {
                fields
                    .remove(*clock)
                    .unwrap_or_else(|| panic!("{clock} in {series}[]"));
            }
            r
        })
        .collect()
}

/// The fields of a `plume run euler` record that depend on the clocks or on what the balancer
/// decided: the rest is the flow, the same whichever balancer and backend.
pub const EULER_BALANCER_FIELDS: [&str; 5] = [
    "time_ms",
    "flux_rate",
    "load_imb",
    "moved_trees",
    "moved_bytes",
];

/// The trees a `plume run euler` in run folder `dir` moved, over all its records.
pub fn euler_moved_trees(dir: &std::path::Path) -> u64 {
    records_without(dir, "iterations", &[])
        .iter()
        .map(|r| r["moved_trees"].as_u64().unwrap())
        .sum()
}
