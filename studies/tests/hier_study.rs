//! `plume study hier`'s tables keep their invariants (issue 24, item 3): every object placed
//! once on a processor of the run, the objects migrated equal to the placement difference, the
//! loads and time per step those of the placement, the strategies migrating as [Zheng 2011]'s
//! tables 2 and 4 say (H3), HybridLB's databases smaller than the central one (H4), and the
//! sweep's shrink levels those of table 5's rule.

use plume::balance::hier::{shrink_level, LbTest};
use plume_studies::hier::{balance_all, run, HierConfig, Method};

/// A small study: P = 256 with lowest domains of 64, 4,096 objects; sweep of 8,192 objects on
/// 64 processors with a threshold of 1,024 objects.
fn small() -> HierConfig {
    HierConfig {
        procs: vec![128, 256],
        objects: 4_096,
        lowest: 64,
        max_objects: 1_024,
        sweep_procs: 64,
        sweep_objects: 8_192,
        sweep_levels: vec![2, 3, 4, 7],
        ..HierConfig::seed_study()
    }
}

#[test]
fn every_object_is_placed_once_and_migrated_counts_the_difference() {
    let cfg = small();
    let p = 256;
    let (objs, records) = LbTest::new(cfg.objects, p).generate().unwrap();
    let (row, dests) = balance_all(&cfg, &objs, &records, p).unwrap();
    assert_eq!(row.runs.len(), Method::ALL.len());
    assert_eq!(dests.len(), row.runs.len());
    let total: f64 = objs.iter().map(|o| o.load).sum();
    for (run, dest) in row.runs.iter().zip(&dests) {
        let name = run.method.name();
        // One destination per object, on a processor of the run.
        assert_eq!(dest.len(), objs.len(), "{name}");
        assert!(dest.iter().all(|&d| (d as usize) < p), "{name}");
        let moved = objs.iter().zip(dest).filter(|(o, &d)| o.home != d).count();
        assert_eq!(run.migrated, moved, "{name}");
        let mut loads = vec![0.0; p];
        for (o, &d) in objs.iter().zip(dest) {
            loads[d as usize] += o.load;
        }
        let placed: f64 = loads.iter().sum();
        assert!((placed - total).abs() < 1e-9 * total, "{name}: load lost");
        let max = loads.iter().copied().fold(0.0, f64::max);
        assert_eq!(run.max_load, max, "{name}");
        assert!(
            (run.load_imb - max * p as f64 / placed).abs() < 1e-9,
            "{name}"
        );
        // The step waits for the heaviest processor, and its messages add to it.
        assert!(run.step_time >= run.max_load, "{name}");
        assert!(
            run.step_time < row.step_time_before,
            "{name} did not balance"
        );
        let t = &run.times;
        assert!(
            t.collection > 0.0 && t.strategy > 0.0 && t.matching > 0.0,
            "{name}"
        );
        assert!(t.migration > 0.0 && t.decisions >= 0.0, "{name}");
        // A phase without messages is +0, never the -0 of an empty sum ("-0.0000").
        assert!(t.decisions.is_sign_positive(), "{name}");
    }
    let get = |m: Method| row.run(m).unwrap();
    // H3: the greedy strategies move almost every object (the sorted placement is the
    // reverse of what they build), RefineLB a few.
    let n = objs.len() as f64;
    for m in [Method::Greedy, Method::GreedyComm, Method::Hybrid] {
        assert!(get(m).migrated as f64 > 0.95 * n, "{}", m.name());
    }
    assert!((get(Method::Refine).migrated as f64) < 0.3 * n);
    // H4: the central database holds every object and the records between processors
    // (lb_test's ids are 0..N); PLUM's the whole graph; HybridLB's lowest domains about a
    // quarter of them (64 of 256 processors).
    let home = |id: u32| objs[id as usize].home;
    let crossing = records
        .iter()
        .filter(|r| home(r.from) != home(r.to))
        .count();
    assert!(crossing < records.len());
    let central = get(Method::Greedy).peak_db_bytes;
    assert_eq!(central, 16 * (objs.len() + crossing) as u64);
    assert_eq!(
        get(Method::Plum).peak_db_bytes,
        16 * (objs.len() + records.len()) as u64
    );
    assert!(get(Method::Hybrid).peak_db_bytes * 3 < central);
    assert_eq!(row.tree, [4, 64]);
}

#[test]
fn the_study_runs_every_p_and_the_sweep_follows_table_5s_rule() {
    let cfg = small();
    let mut done = Vec::new();
    let study = run(&cfg, |what| done.push(what.to_string())).unwrap();
    assert_eq!(done, ["P = 128", "P = 256", "levels sweep"]);
    assert_eq!(study.rows.len(), 2);
    assert_eq!(study.sweep.len(), 4);
    for s in &study.sweep {
        // The sweep's trees are uniform: G^(L − 1) = 64.
        assert_eq!(s.branching.pow(s.levels as u32 - 1), 64, "L = {}", s.levels);
        if s.levels == 2 {
            // One domain, the lowest: full whatever its size.
            assert_eq!((s.shrink_level, s.shrink_objects), (0, 8_192));
            continue;
        }
        let shrink = shrink_level(cfg.sweep_objects, cfg.max_objects, s.branching);
        assert_eq!(s.shrink_level, shrink, "L = {}", s.levels);
        assert_eq!(
            s.shrink_objects as usize,
            cfg.sweep_objects / s.branching.pow(shrink as u32),
            "L = {}",
            s.levels
        );
        assert!(s.messages_sent < s.messages_formula);
        assert_eq!(s.messages_sent, 3 * 63, "P − 1 sent per phase");
    }
    // Deterministic: the same study twice gives the same files.
    let again = run(&cfg, |_| ()).unwrap();
    assert_eq!(again.markdown(), study.markdown());
    assert_eq!(again, study);
}

#[test]
fn a_sweep_without_a_hierarchical_tree_skips_figure_3_with_a_note() {
    let cfg = HierConfig {
        procs: vec![128],
        sweep_levels: vec![2],
        ..small()
    };
    let study = run(&cfg, |_| ()).unwrap();
    let dir = std::env::temp_dir().join(format!("plume-hier-{}", std::process::id()));
    let mut folder = plume_cases::run_folder::RunFolder::open(&dir).unwrap();
    let notes = study.write(&mut folder).unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("fig3_levels.svg: not drawn"), "{notes:?}");
    assert!(!dir.join("fig3_levels.svg").exists());
    for file in ["hier.md", "hier.json", "fig4_messages.svg", "fig6_step.svg"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_settings_name_their_option() {
    let bad = |f: fn(&mut HierConfig), option: &str| {
        let mut cfg = small();
        f(&mut cfg);
        let e = cfg.check().unwrap_err();
        assert!(e.starts_with(option), "{e}");
    };
    bad(|c| c.procs = vec![100], "--procs 100");
    bad(|c| c.procs = vec![64], "--procs 64");
    bad(|c| c.procs.clear(), "--procs");
    bad(|c| c.objects = 100, "--procs 128");
    bad(|c| c.lowest = 1, "--lowest 1");
    bad(|c| c.sweep_levels = vec![1], "--sweep-levels 1");
    bad(|c| c.sweep_levels = vec![40], "--sweep-levels 40");
    bad(|c| c.sweep_procs = 1, "--sweep-procs 1");
}
