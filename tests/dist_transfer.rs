//! Data transfer on thread ranks (`plume::dist::Run`): through refinement, coarsening, green
//! upgrades and migration, a conservative field keeps its total `Σ u·V` over all ranks to
//! round-off (relative 1e-12), the same whatever P, and an inherit field only holds labels it
//! held at the start; the policies reach every rank through the `AdaptOptions` of `Run::new`.

mod common;

use common::{elem_hash, hash_marks, moving_box_run, without_hang};
use plume::adapt::{AdaptOptions, Transfer};
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, Comm, ReduceOp};
use plume::dist::{GatheredPlum, Run};
use plume::mesh::{generate_box, geometry};
use plume::Error;

const LEVELS: usize = 6;

fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        ..AdaptOptions::with_fields(vec![Transfer::Conservative, Transfer::Inherit])
    }
}

/// What one level leaves.
#[derive(Debug, Default)]
struct Level {
    /// `Σ u·V` of field 0 over all ranks.
    total: f64,
    /// The distinct labels of field 1 (bits), sorted; this rank's, then all ranks'.
    labels: Vec<u64>,
    /// Trees moved, families coarsened, green families upgraded by the step.
    moved: u64,
    coarsened: u64,
    upgraded: u64,
}

/// The initial values and `LEVELS` steps on `procs` thread ranks.
fn run(procs: usize) -> Vec<Level> {
    let per_rank = launch_threads(procs, |comm| {
        let mut run = moving_box_run(comm, options())?;
        for id in run.forest().leaves() {
            let density = 1.0 + (elem_hash(run.forest(), id.root, id.elem, 99) % 1000) as f64;
            run.leaf_data_mut(id)?
                .copy_from_slice(&[density, (id.root % 3) as f64]);
        }
        let mut levels = vec![totals(&run)?];
        for level in 0..LEVELS {
            let (refine, coarsen) = hash_marks(run.forest(), level as u64);
            let m = run.step_marked(refine, coarsen)?.metrics;
            levels.push(Level {
                moved: m.moved.trees,
                coarsened: m.coarsened,
                upgraded: m.upgraded,
                ..totals(&run)?
            });
        }
        Ok(levels)
    })
    .unwrap();
    let mut levels: Vec<Level> = per_rank
        .into_iter()
        .reduce(|mut all, rank| {
            for (a, r) in all.iter_mut().zip(rank) {
                a.labels.extend(r.labels);
            }
            all
        })
        .unwrap();
    for level in &mut levels {
        level.labels.sort_unstable();
        level.labels.dedup();
    }
    levels
}

/// The total of field 0 over all ranks and this rank's labels.
fn totals<C: Comm + ?Sized>(run: &Run<'_, C>) -> plume::Result<Level> {
    let mut sum = 0.0;
    let mut labels = Vec::new();
    run.forest().for_each_leaf(|l| {
        sum += l.data[0] * geometry::volume(&l.corners);
        labels.push(l.data[1].to_bits());
    });
    labels.sort_unstable();
    labels.dedup();
    let total = run.comm().all_reduce_f64(&[sum], ReduceOp::Sum)?[0];
    Ok(Level {
        total,
        labels,
        ..Level::default()
    })
}

#[test]
fn conservative_totals_and_inherited_labels_survive_adaptation_and_migration_on_any_p() {
    let one = without_hang(|| run(1));
    let (start, start_labels) = (one[0].total, &one[0].labels);
    for (level, l) in one.iter().enumerate() {
        assert!(
            (l.total - start).abs() <= 1e-12 * start,
            "P = 1, level {level}: Σ u·V went from {start} to {}",
            l.total
        );
        assert!(
            l.labels.iter().all(|x| start_labels.contains(x)),
            "a new label"
        );
    }
    assert!(
        one.iter().map(|l| l.coarsened).sum::<u64>() > 0,
        "no coarsening"
    );
    assert!(
        one.iter().map(|l| l.upgraded).sum::<u64>() > 0,
        "no green upgrade"
    );
    for procs in [2, 3] {
        let levels = without_hang(move || run(procs));
        for (level, (l, l1)) in levels.iter().zip(&one).enumerate() {
            assert!(
                (l.total - l1.total).abs() <= 1e-12 * start,
                "P = {procs}, level {level}: Σ u·V {} against {} on one rank",
                l.total,
                l1.total
            );
            assert_eq!(l.labels, l1.labels, "P = {procs}, level {level}");
        }
        assert!(
            levels.iter().map(|l| l.moved).sum::<u64>() > 0,
            "P = {procs}: no tree moved"
        );
    }
}

#[test]
fn more_transfer_policies_than_fields_fail_on_every_rank() {
    let results = without_hang(|| {
        launch_threads(2, |comm| {
            let opts = AdaptOptions {
                nfields: 1,
                ..options()
            };
            let mesh = generate_box([2, 1, 1], [1.0; 3])?;
            match Run::new(
                comm,
                mesh,
                opts,
                GatheredPlum::new(Plum::new(PlumOptions::new(2))?),
            ) {
                Err(Error::Invalid(message)) => Ok(message),
                other => panic!("rank {}: {:?}", comm.rank(), other.map(|_| ())),
            }
        })
        .unwrap()
    });
    for message in results {
        assert!(
            message.contains("2 transfer policies for 1 fields"),
            "{message}"
        );
    }
}
