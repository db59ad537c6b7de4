//! Ranks that talk: the transport under plume's distributed runtime (`docs/design/distributed.md`).
//!
//! One trait, [`Comm`], holds what the distributed algorithms need and nothing more: rank and
//! size, collectives (barrier, all-reduce, all-gather, all-to-all, broadcast) and point-to-point
//! messages with a non-blocking receive for SBN's polling. Two backends implement it:
//!
//! - [`ThreadComm`] (always built): P ranks as P OS threads of one process over channels;
//! - `MpiComm` (cargo feature `mpi`): one rank per MPI process, started by `mpirun`.
//!
//! [`launch`] is the one place that starts ranks: [`launch_threads`] runs a closure per rank on
//! threads, `with_mpi` runs the process's own rank under `mpirun`.
//!
//! Vocabulary: *rank* = `0..size`; a *collective* is a call every rank makes, in the same order
//! on every rank; *outgoing*/*incoming* are per-rank buffers indexed by the peer's rank.
//!
//! Rules every backend keeps:
//! - **Deterministic**: results are ordered by rank, and reductions fold the ranks' values in
//!   rank order (`((v0 ∘ v1) ∘ v2) …`), so a floating-point sum is identical bit for bit on both
//!   backends and on every run.
//! - **Failures stop everyone**: a rank that fails must not leave the others blocked.
//!   [`CommExt::agree`] all-reduces a failure flag at a synchronisation point so every rank
//!   returns the same error; on threads a rank that returns an error or panics also ends the
//!   collectives the others are blocked in, and under MPI `with_mpi` aborts the job when a
//!   rank fails on its own.
//! - **Sends never block**: [`Comm::send`] returns at once (buffered), so two ranks may send to
//!   each other and then poll.
//!
//! ```
//! use plume::comm::{launch_threads, Comm, CommExt, ReduceOp};
//! let sums = launch_threads(3, |comm| comm.reduce_u64(comm.rank() as u64 + 1, ReduceOp::Sum))
//!     .unwrap();
//! assert_eq!(sums, vec![6, 6, 6]);
//! ```

mod board;
mod clock;
mod exact_sum;
mod launch;
#[cfg(feature = "mpi")]
mod mpi;
mod reduce;
mod threads;
mod typed;

pub use clock::CpuClock;
pub use exact_sum::{all_exact_sums, ExactSum};
#[cfg(feature = "mpi")]
pub use launch::with_mpi;
pub use launch::{launch, launch_threads, Backend};
#[cfg(feature = "mpi")]
pub use mpi::MpiComm;
pub use reduce::ReduceOp;
pub use threads::ThreadComm;
pub use typed::CommExt;

use crate::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The tag of a point-to-point message, `0..=MAX_TAG`; the receiver tells message kinds apart
/// by it.
pub type Tag = u16;

/// The largest tag: MPI guarantees tags up to 32767 on every implementation.
pub const MAX_TAG: Tag = 32767;

/// The largest point-to-point message in bytes: MPI counts elements in a C `int`.
/// (Collectives have no such limit.)
pub const MAX_MESSAGE_BYTES: usize = i32::MAX as usize;

/// A point-to-point message as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Rank that sent it.
    pub source: usize,
    /// Tag it was sent with.
    pub tag: Tag,
    /// Its content.
    pub bytes: Vec<u8>,
}

impl Message {
    /// The content decoded as a `T` (bincode, as [`CommExt::send_serde`] encodes it).
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T> {
        decode(&self.bytes, self.source, || {
            format!("a message with tag {}", self.tag)
        })
    }
}

/// The transport between ranks. Every collective must be called by every rank, in the same
/// order; results are ordered by rank.
///
/// A method returns an error when its arguments are invalid (checked before anything is sent)
/// or when another rank it waits for has failed or finished: then every later call may fail
/// too, and the rank should return the error.
pub trait Comm {
    /// This rank, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// Returns once every rank has called it.
    fn barrier(&self) -> Result<()> {
        self.all_gather_bytes(Vec::new()).map(drop)
    }

    /// Every rank's `bytes`, indexed by rank (lengths may differ between ranks).
    fn all_gather_bytes(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>>;

    /// Sends `outgoing[r]` to rank `r` (one buffer per rank, this rank's own included) and
    /// returns what every rank sent here, indexed by the sender's rank.
    fn all_to_all_bytes(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>>;

    /// Rank `root`'s `bytes` on every rank (the other ranks' `bytes` are ignored: pass an
    /// empty vector).
    fn broadcast_bytes(&self, root: usize, bytes: Vec<u8>) -> Result<Vec<u8>>;

    /// The element-wise reduction of every rank's `values` under `op` (all ranks pass the same
    /// number of values), folded in rank order. Sums wrap around on overflow.
    fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Result<Vec<u64>> {
        reduce::by_gather(self, values, op)
    }

    /// The element-wise reduction of every rank's `values` under `op`, folded in rank order, so
    /// the result is the same bit for bit on every rank, backend and run. `Max`/`Min` ignore
    /// NaN unless every value is NaN.
    fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Result<Vec<f64>> {
        reduce::by_gather(self, values, op)
    }

    /// A collective failure check: `Err` on every rank when any rank passes `Some(error)`, with
    /// the error of the lowest such rank (an equal value on every rank, that rank included:
    /// the error itself travels, not its text), else `Ok(())`.
    /// [`CommExt::agree`] is the convenient form.
    fn agree_on_failure(&self, failure: Option<&Error>) -> Result<()> {
        agree_by_gather(self, failure)
    }

    /// Queues `bytes` for rank `dest` (this rank included) with `tag` and returns at once.
    /// Messages from one rank to another arrive in the order they were sent.
    fn send(&self, dest: usize, tag: Tag, bytes: Vec<u8>) -> Result<()>;

    /// A message that has arrived for this rank, if any, from any rank with any tag; never
    /// waits. Fails once another rank is known to have failed.
    fn try_receive(&self) -> Result<Option<Message>>;

    /// The next message for this rank, waiting for one to arrive.
    fn receive(&self) -> Result<Message>;

    /// The CPU clock that measures this rank's own work: its thread's on thread ranks (the
    /// default), its process's where a rank is a process (MPI).
    fn cpu_clock(&self) -> CpuClock {
        CpuClock::Thread
    }
}

/// [`Comm::agree_on_failure`] through an all-gather of every rank's error (the value itself,
/// encoded): every rank, the failing one included, returns the decoded error of the lowest
/// failing rank, so the value is equal (`==`) on every rank, whatever its variant. `E` is the
/// library's error or a caller's ([`CommExt::agree_as`]); the transport's own failures come
/// as the library's.
fn agree_by_gather<C, E>(comm: &C, failure: Option<&E>) -> std::result::Result<(), E>
where
    C: Comm + ?Sized,
    E: Serialize + DeserializeOwned + From<Error>,
{
    let gathered = comm.all_gather_bytes(encode(&failure)?)?;
    for (rank, bytes) in gathered.iter().enumerate() {
        let failure: Option<E> = decode(bytes, rank, || "its failure flag".into())?;
        if let Some(error) = failure {
            return Err(error);
        }
    }
    Ok(())
}

/// `Err` unless `rank` (the argument `what`) is one of `size` ranks.
fn check_rank(what: &str, rank: usize, size: usize) -> Result<()> {
    if rank < size {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "{what}: rank {rank} does not exist: there are {size} ranks"
        )))
    }
}

/// `Err` unless a point-to-point message to `dest` with `tag` and `len` bytes is valid.
fn check_send(dest: usize, size: usize, tag: Tag, len: usize) -> Result<()> {
    check_rank("dest", dest, size)?;
    if tag > MAX_TAG {
        return Err(Error::Invalid(format!(
            "tag: {tag} is above the largest tag {MAX_TAG}"
        )));
    }
    if len > MAX_MESSAGE_BYTES {
        return Err(Error::Invalid(format!(
            "bytes: a message of {len} bytes is above the limit of {MAX_MESSAGE_BYTES} bytes"
        )));
    }
    Ok(())
}

/// `Err` unless `outgoing` holds one buffer per rank.
fn check_outgoing<B>(outgoing: &[B], size: usize) -> Result<()> {
    if outgoing.len() == size {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "outgoing: all-to-all needs one buffer per rank: got {} for {size} ranks",
            outgoing.len()
        )))
    }
}

/// `value` encoded with bincode (a caller's `Serialize` may refuse).
fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    bincode::serialize(value).map_err(|e| Error::Invalid(format!("value: cannot encode: {e}")))
}

/// `bytes` from rank `from` decoded with bincode; `what` names them in the error.
fn decode<T: DeserializeOwned>(
    bytes: &[u8],
    from: usize,
    what: impl FnOnce() -> String,
) -> Result<T> {
    bincode::deserialize(bytes).map_err(|e| Error::Protocol {
        from,
        message: format!("{} does not decode: {e}", what()),
    })
}
