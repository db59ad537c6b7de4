//! Every program a test runs outside Rust goes through `tests/external` and is listed in
//! `.ci/programs`, so `.ci/run` installs it on a fresh machine.

mod external;

use std::path::{Path, PathBuf};

/// The Rust files under `dir`, recursively.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The places in `source` where a process is started other than through `external::program`,
/// as the crate's own binary (`env!("CARGO_BIN_EXE_…")`) or as the cargo that builds it
/// (`env!("CARGO")`, part of the Rust toolchain).
fn unlisted_spawns(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (start, _) in source.match_indices("Command::new(") {
        let argument = source[start + "Command::new(".len()..].trim_start();
        let own = ["env!(\"CARGO_BIN_EXE_", "env!(\"CARGO\")"];
        if !own.iter().any(|prefix| argument.starts_with(prefix)) {
            let line = source[..start].lines().count().max(1);
            let text: String = argument.chars().take(40).collect();
            found.push(format!("line {line}: Command::new({text}"));
        }
    }
    found
}

#[test]
fn tests_spawn_programs_only_through_the_listed_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "tests",
        "cli/tests",
        "cases/tests",
        "studies/tests",
        "examples",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 10, "found only {files:?}");
    let mut offences = Vec::new();
    for file in &files {
        // This module and the scan itself name `Command::new` in their own code.
        if file.ends_with("tests/external/mod.rs") || file.ends_with("tests/ci_programs.rs") {
            continue;
        }
        let source = std::fs::read_to_string(file).unwrap();
        for place in unlisted_spawns(&source) {
            offences.push(format!("{}: {place}", file.display()));
        }
    }
    assert!(
        offences.is_empty(),
        "start external programs with external::program(NAME) and list NAME in .ci/programs:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_scan_sees_a_direct_spawn_and_allows_the_own_binary() {
    let direct = "let a = Command::new(\"gmsh\");\nlet b = std::process::Command::new(PYTHON);";
    assert_eq!(unlisted_spawns(direct).len(), 2);
    assert_eq!(unlisted_spawns(direct)[1], "line 2: Command::new(PYTHON);");
    let own = "Command::new(env!(\"CARGO_BIN_EXE_plume\"))";
    assert!(unlisted_spawns(own).is_empty());
}

/// The names passed to `program("…")` in `source`.
fn programs_called(source: &str) -> Vec<String> {
    source
        .match_indices("program(\"")
        .filter_map(|(start, _)| {
            let rest = &source[start + "program(\"".len()..];
            rest.find('"').map(|end| rest[..end].to_string())
        })
        .collect()
}

#[test]
fn every_program_a_test_calls_is_listed_with_a_package_and_a_check() {
    let listed = external::listed_programs();
    assert!(listed.iter().all(|(_, package)| !package.is_empty()));
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/programs"))
        .unwrap();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        assert!(
            line.split_whitespace().count() >= 3,
            "program, package and check: {line}"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests", "cli/tests", "cases/tests", "studies/tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut called: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("tests/external/mod.rs") && !f.ends_with("tests/ci_programs.rs"))
        .flat_map(|f| programs_called(&std::fs::read_to_string(f).unwrap()))
        .collect();
    called.sort();
    called.dedup();
    assert!(!called.is_empty(), "no test calls external::program");
    for name in called {
        assert!(
            listed.iter().any(|(p, _)| *p == name),
            "a test runs {name}, which .ci/programs does not list"
        );
    }
}
