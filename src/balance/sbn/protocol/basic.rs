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

use super::message::{Message, OpId, Outbox, Tag};
use super::processor::{Gather, Processor};
use super::shared::Shared;
use crate::balance::sbn::network::Template;
use crate::balance::sbn::policy::{BasicDistribution, FirstHalf};

impl Processor {
    /// Basic: a balancing message reached this processor (or it initiates one).
    pub(super) fn gather_down(
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
    pub(super) fn take_gather(&mut self, op: Option<OpId>) -> Option<Gather> {
        let i = self.gathers.iter().position(|g| Some(g.op) == op)?;
        Some(self.gathers.swap_remove(i))
    }

    /// Basic: a subtree's load came back.
    pub(super) fn gather_up(
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
    pub(super) fn distribute_down(
        &mut self,
        g: Gather,
        sys_ll: f64,
        shared: &Shared,
        out: &mut impl Outbox,
    ) {
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
    pub(super) fn pay_debts(&mut self, shared: &Shared, out: &mut impl Outbox) {
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
}
