//! The processing level's event loop on one rank ([`super::level`]), the real-ranks
//! counterpart of the simulated machine's (`crate::sim`): the rank works through its queue,
//! and between two roots it takes the messages that arrived (a non-blocking receive), hands
//! SBN's to its [`Processor`] and sends what the processor wrote, each as a real message.
//!
//! **Lazy data moves** (§5.2.2): when the next root's tree is elsewhere, the rank asks the
//! holder for it and for the trees of the neighbours queued here and held there
//! ([`Processor::fetch_group`]); the holder takes them out of its forest and sends them packed
//! in one message; the rank unpacks them and the processor sends the locate messages. While
//! the trees travel the rank goes on with the roots whose trees are here (asking for the others
//! as it meets them, a few requests at most before it waits for all their data), serves other
//! ranks' requests (two ranks may ask each other), and keeps SBN's messages for later and
//! starts no balance, so that no root of a group on its way is given away meanwhile; with
//! nothing else to do it waits for the data. A rank asked for a tree it does not hold
//! forwards the request where its share of SBN's location directory says (the rank it sent
//! the tree to, or the root's home), until it arrives.
//!
//! **Termination**: under SBN a rank that runs out of roots tells rank 0 how many it has
//! processed and waits for a message (a blocking receive, not a spin); when rank 0 counts every
//! root processed it sends every rank a stop. Then, statically or not, rounds of {handle every
//! message that arrived; all-reduce the messages sent and received} until the two sums are
//! equal: every rank is then inside the same collective, so no message is in flight. A rank
//! that fails while others may wait for it sends them its error, and every rank returns it
//! through one agreement.
//!
//! **Parts**: roots are named by global id, the forest holds them by local id. When ranks hold
//! parts of the mesh, a requester names the roots it asks for that lie outside its part, and
//! their records come with their trees; such a tree is **parked** (kept packed) and processed
//! in a forest of its own root, and the level hands the parked trees to
//! [`Run::process`](super::Run::process), which rebuilds the part once the level ended.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use super::level::{Hook, RankLevel, WireKind};
use super::share::{RootRecord, Share};
use super::RootWork;
use crate::adapt::{Forest, TreePacket};
use crate::balance::sbn::protocol::{Kind, Message as SbnMessage, Outbox};
use crate::balance::sbn::{Processor, Shared};
use crate::comm::{Comm, CommExt, Message, ReduceOp};
use crate::hash::IntSet;
use crate::partition::FlatRows;
use crate::{Error, Result};

/// Data requests a rank sends before it waits for all their data: the balancing messages it
/// keeps meanwhile are then handled at least every this many round trips.
const PIPELINE: usize = 4;

/// The tags of the level's messages, one per kind (above the transport's own tests' tags):
/// SBN's balancing, distribution and locate messages, data requests and packed trees, cut
/// faces, processed counts, the stop and a failure.
const TAG_BALANCE: u16 = 0x5B00;
const TAG_DISTRIBUTION: u16 = 0x5B01;
const TAG_LOCATE: u16 = 0x5B02;
const TAG_REQUEST: u16 = 0x5B03;
const TAG_DATA: u16 = 0x5B04;
const TAG_FACES: u16 = 0x5B05;
const TAG_DONE: u16 = 0x5B06;
const TAG_STOP: u16 = 0x5B07;
const TAG_FAIL: u16 = 0x5B08;

/// What SBN's processor wrote during one action: `(to, message)`.
#[derive(Default)]
struct Sent(Vec<(u32, SbnMessage)>);

impl Outbox for Sent {
    fn send(&mut self, _from: u32, to: u32, msg: SbnMessage) {
        self.0.push((to, msg));
    }
}

/// A data request: the rank that wants the trees, the roots, and those of them outside the
/// requester's part of the mesh.
type Request = (u32, Vec<u32>, Vec<u32>);

/// Trees sent on request, with their work's inputs ([`RootWork::pack`]) and the moves their
/// data will have made in the level, one per tree, and the records of those of their roots
/// outside the requester's part.
type Data = (Vec<TreePacket>, Vec<Vec<u8>>, Vec<u32>, Vec<RootRecord>);

/// A tree that arrived at a rank whose part lacks its root, with its root's record.
pub(super) type Parked = (TreePacket, RootRecord);

/// How a level's roots are processed, and where their faces lead.
pub(super) enum Plan<'a> {
    /// Each rank processes the roots it holds; their rows (by global id) name their
    /// neighbours' owners.
    Static(&'a FlatRows),
    /// SBN balances: its shared state (the level's graph by global id), every root's owner at
    /// the start and the roots it queues on each rank (`None`: on their owners).
    Sbn {
        shared: &'a Shared<'a>,
        owner: &'a [u32],
        queued: Option<&'a [u32]>,
    },
}

/// One rank's processing level. Roots are named by global id; the forest holds them by
/// local id (the same when the rank holds the whole mesh).
pub(super) struct Engine<'a, C: Comm + ?Sized> {
    comm: &'a C,
    me: u32,
    forest: &'a mut Forest,
    /// The part of the mesh held here (a tree arriving outside it is parked).
    share: &'a Share,
    /// Static: the rows of the roots held here, processed in turn.
    rows: Option<&'a FlatRows>,
    /// SBN's shared state and this rank's processor (`None`: static).
    sbn: Option<(&'a Shared<'a>, Processor)>,
    /// What processing a root does.
    work: &'a mut dyn RootWork,
    /// This rank's test hook.
    hook: Option<Hook>,
    out: Sent,
    report: RankLevel,
    /// Point-to-point messages sent and received here, for the termination.
    sent: u64,
    received: u64,
    /// Roots whose trees this rank asked for and waits for.
    awaiting: IntSet<u32>,
    /// Roots taken off the queue whose trees are on their way.
    pending: Vec<u32>,
    /// Data requests sent since nothing was last awaited.
    requests: usize,
    /// SBN messages kept while waiting for data.
    deferred: VecDeque<Message>,
    /// Roots processed here.
    processed: Vec<u32>,
    /// Rank 0: every rank's last reported count of roots processed.
    counts: Vec<u64>,
    /// The count last reported to rank 0.
    reported: Option<u64>,
    stopped: bool,
    /// Another rank's failure arrived (it was not this rank's own).
    remote_failure: bool,
    /// Trees that arrived outside this rank's part, kept packed with their roots' records
    /// until the level ends (or they leave again).
    parked: BTreeMap<u32, Parked>,
}

impl<'a, C: Comm + ?Sized> Engine<'a, C> {
    /// Rank `comm.rank()`'s level over `forest` on the part `share`, processed as `plan`
    /// says; `work` processes a root, and `hook` is this rank's test hook.
    pub(super) fn new(
        comm: &'a C,
        (forest, share): (&'a mut Forest, &'a Share),
        plan: Plan<'a>,
        (work, hook): (&'a mut dyn RootWork, Option<Hook>),
    ) -> Self {
        let me = comm.rank() as u32;
        let (rows, sbn) = match plan {
            Plan::Static(rows) => (Some(rows), None),
            Plan::Sbn {
                shared,
                owner,
                queued,
            } => {
                let queue = queued.unwrap_or(owner);
                let own: Vec<u32> = (0..owner.len() as u32)
                    .filter(|&r| queue[r as usize] == me)
                    .collect();
                let held: Vec<u32> = (0..owner.len() as u32)
                    .filter(|&r| owner[r as usize] == me)
                    .collect();
                let processor = Processor::new(me, &own, &held, Arc::from(owner), shared);
                (None, Some((shared, processor)))
            }
        };
        Engine {
            comm,
            me,
            forest,
            share,
            rows,
            sbn,
            work,
            hook,
            out: Sent::default(),
            report: RankLevel::default(),
            sent: 0,
            received: 0,
            awaiting: IntSet::default(),
            pending: Vec::new(),
            requests: 0,
            deferred: VecDeque::new(),
            processed: Vec::new(),
            counts: vec![0; comm.size()],
            reported: None,
            stopped: false,
            remote_failure: false,
            parked: BTreeMap::new(),
        }
    }

    /// Runs the level; returns this rank's account, under SBN every root's owner after it
    /// (by global id; statically nothing moves), and the trees held here outside this rank's
    /// part (parked, ascending by root).
    pub(super) fn run(mut self) -> Result<(RankLevel, Option<Vec<u32>>, Vec<Parked>)> {
        let start = Instant::now();
        let worked = if self.sbn.is_some() {
            self.work_balanced()
        } else {
            self.work_static()
        };
        if let Err(error) = &worked {
            if !self.remote_failure {
                self.comm.tell_failure(TAG_FAIL, error);
            }
        }
        // Waiting for the other ranks to end their work, the termination and the owners'
        // gather: idle time, the level's end.
        let clock = Instant::now();
        self.comm.agree(worked)?;
        self.terminate()?;
        let owner = match self.sbn.is_some() {
            true => Some(self.owners()?),
            false => None,
        };
        self.report.times.idle += clock.elapsed().as_secs_f64();
        match (&self.sbn, &owner) {
            (Some((_, p)), Some(owner)) => {
                self.report.balances = u64::from(p.initiated);
                self.report.table_agrees = p.directory().agrees(owner);
            }
            _ => self.report.table_agrees = true,
        }
        self.report.times.total = start.elapsed().as_secs_f64();
        Ok((self.report, owner, self.parked.into_values().collect()))
    }

    /// The local id of root `g` (global id) when its tree is held here.
    fn held(&self, g: u32) -> Option<u32> {
        let local = self.forest.initial().local_root(g)?;
        self.forest.holds(local).then_some(local)
    }

    /// True when root `g`'s tree (global id) is held here (in the forest or parked).
    fn holds(&self, g: u32) -> bool {
        self.held(g).is_some() || self.parked.contains_key(&g)
    }

    /// Static: the roots held here, in order, polling between two.
    fn work_static(&mut self) -> Result<()> {
        let rows = self.rows.expect("a static level has its rows");
        for &v in &rows.roots {
            self.poll()?;
            self.job(v)?;
        }
        Ok(())
    }

    /// SBN: fig. 4's main loop until rank 0's stop.
    fn work_balanced(&mut self) -> Result<()> {
        let nroots = self.share.nroots() as u64;
        loop {
            self.poll()?;
            if self.stopped {
                return Ok(());
            }
            if let Some(i) = self.pending.iter().position(|&v| self.holds(v)) {
                let v = self.pending.swap_remove(i);
                self.job(v)?;
                continue;
            }
            let waiting = !self.awaiting.is_empty();
            if waiting && self.requests >= PIPELINE {
                self.wait_for_data()?;
                continue;
            }
            let clock = Instant::now();
            let next = match &mut self.sbn {
                Some((shared, p)) => {
                    // No balance while data is on its way: a root of the group must not leave.
                    if !waiting {
                        p.check(shared, &mut self.out);
                    }
                    p.next_root()
                }
                None => None,
            };
            self.flush()?;
            self.report.times.balancing += clock.elapsed().as_secs_f64();
            if let Some(v) = next {
                if self.fetch(v)? {
                    self.job(v)?;
                } else {
                    self.pending.push(v);
                }
                continue;
            }
            if !self.pending.is_empty() {
                if self.awaiting.is_empty() {
                    // No tree is on its way: waiting would never end.
                    return Err(Error::Protocol {
                        from: self.me as usize,
                        message: format!(
                            "rank {} waits for root {}'s tree, which it never asked for",
                            self.me, self.pending[0]
                        ),
                    });
                }
                self.wait_for_data()?;
                continue;
            }
            let done = self.processed.len() as u64;
            if self.me == 0 {
                self.counts[0] = done;
                if self.counts.iter().sum::<u64>() == nroots {
                    for q in 1..self.comm.size() {
                        self.send(q as u32, TAG_STOP, WireKind::Termination, Vec::new())?;
                    }
                    return Ok(());
                }
            } else if self.reported != Some(done) {
                self.send(0, TAG_DONE, WireKind::Termination, encode(&done))?;
                self.reported = Some(done);
            }
            let clock = Instant::now();
            let msg = self.comm.receive()?;
            self.received += 1;
            self.report.times.idle += clock.elapsed().as_secs_f64();
            self.dispatch(msg)?;
        }
    }

    /// Waits for a message (the data asked for) and handles it.
    fn wait_for_data(&mut self) -> Result<()> {
        let clock = Instant::now();
        let msg = self.comm.receive()?;
        self.received += 1;
        self.report.times.migration += clock.elapsed().as_secs_f64();
        self.dispatch(msg)
    }

    /// Handles the messages kept while waiting for data and every one that has arrived.
    fn poll(&mut self) -> Result<()> {
        while self.awaiting.is_empty() {
            let Some(msg) = self.deferred.pop_front() else {
                break;
            };
            self.dispatch(msg)?;
        }
        while let Some(msg) = self.comm.try_receive()? {
            self.received += 1;
            self.dispatch(msg)?;
        }
        Ok(())
    }

    /// Handles one message.
    fn dispatch(&mut self, msg: Message) -> Result<()> {
        match msg.tag {
            TAG_BALANCE | TAG_DISTRIBUTION | TAG_LOCATE if !self.awaiting.is_empty() => {
                self.deferred.push_back(msg)
            }
            TAG_BALANCE | TAG_DISTRIBUTION | TAG_LOCATE => self.protocol(&msg)?,
            TAG_REQUEST => {
                let clock = Instant::now();
                self.serve(msg.source, msg.decode()?)?;
                self.report.times.migration += clock.elapsed().as_secs_f64();
            }
            TAG_DATA => {
                let clock = Instant::now();
                self.unpack(msg.source, msg.decode()?)?;
                self.report.times.migration += clock.elapsed().as_secs_f64();
            }
            TAG_FACES => {}
            TAG_DONE if self.me == 0 => self.counts[msg.source] = msg.decode()?,
            TAG_STOP => self.stopped = true,
            TAG_FAIL => {
                self.remote_failure = true;
                return Err(msg.decode()?);
            }
            tag => {
                return Err(Error::Protocol {
                    from: msg.source,
                    message: format!(
                        "rank {} received an unexpected message (tag {tag})",
                        self.me
                    ),
                })
            }
        }
        Ok(())
    }

    /// An SBN message: the processor handles it.
    fn protocol(&mut self, msg: &Message) -> Result<()> {
        let clock = Instant::now();
        let decoded: SbnMessage = msg.decode()?;
        let Some((shared, p)) = &mut self.sbn else {
            return Err(Error::Protocol {
                from: msg.source,
                message: format!(
                    "rank {} received a balancing message in a level without SBN",
                    self.me
                ),
            });
        };
        if let SbnMessage::Distribute { jobs, .. } = &decoded {
            self.report.roots_transferred += jobs.len() as u64;
        }
        p.handle(msg.source as u32, decoded, shared, &mut self.out);
        self.flush()?;
        self.report.times.balancing += clock.elapsed().as_secs_f64();
        Ok(())
    }

    /// Sends what the processor wrote.
    fn flush(&mut self) -> Result<()> {
        for (to, msg) in std::mem::take(&mut self.out.0) {
            let (tag, kind) = match msg.kind() {
                Kind::Balance => (TAG_BALANCE, WireKind::Balance),
                Kind::Distribution => (TAG_DISTRIBUTION, WireKind::Distribution),
                // Data moves are this loop's own messages, never the processor's.
                Kind::Migration => unreachable!("SBN's processor sent a data move as a message"),
                Kind::Locate => (TAG_LOCATE, WireKind::Locate),
            };
            self.send(to, tag, kind, encode(&msg))?;
        }
        Ok(())
    }

    /// Sends `bytes` to `to`, counted as `kind`.
    fn send(&mut self, to: u32, tag: u16, kind: WireKind, bytes: Vec<u8>) -> Result<()> {
        let t = &mut self.report.sent[kind.index()];
        t.messages += 1;
        t.bytes += bytes.len() as u64;
        self.sent += 1;
        self.comm.send(to as usize, tag, bytes)
    }

    /// Asks for v's tree, with those of its group, if it is elsewhere and not asked for yet;
    /// returns whether v's tree is here.
    fn fetch(&mut self, v: u32) -> Result<bool> {
        let clock = Instant::now();
        let here = self.holds(v);
        let group = match &self.sbn {
            Some((shared, p)) if !here => p.fetch_group(v, shared),
            _ => None,
        };
        if let Some((src, mut group)) = group {
            group.retain(|&r| !self.holds(r) && !self.awaiting.contains(&r));
            if !group.is_empty() {
                self.awaiting.extend(group.iter().copied());
                self.requests += 1;
                let initial = self.forest.initial();
                let outside = group
                    .iter()
                    .copied()
                    .filter(|&g| initial.local_root(g).is_none())
                    .collect();
                let request: Request = (self.me, group, outside);
                self.send(src, TAG_REQUEST, WireKind::Migration, encode(&request))?;
            }
        }
        self.report.times.migration += clock.elapsed().as_secs_f64();
        Ok(self.holds(v))
    }

    /// Another rank asks for trees: sends those held here in one message, and forwards the
    /// request for the others where SBN's location directory says.
    /// `source` sent the request (the requester or a rank that forwarded it).
    fn serve(&mut self, source: usize, (requester, roots, outside): Request) -> Result<()> {
        let (here, gone): (Vec<u32>, Vec<u32>) = roots.into_iter().partition(|&r| self.holds(r));
        if !here.is_empty() {
            let local: Vec<u32> = here.iter().filter_map(|&r| self.held(r)).collect();
            // A requester whose part lacks a root gets its record with its tree.
            let mut records: Vec<RootRecord> = local
                .iter()
                .filter(|&&r| outside.contains(&self.forest.initial().root_gid(r)))
                .map(|&r| self.share.record(r))
                .collect();
            let mut packets = self.forest.take_trees(&local)?;
            for r in &here {
                let Some((packet, record)) = self.parked.remove(r) else {
                    continue;
                };
                if outside.contains(r) {
                    records.push(record);
                }
                packets.push(packet);
            }
            let mut inputs = Vec::with_capacity(packets.len());
            for p in &packets {
                self.report.elements_sent += p.nelems() as u64;
                inputs.push(self.work.pack(p.root)?);
            }
            let sent: Vec<u32> = packets.iter().map(|p| p.root).collect();
            let moves = match &mut self.sbn {
                Some((shared, p)) => p.data_left(&sent, requester, shared),
                None => Vec::new(),
            };
            let moves = moves.into_iter().map(|(_, m)| m).collect();
            let data: Data = (packets, inputs, moves, records);
            self.send(requester, TAG_DATA, WireKind::Migration, encode(&data))?;
        }
        let mut onwards: BTreeMap<u32, (Vec<u32>, Vec<u32>)> = BTreeMap::new();
        for r in gone {
            let next = self.sbn.as_ref().map(|(_, p)| p.directory().next_hop(r));
            let Some(to) = next.filter(|&to| to != self.me) else {
                return Err(Error::Protocol {
                    from: source,
                    message: format!(
                        "rank {} was asked for root {r}'s tree (for rank {requester}), which it \
                         does not hold and knows no other rank to ask",
                        self.me
                    ),
                });
            };
            let (roots, out) = onwards.entry(to).or_default();
            roots.push(r);
            if outside.contains(&r) {
                out.push(r);
            }
        }
        for (to, (roots, out)) in onwards {
            let request: Request = (requester, roots, out);
            self.send(to, TAG_REQUEST, WireKind::Migration, encode(&request))?;
        }
        Ok(())
    }

    /// Trees asked for arrived with their work's inputs: into the forest (or parked, when its
    /// part lacks roots around them) and the work, and the processor tells everyone.
    fn unpack(&mut self, source: usize, (packets, inputs, moves, records): Data) -> Result<()> {
        let unexpected = packets.iter().find(|p| !self.awaiting.contains(&p.root));
        if let Some(p) = unexpected {
            return Err(Error::Protocol {
                from: source,
                message: format!(
                    "rank {} received root {}'s tree, which it did not ask for",
                    self.me, p.root
                ),
            });
        }
        if inputs.len() != packets.len() || moves.len() != packets.len() {
            return Err(Error::Protocol {
                from: source,
                message: format!(
                    "rank {} received {} trees with {} inputs and {} move counts",
                    self.me,
                    packets.len(),
                    inputs.len(),
                    moves.len()
                ),
            });
        }
        let roots: Vec<u32> = packets.iter().map(|p| p.root).collect();
        let moved: Vec<(u32, u32)> = roots.iter().copied().zip(moves).collect();
        for (p, bytes) in packets.iter().zip(inputs) {
            self.report.elements_received += p.nelems() as u64;
            self.work.unpack(p.root, bytes)?;
        }
        // A tree whose root is outside this rank's part is parked until the level ends: the
        // part grows once a level, not at every arrival.
        let initial = self.forest.initial();
        let (inside, outside): (Vec<TreePacket>, Vec<TreePacket>) = packets
            .into_iter()
            .partition(|p| initial.local_root(p.root).is_some());
        self.forest.put_trees(&inside)?;
        for p in outside {
            let Some(record) = records.iter().find(|rec| rec.gid == p.root) else {
                return Err(Error::Protocol {
                    from: source,
                    message: format!("root {}'s tree arrived without its record", p.root),
                });
            };
            self.parked.insert(p.root, (p, record.clone()));
        }
        for r in &roots {
            self.awaiting.remove(r);
        }
        if self.awaiting.is_empty() {
            self.requests = 0;
        }
        self.report.data_moves += roots.len() as u64;
        if let Some((shared, p)) = &mut self.sbn {
            p.data_arrived(&moved, shared, &mut self.out);
        }
        self.flush()
    }

    /// Processes root v (global id): the work, then (when the work models its communication)
    /// one message of its cut faces to each rank holding a neighbour. A parked tree is
    /// processed in a forest of its own root.
    fn job(&mut self, v: u32) -> Result<()> {
        let clock = Instant::now();
        self.hook_before_job()?;
        let done = match self.parked.get(&v) {
            Some((packet, record)) => {
                let part = self.share.of_records(std::slice::from_ref(record))?;
                let n = part.initial().nroots();
                let opts = self.forest.options().clone();
                let mut visiting = Forest::holding(part.initial(), opts, vec![false; n]);
                visiting.put_trees(std::slice::from_ref(packet))?;
                let local = part.initial().local_root(v).expect("its own record");
                self.work.process(&visiting, local)?
            }
            None => {
                let local = self.held(v).ok_or(Error::RootNotHeld { root: v })?;
                self.work.process(self.forest, local)?
            }
        };
        if let Some(Hook::Slow { pause, .. }) = self.hook {
            std::thread::sleep(pause);
        }
        self.report.roots += 1;
        self.report.leaves += done.leaves;
        self.report.digest = self.report.digest.wrapping_add(done.digest);
        self.processed.push(v);
        self.report.times.processing += clock.elapsed().as_secs_f64();
        let face_bytes = self.work.cut_face_bytes();
        if face_bytes == 0 {
            return Ok(());
        }
        let clock = Instant::now();
        let mut faces: BTreeMap<u32, u64> = BTreeMap::new();
        let mut face = |q: u32, cwgt: u64| {
            if q != self.me {
                *faces.entry(q).or_default() += cwgt;
            }
        };
        match (&self.sbn, self.rows) {
            (Some((shared, p)), _) => {
                let m = &shared.model;
                for i in m.xadj[v as usize] as usize..m.xadj[v as usize + 1] as usize {
                    face(p.directory().holder(m.adjncy[i]), m.weights.cwgt[i]);
                }
            }
            (None, Some(rows)) => {
                let row = rows
                    .roots
                    .binary_search(&v)
                    .expect("a static level's own root");
                for i in rows.xadj[row] as usize..rows.xadj[row + 1] as usize {
                    face(rows.owner[i], rows.cwgt[i]);
                }
            }
            (None, None) => unreachable!("a level is static or balanced by SBN"),
        }
        for (q, n) in faces {
            let bytes = vec![0u8; (n * face_bytes) as usize];
            self.send(q, TAG_FACES, WireKind::Faces, bytes)?;
        }
        self.report.times.communication += clock.elapsed().as_secs_f64();
        Ok(())
    }

    /// [`Hook::Fail`]: fails once the roots to process first are done.
    fn hook_before_job(&self) -> Result<()> {
        match self.hook {
            Some(Hook::Fail { after, .. }) if self.processed.len() as u64 >= after => Err(
                Error::Invalid(format!("rank {} failed (test hook)", self.me)),
            ),
            _ => Ok(()),
        }
    }

    /// Rounds of {handle what arrived; all-reduce sent and received} until nothing is in
    /// flight (a collective). A rank failing meanwhile makes every rank return its error.
    fn terminate(&mut self) -> Result<()> {
        loop {
            let drained = self.drain();
            let failed = u64::from(drained.is_err());
            let sums = self
                .comm
                .all_reduce_u64(&[self.sent, self.received, failed], ReduceOp::Sum)?;
            if sums[2] > 0 {
                self.comm.agree(drained)?;
                unreachable!("a rank failed while the level ended, yet every rank agreed");
            }
            if sums[0] == sums[1] {
                return Ok(());
            }
        }
    }

    /// Handles every message that has arrived (SBN's processor no longer starts anything).
    fn drain(&mut self) -> Result<()> {
        self.poll()
    }

    /// Every root's owner after the level (by global id), from what every rank processed and
    /// holds (a collective): each root processed exactly once, held by exactly the rank that
    /// did.
    fn owners(&self) -> Result<Vec<u32>> {
        let n = self.share.nroots();
        let initial = self.forest.initial();
        let mut held: Vec<u32> = (0..self.forest.nroots() as u32)
            .filter(|&r| self.forest.holds(r))
            .map(|r| initial.root_gid(r))
            .chain(self.parked.keys().copied())
            .collect();
        held.sort_unstable();
        let all = self
            .comm
            .all_gather_serde(&(self.processed.clone(), held))?;
        let mut owner = vec![u32::MAX; n];
        for (rank, (processed, _)) in all.iter().enumerate() {
            for &r in processed {
                if std::mem::replace(&mut owner[r as usize], rank as u32) != u32::MAX {
                    panic!("root {r} was processed twice");
                }
            }
        }
        if let Some(r) = owner.iter().position(|&o| o == u32::MAX) {
            panic!("root {r} was never processed");
        }
        for (rank, (_, held)) in all.iter().enumerate() {
            let count = held.len();
            if count != owner.iter().filter(|&&o| o as usize == rank).count()
                || held.iter().any(|&r| owner[r as usize] as usize != rank)
            {
                panic!("rank {rank} does not hold exactly the trees of the roots it processed");
            }
        }
        Ok(owner)
    }
}

/// `value` in bincode, as [`Message::decode`] reads it (plume's own messages always encode).
fn encode<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    bincode::serialize(value).expect("plume's messages encode")
}
