//! The threads backend of `plume::comm`: all-to-all throughput of large buffers (the shape of
//! a migration of packed trees), the latency of a small all-reduce (the shape of closure's
//! "did any rank change anything"), and the point-to-point ping-pong `plume calibrate` times
//! (`plume::sim::calibrate`: one round trip of a 64 B and of a 1 MiB message, each hop sending
//! a fresh copy). The MPI numbers come from `examples/comm_mpi_bandwidth.rs` and
//! `mpirun -n 2 plume calibrate --backend mpi`.
//!
//! `cargo bench --bench comm`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use plume::comm::{launch_threads, Comm, CommExt, ReduceOp};
use std::time::{Duration, Instant};

/// Bytes each rank sends in one all-to-all, split evenly over the ranks.
const OUTGOING_BYTES: usize = 16 << 20;

/// Runs `iters` rounds of `round` on `procs` thread ranks and returns rank 0's time for them
/// (between two barriers, so thread start-up is not counted).
fn timed_rounds(
    procs: usize,
    iters: u64,
    round: impl Fn(&plume::comm::ThreadComm) -> plume::Result<()> + Sync,
) -> Duration {
    let times = launch_threads(procs, |comm| {
        comm.barrier()?;
        let start = Instant::now();
        for _ in 0..iters {
            round(comm)?;
        }
        comm.barrier()?;
        Ok(start.elapsed())
    })
    .expect("the benchmark's ranks run");
    times[0]
}

fn all_to_all(c: &mut Criterion) {
    let mut group = c.benchmark_group("comm_threads_all_to_all");
    group.sample_size(10);
    for procs in [2, 4] {
        // Every rank copies its outgoing buffers each round (as packing would write them), so
        // the round costs at least one pass over the data, as on MPI.
        group.throughput(Throughput::Bytes((procs * OUTGOING_BYTES) as u64));
        group.bench_function(format!("{procs} ranks x 16 MB"), |b| {
            b.iter_custom(|iters| {
                timed_rounds(procs, iters, |comm| {
                    let outgoing: Vec<Vec<u8>> = (0..procs)
                        .map(|to| vec![(comm.rank() * procs + to) as u8; OUTGOING_BYTES / procs])
                        .collect();
                    black_box(comm.all_to_all_bytes(outgoing)?);
                    Ok(())
                })
            })
        });
    }
    group.finish();
}

fn small_reduction(c: &mut Criterion) {
    let mut group = c.benchmark_group("comm_threads_reduce_u64");
    for procs in [4, 32] {
        group.bench_function(format!("{procs} ranks"), |b| {
            b.iter_custom(|iters| {
                timed_rounds(procs, iters, |comm| {
                    black_box(comm.reduce_u64(comm.rank() as u64, ReduceOp::Sum)?);
                    Ok(())
                })
            })
        });
    }
    group.finish();
}

fn ping_pong(c: &mut Criterion) {
    let mut group = c.benchmark_group("comm_threads_ping_pong");
    for bytes in [64, 1 << 20] {
        // Two messages of `bytes` per round trip.
        group.throughput(Throughput::Bytes(2 * bytes as u64));
        group.bench_function(format!("{bytes} B round trip"), |b| {
            b.iter_custom(|iters| {
                let payload = vec![0xa5u8; bytes];
                timed_rounds(2, iters, |comm| {
                    if comm.rank() == 0 {
                        comm.send(1, 7, payload.clone())?;
                        black_box(comm.receive()?);
                    } else {
                        let back = comm.receive()?;
                        comm.send(0, 7, back.bytes.clone())?;
                    }
                    Ok(())
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, all_to_all, small_reduction, ping_pong);
criterion_main!(benches);
