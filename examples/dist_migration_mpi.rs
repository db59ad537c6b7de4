//! Throughput of a migration of packed trees under MPI (`plume::dist::Run::migrate_to`: pack,
//! one all-to-all of byte buffers, unpack): a box refined three times by a sweeping cylinder,
//! then every tree moves to the next rank, ten times; rank 0 prints the bytes one migration
//! moves and their rate. The threads backend's figure is the `dist_migration` benchmark
//! (`cargo bench --bench dist`), on the same forest.
//!
//! ```text
//! cargo build --release --features mpi --example dist_migration_mpi
//! OMPI_MCA_pml=ob1 mpirun --oversubscribe -n 2 target/release/examples/dist_migration_mpi
//! ```
//! (as root, add `--allow-run-as-root`).

use plume::adapt::AdaptOptions;
use plume::balance::{Plum, PlumOptions};
use plume::comm::{with_mpi, Comm};
use plume::dist::{Mark, Run};
use plume::mesh::generate_box;
use std::time::Instant;

/// Migrations timed.
const MIGRATIONS: u32 = 10;

fn main() {
    let outcome = with_mpi(|comm| {
        let procs = comm.size();
        let mesh = generate_box([8, 5, 5], [1.6, 1.0, 1.0])?;
        let opts = AdaptOptions {
            max_depth: 3,
            nfields: 1,
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
        let mut bytes = 0;
        for _ in 0..MIGRATIONS {
            let next: Vec<u32> = run
                .owner()
                .iter()
                .map(|&o| (o + 1) % procs as u32)
                .collect();
            bytes = run.migrate_to(&next)?.bytes;
        }
        comm.barrier()?;
        let seconds = start.elapsed().as_secs_f64() / f64::from(MIGRATIONS);
        if comm.rank() == 0 {
            println!(
                "migration on {procs} MPI ranks, all trees: {:.1} MB in {:.1} ms, {:.0} MB/s",
                bytes as f64 / 1e6,
                seconds * 1e3,
                bytes as f64 / seconds / 1e6
            );
        }
        Ok(())
    });
    if let Err(error) = outcome {
        eprintln!("plume: {error}");
        std::process::exit(1);
    }
}
