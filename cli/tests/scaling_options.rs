//! Issue 23's options on real ranks: `--partitioner diffusion` (PLUM rebalancing from the
//! current owners, the identity remap) balances the shock case's levels and is deterministic;
//! it is refused with more than one part per rank; `--initial sfc` starts from equal runs of
//! the curve; and `run shock`, `run euler` and `run erosion` write the ranks' CPU account as
//! `metrics.json`'s `cpu`, whose critical path lies between the largest phase and the sum.

mod common;

use std::path::Path;

use common::{fails, ok, records_without, TempDir};
use serde_json::Value;

/// The `metrics.json` of the run folder `dir`.
fn metrics(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("metrics.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `plume run shock --partitioner diffusion` on `procs` thread ranks, 3 levels, into `out`.
fn diffusion_run(procs: usize, out: &str, more: &[&str]) {
    let p = procs.to_string();
    let args = [
        "run",
        "shock",
        "--partitioner",
        "diffusion",
        "--procs",
        &p,
        "--levels",
        "3",
        "--vtk",
        "none",
        "--out",
        out,
    ];
    ok(&[&args[..], more].concat());
}

#[test]
fn diffusion_balances_the_levels_it_balances() {
    let dir = TempDir::new("diffusion-3");
    diffusion_run(3, &dir.arg("out"), &[]);
    let json = metrics(&dir.path("out"));
    assert_eq!(json["config"]["partitioner"], "diffusion");
    assert_eq!(json["config"]["objective"], "identity");
    let levels = json["levels"].as_array().unwrap();
    let balanced: Vec<&Value> = levels
        .iter()
        .filter(|l| l["remap_accepted"] == true)
        .collect();
    assert!(!balanced.is_empty(), "no level balanced: {levels:?}");
    for level in balanced {
        let imb = level["load_imb"].as_f64().unwrap();
        let before = level["load_imb_before"].as_f64().unwrap();
        assert!(imb <= 1.1, "level {}: LoadImb {imb}", level["level"]);
        assert!(imb < before, "level {}: {before} → {imb}", level["level"]);
        // Parts are ranks: the remap is the identity, planning what the partitioner moved.
        assert_eq!(level["remapper"], "identity");
        assert_eq!(level["predicted_total_v"], level["identity_total_v"]);
    }
}

#[test]
fn diffusion_gives_the_same_records_twice() {
    let dir = TempDir::new("diffusion-twice");
    let runs: Vec<Vec<Value>> = ["a", "b"]
        .iter()
        .map(|name| {
            diffusion_run(2, &dir.arg(name), &["--initial", "sfc"]);
            records_without(&dir.path(name), "levels", &["time_ms", "balance_pct"])
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn diffusion_takes_one_part_per_rank() {
    let dir = TempDir::new("diffusion-parts");
    let out = dir.arg("out");
    for (option, word) in [("--parts-per-proc", "2"), ("--objective", "maxv")] {
        fails(
            &[
                "run",
                "shock",
                "--partitioner",
                "diffusion",
                option,
                word,
                "--out",
                &out,
            ],
            2,
            &["--partitioner diffusion", &format!("{option} {word}")],
        );
    }
    assert!(!dir.path("out").join("metrics.json").exists());
}

/// The cells of each rank's piece of `level`'s VTK output in `dir`, by rank.
fn piece_cells(dir: &Path, level: usize, procs: usize) -> Vec<u64> {
    (0..procs)
        .map(|rank| {
            let piece = dir.join(format!("level_{level:04}/r{rank:04}.vtu"));
            let text = std::fs::read(&piece).unwrap();
            let text = String::from_utf8_lossy(&text);
            let at = text.find("NumberOfCells=\"").expect("a piece header") + 15;
            let digits: String = text[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().unwrap()
        })
        .collect()
}

#[test]
fn an_sfc_start_gives_each_rank_its_share_within_one_root() {
    let dir = TempDir::new("sfc-start");
    let procs = 5;
    let p = procs.to_string();
    let out = dir.arg("out");
    ok(&[
        "run",
        "shock",
        "--initial",
        "sfc",
        "--procs",
        &p,
        "--levels",
        "1",
        "--vtk",
        "all",
        "--out",
        &out,
    ]);
    let json = metrics(&dir.path("out"));
    assert_eq!(json["config"]["initial"], "sfc");
    // At level 0 every root is one leaf of weight 1: LoadImb ≤ 1 + 1 / mean.
    let cells = piece_cells(&dir.path("out"), 0, procs);
    let mean = cells.iter().sum::<u64>() as f64 / procs as f64;
    let imb = *cells.iter().max().unwrap() as f64 / mean;
    assert!(imb <= 1.0 + 1.0 / mean, "{cells:?}: LoadImb {imb}");
}

/// Checks `cpu`, a run's CPU account: every phase's critical path between its largest rank
/// and its sum, the run's between its largest phase and its sum over ranks; `procs` ranks.
fn check_cpu(cpu: &Value, procs: usize) {
    let total = cpu["critical_path_s"].as_f64().unwrap();
    let sum = cpu["cpu_s"].as_f64().unwrap();
    let startup = cpu["startup_critical_path_s"].as_f64().unwrap();
    let share = cpu["startup_share"].as_f64().unwrap();
    assert!(total > 0.0 && total <= sum * (1.0 + 1e-12), "{cpu}");
    assert!((0.0..=1.0).contains(&share) && startup <= total, "{cpu}");
    let phases = cpu["phases"].as_object().unwrap();
    assert!(phases.contains_key("balance") && phases.contains_key("first_partition"));
    let mut largest: f64 = 0.0;
    for (name, phase) in phases {
        let s = |k: &str| phase[k].as_f64().unwrap();
        let per_rank = phase["per_rank_s"].as_array().unwrap();
        assert_eq!(per_rank.len(), procs, "{name}");
        let eps = 1e-12 * sum.max(1.0);
        assert!(s("max_s") <= s("critical_s") + eps, "{name}: {phase}");
        assert!(s("critical_s") <= s("sum_s") + eps, "{name}: {phase}");
        largest = largest.max(s("max_s"));
    }
    assert!(
        largest <= total,
        "largest phase {largest} > critical path {total}"
    );
}

#[test]
fn runs_on_ranks_write_their_cpu_account() {
    let dir = TempDir::new("cpu-account");
    let runs: [(&str, &[&str]); 3] = [
        ("shock", &["--levels", "2"]),
        ("euler", &["--t-end", "0.02"]),
        ("erosion", &["--iterations", "3"]),
    ];
    for (case, more) in runs {
        let out = dir.arg(case);
        let common = ["run", case, "--procs", "2", "--vtk", "none", "--out", &out];
        ok(&[&common[..], more].concat());
        let json = metrics(&dir.path(case));
        assert!(json.get("measured").is_none(), "{case}");
        check_cpu(&json["cpu"], 2);
        if case == "euler" {
            let phases = json["cpu"]["phases"].as_object().unwrap();
            for flow in ["time_step", "flux", "halo", "rebuild"] {
                assert!(phases.contains_key(flow), "{flow}: {phases:?}");
            }
        }
        let summary = std::fs::read_to_string(dir.path(case).join("summary.md")).unwrap();
        assert!(
            summary.contains("CPU: critical path ") && summary.contains(" s, start-up "),
            "{case}: {summary}"
        );
    }
}
