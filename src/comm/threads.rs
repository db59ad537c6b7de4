//! The threads backend: P ranks as P OS threads of one process.
//!
//! Collectives meet on a shared [`Board`] (each rank sleeps and wakes once per collective);
//! buffers move between ranks without being copied, except that a buffer for every rank
//! (all-gather, broadcast) is shared and each rank copies it once. Point-to-point messages go
//! through one channel per rank, to which every rank holds a sender; channels keep each
//! sender's order.
//!
//! When a rank's comm is dropped — its work returned, failed or panicked — it records how on
//! the board and sends a notice on every rank's channel. A rank blocked in a collective or a
//! receive then returns that rank's error (or, if it finished normally, an error naming it),
//! so no rank waits forever.

use super::board::{Board, Deposit};
use super::{check_outgoing, check_rank, check_send, Comm, Message, Tag};
use crate::{Error, Result};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;

/// What travels on a rank's channel: a message, or the notice that a rank has left (with its
/// error if it failed).
enum Packet {
    Message(Message),
    Left { rank: usize, failure: Option<Error> },
}

/// What a rank has learned from its channel's notices.
#[derive(Default)]
struct Notices {
    /// How many other ranks have left.
    left: usize,
    /// Errors of failed ranks, by rank.
    failures: BTreeMap<usize, Error>,
}

/// One rank of the threads backend; [`super::launch_threads`] makes them.
pub struct ThreadComm {
    rank: usize,
    board: Arc<Board>,
    /// The collectives this rank has called so far.
    generation: Cell<u64>,
    /// Senders to every rank's channel, this rank's own included.
    peers: Vec<Sender<Packet>>,
    inbox: Receiver<Packet>,
    notices: RefCell<Notices>,
    /// How this rank's work ended, set by the launcher before the comm is dropped: `None`
    /// while it runs, `Some(None)` when it finished, `Some(Some(e))` when it failed.
    outcome: RefCell<Option<Option<Error>>>,
}

impl ThreadComm {
    /// The `size` ranks of one group.
    pub(super) fn group(size: usize) -> Vec<ThreadComm> {
        let board = Arc::new(Board::new(size));
        let (peers, inboxes): (Vec<_>, Vec<_>) = (0..size).map(|_| channel()).unzip();
        inboxes
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| ThreadComm {
                rank,
                board: Arc::clone(&board),
                generation: Cell::new(0),
                peers: peers.clone(),
                inbox,
                notices: RefCell::new(Notices::default()),
                outcome: RefCell::new(None),
            })
            .collect()
    }

    /// Records how this rank's work ended (`failure` is its error), announced to the other
    /// ranks when the comm is dropped.
    pub(super) fn set_outcome(&self, failure: Option<Error>) {
        *self.outcome.borrow_mut() = Some(failure);
    }

    /// This rank's part of its next collective: deposits `deposit` and returns what `take`
    /// extracts once every rank has deposited.
    fn collective<R>(
        &self,
        deposit: Deposit,
        take: impl FnOnce(&mut [Option<Deposit>]) -> Result<R>,
    ) -> Result<R> {
        let generation = self.generation.get();
        self.generation.set(generation + 1);
        self.board.exchange(self.rank, generation, deposit, take)
    }

    /// The next point-to-point message; waits for one when `wait`, else `None` if none is
    /// there. Fails once a failed rank is known.
    fn next_message(&self, wait: bool) -> Result<Option<Message>> {
        loop {
            if let Some(error) = self.notices.borrow().failures.values().next() {
                return Err(error.clone());
            }
            let packet = match self.inbox.try_recv() {
                Ok(packet) => packet,
                Err(TryRecvError::Empty) if !wait => return Ok(None),
                Err(TryRecvError::Empty) => {
                    if self.notices.borrow().left + 1 == self.size() {
                        return Err(Error::Transport {
                            rank: self.rank,
                            message: format!(
                                "rank {} waits for a message but every other rank has finished",
                                self.rank
                            ),
                        });
                    }
                    self.inbox
                        .recv()
                        .expect("a rank holds a sender to its own channel")
                }
                Err(TryRecvError::Disconnected) => {
                    unreachable!("a rank holds a sender to its own channel")
                }
            };
            match packet {
                Packet::Message(message) => return Ok(Some(message)),
                Packet::Left { rank, failure } => {
                    let mut notices = self.notices.borrow_mut();
                    notices.left += 1;
                    if let Some(error) = failure {
                        notices.failures.insert(rank, error);
                    }
                }
            }
        }
    }
}

/// The buffer an all-gather or broadcast deposit shares with every rank.
fn shared_bytes(deposit: &Option<Deposit>) -> Option<Arc<Vec<u8>>> {
    match deposit {
        Some(Deposit::Gather(bytes)) => Some(Arc::clone(bytes)),
        Some(Deposit::Broadcast { bytes, .. }) => bytes.clone(),
        _ => None,
    }
}

impl Comm for ThreadComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.peers.len()
    }

    fn all_gather_bytes(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        let shared = self.collective(Deposit::Gather(Arc::new(bytes)), |deposits| {
            Ok(deposits.iter().map(shared_bytes).collect::<Vec<_>>())
        })?;
        // Copied outside the board's lock, each rank in its own thread.
        Ok(shared
            .into_iter()
            .map(|bytes| bytes.map_or_else(Vec::new, |b| b.to_vec()))
            .collect())
    }

    fn all_to_all_bytes(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        check_outgoing(&outgoing, self.size())?;
        let me = self.rank;
        let deposit = Deposit::AllToAll(outgoing.into_iter().map(Some).collect());
        self.collective(deposit, |deposits| {
            Ok(deposits
                .iter_mut()
                .map(|deposit| match deposit {
                    Some(Deposit::AllToAll(buffers)) => buffers[me].take().unwrap_or_default(),
                    _ => Vec::new(),
                })
                .collect())
        })
    }

    fn broadcast_bytes(&self, root: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        check_rank("root", root, self.size())?;
        let bytes = (self.rank == root).then(|| Arc::new(bytes));
        let shared = self.collective(Deposit::Broadcast { root, bytes }, |deposits| {
            let same_root = |d: &Option<Deposit>| {
                matches!(d, Some(Deposit::Broadcast { root: r, .. }) if *r == root)
            };
            match deposits.iter().position(|d| !same_root(d)) {
                Some(rank) => Err(Error::Protocol {
                    from: rank,
                    message: format!(
                        "broadcast from another root than rank {}'s root {root}",
                        self.rank
                    ),
                }),
                None => Ok(shared_bytes(&deposits[root])),
            }
        })?;
        Ok(shared.map_or_else(Vec::new, |b| b.to_vec()))
    }

    fn send(&self, dest: usize, tag: Tag, bytes: Vec<u8>) -> Result<()> {
        check_send(dest, self.size(), tag, bytes.len())?;
        let message = Message {
            source: self.rank,
            tag,
            bytes,
        };
        if self.peers[dest].send(Packet::Message(message)).is_ok() {
            return Ok(());
        }
        // `dest` has dropped its channel, after recording how it left on the board.
        Err(self
            .board
            .departure(dest)
            .flatten()
            .unwrap_or_else(|| Error::Transport {
                rank: dest,
                message: format!(
                    "rank {dest} has finished: rank {} cannot send to it",
                    self.rank
                ),
            }))
    }

    fn try_receive(&self) -> Result<Option<Message>> {
        self.next_message(false)
    }

    fn receive(&self) -> Result<Message> {
        self.next_message(true)
            .map(|message| message.expect("a waiting receive returns a message"))
    }
}

impl Drop for ThreadComm {
    /// Tells every other rank that this one has left, with its error if it failed (a rank
    /// dropped before the launcher recorded its outcome counts as failed).
    fn drop(&mut self) {
        let failure = self.outcome.borrow_mut().take().unwrap_or_else(|| {
            Some(Error::Transport {
                rank: self.rank,
                message: format!("rank {} stopped before its work ended", self.rank),
            })
        });
        self.board.depart(self.rank, failure.clone());
        for (rank, peer) in self.peers.iter().enumerate() {
            if rank != self.rank {
                // A rank that has already left needs no notice.
                let _ = peer.send(Packet::Left {
                    rank: self.rank,
                    failure: failure.clone(),
                });
            }
        }
    }
}
