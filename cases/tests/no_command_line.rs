//! The crates' rule (README, "Layout"): only plume-cli knows the command line. Neither the
//! cases nor the studies depend, directly or through another crate, on `clap` (the parser) or
//! `indicatif` (the progress bars).

use std::process::Command;

/// The names of the packages `package` depends on through normal edges (not dev or build).
fn normal_dependencies(package: &str) -> Vec<String> {
    // The cargo that builds this test.
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-f",
            "{p}",
        ])
        .args(["-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_cases_and_the_studies_do_not_depend_on_the_command_line() {
    for package in ["plume-cases", "plume-studies"] {
        let deps = normal_dependencies(package);
        assert!(deps.iter().any(|d| d == "plume"), "{package}: {deps:?}");
        for cli in ["clap", "indicatif"] {
            assert!(
                !deps.iter().any(|d| d == cli),
                "{package} depends on {cli}: only plume-cli may"
            );
        }
    }
    // The check sees a command-line crate where there is one.
    assert!(normal_dependencies("plume-cli").iter().any(|d| d == "clap"));
}
