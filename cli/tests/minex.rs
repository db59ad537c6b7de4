//! `plume run shock|euler --partitioner minex` and `--grid` (issue 25 items 1–2): MinEX
//! balances on thread ranks as on the simulated machine, keeps the mesh of `--balancer none`
//! with every root owned once, never raises its own `MaxQWgt`, and decides alike twice; a
//! grid of slow clusters lengthens a PLUM run's simulated time and leaves the default run's
//! records as they were; `run euler --partitioner minex` conserves what `--balancer none`
//! conserves; every bad MinEX or grid option is a one-line usage error naming it (exit 2).
//! (Which moves MinEX makes is `tests/minex.rs`'s; these check what holds for any.)

mod common;

use common::{fails, ok, records_without, TempDir};
use plume_cases::minex::{GridSpec, MinexSettings};
use plume_cases::shock::{self, ShockConfig};
use plume_cases::words::{LatencyName, ObjectiveName, PartitionerName};
use serde_json::Value;

/// The wall-clock fields of a level record.
const CLOCKS: [&str; 2] = ["time_ms", "balance_pct"];

/// `plume run shock --procs 4 --levels 2 --vtk none` with `args` into `dir/name`: the level
/// records without their clocks (MinEX's step times too) and the configuration.
fn shock_run(dir: &TempDir, name: &str, args: &[&str]) -> (Vec<Value>, Value) {
    let out = dir.arg(name);
    let all = [
        &[
            "run", "shock", "--procs", "4", "--levels", "2", "--vtk", "none", "--out", &out,
        ],
        args,
    ]
    .concat();
    ok(&all);
    let path = dir.path(name);
    let text = std::fs::read_to_string(path.join("metrics.json")).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let records = records_without(&path, "levels", &CLOCKS)
        .into_iter()
        .map(without_minex_clock)
        .collect();
    (records, json["config"].clone())
}

/// `record` without MinEX's step times.
fn without_minex_clock(mut record: Value) -> Value {
    if let Some(minex) = record.get_mut("minex").and_then(Value::as_object_mut) {
        minex.remove("time_ms").expect("minex.time_ms");
    }
    record
}

/// The shock case's configuration of `--partitioner minex` at P = 4 over 2 levels.
fn minex_config() -> ShockConfig {
    let mut cfg = ShockConfig::new(4);
    cfg.levels = 2;
    cfg.partitioner = PartitionerName::Minex;
    cfg.objective = ObjectiveName::Identity;
    cfg.latency = Some(LatencyName::None);
    cfg.minex = Some(MinexSettings::default());
    cfg
}

#[test]
fn minex_on_thread_ranks_keeps_the_mesh_and_decides_alike_twice() {
    let dir = TempDir::new("minex-ranks");
    let (minex, config) = shock_run(&dir, "minex", &["--partitioner", "minex"]);
    let (again, _) = shock_run(&dir, "again", &["--partitioner", "minex"]);
    let (none, _) = shock_run(&dir, "none", &["--balancer", "none"]);
    assert_eq!(minex, again, "the same records twice (times aside)");
    assert_eq!(
        (
            &config["partitioner"],
            &config["objective"],
            &config["latency"]
        ),
        (&"minex".into(), &"identity".into(), &"none".into())
    );
    assert_eq!(config["minex"]["throttle"], 64.0);
    assert!(config.get("grid").is_none(), "no grid asked for");
    assert_eq!(minex.len(), 2);
    for (m, n) in minex.iter().zip(&none) {
        // The adaptation does not depend on the balancer: the same leaves.
        assert_eq!(m["leaves"], n["leaves"]);
        // Every level records its assignment on MinEX's scale.
        let model = &m["minex_model"];
        assert!(model["max_qwgt_s"].as_f64().unwrap() > 0.0);
        assert!(model["qwgt_load_imb"].as_f64().unwrap() >= 1.0);
        assert!(
            n.get("minex_model").is_none(),
            "none without --grid or minex"
        );
        // A balanced level has MinEX's report, and MinEX never raises its MaxQWgt.
        let balanced = m["balance_triggered"].as_bool().unwrap();
        assert_eq!(m.get("minex").is_some(), balanced, "{m}");
        if balanced {
            let report = &m["minex"];
            let max = |s: &str| report[s]["max_qwgt"].as_u64().unwrap();
            assert!(max("result") <= max("input"), "{report}");
            assert_eq!(report["throttle"], 64.0);
        }
        // MinEX's output is the processors: the identity remap, what moved is what it chose.
        assert_eq!(m["remapper"], "identity");
    }
    assert!(minex[0]["balance_triggered"].as_bool().unwrap());
    // No ThroTTle: written as a word, JSON having no infinity.
    let args = [
        "--partitioner",
        "minex",
        "--throttle",
        "inf",
        "--latency",
        "max",
    ];
    let (unlimited, config) = shock_run(&dir, "unlimited", &args);
    assert_eq!(
        (&config["minex"]["throttle"], &config["latency"]),
        (&"inf".into(), &"max".into())
    );
    assert_eq!(unlimited[0]["minex"]["throttle"], "inf");
}

/// Issue 25 (A.10 test 9): the single-process run on P simulated processors (`shock::run`)
/// makes the thread ranks' decisions with MinEX, every root owned once at every level, its
/// leaves those the records count; on a grid of slow clusters too, and PLUM's remap is timed
/// over the slow links from the same moving sizes on both.
#[test]
fn the_simulated_machine_runs_minex_as_the_thread_ranks() {
    let grid = GridSpec {
        clusters: 2,
        interconnect: 10,
    };
    let plum_on_grid = ShockConfig {
        levels: 2,
        grid: Some(grid),
        ..ShockConfig::new(4)
    };
    let minex_on_grid = ShockConfig {
        grid: Some(grid),
        ..minex_config()
    };
    let grid_args = ["--grid", "clusters=2,interconnect=10"];
    let runs: [(ShockConfig, Vec<&str>); 3] = [
        (minex_config(), vec!["--partitioner", "minex"]),
        (
            minex_on_grid,
            [&["--partitioner", "minex"][..], &grid_args].concat(),
        ),
        (plum_on_grid, grid_args.to_vec()),
    ];
    let dir = TempDir::new("minex-simulated");
    for (k, (cfg, args)) in runs.iter().enumerate() {
        let expected = simulated_records(cfg);
        let (got, _) = shock_run(&dir, &format!("ranks{k}"), args);
        assert_eq!(got, expected, "{args:?}");
    }
}

/// The level records of `cfg` run in one process on its simulated processors (checking that
/// every root has one owner, a rank, at every level), without their clocks.
fn simulated_records(cfg: &ShockConfig) -> Vec<Value> {
    let mesh = shock::published_mesh().unwrap();
    let roots = mesh.nelems();
    let procs = cfg.procs as u32;
    let simulated = shock::run(cfg, mesh, |_, record, forest, owner| {
        assert_eq!(owner.len(), roots, "one owner per root");
        assert!(owner.iter().all(|&p| p < procs), "every owner a rank");
        let leaves: u64 = (0..procs)
            .map(|p| {
                let mine = owner.iter().enumerate().filter(|&(_, &o)| o == p);
                mine.map(|(root, _)| u64::from(forest.trees()[root].nleaves))
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(leaves as usize, forest.nleaves());
        if let Some(r) = record {
            assert_eq!(r.leaves, forest.nleaves());
        }
        Ok(())
    })
    .unwrap();
    let json: Value = serde_json::from_str(&simulated.report().json().unwrap()).unwrap();
    json["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            for f in CLOCKS {
                r.as_object_mut().unwrap().remove(f);
            }
            without_minex_clock(r)
        })
        .collect()
}

#[test]
fn a_grid_of_slow_clusters_slows_plum_and_leaves_the_default_run_alone() {
    let dir = TempDir::new("minex-grid");
    let (plain, plain_cfg) = shock_run(&dir, "plain", &[]);
    let grid = ["--grid", "clusters=2,interconnect=10"];
    let (slow, slow_cfg) = shock_run(&dir, "slow", &grid);
    let (unit, _) = shock_run(&dir, "unit", &["--grid", "clusters=2,interconnect=1"]);
    for key in ["grid", "latency", "minex"] {
        assert!(
            plain_cfg.get(key).is_none(),
            "{key} in a default run's config"
        );
    }
    assert_eq!(
        slow_cfg["grid"],
        serde_json::json!({"clusters": 2, "interconnect": 10})
    );
    let time = |r: &Value| r["sim"]["time_s"].as_f64().unwrap();
    for ((p, s), u) in plain.iter().zip(&slow).zip(&unit) {
        assert!(p.get("minex_model").is_none());
        // PLUM decides as without the grid (its accept rule is the machine's, not the grid's).
        for key in ["total_v", "max_sr", "load_imb", "cut_pct", "remap_accepted"] {
            assert_eq!(p[key], s[key], "{key}");
        }
        // Cut faces and trees crossing clusters take ten times longer.
        assert!(time(s) > time(p), "{} > {}", time(s), time(p));
        // Slowdowns of 1 are no slowdown: the same time, bit for bit.
        assert_eq!(time(u), time(p));
        let model = |r: &Value| r["minex_model"]["max_qwgt_s"].as_f64().unwrap();
        assert!(model(s) > model(u), "MinEX's model sees the slow links too");
    }
}

#[test]
fn euler_with_minex_conserves_as_without_balancing() {
    let dir = TempDir::new("minex-euler");
    let run = |name: &str, args: &[&str]| -> Vec<Value> {
        let out = dir.arg(name);
        let base = [
            "run", "euler", "--procs", "4", "--vtk", "none", "--out", &out,
        ];
        ok(&[&base[..], args].concat());
        records_without(&dir.path(name), "iterations", &["time_ms", "flux_rate"])
    };
    let minex = run("minex", &["--partitioner", "minex", "--throttle", "inf"]);
    let none = run("none", &["--balancer", "none"]);
    assert_eq!(minex.len(), none.len());
    let conserved = ["mass_change", "energy_change", "adapt_conservation"];
    for (m, n) in minex.iter().zip(&none) {
        assert_eq!(m["leaves"], n["leaves"]);
        for key in conserved {
            let (m, n) = (m[key].as_f64().unwrap(), n[key].as_f64().unwrap());
            assert!(m <= 1e-12 && n <= 1e-12, "{key}: {m} and {n}");
        }
    }
    let text = std::fs::read_to_string(dir.path("minex").join("metrics.json")).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["config"]["partitioner"], "minex");
    assert_eq!(json["config"]["minex"]["throttle"], "inf");
}

#[test]
fn bad_minex_and_grid_options_are_usage_errors_naming_the_option() {
    let dir = TempDir::new("minex-usage");
    let out = dir.arg("out");
    let minex = ["--partitioner", "minex"];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--grid", "clusters=5,interconnect=10"],
            vec!["--grid", "5 clusters", "4"],
        ),
        (vec!["--grid", "clusters=2,interconnect=0"], vec!["--grid"]),
        (
            vec!["--grid", "clusters=2,interconnect=NaN"],
            vec!["--grid"],
        ),
        (vec!["--grid", "clusters=2,interconnect=x"], vec!["--grid"]),
        (vec!["--grid", "clusters=2"], vec!["--grid"]),
        (vec!["--grid", "2x10"], vec!["--grid"]),
        (
            [&minex[..], &["--throttle", "-1"]].concat(),
            vec!["--throttle"],
        ),
        (
            [&minex[..], &["--throttle", "NaN"]].concat(),
            vec!["--throttle"],
        ),
        (
            [&minex[..], &["--throttle", "a lot"]].concat(),
            vec!["--throttle"],
        ),
        (
            [&minex[..], &["--coarsen-to", "0"]].concat(),
            vec!["--coarsen-to"],
        ),
        (
            [&minex[..], &["--latency", "some"]].concat(),
            vec!["--latency"],
        ),
        (
            vec!["--throttle", "3"],
            vec!["--throttle", "--partitioner minex only"],
        ),
        (
            vec!["--latency", "max"],
            vec!["--latency", "--partitioner minex only"],
        ),
        (
            vec!["--partitioner", "metis", "--coarsen-to", "40"],
            vec!["--coarsen-to", "--partitioner minex only"],
        ),
    ];
    for command in [["run", "shock"], ["run", "euler"]] {
        for (extra, expected) in &cases {
            let base = [&command[..], &["--procs", "4", "--out", &out]].concat();
            let args = [&base[..], extra].concat();
            let run = fails(&args, 2, expected);
            assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
        }
    }
    assert!(!dir.path("out").exists(), "a usage error writes nothing");
}
