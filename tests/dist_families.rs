//! The user transfer hook and the old → new leaf map (`Run::step_with_transfer`): over
//! random marks on thread ranks with trees moving, the hook sees every family exactly once
//! per step, the families are the map's, every leaf held before a step is in exactly one
//! family's old leaves and every leaf held after it in exactly one's new leaves, each family
//! covers the same volume before and after, and the trees that left one rank are those that
//! arrived on another.

use std::collections::{BTreeMap, BTreeSet};

use plume::adapt::{AdaptOptions, LeafId};
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::launch_threads;
use plume::dist::{Change, Family, GatheredPlum, Run};
use plume::mesh::{generate_box, geometry};
use proptest::prelude::*;

/// Every leaf held here and its volume.
fn volumes<C: plume::comm::Comm + ?Sized>(run: &Run<'_, C>) -> BTreeMap<LeafId, f64> {
    let mut out = BTreeMap::new();
    run.forest().for_each_leaf(|l| {
        out.insert(l.id, geometry::volume(&l.corners));
    });
    out
}

/// What one rank saw in one step: the trees that left and arrived (global root ids).
type Moves = (BTreeSet<u32>, BTreeSet<u32>);

/// Runs `steps` steps of marks drawn from `seed` on `procs` ranks, checking each rank's
/// families; returns each rank's moves per step.
fn run(procs: usize, seed: u64, steps: usize) -> Vec<Vec<Moves>> {
    launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(procs)
        })?;
        let opts = AdaptOptions {
            max_depth: 3,
            nfields: 1,
            ..AdaptOptions::default()
        };
        let mesh = generate_box([3, 2, 2], [1.5, 1.0, 1.0])?;
        let mut run = Run::new(comm, mesh, opts, GatheredPlum::new(plum))?;
        let mut moves = Vec::new();
        for step in 0..steps {
            let before = volumes(&run);
            let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
            run.forest().for_each_leaf(|l| {
                let h = plume::hash::mix64(
                    seed ^ plume::hash::mix64(step as u64)
                        ^ l.centroid[0].to_bits()
                        ^ l.centroid[1].to_bits().rotate_left(17)
                        ^ l.centroid[2].to_bits().rotate_left(34),
                );
                // Odd steps mostly coarsen (a family goes when its 8 siblings all ask).
                match (step % 2, h % 10) {
                    (0, 0) => refine.push(l.id),
                    (1, 0..=8) => coarsen.push(l.id),
                    _ => {}
                }
            });
            let mut seen: Vec<Family> = Vec::new();
            let (_, map) =
                run.step_with_transfer(refine, coarsen, &mut |f: &Family| seen.push(f.clone()))?;
            let after = volumes(&run);
            assert_eq!(
                seen, map.families,
                "the hook sees each family once, in the map's order"
            );
            let olds: Vec<LeafId> = seen.iter().flat_map(|f| f.old.clone()).collect();
            let news: Vec<LeafId> = seen.iter().flat_map(|f| f.new.clone()).collect();
            assert_eq!(
                olds.iter().copied().collect::<BTreeSet<_>>().len(),
                olds.len()
            );
            assert_eq!(
                news.iter().copied().collect::<BTreeSet<_>>().len(),
                news.len()
            );
            assert_eq!(
                olds.into_iter().collect::<BTreeSet<_>>(),
                before.keys().copied().collect()
            );
            assert_eq!(
                news.into_iter().collect::<BTreeSet<_>>(),
                after.keys().copied().collect()
            );
            let mut left = BTreeSet::new();
            let mut arrived = BTreeSet::new();
            for f in &seen {
                for &id in &f.old {
                    assert_eq!(map.new_of(id), Some(f.new.as_slice()));
                }
                let (nold, nnew) = (f.old.len(), f.new.len());
                match f.change {
                    Change::Kept => assert!(nold == 1 && nnew == 1),
                    Change::Refined => assert!(nold == 1 && nnew > 1),
                    Change::Coarsened => assert!(nold > 1 && nnew == 1),
                    Change::Reshaped => assert!(nold > 1 && nnew > 1),
                    Change::Arrived => assert!(nold == 0 && nnew > 0 && arrived.insert(f.root_gid)),
                    Change::Left => assert!(nnew == 0 && nold > 0 && left.insert(f.root_gid)),
                }
                if nold > 0 && nnew > 0 {
                    // Sums of at most 512 volumes of size ~0.1: rounding below 1e-15 each.
                    let vo: f64 = f.old.iter().map(|id| before[id]).sum();
                    let vn: f64 = f.new.iter().map(|id| after[id]).sum();
                    assert!((vo - vn).abs() <= 1e-12 * vo, "{:?}: {vo} → {vn}", f.change);
                }
            }
            moves.push((left, arrived));
        }
        Ok(moves)
    })
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_hook_sees_every_family_once_as_the_map_says(seed in any::<u64>(), procs in 1usize..4) {
        let ranks = run(procs, seed, 6);
        for step in 0..6 {
            let left: BTreeSet<u32> = ranks.iter().flat_map(|r| r[step].0.clone()).collect();
            let arrived: BTreeSet<u32> = ranks.iter().flat_map(|r| r[step].1.clone()).collect();
            prop_assert_eq!(left, arrived);
        }
    }
}
