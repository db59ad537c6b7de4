//! `dist::Run::step_marked`: the caller's lists of leaves make the step `Run::step` makes with
//! the same marks, and a list naming a leaf not held here fails on every rank.

use plume::adapt::AdaptOptions;
use plume::balance::{Plum, PlumOptions};
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
