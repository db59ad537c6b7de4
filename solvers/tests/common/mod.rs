//! Helpers shared by the command's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("run plume");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    (
        out.status.code().expect("plume was killed by a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    )
}
