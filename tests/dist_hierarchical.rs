//! `plume::dist::Hierarchical` on thread ranks (`docs/design/hierarchical.md`): its
//! decisions are the in-process simulation's on the same roots and records, bit for bit
//! (P = 8 on two trees, every lowest strategy, METIS included); every root stays held by its
//! owner and the leaves are those of the gathered balancer's run; the levels above the lowest
//! work on totals, so no leader gathers more than its lowest domain's roots; two runs decide
//! alike; a tree for another number of ranks is refused on every rank.

mod common;

use std::sync::Mutex;

use common::{check_parts, random_mark, without_hang};
use plume::adapt::{AdaptOptions, InitialMesh};
use plume::balance::hier::{balance, Clock, CommData, HierOptions, ObjData, Strategy, Tree};
use plume::balance::{Accept, Periodic, PlumOptions};
use plume::comm::{launch_threads, Comm, CommExt};
use plume::dist::{
    mesh_objects, BalanceAt, Balancer, Decision, HeldRows, Hierarchical, LevelMetrics, Run,
};
use plume::graph::DualGraph;
use plume::mesh::generate_box;
use plume::partition::Metis;

const STEPS: usize = 3;

fn adapt_options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 0,
        ..AdaptOptions::default()
    }
}

/// Hierarchical balancing at every step, every remap carried out.
fn hierarchical(tree: &Tree, strategy: Strategy) -> plume::Result<Hierarchical> {
    let plum = PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(tree.nprocs())
    };
    let opts = HierOptions {
        strategy,
        ..HierOptions::default()
    };
    let every = Box::new(Periodic::new(1));
    Hierarchical::with(tree.clone(), opts, plum, every, Box::new(Metis::default()))
}

/// `Hierarchical`, checked against the in-process simulation at every balance: rank 0
/// gathers every rank's objects and records (for the test only) and the decisions.
struct Checked {
    inner: Hierarchical,
    tree: Tree,
    strategy: Strategy,
}

impl Balancer for Checked {
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> plume::Result<Vec<u32>> {
        self.inner.first_owners(graph, ranks)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> plume::Result<Decision> {
        let mine = mesh_objects(
            &held,
            comm.rank() as u32,
            PlumOptions::new(1).model.time_per_load,
        );
        let mut out = vec![(Vec::new(), Vec::new()); comm.size()];
        out[0] = mine;
        let all: Vec<(Vec<ObjData>, Vec<CommData>)> = comm.all_to_all_serde(&out)?;
        let decision = self.inner.balance(comm, held)?;
        let mut out = vec![Vec::new(); comm.size()];
        out[0].clone_from(&decision.leaving);
        let leaving: Vec<Vec<(u32, u32)>> = comm.all_to_all_serde(&out)?;
        if comm.rank() == 0 {
            let objs: Vec<ObjData> = all.iter().flat_map(|a| a.0.clone()).collect();
            let records: Vec<CommData> = all.iter().flat_map(|a| a.1.clone()).collect();
            let opts = HierOptions {
                strategy: self.strategy,
                max_objects: Some(Hierarchical::domain_share(&self.tree, held.nroots)),
                ..HierOptions::default()
            };
            let sim = balance(&self.tree, &opts, &Clock::default(), &objs, &records, None)?;
            let mut expected: Vec<(u32, u32)> = (objs.iter().zip(&sim.dest))
                .filter(|(o, &d)| o.home != d)
                .map(|(o, &d)| (o.id, d))
                .collect();
            expected.sort_unstable();
            let mut got: Vec<(u32, u32)> = leaving.into_iter().flatten().collect();
            got.sort_unstable();
            assert_eq!(got, expected, "{:?}", self.strategy);
            assert!(!got.is_empty());
        }
        Ok(decision)
    }
}

/// What each rank saw after each step: its metrics and the owners.
type Seen = Vec<(LevelMetrics, Vec<u32>)>;

fn run_steps(tree: &Tree, strategy: Strategy) -> Vec<Seen> {
    let mesh = generate_box([5, 4, 3], [1.25, 1.0, 0.75]).unwrap();
    let initial = InitialMesh::new(mesh).unwrap();
    let tree = tree.clone();
    without_hang(move || {
        launch_threads(tree.nprocs(), |comm| {
            let checked = Checked {
                inner: hierarchical(&tree, strategy)?,
                tree: tree.clone(),
                strategy,
            };
            let mut run = Run::on_parts(comm, &initial, adapt_options(), checked)?;
            let mut seen = Vec::new();
            for step in 0..STEPS {
                let report = run.step(|leaf| random_mark(leaf, step))?;
                check_parts(&run, &initial)?;
                seen.push((report.metrics, run.owner().to_vec()));
            }
            Ok(seen)
        })
        .unwrap()
    })
}

#[test]
fn ranks_decide_as_the_simulation_and_gather_only_the_lowest_domains() {
    let trees = [
        Tree::from_list(8, &[2, 4]).unwrap(),
        Tree::uniform(8, 2).unwrap(),
    ];
    for tree in &trees {
        let strategies = [
            Strategy::Greedy,
            Strategy::GreedyComm,
            Strategy::Refine,
            Strategy::Metis,
        ];
        for strategy in strategies {
            let seen = run_steps(tree, strategy);
            for step in 0..STEPS {
                let metrics = &seen[0][step].0;
                assert!(seen.iter().all(|r| r[step].0 == *metrics));
                let stats = metrics.hier.as_ref().expect("balanced at every step");
                let pl = tree.proc_level();
                let lowest_g = tree.children(pl - 1, 0).len() as u64;
                for level in 0..pl - 1 {
                    // Above the lowest level every domain works on its children's totals.
                    assert_eq!(stats.semi_domains[level], tree.width(level) as u64);
                    let g = tree.children(level, 0).len() as u64;
                    assert_eq!(stats.max_db_bytes[level], 16 * g, "{strategy:?}");
                }
                assert_eq!(stats.semi_domains[pl - 1], 0);
                // Rank 0 receives its lowest domain's roots and their records only: at most
                // four face records a root of the others in its domain.
                let lowest = stats.max_db_objects[pl - 1];
                assert!(stats.rank0_roots > 0 && stats.rank0_roots < lowest);
                assert!(stats.rank0_records <= 4 * stats.rank0_roots);
                assert!(lowest < 360 && lowest_g < 8);
                let b = metrics.balance.as_ref().unwrap();
                assert!(b.triggered && b.accepted);
            }
        }
    }
}

#[test]
fn two_runs_decide_alike() {
    let tree = Tree::from_list(8, &[2, 4]).unwrap();
    let a = run_steps(&tree, Strategy::Metis);
    let b = run_steps(&tree, Strategy::Metis);
    let owners = |s: &[Seen]| s[0].iter().map(|x| x.1.clone()).collect::<Vec<_>>();
    assert_eq!(owners(&a), owners(&b));
    let moved: u64 = a[0].iter().map(|x| x.0.moved.trees).sum();
    assert!(moved > 0);
}

#[test]
fn a_tree_for_other_ranks_is_refused_on_every_rank() {
    let mesh = generate_box([3, 3, 3], [1.0; 3]).unwrap();
    let initial = InitialMesh::new(mesh).unwrap();
    let errors = Mutex::new(Vec::new());
    let tree = Tree::uniform(8, 2).unwrap();
    let _ = launch_threads(4, |comm| {
        let h = hierarchical(&tree, Strategy::Greedy)?;
        let r = Run::on(comm, &initial, adapt_options(), h).map(|_| ());
        errors
            .lock()
            .unwrap()
            .push(r.as_ref().err().map(|e| e.to_string()));
        r
    });
    let errors = errors.into_inner().unwrap();
    assert_eq!(errors.len(), 4);
    for e in errors {
        let e = e.expect("refused");
        assert!(e.contains("8 processors") && e.contains("4 ranks"), "{e}");
    }
}

/// `Run::balance_now` (issue 24: `run erosion --balancer hier` balances between its steps):
/// after a step that does not balance (`BalanceAt::Never`) it decides as a step balancing
/// after subdivision does, the simulation's decisions on every rank, and moves the trees: the
/// same verdict, phases' numbers, moves and owners, every root held by its owner.
#[test]
fn balancing_between_steps_decides_as_a_step_after_subdivision() {
    let seen = |between: bool| {
        let mesh = generate_box([5, 4, 3], [1.25, 1.0, 0.75]).unwrap();
        let initial = InitialMesh::new(mesh).unwrap();
        let tree = Tree::from_list(8, &[2, 4]).unwrap();
        without_hang(move || {
            launch_threads(tree.nprocs(), |comm| {
                let checked = Checked {
                    inner: hierarchical(&tree, Strategy::Metis)?,
                    tree: tree.clone(),
                    strategy: Strategy::Metis,
                };
                let at = match between {
                    true => BalanceAt::Never,
                    false => BalanceAt::AfterSubdivision,
                };
                let run = Run::on_parts(comm, &initial, adapt_options(), checked)?;
                let mut run = run.balance_at(at);
                let mut seen = Vec::new();
                for step in 0..STEPS {
                    let report = run.step(|leaf| random_mark(leaf, step))?;
                    let m = report.metrics;
                    let (balance, mut hier, moved) = match between {
                        true => {
                            assert!(m.balance.is_none() && m.hier.is_none());
                            assert_eq!(m.moved.trees, 0);
                            let done = run.balance_now()?;
                            (done.balance, done.hier, done.moved)
                        }
                        false => (m.balance, m.hier, m.moved),
                    };
                    check_parts(&run, &initial)?;
                    // The phases' wall-clock seconds aside.
                    if let Some(h) = hier.as_mut() {
                        h.seconds = 0.0;
                    }
                    seen.push((balance, hier, moved, run.owner().to_vec()));
                }
                Ok(seen)
            })
            .unwrap()
        })
    };
    let (between, within) = (seen(true), seen(false));
    assert_eq!(between, within);
    for (balance, hier, moved, _) in &between[0] {
        assert!(balance.as_ref().is_some_and(|b| b.accepted) && hier.is_some());
        assert!(moved.trees > 0);
    }
}
