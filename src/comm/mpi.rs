//! The MPI backend (cargo feature `mpi`): one rank per process of an `mpirun` job, over rsmpi.
//!
//! Two duplicates of `MPI_COMM_WORLD` keep the traffic apart: collectives (and the messages
//! they are built from) on one, the user's point-to-point messages on the other, so a probe
//! for user messages never sees a collective's. Variable-length collectives first exchange the
//! sizes, then move each buffer as its own messages (in pieces of at most `i32::MAX` bytes,
//! MPI's count limit), so no buffer is concatenated or split. Point-to-point sends are
//! non-blocking: the buffer stays with its request until MPI is done with it.
//!
//! `SimpleCommunicator` is not `Send`, so neither is [`MpiComm`]: one per process, made by
//! [`super::with_mpi`].

use super::{check_outgoing, check_rank, check_send, Comm, Message, Tag};
use crate::{Error, Result};
use ::mpi::collective::{CommunicatorCollectives, Root};
use ::mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use ::mpi::request::{multiple_scope, Request};
use ::mpi::topology::{Communicator, SimpleCommunicator};
use std::cell::RefCell;

/// The tag of the messages a collective is built from (on the collectives' communicator).
const PIECE_TAG: i32 = 0;

/// The largest piece one MPI call moves: MPI counts in a C `int`.
const MAX_PIECE_BYTES: usize = i32::MAX as usize;

/// A point-to-point send still in flight, with the buffer MPI reads from.
struct PendingSend {
    request: Request<'static, [u8]>,
    /// The leaked buffer `request` reads; reclaimed once the request has completed.
    buffer: *mut [u8],
}

impl PendingSend {
    /// Frees the buffer of a completed send.
    fn reclaim(buffer: *mut [u8]) {
        // SAFETY: `buffer` came from `Box::into_raw` in `MpiComm::send`, and its request has
        // completed, so MPI no longer reads it and nothing else refers to it.
        drop(unsafe { Box::from_raw(buffer) });
    }
}

/// This process's rank of an `mpirun` job.
pub struct MpiComm {
    rank: usize,
    size: usize,
    /// Collectives and their messages.
    collectives: SimpleCommunicator,
    /// The user's point-to-point messages.
    messages: SimpleCommunicator,
    /// Sends not yet known to be complete, oldest first.
    pending: RefCell<Vec<PendingSend>>,
    /// The error [`Comm::agree_on_failure`] last returned: every rank holds it.
    agreed: RefCell<Option<Error>>,
}

impl MpiComm {
    /// This process's rank in `world`.
    pub(super) fn new(world: &SimpleCommunicator) -> MpiComm {
        MpiComm {
            rank: usize::try_from(world.rank()).expect("MPI ranks are non-negative"),
            size: usize::try_from(world.size()).expect("MPI sizes are positive"),
            collectives: world.duplicate(),
            messages: world.duplicate(),
            pending: RefCell::new(Vec::new()),
            agreed: RefCell::new(None),
        }
    }

    /// Whether every rank holds `error` (it came from an agreement).
    pub(super) fn agreed_on(&self, error: &Error) -> bool {
        self.agreed.borrow().as_ref() == Some(error)
    }

    /// Ends every process of the job with exit code 1.
    pub(super) fn abort(&self) -> ! {
        SimpleCommunicator::world().abort(1)
    }

    /// Frees the buffers of sends that have completed; waits for all when `wait`.
    fn complete_sends(&self, wait: bool) {
        let mut pending = self.pending.borrow_mut();
        let mut still = Vec::new();
        for PendingSend { request, buffer } in pending.drain(..) {
            if wait {
                request.wait();
            } else if let Err(request) = request.test() {
                still.push(PendingSend { request, buffer });
                continue;
            }
            PendingSend::reclaim(buffer);
        }
        *pending = still;
    }

    /// Sends `outgoing[r]` to every rank `r` and receives `incoming_sizes[r]` bytes from each,
    /// as pieces on the collectives' communicator.
    fn exchange(&self, outgoing: &[&[u8]], incoming_sizes: &[u64]) -> Result<Vec<Vec<u8>>> {
        let mut incoming = incoming_sizes
            .iter()
            .map(|&n| usize::try_from(n).map(|n| vec![0u8; n]))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| Error::Transport {
                rank: self.rank,
                message: "a collective buffer exceeds this machine".into(),
            })?;
        incoming[self.rank].copy_from_slice(outgoing[self.rank]);
        let pieces = |n: usize| n.div_ceil(MAX_PIECE_BYTES);
        let requests = outgoing.iter().map(|b| pieces(b.len())).sum::<usize>()
            + incoming.iter().map(|b| pieces(b.len())).sum::<usize>();
        multiple_scope(requests, |scope, all| {
            for (peer, bytes) in incoming.iter_mut().enumerate() {
                if peer != self.rank {
                    let process = self.collectives.process_at_rank(peer as i32);
                    for piece in bytes.chunks_mut(MAX_PIECE_BYTES) {
                        all.add(process.immediate_receive_into_with_tag(scope, piece, PIECE_TAG));
                    }
                }
            }
            for (peer, bytes) in outgoing.iter().enumerate() {
                if peer != self.rank {
                    let process = self.collectives.process_at_rank(peer as i32);
                    for piece in bytes.chunks(MAX_PIECE_BYTES) {
                        all.add(process.immediate_send_with_tag(scope, piece, PIECE_TAG));
                    }
                }
            }
            all.wait_all(&mut Vec::new());
        });
        Ok(incoming)
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn cpu_clock(&self) -> super::CpuClock {
        // One process is one rank: its helper threads' work is the rank's too.
        super::CpuClock::Process
    }

    fn size(&self) -> usize {
        self.size
    }

    fn barrier(&self) -> Result<()> {
        self.collectives.barrier();
        Ok(())
    }

    fn all_gather_bytes(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        let mut sizes = vec![0u64; self.size];
        self.collectives
            .all_gather_into(&(bytes.len() as u64), &mut sizes[..]);
        self.exchange(&vec![&bytes[..]; self.size], &sizes)
    }

    fn all_to_all_bytes(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        check_outgoing(&outgoing, self.size)?;
        let sizes: Vec<u64> = outgoing.iter().map(|b| b.len() as u64).collect();
        let mut incoming_sizes = vec![0u64; self.size];
        self.collectives
            .all_to_all_into(&sizes[..], &mut incoming_sizes[..]);
        let slices: Vec<&[u8]> = outgoing.iter().map(Vec::as_slice).collect();
        self.exchange(&slices, &incoming_sizes)
    }

    fn broadcast_bytes(&self, root: usize, mut bytes: Vec<u8>) -> Result<Vec<u8>> {
        check_rank("root", root, self.size)?;
        let root_process = self.collectives.process_at_rank(root as i32);
        let mut len = bytes.len() as u64;
        root_process.broadcast_into(&mut len);
        if self.rank != root {
            let len = usize::try_from(len).map_err(|_| Error::Transport {
                rank: self.rank,
                message: "a broadcast buffer exceeds this machine".into(),
            })?;
            bytes = vec![0u8; len];
        }
        for piece in bytes.chunks_mut(MAX_PIECE_BYTES) {
            root_process.broadcast_into(piece);
        }
        Ok(bytes)
    }

    fn agree_on_failure(&self, failure: Option<&Error>) -> Result<()> {
        let agreed = super::agree_by_gather(self, failure);
        if let Err(error) = &agreed {
            *self.agreed.borrow_mut() = Some(error.clone());
        }
        agreed
    }

    fn send(&self, dest: usize, tag: Tag, bytes: Vec<u8>) -> Result<()> {
        check_send(dest, self.size, tag, bytes.len())?;
        self.complete_sends(false);
        let buffer = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: `buffer` is a live allocation owned by the `PendingSend` below and freed
        // only after its request completes (`complete_sends`).
        let data: &'static [u8] = unsafe { &*buffer };
        let request = self
            .messages
            .process_at_rank(dest as i32)
            .immediate_send_with_tag(::mpi::request::StaticScope, data, i32::from(tag));
        self.pending
            .borrow_mut()
            .push(PendingSend { request, buffer });
        Ok(())
    }

    fn try_receive(&self) -> Result<Option<Message>> {
        self.complete_sends(false);
        Ok(self
            .messages
            .any_process()
            .immediate_matched_probe()
            .map(|matched| to_message(matched.matched_receive_vec::<u8>())))
    }

    fn receive(&self) -> Result<Message> {
        self.complete_sends(false);
        Ok(to_message(
            self.messages
                .any_process()
                .matched_probe()
                .matched_receive_vec::<u8>(),
        ))
    }
}

/// A received message with its status as a [`Message`].
fn to_message((bytes, status): (Vec<u8>, ::mpi::point_to_point::Status)) -> Message {
    Message {
        source: usize::try_from(status.source_rank()).expect("MPI ranks are non-negative"),
        tag: Tag::try_from(status.tag()).expect("tags are sent within 0..=MAX_TAG"),
        bytes,
    }
}

impl Drop for MpiComm {
    /// Waits for the sends still in flight (every message must be received before the end).
    fn drop(&mut self) {
        self.complete_sends(true);
    }
}
