//! `plume run euler --balancer hier` and `--policy` (issue 24): the hierarchical balancer on 4
//! and 8 thread ranks leaves the flow as every balancer does (the same leaves, conservation
//! and error, bit for bit: no root lost or held twice), balances (LoadImb lowered, its numbers
//! recorded) and decides alike twice; `select` records its predictions, its choice (the
//! smallest prediction) and its replay at every decision point and sums them up; a fixed
//! policy records its decision points; bad input is a one-line usage error naming the option.

mod common;

use std::path::Path;

use common::{fails, ok, records_without, TempDir, EULER_BALANCER_FIELDS};
use serde_json::Value;

/// The Sod tube to t = 0.05 (about 140 adaptation steps on the default 96 roots).
const SOD: [&str; 9] = [
    "run",
    "euler",
    "--t-end",
    "0.05",
    "--output-every",
    "20",
    "--vtk",
    "none",
    "--out",
];

/// Runs the Sod tube with `args` into `dir/name` and returns its `metrics.json`.
fn sod(dir: &TempDir, name: &str, args: &[&str]) -> Value {
    let out = dir.arg(name);
    ok(&[&SOD[..], &[out.as_str()], args].concat());
    let text = std::fs::read_to_string(dir.path(name).join("metrics.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The flow's records of `dir` (what the balancer decided and the clocks aside).
fn flow(dir: &Path) -> Vec<Value> {
    records_without(dir, "iterations", &EULER_BALANCER_FIELDS)
}

#[test]
fn hier_keeps_the_flow_balances_and_decides_alike_twice_on_4_and_8_ranks() {
    let dir = TempDir::new("euler-hier");
    let none = sod(&dir, "none", &["--procs", "2", "--balancer", "none"]);
    assert!(
        none.get("decisions").is_none(),
        "decisions without a policy"
    );
    for (procs, tree) in [("4", "2,2"), ("8", "2,4")] {
        let args = ["--procs", procs, "--balancer", "hier", "--tree", tree];
        let (a, b) = (format!("hier{procs}a"), format!("hier{procs}b"));
        let json = sod(&dir, &a, &args);
        sod(&dir, &b, &args);
        assert_eq!(json["config"]["hier"]["tree"], tree);
        assert_eq!(json["config"]["hier"]["strategy"], "metis");
        // The same leaves with the same totals as without balancing: every root held once.
        assert_eq!(flow(&dir.path(&a)), flow(&dir.path("none")), "P = {procs}");
        // Two runs: the same records and decisions, the clocks aside.
        let records = |name: &str| records_without(&dir.path(name), "iterations", &["time_ms"]);
        let mut a_records = records(&a);
        let mut b_records = records(&b);
        for r in a_records.iter_mut().chain(&mut b_records) {
            r.as_object_mut().unwrap().remove("flux_rate");
        }
        assert_eq!(a_records, b_records, "P = {procs}");
        let decisions = records_without(&dir.path(&a), "decisions", &[]);
        assert_eq!(
            decisions,
            records_without(&dir.path(&b), "decisions", &[]),
            "P = {procs}"
        );
        let balanced: Vec<&Value> = decisions.iter().filter(|d| d["balanced"] == true).collect();
        assert!(!balanced.is_empty(), "P = {procs}: hier never balanced");
        for d in &balanced {
            let (before, after) = (d["load_imb_before"].as_f64(), d["load_imb"].as_f64());
            assert!(after < before, "P = {procs}: {d}");
            let hier = &d["hier"];
            // The top domain works on its 2 children's totals, 16 bytes each.
            assert_eq!(hier["max_db_bytes"][0], 32, "P = {procs}: {d}");
            assert!(hier["rank0_roots"].as_u64().unwrap() > 0, "{d}");
        }
        let summary = &json["summary"]["decisions"];
        assert_eq!(summary["points"], decisions.len());
        assert_eq!(summary["balances"], balanced.len());
        let total: f64 = decisions
            .iter()
            .map(|d| d["modelled_s"].as_f64().unwrap())
            .sum();
        assert_eq!(summary["modelled_s"].as_f64(), Some(total));
    }
}

/// The predicted times of `select`'s record `s`: none, diffusive, global.
fn predictions(s: &Value) -> [f64; 3] {
    ["none_s", "diffusive_s", "global_s"].map(|k| s[k].as_f64().unwrap())
}

#[test]
fn select_records_its_choice_predictions_and_replay_at_every_decision_point() {
    let dir = TempDir::new("euler-select");
    let json = sod(&dir, "select", &["--procs", "4", "--policy", "select"]);
    assert_eq!(json["config"]["policy"], "select");
    // The global action is PLUM with METIS on rank 0 (written as the default it is).
    assert!(json["config"].get("partitioner").is_none());
    let none = sod(&dir, "none", &["--procs", "4", "--balancer", "none"]);
    assert_eq!(flow(&dir.path("select")), flow(&dir.path("none")));
    drop(none);
    let decisions = json["decisions"].as_array().unwrap();
    assert!(decisions.len() > 100, "{} decision points", decisions.len());
    let mut chosen = [0; 3];
    for d in decisions {
        let s = &d["select"];
        let times = predictions(s);
        assert!(times.iter().all(|t| t.is_finite() && *t > 0.0), "{d}");
        let k = ["none", "diffusive", "global"]
            .iter()
            .position(|c| s["choice"] == *c)
            .unwrap_or_else(|| panic!("choice {}", s["choice"]));
        chosen[k] += 1;
        // The smallest prediction, ties going to the simpler action.
        assert!(times.iter().all(|&t| times[k] <= t), "{d}");
        assert!(times[..k].iter().all(|&t| t > times[k]), "{d}");
        for replay in ["replay_none_s", "replay_diffusive_s", "replay_global_s"] {
            assert!(s[replay].as_f64().is_some_and(|t| t > 0.0), "{d}");
        }
        // Doing nothing moves nothing.
        if k == 0 {
            assert_eq!(d["balanced"], false, "{d}");
        }
    }
    // The refinement around the interface loads ranks unevenly: select balances.
    assert!(
        chosen[1] + chosen[2] > 0,
        "select never balanced: {chosen:?}"
    );
    let summary = &json["summary"]["select"];
    assert_eq!(summary["chosen"], serde_json::json!(chosen));
    assert_eq!(summary["replay"]["decisions"], decisions.len());
    let text = std::fs::read_to_string(dir.path("select/summary.md")).unwrap();
    assert!(text.contains("select ([Pearce 2014]'s choice") && text.contains("decision points:"));
}

#[test]
fn a_fixed_policy_records_its_decision_points_and_the_default_none() {
    let dir = TempDir::new("euler-policy");
    let never = sod(&dir, "never", &["--procs", "4", "--policy", "never"]);
    assert_eq!(never["config"]["policy"], "never");
    let decisions = never["decisions"].as_array().unwrap();
    assert!(decisions.iter().all(|d| d["balanced"] == false));
    assert_eq!(never["summary"]["decisions"]["balances"], 0);
    assert!(never["summary"].get("select").is_none());
    // The default policy named: the same run as without --policy, its decisions recorded.
    let named = sod(&dir, "named", &["--procs", "4", "--policy", "threshold"]);
    let default = sod(&dir, "default", &["--procs", "4"]);
    assert!(default.get("decisions").is_none() && default["config"].get("policy").is_none());
    assert_eq!(named["config"]["policy"], "threshold");
    let records =
        |name: &str| records_without(&dir.path(name), "iterations", &["time_ms", "flux_rate"]);
    assert_eq!(records("named"), records("default"));
    let balances = named["summary"]["decisions"]["balances"].as_u64().unwrap();
    assert!(balances > 0, "threshold never balanced");
    // Never balancing leaves the worst modelled time.
    let total = |j: &Value| j["summary"]["decisions"]["modelled_s"].as_f64().unwrap();
    assert!(
        total(&named) < total(&never),
        "{} {}",
        total(&named),
        total(&never)
    );
}

#[test]
fn bad_balancer_and_policy_options_are_one_line_usage_errors() {
    let dir = TempDir::new("euler-bad-policy");
    let out = dir.arg("bad");
    let cases: [(&[&str], &str); 10] = [
        (
            &["--procs", "4", "--balancer", "hier", "--tree", "0"],
            "'--tree",
        ),
        (
            &["--procs", "4", "--balancer", "hier", "--tree", "2,3"],
            "--tree 2,3",
        ),
        (
            &["--procs", "4", "--tree", "2,2"],
            "--tree applies to --balancer hier only",
        ),
        (
            &["--procs", "4", "--hier-strategy", "greedy"],
            "--hier-strategy applies to --balancer hier only",
        ),
        (&["--policy", "ulba"], "--policy ulba: run euler offers"),
        (
            &["--policy", "degradation"],
            "--policy degradation: run euler offers",
        ),
        (
            &["--policy", "never", "--balancer", "none"],
            "--policy never applies to",
        ),
        (
            &["--procs", "4", "--policy", "select", "--balancer", "hier"],
            "--policy select",
        ),
        (
            &["--policy", "select", "--partitioner", "diffusion"],
            "--partitioner diffusion with --policy select",
        ),
        (&["--policy", "sometimes"], "--policy"),
    ];
    for (args, needle) in cases {
        let all = [&["run", "euler", "--out", out.as_str()], args].concat();
        fails(&all, 2, &[needle]);
    }
}
