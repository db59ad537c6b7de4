//! Throughput of a migration of packed trees under MPI (`plume::dist::Run::migrate_to`: pack,
//! one all-to-all of byte buffers, unpack): a box refined three times by a sweeping cylinder,
//! then every tree moves to the next rank, ten times; rank 0 prints the bytes and elements one
//! migration moves and their rates through the whole migration and through each phase:
//! packing and unpacking on the slowest rank, the all-to-all on the rank that waited least in
//! it (the wire, to compare with `examples/comm_mpi_bandwidth.rs`'s ping-pong). The threads
//! backend's figures are the `dist_migration` benchmark (`cargo bench --bench dist`), on the
//! same forest.
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

/// Milliseconds of one migration's `phase` (`total` over the migrations) and its rate in
/// `amount` per second.
fn per_migration(phase: std::time::Duration, amount: u64) -> (f64, f64) {
    let seconds = phase.as_secs_f64() / f64::from(MIGRATIONS);
    (seconds * 1e3, amount as f64 / seconds)
}

fn main() {
    let outcome = with_mpi(|comm| {
        let procs = comm.size();
        let t = migration_case::migrations(comm, u64::from(MIGRATIONS))?;
        let (bytes, elements) = (t.moved.bytes, t.moved.elements);
        if comm.rank() == 0 {
            println!(
                "migration on {procs} MPI ranks, all trees: {:.1} MB, {elements} elements",
                bytes as f64 / 1e6
            );
            let (ms, rate) = per_migration(t.total, bytes);
            println!("  whole migration {ms:7.2} ms  {:8.0} MB/s", rate / 1e6);
            let (ms, rate) = per_migration(t.pack, elements);
            println!(
                "  pack            {ms:7.2} ms  {:8.1} M elements/s",
                rate / 1e6
            );
            let (ms, rate) = per_migration(t.exchange, bytes);
            println!("  all-to-all      {ms:7.2} ms  {:8.0} MB/s", rate / 1e6);
            let (ms, rate) = per_migration(t.unpack, elements);
            println!(
                "  unpack          {ms:7.2} ms  {:8.1} M elements/s",
                rate / 1e6
            );
        }
        Ok(())
    });
    if let Err(error) = outcome {
        eprintln!("plume: {error}");
        std::process::exit(1);
    }
}
