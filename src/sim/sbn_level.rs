//! One adaptation level processed under the SBN balancer on the simulated machine: every root
//! is one job, processed once; processors check their messages between jobs (fig. 4's main
//! loop); a root's data moves when the processor about to process it asks for it, together with
//! the data of its neighbours queued there and held on the same processor (§5.2.2), and a
//! locate message tells every other processor.
//!
//! Data requests are served by the holder's transport without its CPU (one-sided, as MPI RMA),
//! so only the requester's time is charged; control messages are handled between jobs.

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

/// Messages by kind (seed 004 tables 2, 3 and 6).
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
    fn add(&mut self, kind: Kind, bytes: u64) {
        let t = match kind {
            Kind::Balance => &mut self.balance,
            Kind::Distribution => &mut self.distribution,
            Kind::Migration => &mut self.migration,
            Kind::Locate => &mut self.locate,
        };
        t.messages += 1;
        t.bytes += bytes;
    }

    /// Messages of every kind.
    pub fn total(&self) -> u64 {
        [self.balance, self.distribution, self.migration, self.locate]
            .iter()
            .map(|t| t.messages)
            .sum()
    }
}

/// The balancer's own CPU time (seed 004 table 7), measured with the wall clock.
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
    /// True when every processor's location table matches where the data is at the end.
    pub tables_agree: bool,
    /// The balancer's CPU time.
    pub cpu: BalancerCpu,
}

enum Event {
    /// The processor finished what it was doing (or wakes up).
    Free(u32),
    /// A message arrives.
    Arrive { from: u32, to: u32, msg: Message },
}

/// Messages written by a processor during one action.
#[derive(Default)]
struct Sent(Vec<(u32, u32, Message)>);

impl Outbox for Sent {
    fn send(&mut self, from: u32, to: u32, msg: Message) {
        self.0.push((from, to, msg));
    }
}

struct Wire<'m> {
    machine: &'m Machine,
    events: Events<Event>,
    messages: MessageCounts,
}

impl Wire<'_> {
    fn post(&mut self, now: f64, sent: &mut Sent) {
        for (from, to, msg) in sent.0.drain(..) {
            let bytes = msg.bytes();
            self.messages.add(msg.kind(), bytes);
            let at = now + self.machine.flight(bytes as f64);
            self.events.push(at, Event::Arrive { from, to, msg });
        }
    }
}

/// Processes every root once on `procs` processors under SBN, starting from `owner` (the
/// queue of each processor) with the data where `data` says (every location table starts
/// right).
///
/// # Errors
/// If the simulation stops making progress (a bug guard: far more events than the level can
/// need).
pub fn sbn_level(
    shared: &Shared,
    machine: &Machine,
    owner: &[u32],
    data: &[u32],
) -> Result<SbnLevel> {
    let procs = shared.network.procs();
    let n = owner.len();
    let model = &shared.model;
    let mut queued = vec![Vec::new(); procs];
    for (v, &p) in owner.iter().enumerate() {
        queued[p as usize].push(v as u32);
    }
    let mut cpu = BalancerCpu::default();
    let mut ps: Vec<Processor> = (0..procs)
        .map(|p| Processor::new(p as u32, &queued[p], data.to_vec(), shared))
        .collect();
    let mut truth = data.to_vec();
    let mut m = Wire {
        machine,
        events: Events::new(),
        messages: MessageCounts::default(),
    };
    let mut inbox: Vec<Vec<(u32, Message)>> = vec![Vec::new(); procs];
    let mut idle_since: Vec<Option<f64>> = vec![None; procs]; // Some while waiting
    let mut finish = vec![0.0f64; procs];
    let mut split = TimeSplit::default();
    let (mut sent_rw, mut recv_rw) = (vec![0u64; procs], vec![0u64; procs]);
    let mut processed_on = vec![u32::MAX; n];
    let (mut done, mut transferred, mut data_moves) = (0usize, 0u64, 0u64);
    let mut out = Sent::default();
    for p in 0..procs {
        m.events.push(0.0, Event::Free(p as u32));
    }
    let limit = 1_000_000 + 1_000 * n as u64 * procs as u64;
    while let Some((now, event)) = m.events.pop() {
        if m.events.created() > limit {
            return Err(Error::Invalid(format!(
                "SBN simulation made no progress after {limit} events ({done} of {n} roots done; {:?})", m.messages
            )));
        }
        let p = match event {
            Event::Arrive { from, to, msg } => {
                if let Message::Distribute { jobs, .. } = &msg {
                    transferred += jobs.len() as u64;
                }
                inbox[to as usize].push((from, msg));
                if idle_since[to as usize].take().is_none() {
                    continue;
                }
                to
            }
            Event::Free(p) => p,
        };
        let pi = p as usize;
        let proc = &mut ps[pi];
        let mut t = now;
        let clock = Instant::now();
        for (from, msg) in std::mem::take(&mut inbox[pi]) {
            t += machine.t_handle;
            split.distribution += machine.t_handle;
            proc.handle(from, msg, shared, &mut out);
        }
        if done < n {
            proc.check(shared, &mut out);
        }
        cpu.balancing += clock.elapsed();
        m.post(t, &mut out);
        let clock = Instant::now();
        let next = proc.next_root();
        cpu.selection += clock.elapsed();
        let Some(v) = next else {
            idle_since[pi] = Some(t);
            continue;
        };
        let clock = Instant::now();
        if let Some((src, group)) = proc.fetch_group(v, shared) {
            let mut elements = 0;
            for &r in &group {
                let from = truth[r as usize];
                debug_assert_eq!(from, src, "location of a queued root's data");
                let rw = model.weights.rwgt[r as usize];
                sent_rw[from as usize] += rw;
                recv_rw[pi] += rw;
                elements += rw;
                truth[r as usize] = p;
                data_moves += 1;
            }
            m.messages.add(Kind::Migration, 16 + 4 * group.len() as u64);
            let bytes = 16 + (elements as f64 * machine.element_bytes) as u64;
            m.messages.add(Kind::Migration, bytes);
            let fetch = machine.fetch(elements as f64);
            t += fetch;
            split.distribution += fetch;
            proc.data_arrived(&group, shared, &mut out);
            m.post(t, &mut out);
        }
        cpu.migration += clock.elapsed();
        let work = model.wgt(v, p) * machine.t_leaf;
        let comm = model.comm(v, p, &truth) * machine.t_face;
        t += work + comm;
        split.processing += work;
        split.communication += comm;
        processed_on[v as usize] = p;
        done += 1;
        finish[pi] = t;
        m.events.push(t, Event::Free(p));
    }
    if done < n {
        return Err(Error::Invalid(format!(
            "SBN simulation ended with {} of {n} roots unprocessed",
            n - done
        )));
    }
    let makespan = finish.iter().copied().fold(0.0, f64::max);
    let busy = split.processing + split.communication + split.distribution;
    split.idle = (procs as f64 * makespan - busy).max(0.0);
    let giving: Duration = ps.iter().map(|p| p.selection_time).sum();
    cpu.selection += giving;
    cpu.balancing = cpu.balancing.saturating_sub(giving);
    let cut = |a: &[u32]| Cut::new(model.xadj, model.adjncy, &model.weights.cwgt, a).percent();
    Ok(SbnLevel {
        makespan,
        split,
        pre_cut_pct: cut(owner),
        post_cut_pct: cut(&processed_on),
        tables_agree: ps.iter().all(|p| p.location == truth),
        movement: Movement::from_flows(sent_rw, recv_rw),
        processed_on,
        data: truth,
        messages: m.messages,
        roots_transferred: transferred,
        data_moves,
        balances: ps.iter().map(|p| u64::from(p.initiated)).sum(),
        cpu,
    })
}
