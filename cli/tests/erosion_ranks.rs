//! The erosion case on real ranks (issue 12.4): P thread ranks give the records of the
//! single-process run, bit for bit, for every P, policy and partitioning, through the library
//! and `plume run erosion`; the pieces each rank writes open in VTK's parallel reader as one
//! grid with every leaf once. Each rank holds its roots and their ghost layer, not the whole
//! domain (issue 23).

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;
#[path = "common/vtk.rs"]
mod vtk;

use std::collections::BTreeMap;
use std::path::Path;

use common::{ok, TempDir};
use plume::comm::Comm;
use plume::io::{read_vtu, CellValues};
use plume_cases::erosion::{self, ranks, ErosionConfig};
use plume_cases::ranks::launch_threads;
use plume_cases::words::{PartitionKind, PolicyName};
use serde_json::Value;
use vtk::{field, vtk_read};

/// A small case at P ranks (six by six cubes per stripe, two levels of refinement) that erodes
/// and balances within its iterations.
fn small(procs: usize, policy: PolicyName, partition: PartitionKind) -> ErosionConfig {
    let mut cfg = ErosionConfig::new(procs);
    cfg.cells = [6, 6, 1];
    cfg.iterations = 24;
    cfg.policy = policy;
    cfg.partition = partition;
    cfg.max_depth = 2;
    cfg
}

#[test]
fn thread_ranks_give_the_single_process_records() {
    for (policy, partition) in [
        (PolicyName::Periodic(5), PartitionKind::Stripes),
        (PolicyName::Ulba, PartitionKind::Stripes),
        (PolicyName::Periodic(4), PartitionKind::Graph),
    ] {
        for procs in 1..=3 {
            let cfg = small(procs, policy, partition);
            let reference = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
            assert!(reference.summary.lb_calls > 0, "the case balances");
            assert!(
                reference.iterations.iter().any(|r| r.eroded > 0),
                "the case erodes"
            );
            let runs = launch_threads(procs, |comm| ranks::run_rank(comm, &cfg, |_, _, _| Ok(())))
                .unwrap();
            let run = runs[0].as_ref().expect("rank 0's run");
            assert!(runs[1..].iter().all(Option::is_none));
            assert_eq!(
                run.iterations, reference.iterations,
                "{policy} {partition} P = {procs}"
            );
            assert_eq!(run.summary, reference.summary);
            assert_eq!(run.strong, reference.strong);
        }
    }
}

#[test]
fn thread_ranks_follow_ulba_uneven_shares() {
    // 16 ranks, so that the strong rock's rank can pass the z-score of 3; seed 2 sees it
    // overloading at a balance.
    let mut cfg = small(16, PolicyName::Ulba, PartitionKind::Stripes);
    cfg.seed = 2;
    cfg.max_depth = 1;
    cfg.iterations = 30;
    let reference = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
    assert!(
        reference
            .iterations
            .iter()
            .any(|r| r.balanced && r.overloading > 0),
        "ULBA's shares are uneven at some balance"
    );
    let runs = launch_threads(16, |comm| ranks::run_rank(comm, &cfg, |_, _, _| Ok(()))).unwrap();
    let run = runs[0].as_ref().expect("rank 0's run");
    assert_eq!(run.iterations, reference.iterations);
    assert_eq!(run.summary, reference.summary);
}

#[test]
fn each_rank_holds_its_roots_and_their_ghost_layer_not_the_domain() {
    for partition in [PartitionKind::Stripes, PartitionKind::Graph] {
        // 1,536 roots on 4 ranks, whose boundaries are a few cubes long.
        let mut cfg = small(4, PolicyName::Periodic(3), partition);
        cfg.cells = [8, 8, 1];
        cfg.iterations = 12;
        let reference = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
        assert!(reference.summary.lb_calls > 0, "the trees move");
        let (run, _) = run_checking_parts(&cfg, &partition.to_string());
        assert_eq!(run.iterations, reference.iterations, "{partition}");
        assert_eq!(run.summary, reference.summary);
    }
}

/// Runs `cfg` on thread ranks, checking after every iteration that each rank holds its roots
/// and their ghost layer (the roots sharing a vertex with one of its own), not the whole
/// domain, that its owners say which roots it holds, and that every root is held once;
/// returns rank 0's run and how many roots each rank held after each iteration (at the
/// start: the first). `what` names the run in the failures.
fn run_checking_parts(cfg: &ErosionConfig, what: &str) -> (erosion::ErosionRun, Vec<Vec<u64>>) {
    let whole = erosion::domain::build(cfg.procs, cfg.cells, cfg.strong, cfg.seed, 2).unwrap();
    let whole = whole.forest.initial().clone();
    // The roots sharing a vertex with one of `own` (`own` included), by brute force.
    let around = |own: &[u32]| {
        let mut around: Vec<u32> = own
            .iter()
            .flat_map(|&r| whole.mesh().tets[r as usize])
            .flat_map(|v| whole.topology().elems_around(v).iter().copied())
            .collect();
        around.sort_unstable();
        around.dedup();
        around
    };
    let held = std::sync::Mutex::new(BTreeMap::<usize, Vec<(u32, Vec<u32>)>>::new());
    let runs = launch_threads(cfg.procs, |comm| {
        let rank = comm.rank() as u32;
        ranks::run_rank(comm, cfg, |moment, forest, owner| {
            let initial = forest.initial();
            let part: Vec<u32> = (0..forest.nroots() as u32)
                .map(|r| initial.root_gid(r))
                .collect();
            let own: Vec<u32> = (0..forest.nroots() as u32)
                .filter(|&r| forest.holds(r))
                .map(|r| initial.root_gid(r))
                .collect();
            let at = moment.iterations;
            assert!(
                part == around(&own),
                "{what}: rank {rank} after {at} holds {} roots; its {} and their ghost layer \
                 are {}",
                part.len(),
                own.len(),
                around(&own).len()
            );
            assert!(part.len() < whole.nroots(), "{what}: rank {rank} holds all");
            assert_eq!(owner.len(), part.len());
            for r in 0..forest.nroots() as u32 {
                assert_eq!(owner[r as usize] == rank, forest.holds(r));
            }
            held.lock()
                .unwrap()
                .entry(at)
                .or_default()
                .push((rank, own));
            Ok(())
        })
    })
    .unwrap();
    let mut counts = Vec::new();
    for (at, mut by_rank) in held.into_inner().unwrap() {
        assert_eq!(at, counts.len());
        by_rank.sort_unstable();
        counts.push(by_rank.iter().map(|(_, own)| own.len() as u64).collect());
        let mut roots: Vec<u32> = by_rank.into_iter().flat_map(|(_, own)| own).collect();
        roots.sort_unstable();
        let all: Vec<u32> = (0..whole.nroots() as u32).collect();
        assert!(
            roots == all,
            "{what}: after {at} not every root is held once"
        );
    }
    assert!(runs[1..].iter().all(Option::is_none));
    let run = runs.into_iter().next().flatten().expect("rank 0's run");
    (run, counts)
}

/// Issue 24 (2): `--balancer hier` on P = 4 and 8 thread ranks. Each rank holds its roots and
/// their ghost layer, every root once; the decisions are the simulated machine's (the
/// single-process run with the hierarchical balancer in one process: the same records, the
/// ranks' own `hier` numbers aside), rank 0 gathers no more than its lowest domain's roots, two
/// runs decide alike, and the balances pay: the run is faster than without them.
#[test]
fn hier_on_thread_ranks_decides_as_the_simulated_machine_and_keeps_the_parts() {
    use plume::balance::hier::Strategy;
    use plume_cases::hier::HierSettings;
    use plume_cases::words::TreeSpec;

    for (procs, tree, strategy) in [
        (4, vec![2, 2], Strategy::Metis),
        (8, vec![2, 4], Strategy::Metis),
        (8, vec![4, 2], Strategy::Refine),
    ] {
        let mut cfg = small(procs, PolicyName::Periodic(3), PartitionKind::Stripes);
        cfg.cells = [8, 8, 1];
        cfg.iterations = 12;
        cfg.hier = Some(HierSettings {
            tree: TreeSpec::List(tree.clone()),
            strategy,
        });
        let what = format!("P = {procs}, tree {tree:?}, {strategy:?}");
        let (run, held) = run_checking_parts(&cfg, &what);
        let simulated = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
        assert!(run.summary.lb_calls >= 3, "{what}: the trees move");
        let mut without_hier = run.iterations.clone();
        for r in &mut without_hier {
            assert_eq!(r.hier.is_some(), r.balanced, "{what}: {r:?}");
            r.hier = None;
        }
        assert_eq!(without_hier, simulated.iterations, "{what}");
        assert_eq!(run.summary, simulated.summary, "{what}");
        // Rank 0 receives the roots the other ranks of its lowest domain held when the
        // balance began (the steps move none), and at most 4 face records each: the top
        // works on its children's totals.
        let lowest = tree[tree.len() - 1];
        for r in run.iterations.iter().filter(|r| r.balanced) {
            let h = r.hier.as_ref().unwrap();
            let domain: u64 = held[r.iteration][1..lowest].iter().sum();
            assert_eq!(h.rank0_roots, domain, "{what}: {h:?}");
            assert!(h.rank0_records <= 4 * h.rank0_roots, "{what}: {h:?}");
            assert_eq!(h.semi_domains[0], 1, "{what}: the top works on totals");
            assert_eq!(h.max_db_bytes[0], 16 * tree[0] as u64, "{what}: {h:?}");
        }
        let again = launch_threads(procs, |comm| ranks::run_rank(comm, &cfg, |_, _, _| Ok(())))
            .unwrap()
            .swap_remove(0)
            .unwrap();
        // The phases' wall-clock seconds aside (never written).
        let decisions = |records: &[erosion::IterationRecord]| {
            let mut records = records.to_vec();
            for h in records.iter_mut().filter_map(|r| r.hier.as_mut()) {
                h.seconds = 0.0;
            }
            records
        };
        assert_eq!(
            decisions(&again.iterations),
            decisions(&run.iterations),
            "{what}: deterministic"
        );
        let mut never = cfg.clone();
        never.policy = PolicyName::Never;
        let never = erosion::run(&never, |_, _, _| Ok(())).unwrap();
        assert!(
            run.summary.total_time < never.summary.total_time,
            "{what}: {} s balanced, {} s never",
            run.summary.total_time,
            never.summary.total_time
        );
    }
}

/// The `metrics.json` of the run folder `dir`.
fn metrics(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("metrics.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `value` as written to a file and read back (floats read back the same way).
fn as_written<T: serde::Serialize>(value: &T) -> Value {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

#[test]
fn run_erosion_on_p_thread_ranks_writes_the_single_process_records() {
    let dir = TempDir::new("erosion-ranks");
    for procs in 1..=3 {
        let out = dir.arg(&format!("p{procs}"));
        let p = procs.to_string();
        ok(&[
            "run",
            "erosion",
            "--procs",
            &p,
            "--cells",
            "6",
            "6",
            "1",
            "--max-depth",
            "2",
            "--iterations",
            "24",
            "--policy",
            "periodic:5",
            "--partition",
            "graph",
            "--vtk",
            "none",
            "--out",
            &out,
        ]);
        let mut cfg = small(procs, PolicyName::Periodic(5), PartitionKind::Graph);
        cfg.iterations = 24;
        let reference = erosion::run(&cfg, |_, _, _| Ok(())).unwrap();
        let written = metrics(Path::new(&out));
        assert_eq!(
            written["iterations"],
            as_written(&reference.iterations),
            "P = {procs}"
        );
        let summary = as_written(&reference.summary);
        for (key, value) in summary.as_object().unwrap() {
            assert_eq!(&written["summary"][key], value, "P = {procs}: {key}");
        }
        cpu_accounts_the_erosions_own_work(&written["cpu"], procs);
    }
}

/// The CPU account of an erosion run on `procs` ranks: the erosion's own work between the
/// steps (its draws, the fronts' refresh) is in it, and every phase's critical path lies
/// between its largest rank's CPU and the sum over ranks.
fn cpu_accounts_the_erosions_own_work(cpu: &Value, procs: usize) {
    let phases = cpu["phases"].as_object().unwrap();
    for own in ["flux", "halo"] {
        let sum = phases[own]["sum_s"].as_f64().unwrap();
        assert!(sum > 0.0, "P = {procs}: no {own} CPU");
    }
    for (name, phase) in phases {
        let [max, critical, sum] =
            ["max_s", "critical_s", "sum_s"].map(|k| phase[k].as_f64().unwrap());
        assert_eq!(
            phase["per_rank_s"].as_array().unwrap().len(),
            procs,
            "{name}"
        );
        assert!(
            max <= critical + 1e-12 && critical <= sum + 1e-12,
            "P = {procs}, {name}: {max} {critical} {sum}"
        );
    }
}

#[test]
fn each_iterations_pieces_open_in_vtk_as_one_grid_of_the_reported_leaves() {
    let dir = TempDir::new("erosion-pieces");
    let out = dir.path("out");
    ok(&[
        "run",
        "erosion",
        "--procs",
        "3",
        "--cells",
        "4",
        "4",
        "1",
        "--iterations",
        "6",
        "--policy",
        "periodic:2",
        "--vtk",
        "all",
        "--out",
        out.to_str().unwrap(),
    ]);
    let json = metrics(&out);
    let records = json["iterations"].as_array().unwrap();
    let pvd = std::fs::read_to_string(out.join("erosion.pvd")).unwrap();
    for done in 0..=6usize {
        let index = format!("iter_{done:04}.pvtu");
        assert!(pvd.contains(&format!("file=\"{index}\"")), "{pvd}");
        let report = vtk_read(&out.join(&index));
        // The leaves after `done` iterations: those the next one starts with, or the final.
        let leaves = match records.get(done) {
            Some(r) => r["leaves"].as_u64().unwrap() as usize,
            None => json["summary"]["final_leaves"].as_u64().unwrap() as usize,
        };
        assert_eq!(field(&report, "cells"), leaves.to_string(), "{index}");
        assert_eq!(field(&report, "arrays"), "root,level,pattern,material,rank");
        assert_eq!(
            field(&report, "array rank"),
            "int 0 2",
            "every rank's piece"
        );
        let pieces: usize = (0..3)
            .map(|rank| {
                let piece = out.join(format!("iter_{done:04}/r{rank:04}.vtu"));
                field(&vtk_read(&piece), "cells").parse::<usize>().unwrap()
            })
            .sum();
        assert_eq!(pieces, leaves, "{index}: the pieces' cells");
    }
    // Before the first iteration every root is one leaf: the pieces name each root once, by
    // its global id.
    let mut roots: Vec<i32> = (0..3)
        .flat_map(|rank| {
            let piece = read_vtu(&out.join(format!("iter_0000/r{rank:04}.vtu"))).unwrap();
            let root = piece.cell_data.iter().find(|a| a.name == "root").unwrap();
            match &root.values {
                CellValues::Int(values) => values.clone(),
                other => panic!("root holds {other:?}"),
            }
        })
        .collect();
    roots.sort_unstable();
    assert_eq!(roots, (0..3 * 96).collect::<Vec<i32>>());
}
