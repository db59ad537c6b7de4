//! The Euler run's CPU account covers its flow (issue 23): on thread ranks (P = 1, 2, 3), an
//! adaptive Sod tube run a few iterations, adapting every 2:
//! - the work between the adaptation steps ([`EulerRun::take_flow_cpu`]) goes through the
//!   flow's phases (time step, fluxes, halo exchange) and the adaptation's own outside the
//!   step (the indicator, the flow mesh's rebuild), and every phase of it, as of each step,
//!   lies between the largest rank's CPU and the sum over ranks (the library account's check,
//!   `tests/common/cpu_account.rs`);
//! - a rank's flow segments sum to no more than its own CPU clock read around the iterations;
//! - the gathered accounts are equal on every rank.

#[path = "../../tests/common/cpu_account.rs"]
mod cpu_account;

use cpu_account::{check_account, TOLERANCE_S};
use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::comm::{Comm, CpuClock};
use plume::dist::{gather_cpu, GatheredPlum};
use plume::mesh::generate_box;
use plume::metrics::{CpuAccount, Phase};
use plume_cases::euler::{
    Case, EulerConfig, EulerRun, IndicatorOptions, InitialRefinement, MemoryBudget, SchemeOptions,
};
use plume_cases::ranks::launch_threads;

const ITERATIONS: usize = 6;

fn config() -> EulerConfig {
    EulerConfig {
        case: Case::sod(0.5),
        scheme: SchemeOptions::default(),
        indicator: IndicatorOptions {
            max_depth: 1,
            ..IndicatorOptions::default()
        },
        initial: InitialRefinement::Adaptive,
        adapt_every: 2,
        t_end: 1.0,
        memory: MemoryBudget::UNLIMITED,
    }
}

/// What one rank brings back: the gathered accounts of the flow and of the steps.
struct Accounts {
    flow: CpuAccount,
    steps: Vec<CpuAccount>,
}

fn accounted_run(procs: usize) -> Vec<Accounts> {
    let initial = InitialMesh::new(generate_box([16, 2, 2], [1.0, 0.125, 0.125]).unwrap()).unwrap();
    launch_threads(procs, |comm| {
        let plum = GatheredPlum::new(Plum::new(PlumOptions::new(procs))?);
        let mut euler = EulerRun::new(comm, &initial, config(), plum)?;
        // What start-up's refinement recorded is not part of the iterations.
        euler.take_flow_cpu();
        euler.take_step_cpu();
        let before = CpuClock::Thread.now();
        for _ in 0..ITERATIONS {
            euler.iterate()?;
        }
        let flow_cpu = euler.take_flow_cpu();
        let around = (CpuClock::Thread.now() - before).as_secs_f64();
        assert!(
            flow_cpu.total() <= around + TOLERANCE_S,
            "rank {}: flow phases {} s, iterations {around} s",
            comm.rank(),
            flow_cpu.total()
        );
        let flow = gather_cpu(comm, &flow_cpu)?;
        check_account(&flow, &flow_cpu, comm.rank(), procs);
        let mut steps = Vec::new();
        for step_cpu in euler.take_step_cpu() {
            let account = gather_cpu(comm, &step_cpu)?;
            check_account(&account, &step_cpu, comm.rank(), procs);
            steps.push(account);
        }
        Ok(Accounts { flow, steps })
    })
    .unwrap()
}

#[test]
fn the_flow_is_accounted_and_each_phase_lies_between_the_largest_rank_and_the_sum() {
    for procs in [1, 2, 3] {
        let ranks = accounted_run(procs);
        let first = &ranks[0];
        for other in &ranks[1..] {
            assert_eq!(other.flow, first.flow, "P = {procs}");
            assert_eq!(other.steps, first.steps, "P = {procs}");
        }
        let phases: Vec<Phase> = first.flow.phases.keys().copied().collect();
        use Phase::*;
        assert_eq!(
            phases,
            vec![Mark, Sums, TimeStep, Flux, Halo, Rebuild],
            "P = {procs}"
        );
        // The adaptation steps at iterations 2, 4 and 6.
        assert_eq!(first.steps.len(), 3, "P = {procs}");
        assert!(first.flow.phases[&Flux].sum_s > 0.0, "P = {procs}");
    }
}
