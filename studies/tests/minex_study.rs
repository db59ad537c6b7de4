//! `plume study minex` on a small box: the recorded sequence holds the run's weights, every
//! replayed assignment is valid, the replays are deterministic, MinEX never raises its input's
//! `MaxQWgt`, PLUM's movement is what `Plum` reports, and the files are written. Properties
//! that hold for any valid MinEX (the placeholder that makes no move included), not its
//! numbers.

use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::mesh::generate_box;
use plume::partition::{score, Grid, Metis, Partitioner, Targets, UnitCosts};
use plume::remap::TotalVOptimal;
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::{self, record_sequence, Balancer, Sequence, ShockConfig};
use plume_studies::minex::replay::{initial, level_graph, replay, score_levels, Levels};
use plume_studies::minex::{run, Method, MinexConfig, Tolerance};

const PROCS: usize = 4;

fn config() -> ShockConfig {
    let mut cfg = ShockConfig::new(PROCS);
    cfg.levels = 3;
    cfg
}

fn box_mesh() -> plume::mesh::Mesh {
    generate_box([16, 4, 4], [4.0, 1.0, 1.0]).unwrap()
}

fn sequence() -> Sequence {
    record_sequence(&config(), box_mesh(), |_| {}).unwrap()
}

fn study_config() -> MinexConfig {
    MinexConfig {
        procs: PROCS,
        clusters: vec![1, 2],
        interconnect: vec![3, 100],
        throttle: vec![0.0, 4.0, f64::INFINITY],
        scale_procs: vec![2, 4],
        coarsen_to: vec![Some(2), None],
        ..MinexConfig::seed_study()
    }
}

#[test]
fn the_sequence_holds_the_runs_weights_and_initial_partition() {
    let seq = sequence();
    let cfg = ShockConfig {
        balancer: Balancer::None,
        ..config()
    };
    let runs =
        shock::run_many(std::slice::from_ref(&cfg), box_mesh(), |_, _, _, _| Ok(())).unwrap();
    let levels = &runs[0].levels;
    assert_eq!(seq.levels.len(), levels.len());
    let roots = seq.xadj.len() - 1;
    for (s, r) in seq.levels.iter().zip(levels) {
        assert_eq!(s.leaves, r.leaves);
        // Predicted PWgt: the leaves after subdivision.
        assert_eq!(
            s.pwgt.iter().sum::<u64>(),
            r.leaves as u64,
            "level {}",
            s.level
        );
        assert_eq!((s.pwgt.len(), s.rwgt.len()), (roots, roots));
        assert_eq!(s.cwgt.len(), seq.adjncy.len());
        assert!(s.rwgt.iter().all(|&e| e >= 1));
    }
    // Level 1 moves the trees as they were at level 0: closure adds no element before
    // subdivision, so RWgt is the trees' element counts then.
    assert_eq!(seq.levels[0].rwgt, seq.base.rwgt);
    // Later levels move trees the earlier levels grew.
    let total = |l: usize| seq.levels[l].rwgt.iter().sum::<u64>();
    assert!(total(2) > total(0));
    // The initial partition: METIS on the level-0 weights.
    let mut part = vec![0; roots];
    let g = level_graph(&seq, &seq.base).unwrap();
    Metis::default()
        .partition(&g, Targets::Equal(PROCS), &mut part)
        .unwrap();
    assert_eq!(seq.initial, part);
    assert_eq!(initial(&seq, PROCS).unwrap(), part);
    // Serializable both ways for other benchmarks.
    let json = serde_json::to_string(&seq).unwrap();
    assert_eq!(serde_json::from_str::<Sequence>(&json).unwrap(), seq);
}

#[test]
fn every_replayed_assignment_is_valid_and_minex_never_raises_its_input() {
    let seq = sequence();
    let levels = Levels::new(&seq).unwrap();
    let start = initial(&seq, PROCS).unwrap();
    let cfg = study_config();
    for (c, i) in [(1, 1), (2, 100)] {
        let grid = Grid::even(PROCS, c, i).unwrap();
        for lat in [Tolerance::None, Tolerance::Max] {
            let opts = cfg.minex(grid.clone(), lat, 4.0);
            for method in [
                Method::Minex,
                Method::Plum,
                Method::MetisIdentity,
                Method::ClusterMetis,
                Method::None,
            ] {
                let r = replay(&levels, &start, method, &grid, Some(&opts)).unwrap();
                assert_eq!(r.steps.assignments.len(), seq.levels.len());
                let mut data = initial(&seq, PROCS).unwrap();
                for (level, a) in seq.levels.iter().zip(&r.steps.assignments) {
                    assert_eq!(a.len(), seq.xadj.len() - 1);
                    let mut count = vec![0; PROCS];
                    for &p in a {
                        count[p as usize] += 1;
                    }
                    assert!(count.iter().all(|&n| n > 0), "{method:?}: {count:?}");
                    if method == Method::Minex {
                        let g = level_graph(&seq, level).unwrap();
                        let q = |assigned: &[u32]| {
                            let t = score(&g, &grid, UnitCosts::SEED, assigned, &data).unwrap();
                            t.iter().map(|t| lat.latency().qwgt(t)).max().unwrap()
                        };
                        assert!(
                            q(a) <= q(&data),
                            "level {}: {} > {}",
                            level.level,
                            q(a),
                            q(&data)
                        );
                    }
                    data.clone_from(a);
                }
            }
        }
    }
}

#[test]
fn plums_movement_is_what_plum_reports_for_the_same_step() {
    let seq = sequence();
    let cfg = study_config();
    let grid = Grid::single(PROCS).unwrap();
    let views = Levels::new(&seq).unwrap();
    let r = replay(&views, &seq.initial, Method::Plum, &grid, None).unwrap();
    let (levels, _) =
        score_levels(&cfg, &views, &seq.initial, &grid, Tolerance::None, &r.steps).unwrap();
    let plum = Plum::with(
        PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(PROCS)
        },
        Box::new(Metis::default()),
        Box::new(TotalVOptimal),
        Box::new(Threshold::default()),
    )
    .unwrap();
    let mut owner = seq.initial.clone();
    for (level, score) in seq.levels.iter().zip(&levels) {
        let g = level_graph(&seq, level).unwrap();
        let g = g.with_sizes(&level.predicted_rwgt).unwrap();
        let b = plum.propose_moving(&g, &owner, None, &level.rwgt).unwrap();
        assert_eq!(
            (score.total_v, score.max_sr),
            (b.movement.total_v, b.movement.max_sr)
        );
        owner = b.new_owner.unwrap();
    }
}

#[test]
fn replays_are_deterministic_and_written() {
    let seq = sequence();
    let cfg = study_config();
    let a = run(&cfg, &seq, |_| {}).unwrap().without_times();
    let b = run(&cfg, &seq, |_| {}).unwrap().without_times();
    let json = |s: &plume_studies::minex::MinexStudy| serde_json::to_string(s).unwrap();
    assert_eq!(json(&a), json(&b));
    // Rows: P = 4 on (1 cluster) + (2 clusters × 2 I), both tolerances, and P = 2 on one
    // cluster; every check evaluated or said not to be.
    assert!(a
        .rows
        .iter()
        .any(|r| r.method == Method::ClusterMetis && r.clusters == 2));
    assert!(a
        .rows
        .iter()
        .any(|r| r.procs == 2 && r.method == Method::Minex));
    assert_eq!(
        a.rows.iter().filter(|r| r.coarsen_to.is_some()).count(),
        2 * cfg.latency.len()
    );
    assert!(a.checks.iter().any(|c| c.id == "R2b" && c.holds.is_none()));
    let dir = std::env::temp_dir().join(format!("plume-minex-study-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut folder = RunFolder::open(&dir).unwrap();
    let notes = a.write(&mut folder).unwrap();
    for f in [
        "minex.md",
        "minex.json",
        "table14_throttle.svg",
        "table16_procs.svg",
    ] {
        assert!(dir.join(f).is_file(), "{f} ({notes:?})");
    }
    let md = std::fs::read_to_string(dir.join("minex.md")).unwrap();
    assert!(md.contains("## Table 14") && md.contains("R6a "), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn checks_are_measured_from_the_rows() {
    let seq = sequence();
    let cfg = study_config();
    let mut study = run(&cfg, &seq, |_| {}).unwrap();
    let r5 = |s: &plume_studies::minex::MinexStudy| {
        let checks = plume_studies::minex::checks::evaluate(s);
        checks.into_iter().find(|c| c.id == "R5").unwrap()
    };
    let plum_sr = study
        .rows
        .iter()
        .find(|r| r.method == Method::Plum && r.procs == PROCS && r.clusters == 1)
        .map(|r| r.total.max_sr)
        .unwrap();
    let minex = |s: &mut plume_studies::minex::MinexStudy| {
        s.rows
            .iter_mut()
            .find(|r| {
                r.method == Method::Minex
                    && r.procs == PROCS
                    && r.clusters == 1
                    && r.latency == Tolerance::None
                    && r.coarsen_to.is_none()
                    && r.throttle == Some(cfg.tau())
            })
            .unwrap()
            .total
            .max_sr = 0;
    };
    minex(&mut study);
    let holds = r5(&study);
    assert_eq!(holds.holds, Some(true), "{}", holds.line());
    assert!(holds.line().starts_with("R5 holds: "));
    for r in study.rows.iter_mut().filter(|r| r.method == Method::Minex) {
        r.total.max_sr = plum_sr + 1;
    }
    let fails = r5(&study);
    assert_eq!(fails.holds, Some(false));
    assert!(
        fails
            .line()
            .contains(&format!("MaxSR {} vs {plum_sr}", plum_sr + 1)),
        "{}",
        fails.line()
    );
}
