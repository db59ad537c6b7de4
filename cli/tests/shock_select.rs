//! `plume run shock --policy select` (`docs/design/diffusive.md`): every level records the three
//! predictions and chooses the smallest (ties to the simpler action), does what it chose (none
//! moves no tree, the others carry out their balance), and its replay of keeping the
//! assignment is the prediction of none; the summary counts the choices and the replays as
//! the levels say. The erosion case decides after every iteration the same way and charges the
//! balances it does.

use serde_json::Value;

mod common;

use common::{ok, TempDir};

/// The level's field `name` of its `select` record.
fn num(level: &Value, name: &str) -> f64 {
    level["select"][name].as_f64().unwrap()
}

#[test]
fn each_level_chooses_the_smallest_prediction_and_does_it() {
    let dir = TempDir::new("select");
    let out = dir.arg("run");
    let args = [
        "run", "shock", "--policy", "select", "--procs", "4", "--levels", "3",
    ];
    ok(&[&args[..], &["--vtk", "none", "--out", &out]].concat());
    let text = std::fs::read_to_string(dir.path("run/metrics.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    let levels = m["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 3);
    let mut chosen = [0u64; 3];
    let mut fastest = 0;
    for l in levels {
        let (none, diffusive, global) =
            (num(l, "none_s"), num(l, "diffusive_s"), num(l, "global_s"));
        let expected = match (diffusive < none, global < none.min(diffusive)) {
            (_, true) => "global",
            (true, false) => "diffusive",
            (false, false) => "none",
        };
        let choice = l["select"]["choice"].as_str().unwrap();
        assert_eq!(choice, expected, "{l}");
        let k = ["none", "diffusive", "global"]
            .iter()
            .position(|&c| c == choice);
        chosen[k.unwrap()] += 1;
        match choice {
            "none" => assert_eq!(l["trees_moved"], 0),
            _ => assert_eq!(l["remap_accepted"], true),
        }
        let replay_none = num(l, "replay_none_s");
        assert!(
            (replay_none - none).abs() <= 1e-12 * none,
            "{replay_none} vs {none}"
        );
        let replays = ["replay_none_s", "replay_diffusive_s", "replay_global_s"].map(|f| num(l, f));
        let best = replays.iter().copied().fold(f64::INFINITY, f64::min);
        fastest += u64::from(replays[k.unwrap()] <= best);
        assert!(num(l, "moved_exact") >= 0.0 && num(l, "alpha_s") > 0.0);
    }
    let summary = &m["summary"]["select"];
    let counted: Vec<u64> = summary["chosen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counted, chosen);
    assert_eq!(summary["replay"]["decisions"], 3);
    assert_eq!(summary["replay"]["fastest_chosen"], fastest);
    let md = std::fs::read_to_string(dir.path("run/summary.md")).unwrap();
    assert!(
        md.contains("select ([Pearce 2014]'s choice") && md.contains("replayed under all three")
    );
}

#[test]
fn erosion_chooses_after_every_iteration_and_charges_what_it_did() {
    let dir = TempDir::new("select-erosion");
    let out = dir.arg("run");
    let args = [
        "run", "erosion", "--policy", "select", "--procs", "4", "--cells", "6", "6", "1",
    ];
    ok(&[
        &args[..],
        &["--iterations", "40", "--vtk", "none", "--out", &out],
    ]
    .concat());
    let text = std::fs::read_to_string(dir.path("run/metrics.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    let iterations = m["iterations"].as_array().unwrap();
    let mut balances = 0;
    for r in iterations {
        let (none, diffusive, global) =
            (num(r, "none_s"), num(r, "diffusive_s"), num(r, "global_s"));
        let choice = r["select"]["choice"].as_str().unwrap();
        let smallest = match (diffusive < none, global < none.min(diffusive)) {
            (_, true) => "global",
            (true, false) => "diffusive",
            (false, false) => "none",
        };
        assert_eq!(choice, smallest, "{r}");
        // A balance ran exactly when an action moved something, and its cost is in the time.
        let balanced = r["balanced"].as_bool().unwrap();
        assert!(!balanced || choice != "none", "{r}");
        let cost = r["lb_cost_s"].as_f64().unwrap();
        assert_eq!(balanced, cost > 0.0, "{r}");
        balances += usize::from(balanced);
        // The replay of none is the prediction of none: both 20 iterations at the same loads.
        let replay_none = num(r, "replay_none_s");
        assert!(
            (replay_none - none).abs() <= 1e-12 * none,
            "{replay_none} vs {none}"
        );
    }
    assert!(
        balances > 0,
        "the strong rock's erosion makes a balance worth it in 40 iterations"
    );
    assert_eq!(m["summary"]["lb_calls"], balances);
    assert_eq!(m["summary"]["select"]["replay"]["decisions"], 40);
}
