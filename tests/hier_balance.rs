//! HybridLB's three phases end to end (`docs/design/hierarchical.md`, and the
//! invariants of every balance: each object assigned once, load conserved, each object moving
//! at most once, home → destination, told only to its home).

use plume::balance::hier::{
    balance, greedy, pick, pick_by_cut, run, Clock, CommData, Db, HierBalance, HierOptions,
    InProcess, LbTest, ObjData, Outcome, PickRule, Strategy, Tree,
};
use proptest::prelude::*;

fn obj(id: u32, home: u32, load: f64) -> ObjData {
    ObjData { id, home, load }
}

/// Runs the phases in one process and returns their outcome.
fn phases(tree: &Tree, opts: &HierOptions, objs: &[ObjData], records: &[CommData]) -> Outcome {
    let mut own = vec![Db::default(); tree.nprocs()];
    for o in objs {
        own[o.home as usize].objs.push(*o);
    }
    for r in records {
        let home = objs.iter().find(|o| o.id == r.from).unwrap().home;
        own[home as usize].records.push(*r);
    }
    run(tree, opts, &mut InProcess::new(), |p| {
        std::mem::take(&mut own[p])
    })
    .unwrap()
}

/// The in-process balance of `objs` over `tree` with the default options and clock.
fn balance_default(tree: &Tree, objs: &[ObjData], records: &[CommData]) -> HierBalance {
    balance(
        tree,
        &HierOptions::default(),
        &Clock::default(),
        objs,
        records,
        None,
    )
    .unwrap()
}

#[test]
fn test_8_tokens_move_once() {
    // a, b (4) on p0; c, d (4) on p1; e (1) on p2; f (1) on p3.
    let (a, b, c, d, e, f) = (0, 1, 2, 3, 4, 5);
    let objs = [
        obj(a, 0, 4.0),
        obj(b, 0, 4.0),
        obj(c, 1, 4.0),
        obj(d, 1, 4.0),
        obj(e, 2, 1.0),
        obj(f, 3, 1.0),
    ];
    let tree = Tree::uniform(4, 2).unwrap();
    let opts = HierOptions {
        strategy: Strategy::Refine,
        ..HierOptions::default()
    };
    let out = phases(&tree, &opts, &objs, &[]);
    // Each home learns where its movers go, and only they: a, b from p0, c from p1.
    assert_eq!(out.moves[&0], [(a, 2), (b, 3)]);
    assert_eq!(out.moves[&1], [(c, 0)]);
    assert!(out.moves[&2].is_empty() && out.moves[&3].is_empty());
    let bal = balance(&tree, &opts, &Clock::default(), &objs, &[], None).unwrap();
    assert_eq!(bal.dest, [2, 3, 0, 1, 2, 3]);
    assert_eq!(bal.migrated, 3);
    assert_eq!(bal.max_load, (8.0, 5.0));
}

#[test]
fn test_2_collection_messages() {
    let (objs, records) = LbTest::new(64, 8).generate().unwrap();
    let tree = Tree::uniform(8, 2).unwrap();
    let b = balance_default(&tree, &objs, &records);
    let messages: u64 = b.levels.iter().map(|l| l.messages).sum();
    let sent: u64 = b.levels.iter().map(|l| l.sent).sum();
    assert_eq!((messages, sent), (14, 7));
    assert_eq!(tree.messages_per_phase(), (14, 7));
    let domains: Vec<usize> = b.levels.iter().map(|l| l.domains).collect();
    assert_eq!(domains, [1, 2, 4]);
    // The lowest domains hold 16 objects each; the top all 64.
    assert_eq!(b.levels[2].max_objects, 16);
    assert_eq!(b.levels[0].max_objects, 64);
    assert_eq!(b.levels[2].mode, "greedy");
    assert_eq!(b.levels[0].mode, "refine");
}

#[test]
fn test_10_one_level_is_the_central_strategy() {
    let (objs, records) = LbTest::new(500, 12).generate().unwrap();
    let tree = Tree::uniform(12, 16).unwrap();
    assert_eq!(tree.levels(), 2);
    let b = balance_default(&tree, &objs, &records);
    assert_eq!(b.dest, greedy(&objs, &[1.0; 12], &[0.0; 12]));
    for strategy in [Strategy::GreedyComm, Strategy::Refine] {
        let opts = HierOptions {
            strategy,
            ..HierOptions::default()
        };
        let b = balance(&tree, &opts, &Clock::default(), &objs, &records, None).unwrap();
        let central = match strategy {
            Strategy::GreedyComm => {
                plume::balance::hier::greedy_comm(&objs, &records, &[1.0; 12], opts.bandwidth)
            }
            _ => {
                let home: Vec<u32> = objs.iter().map(|o| o.home).collect();
                plume::balance::hier::refine_search(&objs, &home, &[1.0; 12]).0
            }
        };
        assert_eq!(b.dest, central, "{strategy:?}");
    }
}

#[test]
fn semi_centralized_levels_still_balance() {
    // Table 5's rule on a small scale: 4,096 objects, P = 64, G = 2, at most 512 objects per
    // full domain → the top three levels work on totals.
    let (objs, records) = LbTest::new(4096, 64).generate().unwrap();
    let tree = Tree::uniform(64, 2).unwrap();
    let opts = HierOptions {
        max_objects: Some(512),
        ..HierOptions::default()
    };
    let b = balance(&tree, &opts, &Clock::default(), &objs, &records, None).unwrap();
    let modes: Vec<&str> = b.levels.iter().map(|l| l.mode.as_str()).collect();
    assert_eq!(
        modes,
        ["semi", "semi", "semi", "refine", "refine", "greedy"]
    );
    assert_eq!(b.levels[3].max_objects, 512);
    assert_eq!(b.levels[0].max_bytes, 32, "two children's totals");
    assert!(b.load_imb < 1.02, "{}", b.load_imb);
    assert!(b.max_load.1 < 0.6 * b.max_load.0);
}

#[test]
fn dropping_records_keeps_a_database_within_its_bytes() {
    let (objs, records) = LbTest::new(256, 16).generate().unwrap();
    let tree = Tree::from_list(16, &[4, 4]).unwrap();
    let opts = HierOptions {
        strategy: Strategy::GreedyComm,
        max_bytes: Some(16 * 150),
        ..HierOptions::default()
    };
    let b = balance(&tree, &opts, &Clock::default(), &objs, &records, None).unwrap();
    assert!(
        b.levels[0].mode == "semi",
        "256 objects alone exceed 150 records"
    );
    for l in &b.levels[1..] {
        assert!(l.max_bytes <= 16 * 150, "{l:?}");
    }
    assert!(b.levels[1].dropped > 0);
}

#[test]
fn bad_objects_are_refused() {
    let tree = Tree::uniform(2, 2).unwrap();
    let o = HierOptions::default();
    let c = Clock::default();
    assert!(balance(&tree, &o, &c, &[obj(0, 2, 1.0)], &[], None).is_err());
    assert!(balance(&tree, &o, &c, &[obj(0, 0, f64::NAN)], &[], None).is_err());
    assert!(balance(&tree, &o, &c, &[obj(0, 0, 1.0), obj(0, 1, 1.0)], &[], None).is_err());
    let r = CommData {
        from: 0,
        to: 7,
        bytes: 1.0,
    };
    assert!(balance(&tree, &o, &c, &[obj(0, 0, 1.0)], &[r], None).is_err());
    assert!(balance(&tree, &o, &c, &[obj(0, 0, 1.0)], &[], Some(&[1, 2])).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_object_once_load_conserved_one_move_each(
        loads in prop::collection::vec(0u32..20, 1..80),
        homes in prop::collection::vec(0u32..1000, 80),
        p in 1usize..13,
        g in 2usize..5,
        max_objects in prop::option::of(2usize..40),
        strategy in prop::sample::select(vec![Strategy::Greedy, Strategy::GreedyComm, Strategy::Refine]),
        pick in prop::sample::select(vec![PickRule::Heaviest, PickRule::Cut]),
    ) {
        let objs: Vec<ObjData> = loads
            .iter()
            .enumerate()
            .map(|(i, &l)| obj(3 * i as u32 + 1, homes[i] % p as u32, f64::from(l)))
            .collect();
        let n = objs.len();
        let records: Vec<CommData> = (0..n)
            .map(|i| CommData { from: objs[i].id, to: objs[(i + 1) % n].id, bytes: 64.0 })
            .collect();
        let tree = Tree::uniform(p, g).unwrap();
        let opts = HierOptions { strategy, max_objects, pick, ..HierOptions::default() };
        let out = phases(&tree, &opts, &objs, &records);
        // Moves are told to the home only, each object at most once.
        let mut told: Vec<u32> = Vec::new();
        for (&home, moves) in &out.moves {
            for &(id, dest) in moves {
                let o = objs.iter().find(|o| o.id == id).unwrap();
                prop_assert_eq!(o.home as usize, home);
                prop_assert!((dest as usize) < p && dest != o.home);
                told.push(id);
            }
        }
        let before = told.len();
        told.sort_unstable();
        told.dedup();
        prop_assert_eq!(told.len(), before);
        let b = balance(&tree, &opts, &Clock::default(), &objs, &records, None).unwrap();
        prop_assert_eq!(b.dest.len(), n);
        prop_assert_eq!(b.migrated, before);
        let mut per = vec![0.0; p];
        for (o, &d) in objs.iter().zip(&b.dest) {
            per[d as usize] += o.load;
        }
        let total: f64 = objs.iter().map(|o| o.load).sum();
        prop_assert_eq!(per.iter().sum::<f64>(), total);
        prop_assert!(b.max_load.1 <= b.max_load.0 + 19.0);
    }
}

proptest! {
    /// Without records no object gains by its neighbours: the cut rule takes what B.4's
    /// heaviest-first rule takes.
    #[test]
    fn cut_pick_without_records_is_heaviest_first(
        loads in prop::collection::vec(0u32..20, 0..40),
        amounts in prop::collection::vec(0u32..60, 0..4),
    ) {
        let objs: Vec<ObjData> = loads
            .iter()
            .enumerate()
            .map(|(i, &l)| obj(7 * i as u32 % 41, 0, f64::from(l)))
            .collect();
        let amounts: Vec<f64> = amounts.into_iter().map(f64::from).collect();
        prop_assert_eq!(pick_by_cut(&objs, &[], &amounts), pick(&objs, &amounts));
    }
}
