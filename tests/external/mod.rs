//! The one way a test starts a program from outside Rust (gmsh, gpmetis, VTK's Python).
//!
//! Every such program is listed, with its Debian package, in `.ci/programs`, which `.ci/run`
//! installs on a fresh machine. [`program`] refuses a name that is not listed there, and fails
//! (never skips) when a listed program is missing, naming the package to install.
//! `tests/ci_programs.rs` fails when a test spawns a program any other way.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `.ci/programs`, found from the crate that includes this module (the repository root or
/// `cli/`).
fn programs_file() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [here, here.parent().unwrap_or(here)]
        .iter()
        .map(|dir| dir.join(".ci/programs"))
        .find(|p| p.is_file())
        .expect(".ci/programs not found beside the crate")
}

/// The `(program, packages)` pairs of `.ci/programs` (comments and blank lines skipped);
/// `packages` is one Debian package or several separated by commas.
pub fn listed_programs() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(programs_file()).expect("read .ci/programs");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let program = words.next().unwrap_or_default().to_string();
            let package = words.next().unwrap_or_default().to_string();
            (program, package)
        })
        .collect()
}

/// A command for `name`, which must be listed in `.ci/programs` and installed as
/// `/usr/bin/<name>` (Debian's place for it, so a copy elsewhere on PATH cannot stand in).
pub fn program(name: &str) -> Command {
    let package = listed_programs()
        .into_iter()
        .find(|(p, _)| p == name)
        .map(|(_, package)| package)
        .unwrap_or_else(|| {
            panic!("{name} is not listed in .ci/programs: add it with its package so .ci/run installs it")
        });
    let path = Path::new("/usr/bin").join(name);
    assert!(
        path.is_file(),
        "{} is missing: `bash .ci/run` installs it (apt-get install {})",
        path.display(),
        package.replace(',', " ")
    );
    Command::new(path)
}

/// `mpirun -n procs program args…` as root with more ranks than cores allowed, Open MPI's
/// quick-starting `ob1` layer, and the job ended after `timeout` seconds.
pub fn mpirun(procs: usize, timeout: u32, program: &Path, args: &[&str]) -> std::process::Output {
    self::program("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "--timeout"])
        .arg(timeout.to_string())
        .args(["-n", &procs.to_string()])
        .arg(program)
        .args(args)
        .env("OMPI_MCA_pml", "ob1")
        .output()
        .expect("start mpirun")
}

/// Meshes the `.geo` file `geo` in 3-D with gmsh into `msh` in `format` (`msh22`, `msh41`),
/// failing the test with gmsh's errors when it cannot.
pub fn gmsh_3d(geo: &Path, format: &str, msh: &Path) {
    let out = program("gmsh")
        .arg(geo)
        .args(["-3", "-format", format, "-o"])
        .arg(msh)
        .output()
        .expect("run gmsh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
