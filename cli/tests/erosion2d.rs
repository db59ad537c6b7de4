//! [Boulmier 2019]'s own experiment on the 2-D grid (issue 11, item 4): the grid's bookkeeping
//! against a recount from scratch, the stripes, determinism, ULBA with α = 0 against the
//! standard method, and ULBA spotting the strong rock's PE. Tiny grids, so the tests are
//! quick. And `plume study erosion2d` / `plume study model` as users run them.

mod common;
use common::{run_plume, TempDir};

use plume::balance::{ulba_shares, BalancePolicy, Degradation};
use plume_studies::erosion2d::grid::{Cell, ERODED_WORK};
use plume_studies::erosion2d::layout::{prefix, Layout};
use plume_studies::erosion2d::study::{self, standard_policy, ulba_policy, StudyConfig};
use plume_studies::erosion2d::{replay, seeded_grid, Geometry, Grid, Machine, Trace};

/// `procs` stripes of 40 × 40 cells, rocks of radius 10.
fn tiny(procs: usize) -> Geometry {
    Geometry {
        procs,
        stripe_width: 40,
        height: 40,
        radius: 10,
    }
}

fn cells(grid: &Grid) -> Vec<Vec<Cell>> {
    let g = grid.geometry();
    (0..g.columns())
        .map(|x| (0..g.height).map(|y| grid.cell(x, y)).collect())
        .collect()
}

fn is_rock(c: &[Vec<Cell>], x: i64, y: i64) -> bool {
    x >= 0
        && y >= 0
        && (x as usize) < c.len()
        && (y as usize) < c[0].len()
        && c[x as usize][y as usize] == Cell::Rock
}

#[test]
fn eroded_cells_were_front_rock_and_become_work_four_and_column_sums_match_a_recount() {
    let mut grid = seeded_grid(tiny(4), 2, 7).unwrap();
    let mut eroded = Vec::new();
    let mut total_eroded = 0;
    for i in 0..80 {
        let before = cells(&grid);
        let work_before = grid.column_work().to_vec();
        grid.step(i, &mut eroded);
        total_eroded += eroded.len();
        let after = cells(&grid);
        let mut added = vec![0u32; work_before.len()];
        for &(x, y) in &eroded {
            let (x, y) = (x as usize, y as usize);
            assert_eq!(before[x][y], Cell::Rock, "iteration {i}: ({x}, {y})");
            let (xi, yi) = (x as i64, y as i64);
            let open = [(-1, 0), (1, 0), (0, -1), (0, 1)]
                .iter()
                .any(|(dx, dy)| !is_rock(&before, xi + dx, yi + dy));
            assert!(open, "iteration {i}: ({x}, {y}) was not on the front");
            assert_eq!(after[x][y], Cell::Eroded);
            assert_eq!(after[x][y].work(), 4);
            added[x] += ERODED_WORK;
        }
        // Nothing else changed.
        let changed = (0..before.len())
            .flat_map(|x| (0..before[0].len()).map(move |y| (x, y)))
            .filter(|&(x, y)| before[x][y] != after[x][y])
            .count();
        assert_eq!(changed, eroded.len());
        for (x, w) in grid.column_work().iter().enumerate() {
            assert_eq!(*w, work_before[x] + added[x], "column {x}");
        }
    }
    assert!(
        total_eroded > 500,
        "the strong rocks eroded: {total_eroded}"
    );
    let recount: Vec<u32> = cells(&grid)
        .iter()
        .map(|col| col.iter().map(|c| c.work()).sum())
        .collect();
    assert_eq!(grid.column_work(), recount.as_slice());
}

#[test]
fn a_replay_keeps_the_column_sums_of_the_grid() {
    let trace = Trace::record(seeded_grid(tiny(6), 1, 3).unwrap(), 120);
    let m = Machine::default();
    let run = replay(&trace, &m, &mut standard_policy(&trace, &m)).unwrap();
    assert_eq!(run.column_work, trace.last.column_work());
    assert!(run.summary.lb_calls > 0);
    let total: f64 = run.records.iter().map(|r| r.time).sum();
    assert!((total - run.summary.total_time).abs() < 1e-9);
    assert_eq!(
        run.records.iter().filter(|r| r.balanced).count(),
        run.summary.lb_calls
    );
}

#[test]
fn stripes_hold_their_share_of_the_work_within_one_column() {
    let trace = Trace::record(seeded_grid(tiny(8), 2, 5).unwrap(), 150);
    let work = trace.last.column_work();
    let heaviest = u64::from(*work.iter().max().unwrap());
    let prefix_work = prefix(work.iter().map(|&w| u64::from(w)));
    let total = *prefix_work.last().unwrap() as f64;
    let mut overloading = vec![false; 8];
    overloading[3] = true;
    let uneven = ulba_shares(&overloading, 0.4).unwrap();
    for shares in [vec![1.0; 8], uneven] {
        let sum: f64 = shares.iter().sum();
        let layout = Layout::cut(&prefix_work, &shares).unwrap();
        let loads = layout.sums(&prefix_work);
        assert_eq!(loads.iter().sum::<u64>() as f64, total);
        for (k, &l) in loads.iter().enumerate() {
            let target = total * shares[k] / sum;
            assert!(
                (l as f64 - target).abs() <= heaviest as f64,
                "stripe {k}: {l} vs {target} (column ≤ {heaviest})"
            );
            let r = layout.range(k);
            assert!(r.start < r.end && r.clone().all(|x| layout.owner(x) == k));
        }
    }
}

#[test]
fn ulba_with_alpha_zero_is_the_standard_run_and_with_alpha_it_unloads_the_strong_pe() {
    // 16 PEs, so that one overloading PE can pass the z-score of 3 (at most √(P − 1)).
    let trace = Trace::record(seeded_grid(tiny(16), 1, 2).unwrap(), 150);
    let m = Machine::default();
    let standard = replay(&trace, &m, &mut standard_policy(&trace, &m)).unwrap();
    let ulba0 = replay(&trace, &m, &mut ulba_policy(&trace, &m, 0.0, 3.0)).unwrap();
    assert_eq!(standard, ulba0);
    let ulba = replay(&trace, &m, &mut ulba_policy(&trace, &m, 0.4, 3.0)).unwrap();
    assert!(
        ulba.summary.uneven_calls > 0,
        "the strong rock's PE was seen"
    );
    // After the first uneven balance the strong rock's stripe holds 60% of the mean work.
    let first = ulba.records.iter().position(|r| r.uneven).unwrap();
    assert!(ulba.summary.lb_calls < standard.summary.lb_calls);
    assert!(first < 20, "first uneven balance at {first}");
}

#[test]
fn the_median_of_three_trigger_balances_less_often_than_the_last_time_on_a_noisy_run() {
    // The same erosion under both readings: the median never balances more often.
    let trace = Trace::record(seeded_grid(tiny(8), 1, 4).unwrap(), 150);
    let m = Machine::default();
    let init = m.partition_time(trace.geometry.columns(), 8);
    let run = |policy: &mut dyn BalancePolicy| replay(&trace, &m, policy).unwrap().summary;
    let median = run(&mut Degradation::new(init));
    let last = run(&mut Degradation::with_step_time(
        init,
        plume::balance::StepTime::Last,
    ));
    assert!(median.lb_calls <= last.lb_calls, "{median:?} vs {last:?}");
}

fn tiny_study() -> StudyConfig {
    let mut cfg = StudyConfig::seed_study(60);
    cfg.procs = vec![12, 16];
    cfg.strong = vec![1, 2];
    cfg.seeds = vec![1, 2, 3];
    cfg.alphas = vec![0.0, 0.4];
    cfg.stripe_width = 30;
    cfg.height = 30;
    cfg.radius = 8;
    cfg.lb_fixed = vec![0.0, 0.005];
    cfg
}

#[test]
fn a_study_is_the_same_for_the_same_seeds_and_holds_every_case() {
    let cfg = tiny_study();
    let a = study::run(&cfg, |_, _| {}).unwrap();
    let b = study::run(&cfg, |_, _| {}).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert_eq!(a.cases.len(), 2 * 2 * 2);
    assert_eq!(a.alpha.len(), 2 * 2 * 2);
    assert_eq!(a.usage.len(), 2);
    for c in &a.cases {
        assert_eq!(c.runs.len(), 3);
        let times: Vec<f64> = c.runs.iter().map(|r| r.standard.total_time).collect();
        assert_eq!(c.standard.total_time, study::median(times.into_iter()));
    }
    // α = 0 in the sweep is the standard method.
    for point in a.alpha.iter().filter(|p| p.alpha == 0.0) {
        let case = a
            .cases
            .iter()
            .find(|c| c.procs == point.procs && c.strong == 1 && c.lb_fixed == point.lb_fixed)
            .unwrap();
        let standard: Vec<f64> = case.runs.iter().map(|r| r.standard.total_time).collect();
        assert_eq!(point.times, standard);
    }
    let mut other = cfg.clone();
    other.seeds = vec![4, 5, 6];
    assert_ne!(study::run(&other, |_, _| {}).unwrap().cases, a.cases);
}

#[test]
fn bad_configurations_are_errors_not_panics() {
    let mut cfg = tiny_study();
    cfg.strong = vec![13];
    assert!(study::run(&cfg, |_, _| {}).unwrap_err().contains("strong"));
    let mut cfg = tiny_study();
    cfg.radius = 15;
    assert!(study::run(&cfg, |_, _| {}).unwrap_err().contains("radius"));
    let mut cfg = tiny_study();
    cfg.alphas = vec![1.5];
    assert!(study::run(&cfg, |_, _| {}).is_err());
    assert!(seeded_grid(tiny(4), 5, 1).is_err());
    assert!(Grid::new(tiny(4), &[4], 1).is_err());
}

#[test]
fn plume_study_erosion2d_and_model_write_their_files() {
    let dir = TempDir::new("study");
    let out = dir.arg("e2d");
    let (code, stdout, stderr) = run_plume(&[
        "study",
        "erosion2d",
        "--procs",
        "12,16",
        "--strong",
        "1",
        "--seeds",
        "2",
        "--iterations",
        "40",
        "--stripe-width",
        "30",
        "--height",
        "30",
        "--radius",
        "8",
        "--alphas",
        "0,0.4",
        "--lb-fixed-ms",
        "0,5",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Figure 4a") && stdout.contains("s wall"),
        "{stdout}"
    );
    for file in [
        "erosion2d.json",
        "erosion2d.md",
        "fig4a_time.svg",
        "fig4a_calls.svg",
        "fig4a_gain.svg",
        "fig4b_usage.svg",
        "fig5_alpha.svg",
        "fig4a_time_fixed5ms.svg",
        "fig5_alpha_fixed5ms.svg",
    ] {
        assert!(dir.path("e2d").join(file).is_file(), "{file}");
    }
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path("e2d").join("erosion2d.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["cases"].as_array().unwrap().len(), 4);
    let out = dir.arg("model");
    let (code, stdout, stderr) = run_plume(&[
        "study",
        "model",
        "--instances",
        "8",
        "--shares",
        "1,10",
        "--alpha-steps",
        "5",
        "--anneal-moves",
        "200",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Figure 3") && stdout.contains("Figure 2"),
        "{stdout}"
    );
    assert!(dir.path("model").join("fig3_gain.svg").is_file());
}

#[test]
fn plume_study_rejects_bad_options_with_one_line_and_code_two() {
    let tiny = [
        "--stripe-width",
        "30",
        "--height",
        "30",
        "--radius",
        "8",
        "--iterations",
        "5",
    ];
    for (extra, needle) in [
        (vec!["--procs", "4", "--strong", "5"], "strong"),
        (vec!["--seeds", "0"], "--seeds"),
        (vec!["--cell-ns", "0"], "--cell-ns"),
        (vec!["--alpha", "2"], "α"),
        (vec!["--lb-fixed-ms=-1"], "fixed"),
    ] {
        let mut args = vec!["study", "erosion2d"];
        args.extend(tiny);
        args.extend(&extra);
        let (code, _, stderr) = run_plume(&args);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("plume: ") && stderr.contains(needle),
            "{stderr}"
        );
    }
    // The check comes before any work: [Boulmier 2019]'s size with too large a rock fails at once.
    let (code, _, stderr) = run_plume(&["study", "erosion2d", "--radius", "600"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.starts_with("plume: ") && stderr.contains("radius 600"),
        "{stderr}"
    );
    for (extra, needle) in [
        (vec!["--shares", "0"], "--shares"),
        (vec!["--alpha-steps", "1"], "--alpha-steps"),
        (vec!["--instances", "0"], "--instances"),
    ] {
        let mut args = vec!["study", "model"];
        args.extend(&extra);
        let (code, _, stderr) = run_plume(&args);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(
            stderr.starts_with("plume: ") && stderr.contains(needle),
            "{stderr}"
        );
    }
}
