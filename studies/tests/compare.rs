//! `plume compare shock`: both methods for every P on one adaptation, the files it writes,
//! and the same `compare.json` for the same seed.

use std::path::Path;

use plume::mesh::Mesh;
use plume_cases::hier::HierSettings;
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::{self, Balancer, ShockConfig, ShockRun};
use plume_cases::words::TreeSpec;
use plume_studies::compare::{compare, HierChoice};
use serde_json::Value;

fn shock_mesh() -> Mesh {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh");
    plume::io::read_mesh(&path).unwrap().0
}

fn base() -> ShockConfig {
    let mut cfg = ShockConfig::new(2);
    cfg.levels = 2;
    cfg
}

#[test]
fn both_methods_for_every_p_and_the_same_json_for_the_same_seed() {
    let procs = [3, 8];
    let run = || {
        compare(
            &procs,
            &base(),
            &HierChoice::default(),
            shock_mesh(),
            |_| Ok(()),
        )
        .unwrap()
    };
    let a = run();
    assert_eq!(a.procs, procs);
    for (i, &p) in procs.iter().enumerate() {
        assert_eq!((a.plum[i].config.procs, a.sbn[i].config.procs), (p, p));
        assert_eq!(a.plum[i].config.balancer, Balancer::Plum);
        assert_eq!(a.sbn[i].config.balancer, Balancer::Sbn);
        // One adaptation: both see the same meshes.
        let leaves = |r: &ShockRun| -> Vec<usize> { r.levels.iter().map(|l| l.leaves).collect() };
        assert_eq!(leaves(&a.plum[i]), leaves(&a.sbn[i]));
        let hier = a.hier[i].as_ref().unwrap();
        assert_eq!(hier.run.config.balancer, Balancer::Hier);
        assert_eq!(hier.settings(), HierSettings::new(p));
        assert_eq!(leaves(&a.plum[i]), leaves(&hier.run));
    }
    let json: serde_json::Value = serde_json::from_str(&a.json().unwrap()).unwrap();
    assert_eq!(json["procs"], serde_json::json!([3, 8]));
    for method in ["plum", "sbn"] {
        let summaries = json[method].as_array().unwrap();
        assert_eq!(summaries.len(), 2);
        for s in summaries {
            for key in ["load_imb", "cut_pct", "max_sr", "comm_mb", "leaves"] {
                assert!(s[key].is_number(), "{method}: {key}");
            }
            assert!(s.get("time_ms").is_none(), "wall-clock readings stay out");
        }
    }
    assert!(json["sbn"][0]["qwgt_load_imb"].is_number());
    for h in json["hier"].as_array().unwrap() {
        assert!(h["sim"]["time_s"].is_number() && h["db_ratio"].as_f64() > Some(1.0));
        assert!(h.get("time_ms").is_none(), "wall-clock readings stay out");
    }
    assert_eq!(a.json().unwrap(), run().json().unwrap());
}

#[test]
fn writes_the_tables_and_the_charts() {
    let a = compare(
        &[2, 4],
        &base(),
        &HierChoice::default(),
        shock_mesh(),
        |_| Ok(()),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("plume-compare-{}", std::process::id()));
    a.write(&mut RunFolder::open(&dir).unwrap()).unwrap();
    let md = std::fs::read_to_string(dir.join("compare.md")).unwrap();
    // Our row for P = 4 with the published PLUM Cut% beside it ([Harvey 2001, table 8]: 4.01).
    assert!(
        md.lines()
            .any(|l| l.starts_with("| 4 |") && l.contains("[4.01]")),
        "{md}"
    );
    for chart in ["loadimb.svg", "cut.svg", "maxsr.svg", "time.svg"] {
        let svg = std::fs::read_to_string(dir.join(chart)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("SBN"), "{chart}");
    }
    // The hierarchical group's row for P = 4 (its default tree: uniform 2) and its chart.
    assert!(
        md.lines()
            .any(|l| l.starts_with("| 4 | 2 | metis |") && l.matches('|').count() == 15),
        "{md}"
    );
    let svg = std::fs::read_to_string(dir.join("hier.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("hier / PLUM"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run's level records without their wall-clock fields.
fn records(run: &ShockRun) -> Vec<Value> {
    let json: Value = serde_json::from_str(&run.report().json().unwrap()).unwrap();
    let mut levels = json["levels"].as_array().unwrap().clone();
    for l in &mut levels {
        for clock in ["time_ms", "balance_pct"] {
            l.as_object_mut().unwrap().remove(clock).unwrap();
        }
    }
    levels
}

/// Issue 24: the hierarchical group is the single-process run of its settings at that P (the
/// same records, so the same summed simulated T), each of its levels owns every root once and
/// no processor is left without roots, and its databases count every root once at the top.
#[test]
fn the_hierarchical_group_is_the_run_of_its_settings_owning_every_root_once() {
    let choice = HierChoice {
        tree: Some(TreeSpec::List(vec![2, 2])),
        strategy: None,
    };
    let a = compare(&[1, 4], &base(), &choice, shock_mesh(), |_| Ok(())).unwrap();
    assert!(a.hier[0].is_none(), "one processor has nothing to balance");
    let hier = a.hier[1].as_ref().unwrap();
    let settings = hier.settings();
    assert_eq!(
        (settings.tree.to_string(), settings.strategy),
        ("2,2".into(), HierSettings::new(4).strategy)
    );

    let mut cfg = base();
    cfg.procs = 4;
    cfg.balancer = Balancer::Hier;
    cfg.hier = Some(settings);
    let mut checked = 0;
    let alone = shock::run(&cfg, shock_mesh(), |_, record, forest, owner| {
        assert_eq!(owner.len(), forest.trees().len(), "one owner a root");
        let mut leaves = [0usize; 4];
        for leaf in forest.leaves() {
            leaves[owner[leaf.root as usize] as usize] += 1;
        }
        assert!(
            leaves.iter().all(|&n| n > 0),
            "a processor without roots: {leaves:?}"
        );
        assert_eq!(leaves.iter().sum::<usize>(), forest.nleaves());
        if let Some(r) = record {
            let mean = forest.nleaves() as f64 / 4.0;
            let max = *leaves.iter().max().unwrap() as f64;
            assert!(
                (r.load_imb - max / mean).abs() < 1e-12,
                "{} {}",
                r.load_imb,
                max / mean
            );
            checked += 1;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(checked, 2);
    assert_eq!(records(&hier.run), records(&alone));

    // Each balance counted; the top domain holds every root once, each of its two children
    // at least half of them; flat PLUM gathers them all with their faces from both sides.
    let balances = alone.levels.iter().filter(|l| l.balance_triggered).count();
    assert_eq!(hier.databases.balances, balances);
    assert!(balances > 0);
    let roots = a.gathered.roots;
    assert_eq!(roots, alone.roots as u64);
    assert_eq!(hier.databases.max_db_objects[0], roots);
    assert!(2 * hier.databases.max_db_objects[1] >= roots);
    assert!(hier.databases.max_db_objects[1] < roots);
    assert_eq!(a.gathered.records % 2, 0);
    assert_eq!(a.gathered.bytes, 16 * (roots + a.gathered.records));
    let largest = hier.databases.largest_bytes().unwrap();
    assert_eq!(
        hier.db_ratio,
        Some(a.gathered.bytes as f64 / largest as f64)
    );
}
