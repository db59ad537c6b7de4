//! Throughput of a migration of packed trees under MPI (`plume::dist::Run::migrate_to`: pack,
//! one all-to-all of byte buffers, unpack): a box refined three times by a sweeping cylinder,
//! then every tree moves to the next rank, ten times; rank 0 prints the bytes and elements one
//! migration moves and their rates. The threads backend's figure is the `dist_migration` benchmark
//! (`cargo bench --bench dist`), on the same forest.
//!
//! ```text
//! cargo build --release --features mpi --example dist_migration_mpi
//! OMPI_MCA_pml=ob1 mpirun --oversubscribe -n 2 target/release/examples/dist_migration_mpi
//! ```
//! (as root, add `--allow-run-as-root`).

#[path = "../benches/common/migration_case.rs"]
mod migration_case;

use plume::comm::{with_mpi, Comm};

/// Migrations timed.
const MIGRATIONS: u32 = 10;

fn main() {
    let outcome = with_mpi(|comm| {
        let procs = comm.size();
        let (elapsed, moved) = migration_case::migrations(comm, u64::from(MIGRATIONS))?;
        let seconds = elapsed.as_secs_f64() / f64::from(MIGRATIONS);
        if comm.rank() == 0 {
            println!(
                "migration on {procs} MPI ranks, all trees: {:.1} MB, {} elements in {:.1} ms, \
                 {:.0} MB/s, {:.1} M elements/s",
                moved.bytes as f64 / 1e6,
                moved.elements,
                seconds * 1e3,
                moved.bytes as f64 / seconds / 1e6,
                moved.elements as f64 / seconds / 1e6
            );
        }
        Ok(())
    });
    if let Err(error) = outcome {
        eprintln!("plume: {error}");
        std::process::exit(1);
    }
}
