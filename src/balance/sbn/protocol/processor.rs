//! The [`Processor`] core, whichever the variant: its job queue and its share of the location
//! directory ([`Directory`]), the dispatch of each message it receives, starting a balance
//! (its variant goes on in `basic.rs` or `heuristic.rs`), lazy data fetches and the locate
//! messages that follow them (to the moved roots' homes), and giving roots away.
//!
//! **Distribution** (fig. 4): a processor above `MaxTh` gives its excess to its successors.
//!
//! Costs are the processor's own view: its directory for the neighbours' data (`Comm_p^v`:
//! exact for the data held here, a belief elsewhere), and the exact location of the data of
//! the roots queued here (a root changes hands with the location of its data, which only the
//! processor it is queued on moves).

use std::sync::Arc;

use super::message::{Message, OpId, Outbox, Tag};
use super::shared::{Shared, Variant};
use crate::balance::sbn::costs::Believed;
use crate::balance::sbn::directory::Directory;
use crate::balance::sbn::network::Template;
use crate::balance::sbn::policy::{Broadcast, HeuristicReturn, LoadView};
use crate::balance::sbn::queue::JobQueue;
use crate::balance::sbn::select::choose_roots;
use crate::balance::sbn::thresholds::{
    heuristic_receive_distribution, heuristic_source_distribution,
};
use crate::rng::Rng;

/// Basic: this processor's part in a balance operation being gathered.
#[derive(Debug, Clone)]
pub(super) struct Gather {
    pub(super) op: OpId,
    pub(super) parent: Option<u32>,
    pub(super) own: f64,
    pub(super) pending: usize,
    pub(super) children: Vec<(u32, f64, u32)>,
}

/// One SBN processor.
#[derive(Debug, Clone)]
pub struct Processor {
    /// Its number.
    pub id: u32,
    /// The roots queued here.
    queue: JobQueue,
    /// Its share of the location directory: where it believes the roots' data is.
    directory: Directory,
    /// `Remap` of the data held here for roots queued elsewhere (§5.4.1's sender share).
    held: f64,
    /// Whether [`Processor::load`] counts `held` ([`LoadView::QWgt`]).
    counts_held: bool,
    /// Basic: the operations it is gathering (one at most under
    /// [`BasicDistribution::Subtree`], where a busy processor answers as a leaf).
    pub(super) gathers: Vec<Gather>,
    /// Heuristic: the probe this processor started and has had no answer to yet (§3.2.3: no
    /// new balance before the previous one is served).
    probing: Option<OpId>,
    pub(super) debts: Vec<(u32, f64)>,
    pub(super) sys_ll: Option<f64>,
    serial: u32,
    rng: Rng,
    /// Balance operations it started.
    pub initiated: u32,
    /// Wall-clock time spent choosing roots to give away.
    pub selection_time: std::time::Duration,
}

impl Processor {
    /// Processor `id` with the roots `queued`, the data at the level's start where `start`
    /// says (shared by every processor), `held` the roots whose data starts here.
    pub fn new(
        id: u32,
        queued: &[u32],
        held: &[u32],
        start: Arc<[u32]>,
        shared: &Shared,
    ) -> Processor {
        let directory = Directory::new(id, shared.network.procs(), start);
        let mut queue = JobQueue::new(id);
        let view = Believed {
            model: &shared.costs,
            directory: &directory,
        };
        for &v in queued {
            queue.push(v, directory.holder(v), &view);
        }
        let held = held
            .iter()
            .filter(|&&v| !queue.contains(v))
            .map(|&v| remap_share(v, shared))
            .sum();
        Processor {
            id,
            queue,
            directory,
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

    /// Its share of the location directory.
    pub fn directory(&self) -> &Directory {
        &self.directory
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
        let src = self.directory.holder(v);
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
                .filter(|&w| self.queue.contains(w) && self.directory.holder(w) == src),
        );
        Some((src, group))
    }

    /// The data of `roots` arrived here, each with the moves it made in the level: the
    /// directory learns it, the roots still queued are re-queued with their new costs, and
    /// each root's home is told (one locate message a home; none to itself).
    pub fn data_arrived(&mut self, roots: &[(u32, u32)], shared: &Shared, out: &mut impl Outbox) {
        for &(v, moves) in roots {
            self.directory.arrived(v, moves);
        }
        for &(v, _) in roots {
            if self.queue.contains(v) {
                self.queue.remove(v);
                self.push(v, shared);
            }
        }
        let moved: Vec<u32> = roots.iter().map(|r| r.0).collect();
        for (home, group) in self.directory.homes(&moved) {
            let located: Vec<(u32, u32)> = group
                .iter()
                .map(|&v| (v, self.directory.moves(v)))
                .collect();
            if home == self.id {
                for (v, moves) in located {
                    self.directory.report(v, self.id, moves);
                }
            } else {
                let msg = Message::Locate {
                    roots: located,
                    holder: self.id,
                };
                out.send(self.id, home, msg);
            }
        }
    }

    /// The data of `roots`, held here, leaves for processor `to`: the directory keeps where it
    /// went (for requests that still come here) and it is no longer held. Returns each root
    /// with the moves its data will have made on arrival.
    pub fn data_left(&mut self, roots: &[u32], to: u32, shared: &Shared) -> Vec<(u32, u32)> {
        roots
            .iter()
            .map(|&v| {
                self.relocate(v, to, shared);
                (v, self.directory.left(v, to))
            })
            .collect()
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
            Message::Locate { roots, holder } => {
                for (v, moves) in roots {
                    self.directory.report(v, holder, moves);
                }
            }
        }
    }

    /// Its directory learns that v's data is on `at`; data that leaves here is no longer held.
    fn relocate(&mut self, v: u32, at: u32, shared: &Shared) {
        let was = self.directory.holder(v);
        self.directory.learn(v, at);
        if was == self.id && at != self.id && !self.queue.contains(v) {
            self.held -= remap_share(v, shared);
        }
    }

    fn push(&mut self, v: u32, shared: &Shared) {
        let view = Believed {
            model: &shared.costs,
            directory: &self.directory,
        };
        self.queue.push(v, self.directory.holder(v), &view);
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

    pub(super) fn learn_level(&mut self, sys_ll: f64) {
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

    /// Gives processor `to` roots worth `amount` of this queue (chosen by `ΔCut`), in one
    /// distribution message tagged `tag` (sent even when empty if it carries a level). Returns
    /// the weight given.
    pub(super) fn give(
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
            let view = Believed {
                model: &shared.costs,
                directory: &self.directory,
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
            if self.directory.holder(v) == self.id {
                self.held += remap_share(v, shared);
            }
        }
        if !roots.is_empty() || tag.sys_ll.is_some() {
            let jobs = roots
                .iter()
                .map(|&v| (v, self.directory.holder(v)))
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
