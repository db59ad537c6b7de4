//! `plume run shock --balancer hier` on thread ranks (issue 24 (2)): the records keep their
//! invariants (the balance lowers LoadImb, what moved is what the accept rule costed, rank 0
//! receives no more than its lowest domain's roots and their face records), two runs write
//! the same records (times aside), and a tree that does not fit the ranks, or the hierarchical
//! options without `--balancer hier`, are one-line usage errors naming the option (exit 2).

mod common;

use common::{fails, ok, records_without, TempDir};
use serde_json::Value;

/// `plume run shock --balancer hier --levels 2` with `args` into `dir/name`: its records
/// without the wall-clock fields, and its configuration.
fn hier_run(dir: &TempDir, name: &str, args: &[&str]) -> (Vec<Value>, Value) {
    let out = dir.arg(name);
    let mut all = vec![
        "run",
        "shock",
        "--balancer",
        "hier",
        "--levels",
        "2",
        "--vtk",
        "none",
        "--out",
        &out,
    ];
    all.extend_from_slice(args);
    ok(&all);
    let path = dir.path(name);
    let text = std::fs::read_to_string(path.join("metrics.json")).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    (
        records_without(&path, "levels", &["time_ms", "balance_pct"]),
        json["config"].clone(),
    )
}

#[test]
fn hier_on_thread_ranks_keeps_its_invariants_and_decides_alike_twice() {
    let dir = TempDir::new("hier-threads");
    let args = ["--procs", "8", "--tree", "2,4", "--hier-strategy", "metis"];
    let (a, config) = hier_run(&dir, "a", &args);
    assert_eq!(config["hier"]["tree"], "2,4");
    assert_eq!(config["hier"]["strategy"], "metis");
    assert_eq!(a.len(), 2);
    for r in &a {
        let hier = &r["hier"];
        // The top domain works on its two children's totals: 16 bytes each.
        assert_eq!(hier["semi_domains"][0], 1);
        assert_eq!(hier["max_db_bytes"][0], 32);
        assert_eq!(hier["semi_domains"][1], 0);
        // Rank 0 receives the roots of the 3 other ranks of its domain, and at most 4 face
        // records each: never more than its lowest domain's largest database.
        let lowest = hier["max_db_objects"][1].as_u64().unwrap();
        let rank0 = hier["rank0_roots"].as_u64().unwrap();
        assert!(rank0 > 0 && rank0 < lowest, "{hier}");
        assert!(
            hier["rank0_records"].as_u64().unwrap() <= 4 * rank0,
            "{hier}"
        );
        assert!(lowest < 50_136 * 3 / 4, "{hier}");
        assert!(r["remap_accepted"].as_bool().unwrap());
        assert!(r["load_imb"].as_f64() < r["load_imb_before"].as_f64());
        // The trees move before they subdivide: no more than the predicted elements, and
        // nothing is remapped.
        assert!(r["total_v"].as_u64() <= r["predicted_total_v"].as_u64());
        assert_eq!(r["identity_total_v"], r["predicted_total_v"]);
        assert!(r["total_v"].as_u64().unwrap() > 0);
    }
    let (b, _) = hier_run(&dir, "b", &args);
    assert_eq!(a, b);
    // Another strategy decides otherwise.
    let (greedy, _) = hier_run(
        &dir,
        "g",
        &["--procs", "8", "--tree", "2,4", "--hier-strategy", "greedy"],
    );
    assert_ne!(a, greedy);
}

#[test]
fn a_tree_that_does_not_fit_the_ranks_is_a_usage_error_naming_tree() {
    let dir = TempDir::new("hier-usage");
    let out = dir.arg("out");
    let run = |extra: &[&str]| {
        let mut all = vec![
            "run", "shock", "--levels", "1", "--vtk", "none", "--out", &out,
        ];
        all.extend_from_slice(extra);
        all.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["--balancer", "hier", "--tree", "1"],
            &["--tree", "at least 2 children"],
        ),
        (
            &["--balancer", "hier", "--tree", "4,0"],
            &["--tree", "a branching of 0"],
        ),
        (
            &["--balancer", "hier", "--procs", "8", "--tree", "3,4"],
            &["--tree 3,4", "multiply to 12", "8 ranks"],
        ),
        (
            &["--balancer", "hier", "--procs", "1"],
            &["--tree", "at least 2 ranks"],
        ),
        (&["--tree", "2,4"], &["--tree", "--balancer hier only"]),
        (
            &["--hier-strategy", "refine"],
            &["--hier-strategy", "--balancer hier only"],
        ),
    ];
    for (extra, expected) in cases {
        let args = run(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&args, 2, expected);
    }
    assert!(!dir.path("out").exists(), "a usage error writes nothing");
}

/// Issue 24 (4): the single-process run on P simulated processors (`shock::run`, what
/// `compare shock` runs) makes the thread ranks' decisions: the same records, times and the
/// ranks' own `hier` numbers aside.
#[test]
fn the_simulated_machine_decides_as_the_thread_ranks() {
    use plume::balance::hier::Strategy;
    use plume_cases::hier::HierSettings;
    use plume_cases::shock::{self, ShockConfig};
    use plume_cases::words::{Balancer, TreeSpec};

    let mut cfg = ShockConfig::new(8);
    cfg.levels = 2;
    cfg.balancer = Balancer::Hier;
    cfg.hier = Some(HierSettings {
        tree: TreeSpec::List(vec![2, 4]),
        strategy: Strategy::Metis,
    });
    let simulated =
        shock::run(&cfg, shock::published_mesh().unwrap(), |_, _, _, _| Ok(())).unwrap();
    let json: Value = serde_json::from_str(&simulated.report().json().unwrap()).unwrap();
    let strip = |r: &Value, also: &[&str]| {
        let mut r = r.clone();
        for f in ["time_ms", "balance_pct"].iter().chain(also) {
            r.as_object_mut().unwrap().remove(*f);
        }
        r
    };
    let expected: Vec<Value> = json["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| strip(r, &[]))
        .collect();
    let dir = TempDir::new("hier-simulated");
    let (got, _) = hier_run(&dir, "ranks", &["--procs", "8", "--tree", "2,4"]);
    let got: Vec<Value> = got.iter().map(|r| strip(r, &["hier"])).collect();
    assert_eq!(got.len(), 2);
    assert_eq!(got, expected);
}

/// Issue 24: `compare shock` runs the hierarchical balancer beside PLUM and SBN; its group at
/// P = 8 over the tree 2,4 is `run shock --balancer hier` at the same P and tree (the same
/// level averages, so the same summed simulated T), its databases count every root once at
/// the top and no more than a lowest domain's below it, and a tree that does not fit one of
/// the P is a one-line usage error naming `--tree` that writes nothing.
#[test]
fn compare_shock_runs_hier_as_run_shock_does() {
    let dir = TempDir::new("hier-compare");
    let out = dir.arg("cmp");
    ok(&[
        "compare", "shock", "--procs", "8", "--levels", "2", "--tree", "2,4", "--out", &out,
    ]);
    let text = std::fs::read_to_string(dir.path("cmp").join("compare.json")).unwrap();
    let cmp: Value = serde_json::from_str(&text).unwrap();
    let hier = &cmp["hier"][0];
    assert_eq!(
        (&hier["tree"], &hier["strategy"]),
        (&"2,4".into(), &"metis".into())
    );

    let (_, _) = hier_run(&dir, "ranks", &["--procs", "8", "--tree", "2,4"]);
    let text = std::fs::read_to_string(dir.path("ranks").join("metrics.json")).unwrap();
    let ranks: Value = serde_json::from_str(&text).unwrap();
    let summary = &ranks["summary"];
    for key in [
        "load_imb",
        "cut_pct",
        "total_v",
        "max_sr",
        "comm_mb",
        "trees_moved",
        "sim",
        "time_balance",
    ] {
        assert_eq!(hier[key], summary[key], "{key}");
    }
    assert!(hier["time_balance"]["elapsed"].as_f64().unwrap() > 0.0);

    let gathered = &cmp["plum_gathered_db"];
    let roots = gathered["roots"].as_u64().unwrap();
    assert_eq!(roots, 50_136);
    let records = gathered["records"].as_u64().unwrap();
    assert_eq!(gathered["bytes"].as_u64(), Some(16 * (roots + records)));
    assert_eq!(hier["max_db_objects"][0].as_u64(), Some(roots));
    // The lowest domains, 4 processors each: the largest holds half the roots or more.
    let lowest = hier["max_db_objects"][1].as_u64().unwrap();
    assert!(2 * lowest >= roots && lowest < roots, "{lowest}");
    let bytes: Vec<u64> = hier["max_db_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    let largest = *bytes.iter().max().unwrap();
    assert_eq!(hier["largest_db_bytes"].as_u64(), Some(largest));
    let ratio = gathered["bytes"].as_u64().unwrap() as f64 / largest as f64;
    assert_eq!(hier["db_ratio"].as_f64(), Some(ratio));

    let bad = dir.arg("bad");
    fails(
        &[
            "compare", "shock", "--procs", "2,4", "--tree", "2,2", "--out", &bad,
        ],
        2,
        &["--tree 2,2", "multiply to 4", "2 ranks"],
    );
    fails(
        &[
            "compare", "shock", "--procs", "4", "--tree", "1", "--out", &bad,
        ],
        2,
        &["--tree", "at least 2 children"],
    );
    assert!(!dir.path("bad").exists(), "a usage error writes nothing");
}
