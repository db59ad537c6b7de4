//! MPI bandwidth of `plume::comm` on this machine: a ping-pong between ranks 0 and 1 through
//! `Comm::send`/`receive` and through rsmpi's own blocking calls (what MPI gives), and the
//! all-to-all of large buffers on every rank (the shape of a migration of packed trees).
//!
//! ```text
//! cargo build --release --features mpi --example comm_mpi_bandwidth
//! OMPI_MCA_pml=ob1 mpirun --oversubscribe -n 4 target/release/examples/comm_mpi_bandwidth
//! ```
//! (as root, add `--allow-run-as-root`). Rank 0 prints one line per measurement.

use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use plume::comm::{with_mpi, Comm, MpiComm};
use plume::Result;
use std::time::Instant;

/// Message sizes of the ping-pong, in bytes (1–2 MiB: what one rank sends in the migration of
/// `examples/dist_migration_mpi.rs` at 2–4 ranks).
const SIZES: [usize; 6] = [8, 64 << 10, 1 << 20, 2 << 20, 16 << 20, 64 << 20];

/// Bytes each rank sends in one all-to-all, split evenly over the ranks (4 MiB: about twice
/// what one rank sends in the migration of `examples/dist_migration_mpi.rs`).
const OUTGOING_BYTES: [usize; 2] = [4 << 20, 16 << 20];

/// Round trips (or all-to-all rounds) for a message of `bytes`: about 1 GB in all, at least 10.
fn rounds(bytes: usize) -> usize {
    ((1 << 30) / bytes).clamp(10, 10_000)
}

/// Prints `label` with the one-way time per message and the bandwidth, on rank 0.
fn report(comm: &MpiComm, label: &str, bytes: usize, seconds_one_way: f64) {
    if comm.rank() == 0 {
        println!(
            "{label:<28} {bytes:>10} B  {:>10.2} µs  {:>8.0} MB/s",
            seconds_one_way * 1e6,
            bytes as f64 / seconds_one_way / 1e6
        );
    }
}

/// Ping-pong between ranks 0 and 1 through the `Comm` trait.
fn ping_pong_comm(comm: &MpiComm, bytes: usize) -> Result<f64> {
    let n = rounds(bytes);
    let mut buffer = vec![1u8; bytes];
    comm.barrier()?;
    let start = Instant::now();
    for _ in 0..n {
        let peer = match comm.rank() {
            0 => 1,
            1 => 0,
            _ => continue,
        };
        if comm.rank() == 0 {
            comm.send(peer, 1, buffer)?;
            buffer = comm.receive()?.bytes;
        } else {
            buffer = comm.receive()?.bytes;
            comm.send(peer, 1, std::mem::take(&mut buffer))?;
        }
    }
    comm.barrier()?;
    Ok(start.elapsed().as_secs_f64() / (2 * n) as f64)
}

/// Ping-pong between ranks 0 and 1 with rsmpi's blocking send and receive into a buffer.
fn ping_pong_raw(comm: &MpiComm, bytes: usize) -> Result<f64> {
    let world = SimpleCommunicator::world();
    let mut buffer = vec![1u8; bytes];
    let n = rounds(bytes);
    comm.barrier()?;
    let start = Instant::now();
    for _ in 0..n {
        match comm.rank() {
            0 => {
                world.process_at_rank(1).send(&buffer[..]);
                world.process_at_rank(1).receive_into(&mut buffer[..]);
            }
            1 => {
                world.process_at_rank(0).receive_into(&mut buffer[..]);
                world.process_at_rank(0).send(&buffer[..]);
            }
            _ => {}
        }
    }
    comm.barrier()?;
    Ok(start.elapsed().as_secs_f64() / (2 * n) as f64)
}

/// All-to-all rounds of `outgoing_bytes` per rank, buffers written afresh each round; returns
/// the seconds per round.
fn all_to_all(comm: &MpiComm, outgoing_bytes: usize) -> Result<f64> {
    let procs = comm.size();
    let n = 20;
    comm.barrier()?;
    let start = Instant::now();
    for _ in 0..n {
        let outgoing = (0..procs)
            .map(|to| vec![(comm.rank() * procs + to) as u8; outgoing_bytes / procs])
            .collect();
        std::hint::black_box(comm.all_to_all_bytes(outgoing)?);
    }
    comm.barrier()?;
    Ok(start.elapsed().as_secs_f64() / n as f64)
}

fn main() {
    let outcome = with_mpi(|comm| {
        if comm.size() >= 2 {
            for bytes in SIZES {
                let t = ping_pong_comm(comm, bytes)?;
                report(comm, "ping-pong, Comm", bytes, t);
                let t = ping_pong_raw(comm, bytes)?;
                report(comm, "ping-pong, rsmpi blocking", bytes, t);
            }
        }
        for outgoing_bytes in OUTGOING_BYTES {
            let t = all_to_all(comm, outgoing_bytes)?;
            let label = format!("all-to-all, {} ranks", comm.size());
            report(comm, &label, comm.size() * outgoing_bytes, t);
        }
        Ok(())
    });
    if let Err(error) = outcome {
        eprintln!("plume: {error}");
        std::process::exit(1);
    }
}
