//! Checks of a `Comm`'s collectives and messages against the answers a serial program computes
//! from the rank and size alone, shared by the threads tests (`tests/comm_threads.rs`) and the
//! ranks `tests/comm_mpi.rs` starts under `mpirun`. A check returns an error naming what
//! differs, so that under MPI it can go through `agree` instead of killing the job.
#![allow(dead_code)]

use plume::comm::{Comm, CommExt, Message, ReduceOp};
use plume::{Error, Result};

/// One check of a rank's comm.
type Check<C> = fn(&C) -> Result<()>;

/// Every check, in one fixed order, each followed by an agreement so that every rank stops at
/// the first failure with the same message.
pub fn all<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let checks: [(&str, Check<C>); 9] = [
        ("reductions", reductions),
        ("gathers", gathers),
        ("all-to-all", all_to_all),
        ("large all-to-all", large_all_to_all),
        ("broadcasts", broadcasts),
        ("messages", messages),
        ("crossing sends", crossing_sends),
        ("agreement", agreement),
        ("typed agreement", typed_agreement),
    ];
    for (name, check) in checks {
        comm.agree(check(comm).map_err(|e| Error::Invalid(format!("{name}: {e}"))))?;
    }
    Ok(())
}

/// `Err(what)` unless `holds`.
fn ensure(holds: bool, what: impl FnOnce() -> String) -> Result<()> {
    if holds {
        Ok(())
    } else {
        Err(Error::Invalid(what()))
    }
}

/// Sums, maxima and minima of u64 and f64 (element-wise, f64 summed in rank order), logical or.
pub fn reductions<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let (rank, size) = (comm.rank() as u64, comm.size() as u64);
    let sum = comm.all_reduce_u64(&[rank + 1, 10 * rank], ReduceOp::Sum)?;
    ensure(
        sum == [size * (size + 1) / 2, 10 * size * (size - 1) / 2],
        || format!("u64 sums {sum:?}"),
    )?;
    ensure(comm.reduce_u64(rank + 1, ReduceOp::Max)? == size, || {
        "u64 max".into()
    })?;
    ensure(comm.reduce_u64(rank + 1, ReduceOp::Min)? == 1, || {
        "u64 min".into()
    })?;
    let value = |r: u64| 0.1 * (r + 1) as f64 + 1e-17 * r as f64;
    let serial_sum = (1..size).fold(value(0), |acc, r| acc + value(r));
    let sums = comm.all_reduce_f64(&[value(rank), -value(rank)], ReduceOp::Sum)?;
    ensure(
        sums[0].to_bits() == serial_sum.to_bits() && sums[1].to_bits() == (-serial_sum).to_bits(),
        || format!("f64 sums {sums:?}, serial {serial_sum}"),
    )?;
    ensure(
        comm.reduce_f64(value(rank), ReduceOp::Max)? == value(size - 1),
        || "f64 max".into(),
    )?;
    ensure(
        comm.reduce_f64(-value(rank), ReduceOp::Min)? == -value(size - 1),
        || "f64 min".into(),
    )?;
    ensure(comm.any(rank + 1 == size)?, || "or of one true".into())?;
    ensure(!comm.any(false)?, || "or of all false".into())?;
    comm.barrier()
}

/// Rank `rank`'s all-gather contribution: `rank` bytes (rank 0 sends none).
fn gathered_bytes(rank: usize) -> Vec<u8> {
    (0..rank).map(|i| (rank * 31 + i) as u8).collect()
}

/// All-gather of bytes of different lengths and of typed values, in rank order.
pub fn gathers<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let size = comm.size();
    let bytes = comm.all_gather_bytes(gathered_bytes(comm.rank()))?;
    ensure(
        bytes == (0..size).map(gathered_bytes).collect::<Vec<_>>(),
        || format!("gathered bytes {bytes:?}"),
    )?;
    let values = comm.all_gather_serde(&(comm.rank(), format!("rank {}", comm.rank())))?;
    let expected: Vec<_> = (0..size).map(|r| (r, format!("rank {r}"))).collect();
    ensure(values == expected, || format!("gathered values {values:?}"))
}

/// What rank `from` sends rank `to` in the all-to-all check (empty for some pairs).
fn routed_bytes(from: usize, to: usize) -> Vec<u8> {
    let len = (from * 7 + to * 3) % 5;
    (0..len).map(|i| (from * 16 + to + i) as u8).collect()
}

/// All-to-all of bytes and typed values: each buffer reaches its rank, indexed by sender.
pub fn all_to_all<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let (rank, size) = (comm.rank(), comm.size());
    let outgoing = (0..size).map(|to| routed_bytes(rank, to)).collect();
    let incoming = comm.all_to_all_bytes(outgoing)?;
    let expected: Vec<_> = (0..size).map(|from| routed_bytes(from, rank)).collect();
    ensure(incoming == expected, || {
        format!("all-to-all bytes {incoming:?}")
    })?;
    let outgoing: Vec<(usize, usize)> = (0..size).map(|to| (rank, to)).collect();
    let incoming = comm.all_to_all_serde(&outgoing)?;
    let expected: Vec<_> = (0..size).map(|from| (from, rank)).collect();
    ensure(incoming == expected, || {
        format!("all-to-all values {incoming:?}")
    })
}

/// 1 MB per pair of ranks (past MPI's eager limit), checked by a pattern of both ranks.
pub fn large_all_to_all<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let pattern = |from: usize, to: usize| -> Vec<u8> {
        (0..1 << 20)
            .map(|i: usize| (i.wrapping_mul(from * 5 + to * 3 + 1) >> 3) as u8)
            .collect()
    };
    let (rank, size) = (comm.rank(), comm.size());
    let incoming = comm.all_to_all_bytes((0..size).map(|to| pattern(rank, to)).collect())?;
    for (from, bytes) in incoming.iter().enumerate() {
        ensure(*bytes == pattern(from, rank), || {
            format!("1 MB from rank {from}")
        })?;
    }
    Ok(())
}

/// A broadcast from every root in turn; a typed broadcast; a root without a value fails on
/// every rank.
pub fn broadcasts<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let rank = comm.rank();
    for root in 0..comm.size() {
        let mine = if rank == root {
            format!("from root {root}").into_bytes()
        } else {
            Vec::new()
        };
        let got = comm.broadcast_bytes(root, mine)?;
        ensure(got == format!("from root {root}").into_bytes(), || {
            format!("broadcast from {root}: {got:?}")
        })?;
    }
    let root = comm.size() - 1;
    let value = vec![1.5f64, -2.0, root as f64];
    let got: Vec<f64> = comm.broadcast_serde(root, (rank == root).then_some(&value))?;
    ensure(got == value, || format!("typed broadcast {got:?}"))?;
    let made: Vec<f64> = comm.broadcast_from(root, || Ok(value.clone()))?;
    ensure(made == value, || format!("broadcast_from {made:?}"))?;
    let failed = comm.broadcast_from::<u32>(0, || Err(Error::Zero { what: "values" }));
    ensure(
        matches!(&failed, Err(Error::Zero { what }) if *what == "values"),
        || format!("a failing broadcast_from gave {failed:?} on rank {rank}"),
    )?;
    let missing = comm.broadcast_serde::<u32>(0, None);
    ensure(missing.is_err(), || {
        "a broadcast without a value succeeded".into()
    })
}

/// Waits for the next message, polling the non-blocking receive.
fn poll<C: Comm + ?Sized>(comm: &C) -> Result<Message> {
    loop {
        if let Some(message) = comm.try_receive()? {
            return Ok(message);
        }
        std::thread::yield_now();
    }
}

/// Tagged messages around a ring and to oneself: the non-blocking receive sees nothing before
/// and after, and each message arrives with its source, tag and content.
pub fn messages<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let (rank, size) = (comm.rank(), comm.size());
    ensure(comm.try_receive()?.is_none(), || {
        "a message before any was sent".into()
    })?;
    comm.barrier()?;
    let next = (rank + 1) % size;
    let ring_tag = 100 + rank as u16;
    comm.send_serde(next, ring_tag, &(rank, format!("to {next}")))?;
    comm.send(rank, 7, b"to myself".to_vec())?;
    let prev = (rank + size - 1) % size;
    let mut got = [poll(comm)?, poll(comm)?];
    got.sort_by_key(|m| (m.source, m.tag));
    let (ring, own) = if got[0].tag == 7 {
        (&got[1], &got[0])
    } else {
        (&got[0], &got[1])
    };
    ensure(ring.source == prev && ring.tag == 100 + prev as u16, || {
        format!("ring message {ring:?}")
    })?;
    let content: (usize, String) = ring.decode()?;
    ensure(content == (prev, format!("to {rank}")), || {
        format!("ring {content:?}")
    })?;
    ensure(own.source == rank && own.bytes == b"to myself", || {
        format!("own {own:?}")
    })?;
    ensure(comm.try_receive()?.is_none(), || {
        "an unexpected message".into()
    })?;
    comm.barrier()
}

/// Every rank sends 1 MB to every other rank before receiving any: sends must not wait for
/// the receiver, or this deadlocks. Received with the blocking receive.
pub fn crossing_sends<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let (rank, size) = (comm.rank(), comm.size());
    let content = |from: usize, to: usize| vec![(from * 8 + to) as u8; 1 << 20];
    for to in (0..size).filter(|&to| to != rank) {
        comm.send(to, 3, content(rank, to))?;
    }
    let mut sources = Vec::new();
    for _ in 1..size {
        let message = comm.receive()?;
        ensure(
            message.tag == 3 && message.bytes == content(message.source, rank),
            || format!("1 MB message from rank {}", message.source),
        )?;
        sources.push(message.source);
    }
    sources.sort();
    let expected: Vec<_> = (0..size).filter(|&r| r != rank).collect();
    ensure(sources == expected, || format!("senders {sources:?}"))?;
    comm.barrier()
}

/// `agree` passes a value through when every rank succeeds, and otherwise returns the error of
/// the lowest failing rank on every rank.
pub fn agreement<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let (rank, size) = (comm.rank(), comm.size());
    ensure(comm.agree(Ok(rank))? == rank, || {
        "agree changed a value".into()
    })?;
    let failure = |r: usize| Error::Invalid(format!("rank {r} cannot read mesh.msh"));
    let last = size - 1;
    let local = if rank == last {
        Err(failure(rank))
    } else {
        Ok(())
    };
    ensure(comm.agree(local) == Err(failure(last)), || {
        "one failing rank".into()
    })?;
    let local = if rank % 2 == 1 || rank == last {
        Err(failure(rank))
    } else {
        Ok(())
    };
    let lowest = if size > 1 { 1 } else { 0 };
    ensure(comm.agree(local) == Err(failure(lowest)), || {
        "several failing ranks".into()
    })
}

/// Every rank of a failed agreement returns an equal error of the failing rank's variant, the
/// failing rank included: a structured error (a `&'static str` field, a NaN) travels whole.
pub fn typed_agreement<C: Comm + ?Sized>(comm: &C) -> Result<()> {
    let (rank, last) = (comm.rank(), comm.size() - 1);
    let failures = [
        Error::LengthMismatch {
            what: "owner",
            expected: 24,
            actual: 23,
        },
        Error::NotFinite {
            what: "time of rank 0 in iteration 1".into(),
            value: f64::NAN,
        },
        Error::Protocol {
            from: last,
            message: "an unexpected message (tag 9)".into(),
        },
    ];
    for failure in failures {
        let local = if rank == last {
            Err(failure.clone())
        } else {
            Ok(())
        };
        let agreed = comm.agree(local);
        ensure(agreed == Err(failure.clone()), || {
            format!("rank {rank} agreed on {agreed:?}, not on {failure:?}")
        })?;
    }
    Ok(())
}
