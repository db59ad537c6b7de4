//! The erosion case (issue: erosion, ULBA and when-to-balance policies): the erosion's
//! bookkeeping against brute force, the work per iteration, determinism, the stripes, ULBA
//! with α = 0 against the standard method, and `plume run erosion` as users run it.

use std::collections::HashSet;
use std::process::Command;

mod common;
use common::TempDir;

use plume::adapt::Forest;
use plume::graph::{root_centroids, DualGraph};
use plume::mesh::geometry::{centroid, volume};
use plume::partition::{Partitioner, Stripes, Targets};
use plume_cases::erosion::front::{Erosion, FLUID, ROCK};
use plume_cases::erosion::{self, domain, ErosionConfig, IterationRecord};
use plume_cases::words::{PartitionKind, PolicyName};

/// A small case: `procs` stripes of 6 × 6 × 1 cubes (216 roots each).
fn small(procs: usize, policy: PolicyName) -> ErosionConfig {
    let mut cfg = ErosionConfig::new(procs);
    cfg.cells = [6, 6, 1];
    cfg.iterations = 40;
    cfg.policy = policy;
    cfg
}

fn faces(v: [u32; 4]) -> [[u32; 3]; 4] {
    [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]].map(|f| {
        let mut t = f.map(|k| v[k]);
        t.sort_unstable();
        t
    })
}

/// What the bookkeeping test compares of a leaf before and after a step.
struct Leaf {
    root: u32,
    elem: u32,
    corners: [[f64; 3]; 4],
    level: u8,
    material: f64,
}

fn leaves(forest: &Forest) -> Vec<Leaf> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| {
        out.push(Leaf {
            root: l.id.root,
            elem: l.id.elem,
            corners: l.corners,
            level: l.level,
            material: l.data[0],
        })
    });
    out
}

/// The rock leaves sharing a face with a fluid leaf, by brute force over the whole mesh.
fn brute_front(forest: &Forest) -> HashSet<(u32, u32)> {
    let mut fluid_faces = HashSet::new();
    forest.for_each_leaf(|l| {
        if l.data[0] == FLUID {
            fluid_faces.extend(faces(l.verts));
        }
    });
    let mut front = HashSet::new();
    forest.for_each_leaf(|l| {
        if l.data[0] == ROCK && faces(l.verts).iter().any(|f| fluid_faces.contains(f)) {
            front.insert((l.id.root, l.id.elem));
        }
    });
    front
}

/// True when `x` lies strictly inside the tetrahedron `t`.
fn strictly_inside(t: &[[f64; 3]; 4], x: [f64; 3]) -> bool {
    let whole = volume(t);
    (0..4).all(|i| {
        let mut s = *t;
        s[i] = x;
        volume(&s) / whole > 1e-9
    })
}

#[test]
fn only_front_rock_erodes_and_eroded_leaves_turn_fluid_and_refine() {
    let max_depth = 2;
    let d = domain::build(3, [6, 6, 1], 1, 7, max_depth).unwrap();
    let mut forest = d.forest;
    let mut erosion = Erosion::new(&forest, d.rock_of_root, d.probability, 11);
    let mut eroded_total = 0;
    for _ in 0..8 {
        // The incremental front is the brute-force one, and it only holds rock leaves.
        let front = brute_front(&forest);
        let kept: HashSet<(u32, u32)> = (0..forest.nroots() as u32)
            .flat_map(|r| erosion.front(r).iter().map(move |&e| (r, e)))
            .collect();
        assert_eq!(kept, front);
        let before = leaves(&forest);
        let fluid_before = before.iter().filter(|l| l.material == FLUID).count() as u64;
        assert_eq!(erosion.fluid().iter().sum::<u64>(), fluid_before);
        let step = erosion.step(&mut forest, max_depth).unwrap();
        eroded_total += step.eroded.len();
        let after = leaves(&forest);
        for id in &step.eroded {
            assert!(
                front.contains(&(id.root, id.elem)),
                "a non-front leaf eroded"
            );
            let old = before
                .iter()
                .find(|l| (l.root, l.elem) == (id.root, id.elem))
                .unwrap();
            if old.level > 0 {
                continue; // a green child: its family was resampled (see front.rs)
            }
            // A root leaf: now fluid leaves, finer than it.
            let inside: Vec<_> = after
                .iter()
                .filter(|l| {
                    l.root == id.root && strictly_inside(&old.corners, centroid(&l.corners))
                })
                .collect();
            assert!(!inside.is_empty());
            for l in inside {
                assert_eq!(l.material, FLUID);
                assert!(
                    l.level > 0,
                    "an eroded root leaf below the maximum depth is refined"
                );
            }
        }
    }
    assert!(eroded_total > 0, "the strong rock eroded");
}

#[test]
fn work_per_iteration_is_the_fluid_leaf_count_and_ranks_cover_every_root() {
    let cfg = small(4, PolicyName::Standard);
    let mut fluid_after = Vec::new();
    let mut moments = Vec::new();
    let run = erosion::run(&cfg, |moment, forest, owner| {
        let mut fluid = 0u64;
        forest.for_each_leaf(|l| fluid += u64::from(l.data[0] == FLUID));
        fluid_after.push((fluid, forest.nleaves()));
        moments.push(moment);
        assert!(owner.iter().all(|&p| (p as usize) < cfg.procs));
        Ok(())
    })
    .unwrap();
    // Called at the start, then after each iteration; iteration i works on the mesh the
    // first i iterations left, and the time is the modelled time of the iterations done.
    assert_eq!(moments.len(), cfg.iterations + 1);
    let mut time = 0.0;
    for (i, r) in run.iterations.iter().enumerate() {
        assert_eq!((r.work, r.leaves), fluid_after[i], "iteration {i}");
        assert_eq!(moments[i].iterations, i);
        assert_eq!(moments[i].time, time, "iteration {i}");
        time += r.time;
    }
    assert_eq!(moments[cfg.iterations].time, time);
    assert!(time > 0.0);
    assert!((time - run.summary.total_time).abs() < 1e-12);
    let calls = run.iterations.iter().filter(|r| r.balanced).count();
    assert_eq!(run.summary.lb_calls, calls);
    assert!(
        calls > 0,
        "the standard method balanced a growing imbalance"
    );
}

#[test]
fn runs_are_deterministic_per_seed() {
    let cfg = small(4, PolicyName::Ulba);
    let a = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
    let b = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
    assert_eq!(a.iterations, b.iterations);
    let mut other = cfg.clone();
    other.seed = 2;
    let c = erosion::run(&other, |_, _, _| Ok(())).unwrap();
    assert_ne!(a.iterations, c.iterations);
}

#[test]
fn ulba_with_alpha_zero_is_the_standard_run() {
    ulba_against_standard(PartitionKind::Stripes);
}

#[test]
fn ulba_shares_reach_the_graph_layout_through_plum() {
    // METIS cuts parts to ULBA's shares; the remap keeps them on ranks with those shares.
    ulba_against_standard(PartitionKind::Graph);
}

fn ulba_against_standard(partition: PartitionKind) {
    // 16 ranks, so that one overloading rank can pass the z-score of 3 (at most √(P − 1)).
    // 6 × 6 cubes per stripe: a rock of 4 × 4 is eroded before the median-of-three trigger
    // [Boulmier 2019, Alg. 1] first balances.
    let mut std_cfg = small(16, PolicyName::Standard);
    std_cfg.partition = partition;
    std_cfg.iterations = 30;
    // A seed whose strong rock is still seen overloading when the first balance comes.
    std_cfg.seed = 2;
    let mut ulba_cfg = std_cfg.clone();
    ulba_cfg.policy = PolicyName::Ulba;
    ulba_cfg.alpha = 0.0;
    // The records, and the owners at the start and after every iteration (`owners[i]` after
    // `i` iterations).
    let run = |cfg: &ErosionConfig| {
        let mut owners = Vec::new();
        let run = erosion::run(cfg, |_, _, owner| {
            owners.push(owner.to_vec());
            Ok(())
        })
        .unwrap();
        (run.iterations, owners)
    };
    let standard = run(&std_cfg);
    assert_eq!(standard, run(&ulba_cfg));
    // With α > 0 ULBA detects the strong rock's rank and gives it less: the owners part
    // (balances come at the same iterations, the erosion does not depend on the owners).
    ulba_cfg.alpha = 0.4;
    let ulba = run(&ulba_cfg);
    let detected = |r: &IterationRecord| r.balanced && r.overloading > 0;
    let first = ulba
        .0
        .iter()
        .position(detected)
        .expect("no overloading rank seen");
    assert_eq!(standard.1[..=first], ulba.1[..=first]);
    assert_ne!(standard.1[first + 1], ulba.1[first + 1], "{partition:?}");
}

#[test]
fn stripes_hold_equal_fluid_work_within_one_column() {
    let d = domain::build(5, [6, 6, 1], 1, 3, 2).unwrap();
    let mut forest = d.forest;
    let mut erosion = Erosion::new(&forest, d.rock_of_root, d.probability, 3);
    for _ in 0..6 {
        erosion.step(&mut forest, 2).unwrap();
    }
    let columns = 5 * 6;
    let stripes = Stripes::along_x(&root_centroids(forest.mesh()), 0.0, 5.0, columns);
    let fluid = erosion.fluid();
    let heaviest = *stripes.column_weights(fluid).iter().max().unwrap() as f64;
    let mut part = vec![0; fluid.len()];
    let graph = DualGraph::new(&forest);
    let weights = erosion::layout::fluid_weights(&graph, fluid);
    stripes
        .partition(&graph.view(&weights).unwrap(), Targets::Equal(5), &mut part)
        .unwrap();
    let loads = plume::metrics::rank_loads(fluid, &part, 5);
    let mean = loads.iter().sum::<u64>() as f64 / 5.0;
    for l in &loads {
        assert!(
            (*l as f64 - mean).abs() <= heaviest,
            "{loads:?}, column {heaviest}"
        );
    }
    // The erosion made the strong rock's stripe heavier than the others before balancing.
    let initial: Vec<u32> = root_centroids(forest.mesh())
        .iter()
        .map(|c| c[0].floor() as u32)
        .collect();
    let before = plume::metrics::rank_loads(fluid, &initial, 5);
    let spread = |l: &[u64]| l.iter().max().unwrap() - l.iter().min().unwrap();
    assert!(spread(&loads) < spread(&before), "{loads:?} vs {before:?}");
}

fn plume(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    (
        out.status.code().expect("not killed"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    )
}

#[test]
fn run_erosion_writes_metrics_charts_and_vtk() {
    let dir = TempDir::new("run");
    let out = dir.0.display().to_string();
    let base = [
        "run",
        "erosion",
        "--procs",
        "4",
        "--cells",
        "4",
        "4",
        "1",
        "--iterations",
        "12",
        "--out",
        &out,
    ];
    let mut args = base.to_vec();
    args.extend(["--compare", "--alphas", "0,0.5"]);
    let (code, stdout, stderr) = plume(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| standard |") && stdout.contains("ulba (α = 0.4)"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("metrics.json")).unwrap())
            .unwrap();
    let records = json["iterations"].as_array().unwrap();
    assert_eq!(records.len(), 12);
    for key in [
        "iteration",
        "leaves",
        "load_imb",
        "usage",
        "balanced",
        "time_s",
    ] {
        assert!(records.iter().all(|r| r.get(key).is_some()), "{key}");
    }
    let total: f64 = records.iter().map(|r| r["time_s"].as_f64().unwrap()).sum();
    let summary = &json["summary"];
    assert!((summary["total_time_s"].as_f64().unwrap() - total).abs() < 1e-9);
    assert!(summary["lb_calls"].is_u64() && summary["mean_usage"].is_f64());
    assert!(
        summary.get("sigma_plus").is_none(),
        "σ+ exists at balances only"
    );
    assert_eq!(json["config"]["policy"], "standard");
    assert_eq!(json["config"]["partition"], "stripes");
    let csv = std::fs::read_to_string(dir.0.join("metrics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 13);
    for chart in ["usage.svg", "alpha.svg"] {
        let svg = std::fs::read_to_string(dir.0.join(chart)).unwrap();
        assert!(svg.contains("<polyline"), "{chart}");
    }
    let usage = std::fs::read_to_string(dir.0.join("usage.svg")).unwrap();
    assert!(usage.contains("standard") && usage.contains("ULBA"));
    assert!(std::fs::read_to_string(dir.0.join("compare.md"))
        .unwrap()
        .contains("| 0.5 |"));
    // Every rank's piece of the last iteration holds its leaves with their material; the
    // pieces add up to the mesh the last iteration left, those of iteration 0 to the initial
    // mesh (the indices' reading by VTK: tests/erosion_ranks.rs).
    let cells = |iteration: usize| -> usize {
        (0..4)
            .map(|rank| {
                let piece = dir.0.join(format!("iter_{iteration:04}/r{rank:04}.vtu"));
                let vtu = plume::io::read_vtu(&piece).unwrap();
                let names: Vec<&str> = vtu.cell_data.iter().map(|a| a.name.as_str()).collect();
                for name in ["root", "level", "material", "rank"] {
                    assert!(names.contains(&name), "{name} in {names:?}");
                }
                vtu.mesh.tets.len()
            })
            .sum()
    };
    let final_leaves = summary["final_leaves"].as_u64().unwrap() as usize;
    assert_eq!(cells(12), final_leaves);
    assert_eq!(cells(0), records[0]["leaves"].as_u64().unwrap() as usize);
    // The series is timed by the modelled time: 0, then the run's total.
    let pvd = std::fs::read_to_string(dir.0.join("erosion.pvd")).unwrap();
    let times: Vec<(f64, &str)> = pvd
        .lines()
        .filter_map(|l| {
            let time = l.split("timestep=\"").nth(1)?.split('"').next()?;
            let file = l.split("file=\"").nth(1)?.split('"').next()?;
            Some((time.parse().unwrap(), file))
        })
        .collect();
    assert_eq!(
        times,
        [(0.0, "iter_0000.pvtu"), (total, "iter_0012.pvtu")],
        "{pvd}"
    );
}

#[test]
fn run_erosion_rejects_bad_options_with_one_line() {
    for (args, needle) in [
        (vec!["--policy", "sometimes"], "--policy"),
        (vec!["--policy", "periodic:0"], "periodic:0"),
        (vec!["--alpha", "1.5"], "--alpha"),
        (vec!["--procs", "0"], "--procs"),
        (vec!["--strong", "9"], "--strong"),
        (vec!["--partition", "lines"], "--partition"),
        (vec!["--cells", "0", "4", "1"], "--cells"),
        // Issue 24 (2): the hierarchical balancer's options and what it cannot serve.
        (vec!["--balancer", "hier", "--tree", "1"], "--tree"),
        (vec!["--balancer", "hier", "--tree", "3,4"], "--tree 3,4"),
        (vec!["--balancer", "hier", "--procs", "1"], "--tree"),
        (
            vec!["--tree", "2,4"],
            "--tree applies to --balancer hier only",
        ),
        (vec!["--hier-strategy", "refine"], "--hier-strategy applies"),
        (
            vec!["--balancer", "hier", "--hier-strategy", "best"],
            "--hier-strategy",
        ),
        (
            vec!["--balancer", "hier", "--policy", "ulba"],
            "--policy ulba",
        ),
        (
            vec!["--balancer", "hier", "--policy", "select"],
            "--policy select",
        ),
        (vec!["--balancer", "hier", "--compare"], "--compare"),
        (vec!["--balancer", "sbn"], "--balancer sbn"),
    ] {
        let mut all = vec!["run", "erosion", "--iterations", "1"];
        all.extend(args);
        let (code, _, stderr) = plume(&all);
        assert_eq!(code, 2, "{all:?}: {stderr}");
        assert!(
            stderr.starts_with("plume: ") && stderr.contains(needle),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

#[test]
fn run_erosion_gives_ulbas_shares_to_graph_parts() {
    let dir = TempDir::new("graph-ulba");
    let out = dir.0.display().to_string();
    let args = [
        "run",
        "erosion",
        "--partition",
        "graph",
        "--policy",
        "ulba",
        "--procs",
        "4",
        "--cells",
        "4",
        "4",
        "1",
        "--iterations",
        "12",
        "--vtk",
        "none",
        "--out",
        &out,
    ];
    let (code, stdout, stderr) = plume(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("policy ulba") && stdout.contains("graph partitioning"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("metrics.json")).unwrap())
            .unwrap();
    assert_eq!(json["config"]["policy"], "ulba");
    assert_eq!(json["config"]["partition"], "graph");
    assert_eq!(json["iterations"].as_array().unwrap().len(), 12);
}
