//! Stale halos and leaf ids are errors (issue 27): after a step that changes leaves or
//! ownership, a halo built before it and a leaf id taken before it are refused on every rank,
//! never read as wrong data nor a panic.

use plume::adapt::{AdaptOptions, LeafId};
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::{launch_threads, ThreadComm};
use plume::dist::{GatheredPlum, Mark, Run};
use plume::mesh::generate_box;
use plume::Error;

fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 2,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

/// Runs `body` on each of 2 thread ranks with a run over a 4×2×2 box balanced by PLUM
/// (always accepting a new partition, so refining one end moves trees).
fn on_two_ranks<T: Send>(
    body: impl Fn(&mut Run<'_, ThreadComm>) -> plume::Result<T> + Sync,
) -> Vec<T> {
    launch_threads(2, |comm| {
        let plum = Plum::new(PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(2)
        })?;
        let mesh = generate_box([4, 2, 2], [1.0, 0.5, 0.5])?;
        let mut run = Run::new(comm, mesh, options(), GatheredPlum::new(plum))?;
        body(&mut run)
    })
    .unwrap()
}

#[test]
fn a_halo_from_before_a_step_is_stale() {
    let outcome = on_two_ranks(|run| {
        let mut halo = run.halo()?;
        let report = run.step(|l| match l.centroid[0] < 0.25 {
            true => Mark::Refine,
            false => Mark::Keep,
        })?;
        assert!(report.metrics.moved.trees > 0, "the step moves trees");
        Ok(run.refresh_halo(&mut halo))
    });
    for refreshed in outcome {
        assert!(
            matches!(refreshed, Err(Error::StaleHalo { .. })),
            "{refreshed:?}"
        );
    }
}

#[test]
fn a_leaf_id_from_before_a_refinement_is_stale() {
    let outcome = on_two_ranks(|run| {
        let ids = run.forest().leaves();
        run.step(|_| Mark::Refine)?;
        Ok(ids
            .iter()
            .map(|&id| run.leaf_data_mut(id).map(|v| v.to_vec()))
            .collect::<Vec<_>>())
    });
    for rank in outcome {
        assert!(!rank.is_empty());
        for got in rank {
            assert!(matches!(got, Err(Error::StaleLeafId { .. })), "{got:?}");
        }
    }
}

#[test]
fn a_leaf_id_from_before_a_coarsening_is_stale() {
    let outcome = on_two_ranks(|run| {
        run.step(|_| Mark::Refine)?;
        let ids = run.forest().leaves();
        run.step(|_| Mark::Coarsen)?;
        Ok(ids
            .iter()
            .map(|&id| run.leaf_data(id).map(|v| v.to_vec()))
            .collect::<Vec<_>>())
    });
    for rank in outcome {
        for got in rank {
            assert!(matches!(got, Err(Error::StaleLeafId { .. })), "{got:?}");
        }
    }
}

#[test]
fn ids_and_halo_of_the_current_mesh_are_accepted() {
    let outcome = on_two_ranks(|run| {
        run.step(|l| match l.centroid[0] < 0.25 {
            true => Mark::Refine,
            false => Mark::Keep,
        })?;
        let mut halo = run.halo()?;
        let ids: Vec<LeafId> = halo.adjacency.leaves.clone();
        for (k, &id) in ids.iter().enumerate() {
            run.leaf_data_mut(id)?[0] = k as f64;
        }
        run.refresh_halo(&mut halo)?;
        Ok(ids.len())
    });
    assert!(outcome.iter().all(|&n| n > 0));
}
