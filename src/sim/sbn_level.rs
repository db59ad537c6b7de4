//! One adaptation level processed under the SBN balancer on the simulated machine: every root
//! is one job, processed once; processors check their messages between jobs (fig. 4's main
//! loop); a root's data moves when the processor about to process it asks for it, together with
//! the data of its neighbours queued there and held on the same processor (§5.2.2), and a
//! locate message tells each moved root's home (`balance::sbn::directory`).
//!
//! Data requests are served by the holder's transport without its CPU (one-sided, as MPI RMA),
//! so only the requester's time is charged, or, with [`Machine::served_between_jobs`] (as
//! plume's ranks serve them), once the holder's job in progress ends, packing on the holder's
//! time; control messages are handled between jobs. Under
//! [`Broadcast::Sbn`](crate::balance::sbn::policy::Broadcast) [Harvey 2001, §5.2.2] the request is
//! broadcast over the SBN (`P − 1` messages, forwarded by the transports, reaching the holder
//! after its depth in the requester's pattern, one latency a hop); under `Broadcast::Direct`
//! it goes to the holder. The machine's memory is `O(roots + P)`: the processors share the
//! level's starting places of the data and each keeps its own share of the directory.

use std::sync::Arc;

use std::time::{Duration, Instant};

use super::events::Events;
use super::{Machine, TimeSplit};
use crate::balance::sbn::protocol::{Kind, Message, Outbox, Processor, Shared};
use crate::metrics::{Cut, Movement};
use crate::{Error, Result};

/// Messages and bytes of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Traffic {
    /// Messages sent.
    pub messages: u64,
    /// Bytes sent.
    pub bytes: u64,
}

/// Messages by kind [Harvey 2001, tables 2, 3 and 6].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MessageCounts {
    /// Balancing messages (gathering loads).
    pub balance: Traffic,
    /// Distribution messages (levels and reassigned roots).
    pub distribution: Traffic,
    /// Migration messages (data requests and the data).
    pub migration: Traffic,
    /// Locate messages.
    pub locate: Traffic,
}

impl MessageCounts {
    /// Counts `copies` messages of `kind` of `bytes` each.
    fn add(&mut self, kind: Kind, bytes: u64, copies: u64) {
        let t = match kind {
            Kind::Balance => &mut self.balance,
            Kind::Distribution => &mut self.distribution,
            Kind::Migration => &mut self.migration,
            Kind::Locate => &mut self.locate,
        };
        t.messages += copies;
        t.bytes += bytes * copies;
    }

    /// Messages of every kind.
    pub fn total(&self) -> u64 {
        [self.balance, self.distribution, self.migration, self.locate]
            .iter()
            .map(|t| t.messages)
            .sum()
    }
}

/// The balancer's own CPU time [Harvey 2001, table 7], measured with the wall clock.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BalancerCpu {
    /// Handling balancing and distribution messages, thresholds (selection excluded).
    pub balancing: Duration,
    /// Preparing data moves and locate messages.
    pub migration: Duration,
    /// Choosing the next root to process and the roots to give away.
    pub selection: Duration,
}

/// What one level under SBN did.
#[derive(Debug, Clone)]
pub struct SbnLevel {
    /// Simulated time until the last root was processed, seconds.
    pub makespan: f64,
    /// Processor time by activity, summed over processors.
    pub split: TimeSplit,
    /// The processor that processed each root.
    pub processed_on: Vec<u32>,
    /// Where each root's data is at the end of the level.
    pub data: Vec<u32>,
    /// Data actually moved, in `RWgt` (`TotalV`, `MaxV`, `MaxSR`).
    pub movement: Movement,
    /// Messages by kind.
    pub messages: MessageCounts,
    /// Roots reassigned by distribution messages (a root may change hands more than once).
    pub roots_transferred: u64,
    /// Roots whose data moved.
    pub data_moves: u64,
    /// Balance operations started.
    pub balances: u64,
    /// `Cut%` of the assignment at the start of the level.
    pub pre_cut_pct: f64,
    /// `Cut%` of where the roots were processed.
    pub post_cut_pct: f64,
    /// True when every root's home knows where its data is at the end (the directory agrees
    /// with the data).
    pub tables_agree: bool,
    /// The balancer's CPU time.
    pub cpu: BalancerCpu,
}

enum Event {
    /// The processor finished the job it was doing (stale unless `version` is current: a poll
    /// in the middle of a job pushes its end back).
    Free { p: u32, version: u32 },
    /// A busy processor checks its messages (fig. 4's main loop, every `check_interval`).
    Poll(u32),
    /// A message arrives at `to`.
    Arrive { from: u32, to: u32, msg: Message },
}

/// Messages written by a processor during one action: `(from, to, message)`.
#[derive(Default)]
struct Sent(Vec<(u32, u32, Message)>);

impl Outbox for Sent {
    fn send(&mut self, from: u32, to: u32, msg: Message) {
        self.0.push((from, to, msg));
    }
}

/// What the simulated machine knows of one processor.
#[derive(Debug, Clone, Copy, Default)]
struct Clock {
    /// End of the job in progress (`None`: waiting for messages).
    busy_until: Option<f64>,
    /// Current version of its `Free` event.
    version: u32,
    /// A poll is scheduled.
    polling: bool,
    /// When it finished its last job.
    finish: f64,
}

/// The level being simulated.
struct Run<'a, 's> {
    shared: &'a Shared<'s>,
    machine: &'a Machine,
    events: Events<Event>,
    procs: Vec<Processor>,
    clocks: Vec<Clock>,
    inbox: Vec<Vec<(u32, Message)>>,
    truth: Vec<u32>,
    processed_on: Vec<u32>,
    done: usize,
    split: TimeSplit,
    sent: Vec<u64>,
    received: Vec<u64>,
    messages: MessageCounts,
    transferred: u64,
    data_moves: u64,
    cpu: BalancerCpu,
    out: Sent,
}

impl Run<'_, '_> {
    /// Sends what processor actions wrote, leaving at `now`.
    fn post(&mut self, now: f64) {
        for (from, to, msg) in std::mem::take(&mut self.out.0) {
            let bytes = msg.bytes();
            self.messages.add(msg.kind(), bytes, 1);
            let at = now + self.machine.flight(bytes as f64);
            self.events.push(at, Event::Arrive { from, to, msg });
        }
    }

    /// Processor p handles its messages and checks its thresholds from `now`; returns when
    /// it is done.
    fn serve(&mut self, p: usize, now: f64) -> f64 {
        let clock = Instant::now();
        let mut t = now;
        for (from, msg) in std::mem::take(&mut self.inbox[p]) {
            t += self.machine.t_handle;
            self.split.distribution += self.machine.t_handle;
            self.procs[p].handle(from, msg, self.shared, &mut self.out);
        }
        if self.done < self.truth.len() {
            self.procs[p].check(self.shared, &mut self.out);
        }
        self.cpu.balancing += clock.elapsed();
        self.post(t);
        t
    }

    /// Processor p, free at `now`, serves its messages and starts its next root (or waits).
    fn next_job(&mut self, p: usize, now: f64) {
        let mut t = self.serve(p, now);
        let clock = Instant::now();
        let next = self.procs[p].next_root();
        self.cpu.selection += clock.elapsed();
        let Some(v) = next else {
            self.clocks[p].busy_until = None;
            return;
        };
        t += self.fetch(p, v, t);
        let model = &self.shared.model;
        let work = model.wgt(v, p as u32);
        let comm = model.comm(v, p as u32, &self.truth);
        t += work + comm;
        self.split.processing += work;
        self.split.communication += comm;
        self.processed_on[v as usize] = p as u32;
        self.done += 1;
        let c = &mut self.clocks[p];
        c.finish = t;
        c.busy_until = Some(t);
        c.version += 1;
        let version = c.version;
        self.events.push(
            t,
            Event::Free {
                p: p as u32,
                version,
            },
        );
    }

    /// Brings v's data (and its group's) to p if it is elsewhere; returns the time it took.
    fn fetch(&mut self, p: usize, v: u32, now: f64) -> f64 {
        let clock = Instant::now();
        let Some((src, group)) = self.procs[p].fetch_group(v, self.shared) else {
            return 0.0;
        };
        let mut elements = 0;
        for &r in &group {
            debug_assert_eq!(
                self.truth[r as usize], src,
                "location of a queued root's data"
            );
            let rw = self.shared.model.weights.rwgt[r as usize];
            self.sent[src as usize] += rw;
            self.received[p] += rw;
            elements += rw;
            self.truth[r as usize] = p as u32;
            self.data_moves += 1;
        }
        // The request goes straight to the holder, or over the SBN to every processor,
        // reaching the holder after `hops` latencies; the data comes straight back.
        let (copies, hops) = match self.procs[p].request_hops(src, self.shared) {
            Some(hops) => (self.procs.len() as u64 - 1, hops),
            None => (1, 1),
        };
        self.messages
            .add(Kind::Migration, 16 + 4 * group.len() as u64, copies);
        let bytes = 16 + (elements as f64 * self.machine.element_bytes) as u64;
        self.messages.add(Kind::Migration, bytes, 1);
        let took = self.serve_request(src as usize, now, hops.max(1), elements as f64);
        self.split.distribution += took;
        let moved = self.procs[src as usize].data_left(&group, p as u32, self.shared);
        self.procs[p].data_arrived(&moved, self.shared, &mut self.out);
        self.post(now + took);
        self.cpu.migration += clock.elapsed();
        took
    }

    /// The requester's wait for `elements` elements of data asked at `now` of `holder`, the
    /// request reaching it after `hops` latencies: at once by the holder's transport, or, when
    /// the machine serves requests between jobs, once the holder's job in progress ends, the
    /// holder's time then taking the packing (half of `t_pack`) and its job ending that much
    /// later. The data comes straight back and is unpacked.
    fn serve_request(&mut self, holder: usize, now: f64, hops: u32, elements: f64) -> f64 {
        let latency = self.machine.latency;
        let at_once = self.machine.fetch(elements) + f64::from(hops - 1) * latency;
        if !self.machine.served_between_jobs {
            return at_once;
        }
        let pack = elements * self.machine.t_pack / 2.0;
        self.split.distribution += pack;
        let Some(end) = self.clocks[holder].busy_until else {
            return at_once;
        };
        self.delay(holder, end, pack);
        let arrival = now + f64::from(hops) * latency;
        at_once + (end - arrival).max(0.0)
    }

    /// Processor p's job, which was to end at `end`, ends `by` later.
    fn delay(&mut self, p: usize, end: f64, by: f64) {
        let c = &mut self.clocks[p];
        c.busy_until = Some(end + by);
        c.finish = end + by;
        c.version += 1;
        let version = c.version;
        self.events.push(
            end + by,
            Event::Free {
                p: p as u32,
                version,
            },
        );
    }

    /// A message for p arrived at `now`: wake p if it waits, or have it poll soon if its job
    /// runs on past the next check.
    fn arrive(&mut self, p: usize, now: f64) {
        let c = self.clocks[p];
        match c.busy_until {
            None => self.next_job(p, now),
            Some(end) if !c.polling && end > now + self.machine.check_interval => {
                self.clocks[p].polling = true;
                self.events
                    .push(now + self.machine.check_interval, Event::Poll(p as u32));
            }
            Some(_) => {}
        }
    }

    /// A busy processor checks its messages; the job it runs ends later by the time taken.
    fn poll(&mut self, p: usize, now: f64) {
        self.clocks[p].polling = false;
        let Some(end) = self.clocks[p].busy_until else {
            return;
        };
        let took = self.serve(p, now) - now;
        self.delay(p, end, took);
    }
}

/// Pending events beyond which the queue is rid of the stale `Free` events: every poll in the
/// middle of a job leaves one behind, and a job that lasts many check intervals leaves many.
const COMPACT_AT: usize = 1 << 16;

/// The share of the available memory the pending events may take (1/8), or 1 GiB when it is
/// unknown.
fn most_pending_events() -> usize {
    let bytes = crate::memory::available().map_or(1 << 30, |m| m / 8);
    usize::try_from(bytes).unwrap_or(usize::MAX) / Events::<Event>::entry_bytes()
}

/// The error of a simulation whose pending events, stale ones dropped, outgrow their memory.
fn too_many_pending(pending: usize, done: usize, n: usize) -> Error {
    let gb = (pending * Events::<Event>::entry_bytes()) as f64 / 1e9;
    Error::Invalid(format!(
        "SBN simulation stopped: {pending} events pending ({} GB, an eighth of the available \
         memory) with {done} of {n} roots done; the machine's jobs last too many of its \
         latencies and check intervals: lower t_leaf or raise check_interval",
        crate::numbers::short(gb)
    ))
}

/// Processes every root once on `procs` processors under SBN, starting from `owner` (the
/// queue of each processor) with the data where `data` says (every location table starts
/// right). Processing and communication cost what `shared.model` says (in seconds: build it
/// with [`Machine::cost_model`]); fetching data and messages cost what `machine` says.
///
/// # Errors
/// [`Error::LengthMismatch`] unless `owner` and `data` have one entry per root of the model,
/// [`Error::RankOutOfRange`] for an entry `≥ P`; [`Error::Invalid`] if its pending events
/// outgrow an eighth of the available memory.
///
/// # Panics
/// If the simulation stops making progress (far more events than the level can need) or
/// ends with roots unprocessed: bug guards, which only a plume bug reaches.
pub fn sbn_level(
    shared: &Shared,
    machine: &Machine,
    owner: &[u32],
    data: &[u32],
) -> Result<SbnLevel> {
    let nprocs = shared.network.procs();
    let n = shared.model.weights.pwgt.len();
    crate::balance::ranks::check_assignment("owner", owner, n, nprocs)?;
    crate::balance::ranks::check_assignment("data", data, n, nprocs)?;
    let mut queued = vec![Vec::new(); nprocs];
    for (v, &p) in owner.iter().enumerate() {
        queued[p as usize].push(v as u32);
    }
    let mut held = vec![Vec::new(); nprocs];
    for (v, &p) in data.iter().enumerate() {
        held[p as usize].push(v as u32);
    }
    let start: Arc<[u32]> = Arc::from(data);
    let mut run = Run {
        shared,
        machine,
        events: Events::new(),
        procs: (0..nprocs)
            .map(|p| {
                let start = Arc::clone(&start);
                Processor::new(p as u32, &queued[p], &held[p], start, shared)
            })
            .collect(),
        clocks: vec![Clock::default(); nprocs],
        inbox: vec![Vec::new(); nprocs],
        truth: data.to_vec(),
        processed_on: vec![u32::MAX; n],
        done: 0,
        split: TimeSplit::default(),
        sent: vec![0; nprocs],
        received: vec![0; nprocs],
        messages: MessageCounts::default(),
        transferred: 0,
        data_moves: 0,
        cpu: BalancerCpu::default(),
        out: Sent::default(),
    };
    for p in 0..nprocs {
        run.next_job(p, 0.0);
    }
    let limit = (n as u64)
        .saturating_mul(nprocs as u64)
        .saturating_mul(1_000)
        .saturating_add(1_000_000);
    let most_pending = most_pending_events();
    let mut compacted = COMPACT_AT;
    while let Some((now, event)) = run.events.pop() {
        if run.events.created() > limit {
            panic!(
                "SBN simulation made no progress after {limit} events ({} of {n} roots done)",
                run.done
            );
        }
        if run.events.len() > compacted {
            let clocks = &run.clocks;
            run.events.retain(|e| match e {
                Event::Free { p, version } => *version == clocks[*p as usize].version,
                _ => true,
            });
            if run.events.len() > most_pending {
                return Err(too_many_pending(run.events.len(), run.done, n));
            }
            compacted = (2 * run.events.len()).max(COMPACT_AT);
        }
        match event {
            Event::Arrive { from, to, msg } => {
                if let Message::Distribute { jobs, .. } = &msg {
                    run.transferred += jobs.len() as u64;
                }
                run.inbox[to as usize].push((from, msg));
                run.arrive(to as usize, now);
            }
            Event::Free { p, version } if version == run.clocks[p as usize].version => {
                run.next_job(p as usize, now);
            }
            Event::Free { .. } => {}
            Event::Poll(p) => run.poll(p as usize, now),
        }
    }
    if run.done < n {
        panic!(
            "SBN simulation ended with {} of {n} roots unprocessed",
            n - run.done
        );
    }
    let makespan = run.clocks.iter().map(|c| c.finish).fold(0.0, f64::max);
    let mut split = run.split;
    let busy = split.processing + split.communication + split.distribution;
    split.idle = (nprocs as f64 * makespan - busy).max(0.0);
    let mut cpu = run.cpu;
    let giving: Duration = run.procs.iter().map(|p| p.selection_time).sum();
    cpu.selection += giving;
    cpu.balancing = cpu.balancing.saturating_sub(giving);
    let model = &shared.model;
    let cut = |a: &[u32]| Cut::new(model.xadj, model.adjncy, &model.weights.cwgt, a).percent();
    Ok(SbnLevel {
        makespan,
        split,
        pre_cut_pct: cut(owner),
        post_cut_pct: cut(&run.processed_on),
        tables_agree: run.procs.iter().all(|p| p.directory().agrees(&run.truth)),
        movement: Movement::from_flows(run.sent, run.received),
        processed_on: run.processed_on,
        data: run.truth,
        messages: run.messages,
        roots_transferred: run.transferred,
        data_moves: run.data_moves,
        balances: run.procs.iter().map(|p| u64::from(p.initiated)).sum(),
        cpu,
    })
}
