//! `plume study minex`: a small study writes its files and prints its checks; bad options and
//! a study over the memory budget are one-line usage errors (exit 2) before the folder is made.

mod common;
use common::{fails, ok, TempDir};

/// Runs `plume study minex <args…> --out <fresh folder>` and expects a usage error whose one
/// line names `needle`, before the folder is made.
fn refused(args: &[&str], needle: &str) {
    let dir = TempDir::new("minex-guard");
    let out = dir.arg("out");
    let run = fails(
        &[&["study", "minex"], args, &["--out", &out]].concat(),
        2,
        &[needle],
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(!dir.path("out").exists(), "{args:?} made its folder");
}

#[test]
fn bad_options_are_one_line_usage_errors() {
    refused(&["--clusters", "1..40"], "--clusters 33");
    refused(&["--procs", "4", "--clusters", "2,5"], "--clusters 5");
    refused(&["--interconnect", "3,0"], "--interconnect 0");
    refused(&["--throttle", "0,-1"], "--throttle -1");
    refused(&["--latency", "none,some"], "--latency some");
    refused(&["--clusters", "8..1"], "--clusters 8..1: an empty range");
    refused(&["--levels", "0"], "--levels 0");
    refused(
        &["--scale-procs", "2,100000"],
        "--scale-procs 100000: needs 1 to 50136",
    );
}

#[test]
fn a_study_over_the_memory_budget_is_refused_before_it_starts() {
    let dir = TempDir::new("minex-memory");
    let out = dir.arg("out");
    // 64 levels of the published mesh's weights and assignments: about 300 MB, more than
    // half of what 400 MB of address space leaves.
    let run = common::limited::plume(
        &["study", "minex", "--levels", "64", "--out", &out],
        Some(400_000 * 1024),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--levels 64 on 50136 roots: the study would need about"),
        "{}",
        run.stderr
    );
    assert!(!dir.path("out").exists());
}

#[test]
fn a_small_study_writes_its_files_and_prints_its_checks() {
    let dir = TempDir::new("minex-small");
    let mesh = dir.arg("box.msh");
    ok(&[
        "mesh", "box", "--cells", "16", "4", "4", "--size", "4", "1", "1", "-o", &mesh,
    ]);
    let out = dir.arg("out");
    let run = ok(&[
        "study",
        "minex",
        "--mesh",
        &mesh,
        "--levels",
        "2",
        "--procs",
        "4",
        "--clusters",
        "1..2",
        "--interconnect",
        "3,10",
        "--throttle",
        "0,inf",
        "--scale-procs",
        "2,4",
        "--out",
        &out,
    ]);
    for f in [
        "minex.md",
        "minex.json",
        "table14_throttle.svg",
        "table16_procs.svg",
        "table17_clusters.svg",
        "table19_metis.svg",
    ] {
        assert!(dir.path("out").join(f).is_file(), "{f}");
    }
    assert!(run.stdout.contains("R2b not evaluated"), "{}", run.stdout);
    assert!(run.stdout.contains("R6a "), "{}", run.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("out").join("minex.json")).unwrap())
            .unwrap();
    assert!(json["provenance"].is_object());
    assert_eq!(json["config"]["throttle"], serde_json::json!([0.0, "inf"]));
}

#[test]
fn compare_with_minex_adds_its_group_and_leaves_the_other_files_as_they_were() {
    let dir = TempDir::new("minex-compare");
    let mesh = dir.arg("box.msh");
    ok(&[
        "mesh", "box", "--cells", "16", "4", "4", "--size", "4", "1", "1", "-o", &mesh,
    ]);
    let (plain, with) = (dir.arg("plain"), dir.arg("with"));
    let common = [
        "compare", "shock", "--mesh", &mesh, "--procs", "2,4", "--levels", "2",
    ];
    ok(&[&common[..], &["--out", &plain]].concat());
    ok(&[&common[..], &["--minex", "--out", &with]].concat());
    let read = |folder: &str, f: &str| std::fs::read(dir.path(folder).join(f)).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(dir.path("plain"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    for f in &files {
        match f.as_str() {
            "compare.md" => {
                // Table 9 holds wall-clock milliseconds: left out of the comparison.
                let text = |folder| {
                    let t = String::from_utf8(read(folder, f)).unwrap();
                    let (head, rest) = t.split_once("## Table 9").unwrap();
                    let tail = &rest[rest.find("\n## ").unwrap()..];
                    format!("{head}{tail}")
                };
                let (a, b) = (text("plain"), text("with"));
                assert!(b.starts_with(&a) && b.len() > a.len(), "{a}\n---\n{b}");
                assert!(b[a.len()..].contains("## MinEX beside PLUM"), "{b}");
            }
            "compare.json" => {
                let parse = |folder| -> serde_json::Value {
                    let mut v: serde_json::Value =
                        serde_json::from_slice(&read(folder, f)).unwrap();
                    v.as_object_mut().unwrap().remove("provenance");
                    v
                };
                let (a, mut b) = (parse("plain"), parse("with"));
                let minex = b.as_object_mut().unwrap().remove("minex").unwrap();
                assert_eq!(a, b);
                let rows = minex.as_array().unwrap();
                assert_eq!(rows.len(), 2);
                assert_eq!(rows[1]["procs"], 4);
                assert!(rows[1]["minex"]["t_s"].as_f64().unwrap() > 0.0);
                assert!(a.get("minex").is_none());
            }
            // The folder's manifest lists minex.svg too.
            ".plume-manifest" => {}
            _ => assert_eq!(read("plain", f), read("with", f), "{f}"),
        }
    }
    assert!(dir.path("with").join("minex.svg").is_file());
    assert!(!dir.path("plain").join("minex.svg").exists());
}
