//! One level under SBN on the simulated machine: conservation (every root processed exactly
//! once, location tables right, data moves and messages that add up), balance reached from a
//! badly imbalanced start, and determinism.

use plume::adapt::Forest;
use plume::balance::sbn::policy::{
    BasicDistribution, Broadcast, FirstHalf, HeuristicReturn, LoadView, ProbeLevel, Topology, Units,
};
use plume::balance::sbn::prepartition::{prepartition, IT_NUM};
use plume::balance::sbn::{Policies, SbnOptions, Shared, Variant};
use plume::graph::DualGraph;
use plume::mesh::generate_box;
use plume::metrics::{rank_loads, Imbalance, SysLoad};
use plume::partition::{Partitioner, Rcb, Targets};
use plume::sim::{sbn_level, Machine, SbnLevel};

/// A 1,152-root box refined twice in its left quarter, split by RCB on the initial (uniform)
/// weights: the first ranks get far more work than the others.
fn imbalanced(procs: usize) -> (DualGraph, Vec<u32>) {
    let mesh = generate_box([12, 4, 4], [3.0, 1.0, 1.0]).unwrap();
    let mut forest = Forest::new(mesh, Default::default()).unwrap();
    let uniform = DualGraph::new(&forest);
    let mut owner = vec![0; forest.nroots()];
    Rcb.partition(
        &uniform.view(&uniform.weights).unwrap(),
        Targets::Equal(procs),
        &mut owner,
    )
    .unwrap();
    for _ in 0..2 {
        forest.mark_refine_where(|l| l.centroid[0] < 0.75);
        forest.adapt().unwrap();
    }
    (DualGraph::new(&forest), owner)
}

fn run(graph: &DualGraph, owner: &[u32], procs: usize, variant: Variant) -> SbnLevel {
    run_with(graph, owner, procs, variant, Policies::default())
}

fn run_with(
    graph: &DualGraph,
    owner: &[u32],
    procs: usize,
    variant: Variant,
    policies: Policies,
) -> SbnLevel {
    let opts = SbnOptions {
        variant,
        policies,
        ..Default::default()
    };
    let shared = Shared::new(Machine::default().cost_model(graph), procs, opts);
    sbn_level(&shared, &Machine::default(), owner, owner).unwrap()
}

fn check_conservation(
    graph: &DualGraph,
    owner: &[u32],
    procs: usize,
    broadcast: Broadcast,
    level: &SbnLevel,
) {
    let n = owner.len();
    assert_eq!(level.processed_on.len(), n);
    assert!(level.processed_on.iter().all(|&p| (p as usize) < procs));
    assert!(level.tables_agree, "location tables disagree with the data");
    // Every root's data ends where it was processed (it had to be there to be processed, and
    // only the root's assignee moves it).
    assert_eq!(level.data, level.processed_on);
    let m = &level.movement;
    assert_eq!(m.sent.iter().sum::<u64>(), m.total_v);
    assert_eq!(m.recv.iter().sum::<u64>(), m.total_v);
    let moved: u64 = (0..n)
        .filter(|&v| level.data[v] != owner[v])
        .map(|v| graph.weights.rwgt[v])
        .sum();
    assert!(
        m.total_v >= moved,
        "TotalV {} < data displaced {moved}",
        m.total_v
    );
    let relocated = (0..n)
        .filter(|&v| level.processed_on[v] != owner[v])
        .count() as u64;
    assert!(level.roots_transferred >= relocated);
    assert!(level.data_moves >= relocated);
    // Every fetch's request goes to the holder alone or to all P − 1 others, and the data
    // comes back; each root moved is reported to its home (none when the new holder is its
    // home), in one locate message per home a fetch reaches: 16 bytes and 8 a root.
    let msgs = &level.messages;
    let others = procs as u64 - 1;
    let request_copies = match broadcast {
        Broadcast::Sbn => others,
        Broadcast::Direct => 1,
    };
    let fetches = msgs.migration.messages / (request_copies + 1);
    assert_eq!(msgs.migration.messages, fetches * (request_copies + 1));
    assert!(fetches <= level.data_moves);
    let reported = (msgs.locate.bytes - 16 * msgs.locate.messages) / 8;
    assert_eq!(msgs.locate.bytes, 16 * msgs.locate.messages + 8 * reported);
    assert!(msgs.locate.messages <= reported && reported <= level.data_moves);
    let split = level.split;
    let expected_work: f64 =
        graph.weights.pwgt.iter().sum::<u64>() as f64 * Machine::default().t_leaf;
    assert!((split.processing - expected_work).abs() <= 1e-9 * expected_work);
    let total = split.processing + split.communication + split.distribution + split.idle;
    assert!((total - procs as f64 * level.makespan).abs() <= 1e-6 * total);
}

#[test]
fn basic_and_heuristic_balance_and_conserve() {
    for procs in [6, 8] {
        let (graph, owner) = imbalanced(procs);
        let before = Imbalance::from_u64(&rank_loads(&graph.weights.pwgt, &owner, procs));
        assert!(before.load_imb > 2.0, "start imbalance {}", before.load_imb);
        for (variant, policies) in [Variant::Basic, Variant::Heuristic]
            .into_iter()
            .flat_map(|v| [(v, Policies::default()), (v, Policies::plume())])
        {
            let level = run_with(&graph, &owner, procs, variant, policies);
            check_conservation(&graph, &owner, procs, policies.broadcast, &level);
            let after = rank_loads(&graph.weights.pwgt, &level.processed_on, procs);
            let imb = Imbalance::from_u64(&after).load_imb;
            assert!(
                imb < 1.25,
                "P = {procs} {variant:?} {policies:?}: LoadImb {imb}"
            );
            assert!(level.balances > 0);
            // Far better than doing nothing: the makespan is close to the mean work.
            let mean = graph.weights.pwgt.iter().sum::<u64>() as f64 / procs as f64;
            let ideal = mean * Machine::default().t_leaf;
            assert!(
                level.makespan < 9.3 * ideal,
                "{variant:?}: {} vs {ideal}",
                level.makespan
            );
        }
    }
}

#[test]
fn same_seed_same_level() {
    let (graph, owner) = imbalanced(8);
    let a = run(&graph, &owner, 8, Variant::Basic);
    let b = run(&graph, &owner, 8, Variant::Basic);
    assert_eq!(a.processed_on, b.processed_on);
    assert_eq!(a.makespan.to_bits(), b.makespan.to_bits());
    assert_eq!(a.messages, b.messages);
}

#[test]
fn one_processor_processes_everything_without_messages() {
    let (graph, owner) = imbalanced(1);
    let level = run(&graph, &owner, 1, Variant::Basic);
    check_conservation(&graph, &owner, 1, Broadcast::Sbn, &level);
    assert_eq!(level.messages.total(), 0);
    assert_eq!(level.split.idle, 0.0);
}

#[test]
fn the_prepartitioner_evens_qwgt_and_leaves_the_data_alone() {
    let procs = 8;
    let (graph, owner) = imbalanced(procs);
    let model = Machine::default().cost_model(&graph);
    let mut assigned = owner.clone();
    let report = prepartition(&model, &owner, &mut assigned, procs, 3);
    assert!(report.imbalance_before > 2.0, "{report:?}");
    assert!(report.imbalance_after < 1.3, "{report:?}");
    assert!((1..=10 * IT_NUM).contains(&report.iterations) && report.moves > 0);
    let changed = (0..owner.len())
        .filter(|&v| assigned[v] != owner[v])
        .count();
    assert!(changed > 0 && changed <= report.moves);
    let q = model.qwgt(&assigned, &owner, procs);
    assert_eq!(SysLoad::new(&q).load_imb(&q), report.imbalance_after);
    let mut again = owner.clone();
    assert_eq!(prepartition(&model, &owner, &mut again, procs, 3), report);
    assert_eq!(again, assigned);
    // Processing from the pre-partitioned start still conserves everything.
    let shared = Shared::new(model, procs, SbnOptions::default());
    let level = sbn_level(&shared, &Machine::default(), &assigned, &owner).unwrap();
    assert!(level.tables_agree && level.processed_on.iter().all(|&p| (p as usize) < procs));
}

/// The seed's choices with one of them replaced by its alternative, for each alternative.
fn single_alternatives() -> Vec<Policies> {
    let seed = Policies::default();
    vec![
        Policies {
            load: LoadView::Queue,
            ..seed
        },
        Policies {
            distribution: BasicDistribution::Subtree,
            ..seed
        },
        Policies {
            heuristic_return: HeuristicReturn::Direct,
            ..seed
        },
        Policies {
            probe_level: ProbeLevel::Update,
            ..seed
        },
        Policies {
            first_half: FirstHalf::HalfDifference,
            ..seed
        },
        Policies {
            first_half: FirstHalf::Off,
            ..seed
        },
        Policies {
            broadcast: Broadcast::Direct,
            ..seed
        },
        Policies {
            units: Units::Seed,
            ..seed
        },
        Policies {
            topology: Topology::Hypercube,
            ..seed
        },
    ]
}

#[test]
fn every_policy_conserves() {
    let procs = 6;
    let (graph, owner) = imbalanced(procs);
    for policies in single_alternatives() {
        for variant in [Variant::Basic, Variant::Heuristic] {
            let level = run_with(&graph, &owner, procs, variant, policies);
            check_conservation(&graph, &owner, procs, policies.broadcast, &level);
            assert!(level.balances > 0, "{policies:?} {variant:?}");
        }
    }
}

/// A machine whose processors answer data requests between their jobs makes a requester wait
/// for the holder's job in progress and the holder pack on its own time: the level takes
/// longer than with one-sided requests, every root is still processed once, and the
/// processors' busy time still fits in P times the level.
#[test]
fn requests_served_between_jobs_wait_for_the_holder() {
    let procs = 2;
    let (graph, owner) = imbalanced(procs);
    let one_sided = Machine {
        t_pack: 2e-6,
        ..Machine::default()
    };
    let between = Machine {
        served_between_jobs: true,
        ..one_sided
    };
    let level = |machine: &Machine| {
        let shared = Shared::new(machine.cost_model(&graph), procs, SbnOptions::default());
        sbn_level(&shared, machine, &owner, &owner).unwrap()
    };
    let (a, b) = (level(&one_sided), level(&between));
    for l in [&a, &b] {
        assert!(l.data_moves > 0, "the case moves data");
        check_conservation(&graph, &owner, procs, Policies::default().broadcast, l);
        let s = &l.split;
        let busy = s.processing + s.communication + s.distribution;
        assert!(busy <= procs as f64 * l.makespan * (1.0 + 1e-12), "{s:?}");
    }
    assert!(b.makespan > a.makespan, "{} ≤ {}", b.makespan, a.makespan);
    assert!(b.split.distribution > a.split.distribution);
    // The default is one-sided: the SP2 model's levels are unchanged.
    assert!(!Machine::default().served_between_jobs);
}
