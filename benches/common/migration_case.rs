//! The migration case shared by the `dist_migration` benchmark (thread ranks) and the
//! `dist_migration_mpi` example (MPI ranks), so both time the same forest and moves.

use plume::adapt::AdaptOptions;
use plume::balance::{Plum, PlumOptions};
use plume::comm::{Comm, ReduceOp};
use plume::dist::{GatheredPlum, Mark, Moved, Run};
use plume::mesh::generate_box;
use plume::Result;
use std::time::{Duration, Instant};

/// The times of a number of migrations, summed over them, and what the last one moved.
#[derive(Debug, Clone, Copy)]
pub struct Timed {
    /// Whole migrations, between two barriers.
    pub total: Duration,
    /// Packing, on the slowest rank.
    pub pack: Duration,
    /// The all-to-all on the rank that waited least in it (the last to arrive, which waits
    /// for no packer): the transfer itself.
    pub exchange: Duration,
    /// Unpacking, on the slowest rank.
    pub unpack: Duration,
    /// What the last migration moved.
    pub moved: Moved,
}

/// This rank's part of the case: a box refined three times by a sweeping cylinder, then every
/// tree moved to the next rank `migrations` times. Returns the same times on every rank.
pub fn migrations<C: Comm + ?Sized>(comm: &C, migrations: u64) -> Result<Timed> {
    let procs = comm.size();
    let mesh = generate_box([8, 5, 5], [1.6, 1.0, 1.0])?;
    let opts = AdaptOptions {
        max_depth: 3,
        nfields: 1,
        ..AdaptOptions::default()
    };
    let mut run = Run::new(
        comm,
        mesh,
        opts,
        GatheredPlum::new(Plum::new(PlumOptions::new(procs))?),
    )?;
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
    let [mut pack, mut exchange, mut unpack] = [Duration::ZERO; 3];
    for _ in 0..migrations {
        let next: Vec<u32> = run
            .owner()
            .iter()
            .map(|&o| (o + 1) % procs as u32)
            .collect();
        let times;
        (moved, times) = run.migrate_to(&next)?;
        pack += times.pack;
        exchange += times.exchange;
        unpack += times.unpack;
    }
    comm.barrier()?;
    let total = start.elapsed();
    let slowest = comm.all_reduce_f64(&[pack, unpack].map(|t| t.as_secs_f64()), ReduceOp::Max)?;
    let least = comm.all_reduce_f64(&[exchange.as_secs_f64()], ReduceOp::Min)?;
    Ok(Timed {
        total,
        pack: Duration::from_secs_f64(slowest[0]),
        exchange: Duration::from_secs_f64(least[0]),
        unpack: Duration::from_secs_f64(slowest[1]),
        moved,
    })
}
