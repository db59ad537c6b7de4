//! B.11 test 11: HybridLB on thread ranks makes the same decisions as the in-process run, bit
//! for bit (P = 8 and 16, with and without semi-centralized levels, every lowest strategy).

use plume::balance::hier::{
    balance, balance_on_ranks, Clock, CommData, HierOptions, LbTest, ObjData, Strategy, Tree,
};
use plume::comm::{launch_threads, Comm, CommExt};

/// Each rank's `(object, destination)` moves on thread ranks.
fn on_ranks(
    tree: &Tree,
    opts: &HierOptions,
    objs: &[ObjData],
    records: &[CommData],
) -> Vec<Vec<(u32, u32)>> {
    launch_threads(tree.nprocs(), |comm| {
        let me = comm.rank() as u32;
        let mine: Vec<ObjData> = objs.iter().filter(|o| o.home == me).copied().collect();
        let sent: Vec<CommData> = records
            .iter()
            .filter(|r| objs[r.from as usize].home == me)
            .copied()
            .collect();
        balance_on_ranks(comm, tree, opts, mine, sent)
    })
    .unwrap()
}

#[test]
fn ranks_decide_as_the_simulation() {
    for (p, tree) in [
        (8, Tree::uniform(8, 2).unwrap()),
        (16, Tree::from_list(16, &[4, 4]).unwrap()),
        (16, Tree::uniform(16, 2).unwrap()),
    ] {
        let (objs, records) = LbTest::new(40 * p, p).generate().unwrap();
        for strategy in [
            Strategy::Greedy,
            Strategy::GreedyComm,
            Strategy::Refine,
            Strategy::Metis,
        ] {
            for max_objects in [None, Some(90)] {
                let opts = HierOptions {
                    strategy,
                    max_objects,
                    ..HierOptions::default()
                };
                let sim = balance(&tree, &opts, &Clock::default(), &objs, &records, None).unwrap();
                let ranks = on_ranks(&tree, &opts, &objs, &records);
                let mut dest: Vec<u32> = objs.iter().map(|o| o.home).collect();
                for (rank, moves) in ranks.iter().enumerate() {
                    for &(id, d) in moves {
                        assert_eq!(objs[id as usize].home as usize, rank);
                        dest[id as usize] = d;
                    }
                }
                assert_eq!(dest, sim.dest, "P = {p}, {strategy:?}, {max_objects:?}");
                assert!(sim.migrated > 0);
            }
        }
    }
}

#[test]
fn a_tree_of_another_size_is_refused_on_every_rank() {
    let tree = Tree::uniform(8, 2).unwrap();
    let out = launch_threads(4, |comm| {
        Ok(balance_on_ranks(comm, &tree, &HierOptions::default(), vec![], vec![]).is_err())
    })
    .unwrap();
    assert_eq!(out, [true; 4]);
}

#[test]
fn a_rank_failing_in_the_phases_ends_every_rank_with_its_error() {
    let tree = Tree::uniform(4, 2).unwrap();
    let (objs, _) = LbTest::new(160, 4).generate().unwrap();
    let stray = *objs.iter().find(|o| o.home != 1).unwrap();
    let errors = launch_threads(4, |comm| {
        let me = comm.rank() as u32;
        // Rank 1 is handed another rank's object: it fails before phase 1, while the others
        // wait for its database.
        let mut mine: Vec<ObjData> = objs.iter().filter(|o| o.home == me).copied().collect();
        if me == 1 {
            mine.push(stray);
        }
        let outcome = balance_on_ranks(comm, &tree, &HierOptions::default(), mine, vec![]);
        Ok(comm.agree(outcome).err().map(|e| e.to_string()))
    })
    .unwrap();
    let expected = format!(
        "object {}: its home is {}, but rank 1 holds it",
        stray.id, stray.home
    );
    for (rank, error) in errors.iter().enumerate() {
        assert!(
            error.as_deref().is_some_and(|e| e.contains(&expected)),
            "rank {rank}: {error:?}"
        );
    }
}
