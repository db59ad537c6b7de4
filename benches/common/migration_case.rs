//! The migration case shared by the `dist_migration` benchmark (thread ranks) and the
//! `dist_migration_mpi` example (MPI ranks), so both time the same forest and moves.

use plume::adapt::AdaptOptions;
use plume::balance::{Plum, PlumOptions};
use plume::comm::Comm;
use plume::dist::{Mark, Moved, Run};
use plume::mesh::generate_box;
use plume::Result;
use std::time::{Duration, Instant};

/// This rank's part of the case: a box refined three times by a sweeping cylinder, then every
/// tree moved to the next rank `migrations` times. Returns the time of the migrations (between
/// two barriers) and what the last one moved.
pub fn migrations<C: Comm + ?Sized>(comm: &C, migrations: u64) -> Result<(Duration, Moved)> {
    let procs = comm.size();
    let mesh = generate_box([8, 5, 5], [1.6, 1.0, 1.0])?;
    let opts = AdaptOptions {
        max_depth: 3,
        nfields: 1,
        ..AdaptOptions::default()
    };
    let mut run = Run::new(comm, mesh, opts, Plum::new(PlumOptions::new(procs))?)?;
    for level in 1..=3 {
        run.step(|leaf| {
            let [x, y, _] = leaf.centroid;
            let d = ((x - 0.8).powi(2) + (y - 0.5).powi(2)).sqrt();
            if (d - 0.1 * f64::from(level)).abs() < 0.2 {
                Mark::Refine
            } else {
                Mark::Keep
            }
        })?;
    }
    comm.barrier()?;
    let start = Instant::now();
    let mut moved = Moved::default();
    for _ in 0..migrations {
        let next: Vec<u32> = run
            .owner()
            .iter()
            .map(|&o| (o + 1) % procs as u32)
            .collect();
        moved = run.migrate_to(&next)?;
    }
    comm.barrier()?;
    Ok((start.elapsed(), moved))
}
