//! One SBN processor's decisions (seed 004 figures 4, 5 and 8 on weighted loads, §4.2, §5.2,
//! §5.4.1): what it does with each message it receives, when it starts a balance or a
//! distribution, which root it processes next and which data it fetches first. It knows no
//! clock and no transport: it reads its own state, writes messages into an [`Outbox`], and the
//! caller (the simulated machine of `crate::sim`, later real ranks) delivers them.
//!
//! **Basic** (fig. 5): the initiator's balancing message goes down its SBN pattern; every
//! processor answers with the load of its subtree (sum and count), gathered back to the
//! initiator, which computes the exact system level `WSysLL`. Distribution messages then carry
//! it back down ([`BasicDistribution`]): by default as fig. 5 does, each processor sending its
//! excess over the level to its successors and returning to its predecessor what that one
//! lacks, as far as its own excess goes, and serving simultaneous operations as fig. 5 counts
//! them (a processor gathering for one initiator also gathers for another); or, as plume first
//! did, each processor paying exact subtree debts, a processor already serving another balance
//! answering as a leaf. Jobs passing through a processor are only reassigned: their data stays
//! put until processed. With §5.4.1's refinement ([`FirstHalf`]), any receiver whose sender is
//! below `MinTh` returns half its queue to it at once.
//!
//! **Heuristic** (fig. 8): the balancing message goes down the pattern carrying the sum of the
//! loads it passed (with [`ProbeLevel::Update`], every processor it reaches takes that running
//! average as its level); the first processor above the average gives half its queue back
//! along the message's path, each processor on it keeping its share ([`HeuristicReturn`]);
//! the others forward it. With the path return, an initiator starts no new probe before its
//! last one is answered (§3.2.3).
//!
//! **Distribution** (fig. 4): a processor above `MaxTh` gives its excess to its successors.
//!
//! Costs are the processor's own view: its location table for the neighbours' data
//! (`Comm_p^v`), and the exact location of the data of the roots queued here (a root changes
//! hands with the location of its data).

use super::costs::Located;
use super::network::{Network, Pattern, Template};
use super::policy::{
    BasicDistribution, Broadcast, FirstHalf, HeuristicReturn, LoadView, Policies, ProbeLevel, Units,
};
use super::queue::JobQueue;
use super::select::{choose_roots, Selection};
use super::thresholds::{
    heuristic_balance_estimate, heuristic_receive_distribution, heuristic_source_distribution,
    WeightThresholds,
};
use crate::metrics::{CostModel, CostScales};
use crate::rng::Rng;

/// Which SBN algorithm balances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Variant {
    /// Gathers the exact total over the whole network (fig. 5).
    Basic,
    /// Stops at the first processor loaded enough, estimating the level (fig. 8).
    Heuristic,
}

/// The SBN balancer's options.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SbnOptions {
    /// Basic or Heuristic.
    pub variant: Variant,
    /// `ConstParam` of `UpdateLoad` (the seed found 2 best).
    pub const_param: u64,
    /// Jobs processed between two checks for messages (`J_avg / f` of §5.7's `MinTh` bound).
    pub jobs_per_check: f64,
    /// How roots to give away are chosen.
    pub selection: Selection,
    /// The seed's explicit choices, or plume's named alternatives.
    pub policies: Policies,
    /// Run the pre-partitioner (§5.6) before each level.
    pub prepartition: bool,
    /// Seed of the random pattern and sample choices.
    pub seed: u64,
}

impl Default for SbnOptions {
    fn default() -> Self {
        SbnOptions {
            variant: Variant::Basic,
            const_param: 2,
            jobs_per_check: 1.0,
            selection: Selection::default(),
            policies: Policies::default(),
            prepartition: false,
            seed: 1,
        }
    }
}

/// Names one balance operation: its initiator and the initiator's count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct OpId {
    /// The processor that started it.
    pub initiator: u32,
    /// The initiator's operation count.
    pub serial: u32,
}

/// The kinds of messages, for the report (seed 004 tables 6 and 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Gathers loads towards the initiator.
    Balance,
    /// Carries the system level and reassigns work.
    Distribution,
    /// Moves a root's data.
    Migration,
    /// Tells everyone where data now is.
    Locate,
}

/// What a distribution message says besides the roots it carries.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Tag {
    /// The balance operation it serves, if any.
    pub op: Option<OpId>,
    /// The system level `WSysLL` the operation computed (Basic) or estimated (Heuristic).
    pub sys_ll: Option<f64>,
    /// An excess pushed down the pattern `(source, template)` (fig. 4's distribution above
    /// `MaxTh`): the receiver keeps its share and pushes the rest to its successors.
    pub route: Option<(u32, Template)>,
    /// Fig. 5's `QLen(predecessor)`: the sender's load once it gave, so that a receiver above
    /// the level returns what the sender lacks.
    pub sender_load: Option<f64>,
    /// Heuristic jobs travelling back to `op`'s initiator along this template's pattern
    /// (fig. 8's `GetDistribute` towards the root): each processor on the way keeps its share.
    pub back: Option<Template>,
}

/// A message between processors.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Message {
    /// A balancing request going away from the initiator along `template`'s pattern.
    BalanceDown {
        /// The operation.
        op: OpId,
        /// The pattern (rooted at `op.initiator`).
        template: Template,
        /// The sender's load when it sent (fig. 5's `QLen(processor sending this message)`;
        /// the initiator's for the first processor reached).
        sender_load: f64,
        /// Heuristic: sum of the loads of the processors passed (initiator included).
        path_sum: f64,
        /// Heuristic: processors passed.
        path_len: u32,
    },
    /// Basic: a subtree's load gathered back towards the initiator.
    BalanceUp {
        /// The operation.
        op: OpId,
        /// Sum of the subtree's loads.
        sum: f64,
        /// Processors in the subtree.
        count: u32,
    },
    /// Reassigned roots with the location of their data.
    Distribute {
        /// What the message says besides its roots.
        tag: Tag,
        /// `(root, processor holding its data)`.
        jobs: Vec<(u32, u32)>,
    },
    /// The data of these roots now lives on `holder`.
    Locate {
        /// The roots that moved.
        roots: Vec<u32>,
        /// Where their data now is.
        holder: u32,
        /// Over the SBN ([`Broadcast::Sbn`]): the pattern rooted at `holder` the message
        /// follows, each receiver forwarding it to its successors; `None` when sent to all.
        template: Option<Template>,
    },
}

impl Message {
    /// The message's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Message::BalanceDown { .. } | Message::BalanceUp { .. } => Kind::Balance,
            Message::Distribute { .. } => Kind::Distribution,
            Message::Locate { .. } => Kind::Locate,
        }
    }

    /// Bytes on the wire: a 16-byte header and the payload.
    pub fn bytes(&self) -> u64 {
        16 + match self {
            Message::BalanceDown { .. } => 28,
            Message::BalanceUp { .. } => 20,
            Message::Distribute { jobs, .. } => 16 + 8 * jobs.len() as u64,
            Message::Locate { roots, .. } => 4 * roots.len() as u64,
        }
    }
}

/// Where a processor's messages go.
pub trait Outbox {
    /// Sends `msg` from processor `from` to processor `to`.
    fn send(&mut self, from: u32, to: u32, msg: Message);

    /// Sends `msg` from processor `from` to every other one of the `procs` processors, in
    /// increasing order. By default one [`Outbox::send`] each; a transport may share one copy.
    fn broadcast(&mut self, from: u32, procs: usize, msg: Message) {
        for q in (0..procs as u32).filter(|&q| q != from) {
            self.send(from, q, msg.clone());
        }
    }

    /// Sends `msg` from processor `from` down `pattern` (rooted at `from`) to every other
    /// processor. By default to `from`'s successors, which forward it as they handle it (a
    /// [`Message::Locate`] names its template); a transport that routes it itself delivers
    /// copies whose template is `None`, so that nobody forwards them again.
    fn broadcast_over(&mut self, from: u32, pattern: Pattern, msg: Message) {
        for c in pattern.children(from as usize) {
            self.send(from, c as u32, msg.clone());
        }
    }
}

/// What every processor shares: the costs, the network, the options. Its size does not
/// grow with P (patterns are computed on demand, [`Network::pattern`]).
#[derive(Debug)]
pub struct Shared<'a> {
    /// Weights and graph, in the machine's unit (what processing really costs).
    pub model: CostModel<'a>,
    /// The same costs in the balancer's unit ([`Units`]): what the processors weigh.
    pub costs: CostModel<'a>,
    /// The SBN over the processors.
    pub network: Network,
    /// Options.
    pub opts: SbnOptions,
    /// Mean weight of a job (`Wgt` per root), converting job thresholds into weights.
    pub job_weight: f64,
}

impl<'a> Shared<'a> {
    /// The shared state of `procs` processors balancing the roots of `model`; the processors
    /// weigh them in `model`'s unit or in the seed's ([`Units`]).
    pub fn new(model: CostModel<'a>, procs: usize, opts: SbnOptions) -> Self {
        let network = Network::with_topology(procs, opts.policies.topology);
        let costs = match opts.policies.units {
            Units::Seed => model.with_scales(CostScales::default()),
            Units::Machine => model,
        };
        let n = costs.weights.pwgt.len();
        let total: f64 = (0..n as u32).map(|v| costs.wgt(v, 0)).sum();
        let job_weight = if total > 0.0 { total / n as f64 } else { 1.0 };
        Shared {
            model,
            costs,
            network,
            opts,
            job_weight,
        }
    }

    /// The pattern rooted at `source` for `template`.
    pub fn pattern(&self, source: u32, template: Template) -> Pattern {
        self.network.pattern(source as usize, template)
    }

    /// The thresholds for a system level (weights).
    pub fn thresholds(&self, sys_ll: f64) -> WeightThresholds {
        WeightThresholds::new(
            sys_ll,
            self.job_weight,
            self.network.procs(),
            self.opts.const_param,
            self.opts.jobs_per_check,
        )
    }
}

/// Basic: this processor's part in a balance operation being gathered.
#[derive(Debug, Clone)]
struct Gather {
    op: OpId,
    parent: Option<u32>,
    own: f64,
    pending: usize,
    children: Vec<(u32, f64, u32)>,
}

/// One SBN processor.
#[derive(Debug, Clone)]
pub struct Processor {
    /// Its number.
    pub id: u32,
    /// The roots queued here.
    queue: JobQueue,
    /// Its location table: where it believes each root's data is.
    pub location: Vec<u32>,
    /// `Remap` of the data held here for roots queued elsewhere (§5.4.1's sender share).
    held: f64,
    /// Whether [`Processor::load`] counts `held` ([`LoadView::QWgt`]).
    counts_held: bool,
    /// Basic: the operations it is gathering (one at most under
    /// [`BasicDistribution::Subtree`], where a busy processor answers as a leaf).
    gathers: Vec<Gather>,
    /// Heuristic: the probe this processor started and has had no answer to yet (§3.2.3: no
    /// new balance before the previous one is served).
    probing: Option<OpId>,
    debts: Vec<(u32, f64)>,
    sys_ll: Option<f64>,
    serial: u32,
    rng: Rng,
    /// Balance operations it started.
    pub initiated: u32,
    /// Wall-clock time spent choosing roots to give away.
    pub selection_time: std::time::Duration,
}

impl Processor {
    /// Processor `id` with the roots `queued` (whose data is where `location` says).
    pub fn new(id: u32, queued: &[u32], location: Vec<u32>, shared: &Shared) -> Processor {
        let mut queue = JobQueue::new(id, location.len());
        let view = Located {
            model: &shared.costs,
            location: &location,
        };
        for &v in queued {
            queue.push(v, location[v as usize], &view);
        }
        let held = (0..location.len() as u32)
            .filter(|&v| location[v as usize] == id && !queue.contains(v))
            .map(|v| remap_share(v, shared))
            .sum();
        Processor {
            id,
            queue,
            location,
            held,
            counts_held: shared.opts.policies.load == LoadView::QWgt,
            gathers: Vec::new(),
            probing: None,
            debts: Vec::new(),
            sys_ll: None,
            serial: 0,
            rng: Rng::new(shared.opts.seed ^ (u64::from(id) << 32)),
            initiated: 0,
            selection_time: std::time::Duration::ZERO,
        }
    }

    /// Its load, `QWgt(p)` as it knows it: the weight of the roots queued here and, with
    /// [`LoadView::QWgt`], the `Remap` of the data it holds for roots queued elsewhere.
    pub fn load(&self) -> f64 {
        if self.counts_held {
            self.queue.total() + self.held.max(0.0)
        } else {
            self.queue.total()
        }
    }

    /// The root to process next, taken off the queue (interior roots first).
    pub fn next_root(&mut self) -> Option<u32> {
        self.queue.pop_next()
    }

    /// The roots whose data comes along with v's (lazy group move, §5.2.2): v and its
    /// neighbours queued here whose data is on the same processor as v's. `None` when v's data
    /// is already here.
    pub fn fetch_group(&self, v: u32, shared: &Shared) -> Option<(u32, Vec<u32>)> {
        let src = self.location[v as usize];
        if src == self.id {
            return None;
        }
        let mut group = vec![v];
        group.extend(
            shared
                .model
                .neighbours(v)
                .iter()
                .copied()
                .filter(|&w| self.queue.contains(w) && self.location[w as usize] == src),
        );
        Some((src, group))
    }

    /// The data of `roots` arrived here: update the table, re-queue the ones still queued
    /// with their new costs, and tell everyone (locate messages).
    pub fn data_arrived(&mut self, roots: &[u32], shared: &Shared, out: &mut impl Outbox) {
        for &v in roots {
            self.location[v as usize] = self.id;
        }
        for &v in roots {
            if self.queue.contains(v) {
                self.queue.remove(v);
                self.push(v, shared);
            }
        }
        match shared.opts.policies.broadcast {
            Broadcast::Sbn => {
                let template = self.pick_template(shared);
                let msg = Message::Locate {
                    roots: roots.to_vec(),
                    holder: self.id,
                    template: Some(template),
                };
                out.broadcast_over(self.id, shared.pattern(self.id, template), msg);
            }
            Broadcast::Direct => {
                let msg = Message::Locate {
                    roots: roots.to_vec(),
                    holder: self.id,
                    template: None,
                };
                out.broadcast(self.id, shared.network.procs(), msg);
            }
        }
    }

    /// Sends a locate message for `roots`, whose data is on `holder`, to this processor's
    /// successors in `holder`'s pattern for `template`.
    fn forward_locate(
        &self,
        holder: u32,
        template: Template,
        roots: &[u32],
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        for c in shared.pattern(holder, template).children(self.id as usize) {
            let msg = Message::Locate {
                roots: roots.to_vec(),
                holder,
                template: Some(template),
            };
            out.send(self.id, c as u32, msg);
        }
    }

    /// The number of hops a migration request for data held on `src` travels
    /// ([`Broadcast::Sbn`]: down this processor's pattern for a template picked at random, so
    /// its depth there), or `None` when the request goes straight to `src`.
    pub fn request_hops(&mut self, src: u32, shared: &Shared) -> Option<u32> {
        match shared.opts.policies.broadcast {
            Broadcast::Sbn => {
                let template = self.pick_template(shared);
                Some(shared.pattern(self.id, template).depth(src as usize))
            }
            Broadcast::Direct => None,
        }
    }

    /// Fig. 4's main loop between two jobs: start a balance below `MinTh`, distribute the
    /// excess above `MaxTh`.
    pub fn check(&mut self, shared: &Shared, out: &mut impl Outbox) {
        let load = self.load();
        let th = shared.thresholds(self.sys_ll.unwrap_or(load));
        if load > th.max_th && self.gathers.is_empty() {
            let template = self.pick_template(shared);
            let excess = match shared.opts.variant {
                Variant::Basic => load - th.max_th,
                Variant::Heuristic => {
                    let jw = shared.job_weight;
                    let (sys, sent) = heuristic_source_distribution(
                        (th.sys_ll / jw).ceil() as u64,
                        (load / jw).round() as u64,
                        shared.network.procs(),
                    );
                    self.learn_level(sys as f64 * jw);
                    sent as f64 * jw
                }
            };
            self.push_down((self.id, template), excess, shared, out);
        } else if load < th.min_th
            && self.gathers.is_empty()
            && self.probing.is_none()
            && self.expects_gain(load, shared)
        {
            self.initiate(load, shared, out);
        }
    }

    /// Gives `excess` to this processor's successors in the pattern `route`, shared evenly.
    fn push_down(
        &mut self,
        route: (u32, Template),
        excess: f64,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let pattern = shared.pattern(route.0, route.1);
        let children = pattern.children(self.id as usize);
        let share = excess / children.len().max(1) as f64;
        for c in children {
            let tag = Tag {
                route: Some(route),
                ..Tag::default()
            };
            self.give(c as u32, share, tag, shared, out);
        }
    }

    /// A pushed excess of `received` roots arrived: keep a share, push the rest on (Basic:
    /// what is above `MaxTh`; a last-stage processor left above it starts a balance instead.
    /// Heuristic: fig. 8's `GetDistribute`, sharing the roots received with the stages below).
    fn pass_push(
        &mut self,
        route: (u32, Template),
        received: f64,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let load = self.load();
        let stage = shared.pattern(route.0, route.1).stage(self.id as usize);
        let last = shared.pattern(route.0, route.1).is_leaf(self.id as usize);
        match shared.opts.variant {
            Variant::Basic => {
                let th = shared.thresholds(self.sys_ll.unwrap_or(load));
                if load > th.max_th && !last {
                    self.push_down(route, load - th.max_th, shared, out);
                } else if load > th.max_th && self.gathers.is_empty() {
                    self.initiate(load, shared, out);
                }
            }
            Variant::Heuristic => {
                if last {
                    return;
                }
                let jw = shared.job_weight;
                let kept = ((load / jw).round() as u64).saturating_sub(received as u64);
                let (sys, excess) = heuristic_receive_distribution(kept, received as u64, stage);
                self.learn_level(sys as f64 * jw);
                self.push_down(route, excess as f64 * jw, shared, out);
            }
        }
    }

    /// Handles one message from processor `from`.
    pub fn handle(&mut self, from: u32, msg: Message, shared: &Shared, out: &mut impl Outbox) {
        match msg {
            Message::BalanceDown {
                op,
                template,
                sender_load,
                path_sum,
                path_len,
            } => match shared.opts.variant {
                Variant::Basic => self.gather_down(from, op, template, sender_load, shared, out),
                Variant::Heuristic => {
                    self.probe(from, op, template, (path_sum, path_len), shared, out);
                }
            },
            Message::BalanceUp { op, sum, count } => {
                self.gather_up(from, op, sum, count, shared, out)
            }
            Message::Distribute { tag, jobs } => {
                if !jobs.is_empty() {
                    // A processor that gives has no use for what it was owed.
                    self.debts.retain(|d| d.0 != from);
                }
                let received: f64 = jobs.len() as f64;
                let queued_before = self.queue.total();
                if tag.op.is_some() && tag.op == self.probing {
                    self.probing = None;
                }
                for (v, data) in jobs {
                    self.relocate(v, data, shared);
                    if data == self.id {
                        self.held -= remap_share(v, shared);
                    }
                    self.push(v, shared);
                }
                if let (Some(op), Some(template)) = (tag.op, tag.back) {
                    let got = self.queue.total() - queued_before;
                    self.pass_back(op, template, got, tag.sys_ll, shared, out);
                } else if let Some(s) = tag.sys_ll {
                    self.learn_level(s);
                    if let Some(pred_load) = tag.sender_load {
                        // Fig. 5: return to the predecessor what it lacks, from the excess.
                        let back = (self.load() - s).min(s - pred_load);
                        if back > 0.0 {
                            self.give(from, back, Tag::default(), shared, out);
                        }
                    }
                    if let Some(g) = self.take_gather(tag.op) {
                        self.distribute_down(g, s, shared, out);
                    }
                }
                if let Some(route) = tag.route {
                    self.pass_push(route, received, shared, out);
                }
                self.pay_debts(shared, out);
            }
            Message::Locate {
                roots,
                holder,
                template,
            } => {
                for &v in &roots {
                    self.relocate(v, holder, shared);
                }
                if let Some(template) = template {
                    self.forward_locate(holder, template, &roots, shared, out);
                }
            }
        }
    }

    /// Its table learns that v's data is on `at`; data that leaves here is no longer held.
    fn relocate(&mut self, v: u32, at: u32, shared: &Shared) {
        let was = std::mem::replace(&mut self.location[v as usize], at);
        if was == self.id && at != self.id && !self.queue.contains(v) {
            self.held -= remap_share(v, shared);
        }
    }

    fn push(&mut self, v: u32, shared: &Shared) {
        let view = Located {
            model: &shared.costs,
            location: &self.location,
        };
        self.queue.push(v, self.location[v as usize], &view);
    }

    fn pick_template(&mut self, shared: &Shared) -> Template {
        let templates = shared.network.templates();
        templates[self.rng.below(templates.len())]
    }

    /// Starting a balance pays only if the system level last learned is more than a job
    /// above this load (always, before anything was learned). Starting one sets the level to
    /// the load until the operation answers, so no second one starts from the same knowledge.
    fn expects_gain(&self, load: f64, shared: &Shared) -> bool {
        self.sys_ll
            .is_none_or(|level| level > load + shared.job_weight)
    }

    fn learn_level(&mut self, sys_ll: f64) {
        self.sys_ll = Some(sys_ll);
    }

    fn initiate(&mut self, load: f64, shared: &Shared, out: &mut impl Outbox) {
        self.serial += 1;
        self.initiated += 1;
        let op = OpId {
            initiator: self.id,
            serial: self.serial,
        };
        let template = self.pick_template(shared);
        self.sys_ll = Some(load);
        match shared.opts.variant {
            Variant::Basic => self.gather_down(self.id, op, template, load, shared, out),
            Variant::Heuristic => {
                if shared.opts.policies.heuristic_return == HeuristicReturn::Path {
                    self.probing = Some(op);
                }
                let pattern = shared.pattern(self.id, template);
                for c in pattern.children(self.id as usize) {
                    let msg = Message::BalanceDown {
                        op,
                        template,
                        sender_load: load,
                        path_sum: load,
                        path_len: 1,
                    };
                    out.send(self.id, c as u32, msg);
                }
            }
        }
    }

    /// Basic: a balancing message reached this processor (or it initiates one).
    fn gather_down(
        &mut self,
        from: u32,
        op: OpId,
        template: Template,
        sender_load: f64,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let pattern = shared.pattern(op.initiator, template);
        let me = self.id as usize;
        if from != self.id {
            self.first_half(from, op, sender_load, shared, out);
        }
        let busy = match shared.opts.policies.distribution {
            // Fig. 5 serves simultaneous operations; at most d at once here, so that the
            // state and messages in flight stay O(P log P) when every processor starts a
            // balance at the same time (O(P²) otherwise).
            BasicDistribution::Fig5 => self.gathers.len() >= shared.network.dim().max(1) as usize,
            BasicDistribution::Subtree => !self.gathers.is_empty(),
        };
        let children = if busy {
            Vec::new()
        } else {
            pattern.children(me)
        };
        let parent = (op.initiator != self.id).then_some(from);
        if children.is_empty() {
            if let Some(parent) = parent {
                let sum = self.load();
                out.send(self.id, parent, Message::BalanceUp { op, sum, count: 1 });
            }
            return;
        }
        let sender_load = self.load();
        for &c in &children {
            let msg = Message::BalanceDown {
                op,
                template,
                sender_load,
                path_sum: 0.0,
                path_len: 0,
            };
            out.send(self.id, c as u32, msg);
        }
        self.gathers.push(Gather {
            op,
            parent,
            own: self.load(),
            pending: children.len(),
            children: Vec::with_capacity(children.len()),
        });
    }

    /// Basic, §5.4.1's refinement as [`FirstHalf`] says: work travels back with a balance
    /// request from `from`, whose load was `sender_load`.
    fn first_half(
        &mut self,
        from: u32,
        op: OpId,
        sender_load: f64,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let load = self.load();
        let amount = match shared.opts.policies.first_half {
            FirstHalf::Seed => {
                let th = shared.thresholds(self.sys_ll.unwrap_or(load));
                if sender_load < th.min_th {
                    load / 2.0
                } else {
                    0.0
                }
            }
            FirstHalf::HalfDifference if from == op.initiator => (load - sender_load) / 2.0,
            FirstHalf::HalfDifference | FirstHalf::Off => 0.0,
        };
        if amount > 0.0 {
            self.give(from, amount, Tag::default(), shared, out);
        }
    }

    /// Basic: stops gathering operation `op`, returning what was gathered.
    fn take_gather(&mut self, op: Option<OpId>) -> Option<Gather> {
        let i = self.gathers.iter().position(|g| Some(g.op) == op)?;
        Some(self.gathers.swap_remove(i))
    }

    /// Basic: a subtree's load came back.
    fn gather_up(
        &mut self,
        from: u32,
        op: OpId,
        sum: f64,
        count: u32,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let load = self.load();
        let Some(g) = self.gathers.iter_mut().find(|g| g.op == op) else {
            return;
        };
        g.children.push((from, sum, count));
        g.pending -= 1;
        if g.pending > 0 {
            return;
        }
        if shared.opts.policies.distribution == BasicDistribution::Fig5 {
            // Fig. 5 routes `QLen(p) + QLen(successors)` when the last answer is in: work
            // that reached p meanwhile (a first half) is counted, not lost from the total.
            g.own = load;
        }
        let total = g.own + g.children.iter().map(|c| c.1).sum::<f64>();
        let count = 1 + g.children.iter().map(|c| c.2).sum::<u32>();
        match g.parent {
            Some(parent) => out.send(
                self.id,
                parent,
                Message::BalanceUp {
                    op,
                    sum: total,
                    count,
                },
            ),
            None => {
                let g = self.take_gather(Some(op)).expect("gathering");
                let sys_ll = total / f64::from(count);
                self.learn_level(sys_ll);
                self.distribute_down(g, sys_ll, shared, out);
            }
        }
    }

    /// Basic: the system level is known here; pass it down with work as
    /// [`SbnOptions::policies`] says ([`BasicDistribution`]).
    fn distribute_down(&mut self, g: Gather, sys_ll: f64, shared: &Shared, out: &mut impl Outbox) {
        match shared.opts.policies.distribution {
            BasicDistribution::Fig5 => self.flow_down(&g, sys_ll, shared, out),
            BasicDistribution::Subtree => self.pay_subtrees(g, sys_ll, shared, out),
        }
    }

    /// Fig. 5's `Distribute`: `ExLoad = QWgt − WSysLL` (if positive) goes to the successors in
    /// equal shares, with the level and this processor's load once it gave.
    fn flow_down(&mut self, g: &Gather, sys_ll: f64, shared: &Shared, out: &mut impl Outbox) {
        let excess = (self.load() - sys_ll).max(0.0);
        let after = self.load() - excess;
        let share = excess / g.children.len().max(1) as f64;
        for &(c, _, _) in &g.children {
            let tag = Tag {
                op: Some(g.op),
                sys_ll: Some(sys_ll),
                sender_load: Some(after),
                ..Tag::default()
            };
            self.give(c, share, tag, shared, out);
        }
    }

    /// [`BasicDistribution::Subtree`]: give each child subtree what it lacks at once (from
    /// this queue, even below the level: the surplus of the other subtrees comes up to refill
    /// it), passing the level down with it; owe the parent this subtree's excess, and pay
    /// debts from the queue above the level.
    fn pay_subtrees(&mut self, g: Gather, sys_ll: f64, shared: &Shared, out: &mut impl Outbox) {
        let subtree: f64 = g.own + g.children.iter().map(|c| c.1).sum::<f64>();
        let size = 1 + g.children.iter().map(|c| c.2).sum::<u32>();
        self.debts.clear();
        for &(c, sum, count) in &g.children {
            let lack = (f64::from(count) * sys_ll - sum).max(0.0);
            let tag = Tag {
                op: Some(g.op),
                sys_ll: Some(sys_ll),
                ..Tag::default()
            };
            let paid = self.give(c, lack, tag, shared, out);
            if lack - paid > 0.0 {
                self.debts.push((c, lack - paid));
            }
        }
        if let Some(parent) = g.parent {
            let excess = subtree - f64::from(size) * sys_ll;
            if excess > 0.0 {
                self.debts.push((parent, excess));
            }
        }
        self.pay_debts(shared, out);
    }

    /// Pays the debts left from the queue above the known level.
    fn pay_debts(&mut self, shared: &Shared, out: &mut impl Outbox) {
        while let Some(&(to, owed)) = self.debts.first() {
            let load = self.load();
            let spare = load - self.sys_ll.unwrap_or(f64::INFINITY);
            if spare <= 0.0 {
                break;
            }
            let paid = self.give(to, owed.min(spare), Tag::default(), shared, out);
            if paid <= 0.0 {
                break;
            }
            if paid >= owed {
                self.debts.remove(0);
            } else {
                self.debts[0].1 = owed - paid;
            }
        }
    }

    /// Heuristic: a probe reached this processor from `from`, having passed processors whose
    /// loads sum to `path_sum`, `path_len` of them.
    fn probe(
        &mut self,
        from: u32,
        op: OpId,
        template: Template,
        (path_sum, path_len): (f64, u32),
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let load = self.load();
        let jw = shared.job_weight;
        let jobs = ((path_sum + load) / jw).round() as u64;
        let estimate = heuristic_balance_estimate(jobs, path_len as usize + 1) as f64 * jw;
        if shared.opts.policies.probe_level == ProbeLevel::Update {
            self.learn_level(estimate);
        }
        let pattern = shared.pattern(op.initiator, template);
        let tag = Tag {
            op: Some(op),
            sys_ll: Some(estimate),
            ..Tag::default()
        };
        if load > estimate {
            match shared.opts.policies.heuristic_return {
                HeuristicReturn::Path => {
                    let tag = Tag {
                        back: Some(template),
                        ..tag
                    };
                    self.give(from, load / 2.0, tag, shared, out);
                }
                HeuristicReturn::Direct => {
                    self.give(op.initiator, load / 2.0, tag, shared, out);
                }
            }
            return;
        }
        if pattern.is_leaf(self.id as usize) {
            // The probe found nobody loaded enough: the estimate goes back alone.
            self.give(op.initiator, 0.0, tag, shared, out);
            return;
        }
        for c in pattern.children(self.id as usize) {
            let msg = Message::BalanceDown {
                op,
                template,
                sender_load: 0.0,
                path_sum: path_sum + load,
                path_len: path_len + 1,
            };
            out.send(self.id, c as u32, msg);
        }
    }

    /// Heuristic, [`HeuristicReturn::Path`]: `got` came back along the probe's path of `op`.
    /// Fig. 8's `GetDistribute` towards the root shares it among the `k = d − Stage + 1`
    /// processors from the initiator down to this one: this processor's level becomes its
    /// load before plus `got / k`, and the rest goes on to its predecessor (the initiator,
    /// `k = 1`, keeps all). With absent processors `k` counts the processors actually on the
    /// path. The seed's pseudo code hands on `⌊QLen/2⌋`, its own jobs included; its text shares
    /// only the jobs received ("distributed evenly among r and all others in the remaining SBN
    /// stages"), which is what runs here, in weights.
    fn pass_back(
        &mut self,
        op: OpId,
        template: Template,
        got: f64,
        estimate: Option<f64>,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
        let pattern = shared.pattern(op.initiator, template);
        let parent = pattern.parent(self.id as usize);
        let on_path = pattern.depth(self.id as usize) + 1;
        let share = got / f64::from(on_path);
        if parent.is_some() {
            self.learn_level(self.load() - got + share);
        } else if let Some(e) = estimate {
            self.learn_level(e);
        }
        if let Some(parent) = parent {
            let tag = Tag {
                op: Some(op),
                sys_ll: estimate,
                back: Some(template),
                ..Tag::default()
            };
            self.give(parent as u32, got - share, tag, shared, out);
        }
    }

    /// Gives processor `to` roots worth `amount` of this queue (chosen by `ΔCut`), in one
    /// distribution message tagged `tag` (sent even when empty if it carries a level). Returns
    /// the weight given.
    fn give(
        &mut self,
        to: u32,
        amount: f64,
        tag: Tag,
        shared: &Shared,
        out: &mut impl Outbox,
    ) -> f64 {
        let before = self.queue.total();
        let clock = std::time::Instant::now();
        let roots = if amount > 0.0 {
            let view = Located {
                model: &shared.costs,
                location: &self.location,
            };
            choose_roots(
                &view,
                &mut self.queue,
                |v| shared.costs.neighbours(v),
                (self.id, to),
                amount,
                shared.opts.selection,
                &mut self.rng,
            )
        } else {
            Vec::new()
        };
        self.selection_time += clock.elapsed();
        for &v in &roots {
            if self.location[v as usize] == self.id {
                self.held += remap_share(v, shared);
            }
        }
        if !roots.is_empty() || tag.sys_ll.is_some() {
            let jobs = roots
                .iter()
                .map(|&v| (v, self.location[v as usize]))
                .collect();
            out.send(self.id, to, Message::Distribute { tag, jobs });
        }
        before - self.queue.total()
    }
}

/// The sender's share of moving v's data (§5.4.1), `RWgt_v` in the balancer's unit.
fn remap_share(v: u32, shared: &Shared) -> f64 {
    shared.costs.weights.rwgt[v as usize] as f64 * shared.costs.scales.remap
}
