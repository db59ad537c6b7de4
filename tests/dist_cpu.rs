//! Per-rank, per-phase CPU accounting of `plume::dist::Run` on thread ranks
//! (`docs/performance.md`), for P = 1, 2, 3, 4 on a small box with a moving front, balanced before
//! and after subdivision:
//! - every phase of start-up and of each step: each rank's seconds finite and ≥ 0, and
//!   max over ranks ≤ critical path ≤ sum over ranks; at P = 1 the three are one number;
//! - a rank's phases sum to no more than its own CPU clock counted around the step (or around
//!   start-up), read independently;
//! - the gathered account is equal on every rank and holds each rank's own seconds in its slot;
//! - the steps go through exactly the phases their balancing point implies; the run's critical
//!   path is start-up's plus the steps', and its CPU the sum of theirs.

use plume::adapt::{AdaptOptions, InitialMesh, LeafView};
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, Comm, CpuClock};
use plume::dist::{gather_cpu, BalanceAt, GatheredPlum, Mark, Run};
use plume::mesh::generate_box;
use plume::metrics::{CpuAccount, Phase, RunCpu};

#[path = "common/cpu_account.rs"]
mod cpu_account;

use cpu_account::{check_account, TOLERANCE_S};

const STEPS: usize = 3;

fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 2,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

/// A plane front sweeping along x: refine the leaves it crosses, coarsen those it left.
fn front(leaf: &LeafView, step: usize) -> Mark {
    let x = 0.2 + 0.25 * step as f64;
    let gap = (leaf.centroid[0] - x).abs();
    if gap < 0.15 {
        Mark::Refine
    } else if leaf.level > 0 {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

/// What one rank brings back: start-up's and each step's gathered accounts.
struct Accounts {
    startup: CpuAccount,
    steps: Vec<CpuAccount>,
}

/// A run of `STEPS` steps on `procs` thread ranks, every rank checking its own accounts;
/// `shared` starts with [`Run::on`], else with [`Run::new`] (topology on every rank).
fn accounted_run(procs: usize, at: BalanceAt, shared: bool) -> Vec<Accounts> {
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0]).unwrap();
    let initial = InitialMesh::new(mesh.clone()).unwrap();
    launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let before = CpuClock::Thread.now();
        let run = if shared {
            Run::on(comm, &initial, options(), GatheredPlum::new(plum))?
        } else {
            Run::new(comm, mesh.clone(), options(), GatheredPlum::new(plum))?
        };
        let mut run = run.balance_at(at);
        let around = (CpuClock::Thread.now() - before).as_secs_f64();
        assert!(run.startup_cpu().total() <= around + TOLERANCE_S);
        let startup = gather_cpu(comm, run.startup_cpu())?;
        check_account(&startup, run.startup_cpu(), comm.rank(), procs);
        let mut steps = Vec::new();
        for step in 0..STEPS {
            let before = CpuClock::Thread.now();
            let report = run.step(|leaf| front(leaf, step))?;
            let around = (CpuClock::Thread.now() - before).as_secs_f64();
            assert!(
                report.cpu.total() <= around + TOLERANCE_S,
                "rank {}: phases {} s, step {around} s",
                comm.rank(),
                report.cpu.total()
            );
            let account = gather_cpu(comm, &report.cpu)?;
            check_account(&account, &report.cpu, comm.rank(), procs);
            steps.push(account);
        }
        Ok(Accounts { startup, steps })
    })
    .unwrap()
}

fn step_phases(at: BalanceAt) -> Vec<Phase> {
    use Phase::*;
    match at {
        BalanceAt::Predicted => vec![
            Mark, Coarsen, Close, Predict, Balance, Migrate, Subdivide, Weights, Sums,
        ],
        BalanceAt::AfterSubdivision => {
            vec![
                Mark, Coarsen, Close, Balance, Migrate, Subdivide, Weights, Sums,
            ]
        }
        BalanceAt::Never => vec![Mark, Coarsen, Close, Subdivide, Weights, Sums],
    }
}

#[test]
fn every_phase_lies_between_the_largest_rank_and_the_sum_over_ranks() {
    for procs in [1, 2, 3, 4] {
        for at in [BalanceAt::Predicted, BalanceAt::AfterSubdivision] {
            let ranks = accounted_run(procs, at, true);
            let first = &ranks[0];
            for other in &ranks[1..] {
                assert_eq!(other.startup, first.startup, "P = {procs}");
                assert_eq!(other.steps, first.steps, "P = {procs}");
            }
            assert_eq!(
                first.startup.phases.keys().copied().collect::<Vec<_>>(),
                vec![Phase::FirstPartition, Phase::Forest]
            );
            for step in &first.steps {
                let phases: Vec<Phase> = step.phases.keys().copied().collect();
                assert_eq!(phases, step_phases(at), "P = {procs}, {at:?}");
                assert!(step.critical_path_s() > 0.0);
            }
            let mut run = RunCpu::new(&first.startup);
            first.steps.iter().for_each(|s| run.add_step(s));
            let steps_path: f64 = first.steps.iter().map(CpuAccount::critical_path_s).sum();
            let expected = first.startup.critical_path_s() + steps_path;
            assert!((run.critical_path_s() - expected).abs() <= 1e-12 * expected);
            let cpu: f64 =
                first.startup.cpu_s() + first.steps.iter().map(CpuAccount::cpu_s).sum::<f64>();
            assert!((run.cpu_s() - cpu).abs() <= 1e-12 * cpu);
            assert!(run.critical_path_s() <= run.cpu_s() + TOLERANCE_S);
            assert!((0.0..=1.0).contains(&run.startup_share()));
            assert_eq!(run.step_critical_path_s.len(), STEPS);
        }
    }
}

#[test]
fn run_new_accounts_the_topology_every_rank_builds() {
    let ranks = accounted_run(2, BalanceAt::Predicted, false);
    let startup = &ranks[0].startup;
    assert_eq!(
        startup.phases.keys().copied().collect::<Vec<_>>(),
        vec![Phase::Topology, Phase::FirstPartition, Phase::Forest]
    );
    // Both ranks build the topology: each spends time in it.
    assert!(startup.phases[&Phase::Topology]
        .per_rank_s
        .iter()
        .all(|&s| s > 0.0));
}
