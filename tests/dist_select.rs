//! `plume::dist::Select`, [Pearce 2014]'s choice among none, diffusive and global
//! (`docs/design/diffusive.md`) as a run's balancer, on thread ranks: every step records the three
//! predictions and the choice alike on every rank, does the chosen action (none moves nothing; the
//! others move what they report) and keeps rank 0's owners every root's; the replay of each
//! decision point is made on the state the decision saw (none: `N_adapt` iterations at the largest
//! load then) and the replay of the chosen action is what the run did; the same run gives the same
//! records; the union of the ranks' leaves is the serial forest's.

mod common;

use common::{check_ownership, without_hang};
use plume::adapt::{AdaptOptions, Forest, LeafView};
use plume::balance::{Action, Plum, PlumOptions};
use plume::comm::{launch_threads, CommExt};
use plume::dist::{Mark, MovedEstimate, Run, Select, SelectOptions, SelectRecord};
use plume::mesh::{generate_box, Mesh};
use plume::metrics::rank_loads;

const STEPS: usize = 5;

fn adapt_options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 0,
        ..AdaptOptions::default()
    }
}

fn mesh() -> Mesh {
    generate_box([6, 4, 3], [1.5, 1.0, 0.75]).unwrap()
}

/// A front sweeping along x: leaves near it refine, leaves it left coarsen.
fn front(leaf: &LeafView, step: usize) -> Mark {
    let at = 0.2 + 0.3 * step as f64;
    match (leaf.centroid[0] - at).abs() {
        d if d < 0.25 => Mark::Refine,
        _ if leaf.centroid[0] < at => Mark::Coarsen,
        _ => Mark::Keep,
    }
}

/// What rank 0 saw at a step: the record, the owners before and after, the predicted
/// weights, and what moved.
struct Seen {
    record: SelectRecord,
    before: Vec<u32>,
    after: Vec<u32>,
    pwgt: Vec<u64>,
    /// `TotalV`, `MaxV`, `MaxSR` of what moved.
    moved: [u64; 3],
    accepted: bool,
    plum: bool,
}

/// `STEPS` front steps on `procs` thread ranks with `Select` (replay on, `moved` the
/// estimate, decision costs fixed); rank 0's view of each, and the leaves at the end.
fn run(procs: usize, moved: MovedEstimate) -> (Vec<Seen>, usize) {
    let mesh = mesh();
    without_hang(move || {
        let out = launch_threads(procs, |comm| {
            let opts = SelectOptions {
                replay: true,
                moved,
                decision: Some((1e-7, 2e-3)),
                ..SelectOptions::default()
            };
            let select = Select::new(Plum::new(PlumOptions::new(procs))?, opts)?;
            let mut run = Run::new(comm, mesh.clone(), adapt_options(), select)?;
            let mut seen = Vec::new();
            for step in 0..STEPS {
                let before = run.owner().to_vec();
                let report = run.step(|leaf| front(leaf, step))?;
                check_ownership(&run)?;
                let outcome = report.metrics.balance.clone().expect("select reports");
                let record = outcome.select.clone().expect("a record at every step");
                // Every rank has the same record.
                let all: Vec<SelectRecord> = comm.all_gather_serde(&record)?;
                assert!(all.iter().all(|r| *r == record));
                // Rank 0 keeps every root's owner.
                if let Some(owners) = run.gathered_owner() {
                    assert_eq!(owners, run.owner());
                }
                // What moved is what the action reported.
                assert_eq!(outcome.volumes[0], report.metrics.moved.elements);
                if record.selection.choice == Action::None {
                    assert_eq!(report.metrics.moved.trees, 0);
                }
                if let Some(w) = run.weights() {
                    seen.push(Seen {
                        record,
                        before,
                        after: run.owner().to_vec(),
                        pwgt: w.pwgt.clone(),
                        moved: outcome.volumes,
                        accepted: outcome.accepted,
                        plum: run.balance().is_some(),
                    });
                }
            }
            Ok((seen, run.forest().nleaves()))
        })
        .unwrap();
        let leaves: usize = out.iter().map(|o| o.1).sum();
        (out.into_iter().next().unwrap().0, leaves)
    })
}

/// The serial forest's leaves after the front's steps.
fn serial_leaves() -> usize {
    let mut forest = Forest::new(mesh(), adapt_options()).unwrap();
    for step in 0..STEPS {
        common::step_serial(&mut forest, |l| front(l, step));
    }
    forest.nleaves()
}

#[test]
fn select_records_decides_alike_and_does_the_chosen_action() {
    let model = PlumOptions::new(1).model;
    let steps = model.iterations as f64;
    let time = |pwgt: &[u64], owner: &[u32], p: usize| {
        let max = rank_loads(pwgt, owner, p).into_iter().max().unwrap();
        steps * max as f64 * model.time_per_load
    };
    let serial = serial_leaves();
    let mut chosen = Vec::new();
    for procs in [1, 2, 4] {
        let (seen, leaves) = run(procs, MovedEstimate::Exact);
        assert_eq!(leaves, serial, "P = {procs}");
        for s in &seen {
            let sel = s.record.selection;
            let replay = s.record.replay.expect("replayed");
            // None: N_adapt iterations at the largest load of the decision's state, predicted
            // and replayed alike.
            let none = time(&s.pwgt, &s.before, procs);
            assert!(
                (replay.none - none).abs() <= 1e-12 * none,
                "{replay:?} {none}"
            );
            assert!((sel.none - none).abs() <= 1e-12 * none, "{sel:?} {none}");
            // The replay of the chosen action is what the run did.
            let decision = match sel.choice {
                Action::None => 0.0,
                Action::Diffusive => 1e-7 * steps,
                Action::Global => 2e-3,
            };
            let moving = match s.moved[0] {
                0 => 0.0,
                _ => model.cost(s.moved[2]),
            };
            let done = decision + moving + time(&s.pwgt, &s.after, procs);
            let replayed = replay.time(sel.choice);
            assert!(
                (replayed - done).abs() <= 1e-12 * done,
                "{replayed} vs {done}"
            );
            assert_eq!(s.plum, sel.choice == Action::Global);
            assert_eq!(s.accepted, sel.choice != Action::None);
            // The exact estimate is the proposal's MaxV; global's prediction costs it.
            let exact = s.record.moved_global.exact.expect("proposed");
            let c = s.record.costs;
            assert!((c.global - (2e-3 + c.alpha + c.beta * exact)).abs() < 1e-15);
            chosen.push(sel.choice);
        }
    }
    // The front makes every action worth choosing somewhere.
    for action in [Action::None, Action::Diffusive, Action::Global] {
        assert!(
            chosen.contains(&action),
            "{action:?} never chosen: {chosen:?}"
        );
    }
}

#[test]
fn the_same_run_gives_the_same_records() {
    let records =
        |moved| -> Vec<SelectRecord> { run(4, moved).0.into_iter().map(|s| s.record).collect() };
    for moved in [MovedEstimate::Seed, MovedEstimate::Plume] {
        let once = records(moved);
        assert_eq!(once, records(moved));
        assert!(
            once.iter().all(|r| r.moved_global.exact.is_some()),
            "replay proposes"
        );
    }
}
