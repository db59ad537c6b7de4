//! **Heuristic** (fig. 8): the balancing message goes down the pattern carrying the sum of the
//! loads it passed (with [`ProbeLevel::Update`], every processor it reaches takes that running
//! average as its level); the first processor above the average gives half its queue back
//! along the message's path, each processor on it keeping its share ([`HeuristicReturn`]);
//! the others forward it. With the path return, an initiator starts no new probe before its
//! last one is answered (§3.2.3).

use super::message::{Message, OpId, Outbox, Tag};
use super::processor::Processor;
use super::shared::Shared;
use crate::balance::sbn::network::Template;
use crate::balance::sbn::policy::{HeuristicReturn, ProbeLevel};
use crate::balance::sbn::thresholds::heuristic_balance_estimate;

impl Processor {
    /// Heuristic: a probe reached this processor from `from`, having passed processors whose
    /// loads sum to `path_sum`, `path_len` of them.
    pub(super) fn probe(
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
    /// path. [Harvey 2001]'s pseudo code hands on `⌊QLen/2⌋`, its own jobs included; its text
    /// shares only the jobs received ("distributed evenly among r and all others in the remaining
    /// SBN stages"), which is what runs here, in weights.
    pub(super) fn pass_back(
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
}
