//! `dist::Run::step_marked`: the caller's lists of leaves make the step `Run::step` makes with
//! the same marks, and a list naming a leaf not held here fails on every rank. The mark
//! closure's `LeafView::index` is the leaf's position in the adjacency order.

mod common;

use common::random_mark;
use plume::adapt::AdaptOptions;
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::{launch_threads, Comm};
use plume::dist::{GatheredPlum, Mark, Run};
use plume::mesh::generate_box;
use plume::Result;

/// The front of the test: refine left of x = 0.4, coarsen refined leaves right of it.
fn mark(centroid: [f64; 3], level: u8) -> Mark {
    match (centroid[0] < 0.4, level) {
        (true, _) => Mark::Refine,
        (false, 0) => Mark::Keep,
        (false, _) => Mark::Coarsen,
    }
}

/// Leaves and checksum after two steps marked by `mark` through `step` or `step_marked`.
fn two_steps(marked: bool) -> Vec<(u64, u64)> {
    launch_threads(2, move |comm| -> Result<(u64, u64)> {
        let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0])?;
        let mut run = Run::new(
            comm,
            mesh,
            AdaptOptions::default(),
            GatheredPlum::new(Plum::new(PlumOptions::new(2))?),
        )?;
        let mut leaves = 0;
        for _ in 0..2 {
            let report = if marked {
                let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
                run.forest()
                    .for_each_leaf(|l| match mark(l.centroid, l.level) {
                        Mark::Refine => refine.push(l.id),
                        Mark::Coarsen => coarsen.push(l.id),
                        Mark::Keep => {}
                    });
                run.step_marked(refine, coarsen)?
            } else {
                run.step(|l| mark(l.centroid, l.level))?
            };
            leaves = report.metrics.leaves;
        }
        Ok((leaves, run.checksum()?))
    })
    .unwrap()
}

#[test]
fn step_marked_makes_the_step_of_the_same_marks() {
    let by_step = two_steps(false);
    assert!(by_step[0].0 > 4 * 3 * 3 * 6, "the steps refine");
    assert_eq!(two_steps(true), by_step);
}

#[test]
fn a_leaf_not_held_here_fails_the_step_on_every_rank() {
    let results = launch_threads(2, |comm| -> Result<bool> {
        let mesh = generate_box([2, 2, 2], [1.0, 1.0, 1.0])?;
        let mut run = Run::new(
            comm,
            mesh,
            AdaptOptions::default(),
            GatheredPlum::new(Plum::new(PlumOptions::new(2))?),
        )?;
        // Rank 1 names a root held by rank 0 (or out of range); rank 0 names nothing.
        let bad = (0..run.forest().nroots() as u32)
            .find(|&r| !run.forest().holds(r))
            .unwrap_or(u32::MAX);
        let refine = if comm.rank() == 1 {
            vec![run.forest().leaf_id(bad, 0)]
        } else {
            Vec::new()
        };
        Ok(run.step_marked(refine, Vec::new()).is_err())
    });
    assert_eq!(results.unwrap(), vec![true, true]);
}

/// Checks that every leaf's `index`, through `Forest::for_each_leaf_in` on `roots` (ascending),
/// is its position in `leaves`; returns how many leaves it saw.
fn check_index_in<C: Comm + ?Sized>(
    run: &Run<'_, C>,
    roots: &[u32],
    leaves: &[plume::adapt::LeafId],
) -> usize {
    let mut seen = 0;
    run.forest().for_each_leaf_in(roots, |l| {
        assert_eq!(leaves[l.index], l.id);
        seen += 1;
    });
    seen
}

#[test]
fn the_mark_closure_indexes_leaves_in_adjacency_order_after_refining_coarsening_and_migrating() {
    for ranks in 1..=3 {
        let counts = launch_threads(ranks, move |comm| -> Result<[u64; 3]> {
            let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0])?;
            let plum = PlumOptions {
                accept: Accept::Always,
                ..PlumOptions::new(ranks)
            };
            let opts = AdaptOptions {
                nfields: 1,
                ..AdaptOptions::default()
            };
            let mut run = Run::new(comm, mesh, opts, GatheredPlum::new(Plum::new(plum)?))?;
            let mut counts = [0; 3];
            for step in 0..4 {
                let leaves = run.forest().leaves();
                let halo = run.halo()?;
                assert_eq!(halo.adjacency.leaves, leaves);
                // The trees of every other root: their first leaves' offsets are those of the
                // whole walk (asked before the step, so the next check sees fresh ones).
                let odd: Vec<u32> = (1..run.forest().nroots() as u32).step_by(2).collect();
                let even: Vec<u32> = (0..run.forest().nroots() as u32).step_by(2).collect();
                let halves =
                    check_index_in(&run, &odd, &leaves) + check_index_in(&run, &even, &leaves);
                assert_eq!(halves, leaves.len());
                // A solver's own array in adjacency order, written through for_each_leaf_mut's
                // index and read by the mark closure at leaf.index.
                let mut mine = vec![0.0; leaves.len()];
                run.for_each_leaf_mut(|i, _, data| {
                    data[0] = i as f64;
                    mine[i] = i as f64;
                });
                let mut next = 0;
                let report = run.step(|leaf| {
                    assert_eq!(leaf.index, next, "the walk counts up from 0");
                    next += 1;
                    assert_eq!(leaves[leaf.index], leaf.id);
                    assert_eq!(mine[leaf.index], leaf.data[0]);
                    // Random refinement, then the right half coarsened back.
                    match (step, leaf.centroid[0] > 0.5 && leaf.level > 0) {
                        (2.., true) => Mark::Coarsen,
                        _ => random_mark(leaf, step),
                    }
                })?;
                assert_eq!(next, leaves.len());
                let m = &report.metrics;
                counts = [
                    counts[0] + m.moved.trees,
                    counts[1] + m.divided,
                    counts[2] + m.coarsened,
                ];
            }
            let leaves = run.forest().leaves();
            let all: Vec<u32> = (0..run.forest().nroots() as u32).collect();
            assert_eq!(check_index_in(&run, &all, &leaves), leaves.len());
            Ok(counts)
        })
        .unwrap();
        let sum = |k: usize| counts.iter().map(|c| c[k]).sum::<u64>();
        assert!(
            sum(1) > 0 && sum(2) > 0,
            "P = {ranks}: the steps refine and coarsen"
        );
        assert!(ranks == 1 || sum(0) > 0, "P = {ranks}: trees migrate");
    }
}
