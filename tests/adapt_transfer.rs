//! Data transfer through random adaptation (refinement, coarsening, green upgrades): every
//! conservative field keeps `Σ u·V` over the leaves to round-off (relative 1e-12), a uniform
//! conservative field stays uniform, and every inherit field only holds values it held before.

mod common;

use common::two_tets;
use plume::adapt::{AdaptOptions, AdaptReport, Forest, Transfer, NO_ELEM};
use plume::mesh::{generate_box, geometry, Mesh};
use plume::rng::Rng;
use proptest::prelude::*;
use std::collections::HashMap;

/// Fields: a varying density, a uniform one (1.0), and a label in {0, 1, 2}.
fn options(max_depth: u8) -> AdaptOptions {
    AdaptOptions {
        max_depth,
        ..AdaptOptions::with_fields(vec![
            Transfer::Conservative,
            Transfer::Conservative,
            Transfer::Inherit,
        ])
    }
}

/// `Σ u·V` and `Σ |u|·V` of field `f` over the leaves.
fn totals(forest: &Forest, f: usize) -> (f64, f64) {
    let mut sum = (0.0, 0.0);
    forest.for_each_leaf(|l| {
        let v = geometry::volume(&l.corners);
        sum.0 += l.data[f] * v;
        sum.1 += l.data[f].abs() * v;
    });
    sum
}

/// Gives every leaf a fresh density (field 0) from `rng`; the other fields keep their values.
fn solve(forest: &mut Forest, rng: &mut Rng) {
    for id in forest.leaves() {
        forest.leaf_data_mut(id)[0] = 0.5 + rng.unit() - 2.0 * rng.unit();
    }
}

/// Random marks (whole families coarsened with `p_coarsen`, other leaves refined with
/// `p_refine`), one adaptation, and every transfer property checked; returns the step's
/// report.
fn step_and_check(
    forest: &mut Forest,
    rng: &mut Rng,
    p_refine: f64,
    p_coarsen: f64,
) -> AdaptReport {
    let labels_before = labels(forest);
    let before = [totals(forest, 0), totals(forest, 1)];
    let mut family_coarsens: HashMap<(u32, u32), bool> = HashMap::new();
    for id in forest.leaves() {
        let parent = forest.trees()[id.root as usize].elems[id.elem as usize].parent;
        let coarsen = parent != NO_ELEM
            && *family_coarsens
                .entry((id.root, parent))
                .or_insert_with(|| rng.chance(p_coarsen));
        if coarsen {
            forest.mark_coarsen(id);
        } else if rng.chance(p_refine) {
            forest.mark_refine(id);
        }
    }
    let report = forest.adapt().unwrap();
    for (f, (sum, scale)) in before.into_iter().enumerate() {
        let after = totals(forest, f).0;
        assert!(
            (after - sum).abs() <= 1e-12 * scale,
            "field {f}: Σ u·V went from {sum} to {after} ({report:?})"
        );
    }
    forest.for_each_leaf(|l| {
        assert!(
            (l.data[1] - 1.0).abs() <= 1e-14,
            "the uniform field became {}",
            l.data[1]
        );
    });
    for label in labels(forest) {
        assert!(labels_before.contains(&label), "a new label {label}");
    }
    report
}

/// The distinct labels (field 2) over the leaves, bit for bit.
fn labels(forest: &Forest) -> Vec<u64> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| out.push(l.data[2].to_bits()));
    out.sort_unstable();
    out.dedup();
    out
}

/// A forest on `mesh` with field 0 from `rng`, field 1 uniform and labels by root.
fn start(mesh: Mesh, rng: &mut Rng) -> Forest {
    let mut forest = Forest::new(mesh, options(3)).unwrap();
    for id in forest.leaves() {
        forest.leaf_data_mut(id)[1..].copy_from_slice(&[1.0, (id.root % 3) as f64]);
    }
    solve(&mut forest, rng);
    forest
}

/// `levels` random steps on `mesh`; returns the number of green upgrades and coarsenings.
fn random_run(mesh: Mesh, seed: u64, levels: usize) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let mut forest = start(mesh, &mut rng);
    let (mut upgraded, mut coarsened) = (0, 0);
    for level in 0..levels {
        // Refine more at first, coarsen more later.
        let p_refine = if level < levels / 2 { 0.3 } else { 0.1 };
        let report = step_and_check(&mut forest, &mut rng, p_refine, 0.4);
        upgraded += report.upgraded;
        coarsened += report.coarsened;
        solve(&mut forest, &mut rng);
    }
    (upgraded, coarsened)
}

#[test]
fn random_runs_upgrade_and_coarsen_green_families_and_conserve() {
    // The property tests below would pass vacuously if no run upgraded or coarsened.
    let (mut upgraded, mut coarsened) = (0, 0);
    for seed in 0..4 {
        let (u, c) = random_run(two_tets(), seed, 6);
        let (u2, c2) = random_run(generate_box([2, 1, 1], [1.0; 3]).unwrap(), seed, 6);
        upgraded += u + u2;
        coarsened += c + c2;
    }
    assert!(upgraded > 0, "no green upgrade");
    assert!(coarsened > 0, "no coarsening");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn conservative_fields_keep_their_total_on_a_box(seed in any::<u64>(), levels in 1..6usize) {
        random_run(generate_box([2, 2, 1], [1.0, 0.8, 0.6]).unwrap(), seed, levels);
    }

    #[test]
    fn conservative_fields_keep_their_total_through_green_upgrades(seed in any::<u64>(), levels in 1..7usize) {
        random_run(two_tets(), seed, levels);
    }
}
