//! The threads backend: P ranks as P OS threads of one process, talking over channels.
//!
//! Every rank owns two receiving channels, one for collectives and one for point-to-point
//! messages, and holds a sender to every rank's channels (its own included). Buffers move
//! through the channels without being copied (an all-gather or broadcast shares one buffer and
//! each receiver copies it once). A collective sends first, then takes one packet from each
//! rank it needs in rank order; packets of a later collective that arrive early wait in a
//! per-sender queue (channels keep each sender's order).
//!
//! When a rank's comm is dropped — its work returned, failed or panicked — it tells every
//! rank on both channels. A rank blocked waiting for a departed rank then returns that rank's
//! error (or, if it finished normally, an error naming it), so no rank waits forever.

use super::{check_outgoing, check_rank, check_send, Comm, Message, Tag};
use crate::{Error, Result};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;

/// A collective buffer in transit: moved to one receiver, or shared by all.
enum Payload {
    Owned(Vec<u8>),
    Shared(Arc<Vec<u8>>),
}

impl Payload {
    /// The bytes, copied only if other ranks still share them.
    fn into_vec(self) -> Vec<u8> {
        match self {
            Payload::Owned(bytes) => bytes,
            Payload::Shared(bytes) => Arc::try_unwrap(bytes).unwrap_or_else(|b| b.to_vec()),
        }
    }
}

/// A rank leaving the group: `failure` is its error, `None` if it finished normally.
#[derive(Clone)]
struct Departure {
    rank: usize,
    failure: Option<Error>,
}

/// What travels on a channel: data, or the notice that a rank has left.
enum Packet<M> {
    Data(M),
    Left(Departure),
}

/// A collective packet's data: the sender's rank and its buffer.
type CollectivePacket = Packet<(usize, Payload)>;

/// The sending ends of one rank's two channels.
#[derive(Clone)]
struct Peer {
    collective: Sender<CollectivePacket>,
    p2p: Sender<Packet<Message>>,
}

/// What a rank has learned from its channels and not yet handed out.
struct Inbox {
    /// Collective buffers that arrived ahead of their collective, per sender.
    early: Vec<VecDeque<Payload>>,
    /// Departures read on the collective channel, per rank: after one, nothing more comes
    /// from that rank there.
    collective_left: Vec<Option<Departure>>,
    /// How many ranks' departures were read on the point-to-point channel.
    p2p_left: usize,
    /// Errors of failed ranks, by rank, from either channel.
    failures: BTreeMap<usize, Error>,
}

/// One rank of the threads backend; [`super::launch_threads`] makes them.
pub struct ThreadComm {
    rank: usize,
    peers: Vec<Peer>,
    collective_rx: Receiver<CollectivePacket>,
    p2p_rx: Receiver<Packet<Message>>,
    inbox: RefCell<Inbox>,
    /// How this rank's work ended, set by the launcher before the comm is dropped: `None`
    /// while it runs, `Some(None)` when it finished, `Some(Some(e))` when it failed.
    outcome: RefCell<Option<Option<Error>>>,
}

impl ThreadComm {
    /// The `size` ranks of one group.
    pub(super) fn group(size: usize) -> Vec<ThreadComm> {
        let (peers, receivers): (Vec<Peer>, Vec<_>) = (0..size)
            .map(|_| {
                let (collective, collective_rx) = channel();
                let (p2p, p2p_rx) = channel();
                (Peer { collective, p2p }, (collective_rx, p2p_rx))
            })
            .unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(rank, (collective_rx, p2p_rx))| ThreadComm {
                rank,
                peers: peers.clone(),
                collective_rx,
                p2p_rx,
                inbox: RefCell::new(Inbox {
                    early: (0..size).map(|_| VecDeque::new()).collect(),
                    collective_left: vec![None; size],
                    p2p_left: 0,
                    failures: BTreeMap::new(),
                }),
                outcome: RefCell::new(None),
            })
            .collect()
    }

    /// Records how this rank's work ended (`failure` is its error), announced to the other
    /// ranks when the comm is dropped.
    pub(super) fn set_outcome(&self, failure: Option<Error>) {
        *self.outcome.borrow_mut() = Some(failure);
    }

    /// Hands `payload` to rank `dest`'s collective channel.
    fn post(&self, dest: usize, payload: Payload) {
        // A send fails only when `dest` has left; its departure notice, queued before it
        // dropped its channels, is what `take_from` then reports.
        let _ = self.peers[dest]
            .collective
            .send(Packet::Data((self.rank, payload)));
    }

    /// The next collective buffer from rank `source`, waiting for it.
    fn take_from(&self, source: usize) -> Result<Payload> {
        loop {
            {
                let mut inbox = self.inbox.borrow_mut();
                if let Some(payload) = inbox.early[source].pop_front() {
                    return Ok(payload);
                }
                if let Some(departure) = &inbox.collective_left[source] {
                    return Err(self.departure_error(departure));
                }
            }
            let packet = self
                .collective_rx
                .recv()
                .expect("a rank holds a sender to its own channel");
            self.file_collective(packet);
        }
    }

    /// One buffer from every rank, in rank order.
    fn take_from_all(&self) -> Result<Vec<Vec<u8>>> {
        (0..self.size())
            .map(|source| self.take_from(source).map(Payload::into_vec))
            .collect()
    }

    /// Puts a packet read on the collective channel where `take_from` looks.
    fn file_collective(&self, packet: CollectivePacket) {
        let mut inbox = self.inbox.borrow_mut();
        match packet {
            Packet::Data((source, payload)) => inbox.early[source].push_back(payload),
            Packet::Left(departure) => {
                note_failure(&mut inbox, &departure);
                let rank = departure.rank;
                inbox.collective_left[rank] = Some(departure);
            }
        }
    }

    /// The error of waiting for a rank that has left.
    fn departure_error(&self, departure: &Departure) -> Error {
        departure.failure.clone().unwrap_or_else(|| {
            Error::Invalid(format!(
                "rank {} finished while rank {} waited for it in a collective \
                 (every rank must call the same collectives in the same order)",
                departure.rank, self.rank
            ))
        })
    }

    /// The next point-to-point message; waits for one when `wait`, else `None` if none is
    /// there. Fails once a failed rank is known.
    fn next_message(&self, wait: bool) -> Result<Option<Message>> {
        loop {
            if let Some(error) = self.inbox.borrow().failures.values().next() {
                return Err(error.clone());
            }
            let packet = match self.p2p_rx.try_recv() {
                Ok(packet) => packet,
                Err(TryRecvError::Empty) if !wait => return Ok(None),
                Err(TryRecvError::Empty) => {
                    if self.inbox.borrow().p2p_left + 1 == self.size() {
                        return Err(Error::Invalid(format!(
                            "rank {} waits for a message but every other rank has finished",
                            self.rank
                        )));
                    }
                    self.p2p_rx
                        .recv()
                        .expect("a rank holds a sender to its own channel")
                }
                Err(TryRecvError::Disconnected) => {
                    unreachable!("a rank holds a sender to its own channel")
                }
            };
            match packet {
                Packet::Data(message) => return Ok(Some(message)),
                Packet::Left(departure) => {
                    let mut inbox = self.inbox.borrow_mut();
                    note_failure(&mut inbox, &departure);
                    inbox.p2p_left += 1;
                }
            }
        }
    }
}

/// Records `departure`'s error, if it failed.
fn note_failure(inbox: &mut Inbox, departure: &Departure) {
    if let Some(error) = &departure.failure {
        inbox.failures.insert(departure.rank, error.clone());
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
        let shared = Arc::new(bytes);
        for dest in 0..self.size() {
            self.post(dest, Payload::Shared(Arc::clone(&shared)));
        }
        drop(shared);
        self.take_from_all()
    }

    fn all_to_all_bytes(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        check_outgoing(&outgoing, self.size())?;
        for (dest, bytes) in outgoing.into_iter().enumerate() {
            self.post(dest, Payload::Owned(bytes));
        }
        self.take_from_all()
    }

    fn broadcast_bytes(&self, root: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        check_rank(root, self.size())?;
        if self.rank != root {
            return self.take_from(root).map(Payload::into_vec);
        }
        let shared = Arc::new(bytes);
        for dest in (0..self.size()).filter(|&d| d != root) {
            self.post(dest, Payload::Shared(Arc::clone(&shared)));
        }
        Ok(Payload::Shared(shared).into_vec())
    }

    fn send(&self, dest: usize, tag: Tag, bytes: Vec<u8>) -> Result<()> {
        check_send(dest, self.size(), tag, bytes.len())?;
        let message = Message {
            source: self.rank,
            tag,
            bytes,
        };
        if self.peers[dest].p2p.send(Packet::Data(message)).is_ok() {
            return Ok(());
        }
        // `dest` has dropped its channels, after queueing its departure notice for us.
        while let Ok(packet) = self.collective_rx.try_recv() {
            self.file_collective(packet);
        }
        let inbox = self.inbox.borrow();
        Err(match &inbox.collective_left[dest] {
            Some(Departure {
                failure: Some(error),
                ..
            }) => error.clone(),
            _ => Error::Invalid(format!(
                "rank {dest} has finished: rank {} cannot send to it",
                self.rank
            )),
        })
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
            Some(Error::Invalid(format!(
                "rank {} stopped before its work ended",
                self.rank
            )))
        });
        let departure = Departure {
            rank: self.rank,
            failure,
        };
        for (rank, peer) in self.peers.iter().enumerate() {
            if rank != self.rank {
                // A rank that has already left needs no notice.
                let _ = peer.collective.send(Packet::Left(departure.clone()));
                let _ = peer.p2p.send(Packet::Left(departure.clone()));
            }
        }
    }
}
