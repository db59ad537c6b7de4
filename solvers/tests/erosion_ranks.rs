//! The erosion case on real ranks (issue 12.4): P thread ranks give the records of the
//! single-process run, bit for bit, for every P, policy and partitioning.

use plume::comm::launch_threads;
use plume_solvers::cli::names::{PartitionKind, PolicyName};
use plume_solvers::erosion::{self, ranks, ErosionConfig};

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
