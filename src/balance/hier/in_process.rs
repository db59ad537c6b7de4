//! The in-process [`Transport`]: every node's leader in one process, messages in mailboxes,
//! and the simulated clock of `docs/design/hierarchical.md`. Each round of messages (a phase's
//! messages of one kind at one level) costs `latency + max bytes through one leader /
//! bandwidth + max children · t_handle`; a level's strategy costs the largest operation count
//! of its domains (they run concurrently) times `t_op`. Nothing is measured, so the clock is
//! the same bit for bit on every run and machine.

use std::collections::{BTreeMap, HashMap};

use super::msg::{Msg, Phase};
use super::transport::Transport;
use super::tree::{Node, Tree};
use crate::sim::Machine;
use crate::Result;

/// What one round of messages carried: at one level, of one kind, in one direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Round {
    /// Messages, a leader's to itself included (`[H3]`'s count).
    pub messages: u64,
    /// Messages between different processors.
    pub sent: u64,
    /// Bytes of all its messages.
    pub bytes: u64,
    /// The most bytes into (up) or out of (down) one leader.
    pub max_bytes: u64,
    /// The most children one leader handled.
    pub max_children: u64,
}

/// A round's key: phase, message kind, the leader's level, and whether it goes up.
pub type RoundKey = (Phase, &'static str, usize, bool);

/// All leaders of a tree in one process, with the simulated clock's record.
#[derive(Debug, Default)]
pub struct InProcess {
    /// Messages sent up, by sender.
    up: HashMap<Node, Msg>,
    /// Messages sent down, by receiver.
    down: HashMap<Node, Msg>,
    /// Every round so far.
    pub rounds: BTreeMap<RoundKey, Round>,
    /// The largest operation count of a domain's strategy, per level.
    pub ops: BTreeMap<usize, f64>,
}

fn kind(msg: &Msg) -> &'static str {
    match msg {
        Msg::Db(_) => "db",
        Msg::Totals { .. } => "totals",
        Msg::SendDb => "send-db",
        Msg::Owe(_) => "owe",
        Msg::Picked(_) => "picked",
        Msg::Decision { .. } => "decision",
        Msg::Matches(_) => "matches",
    }
}

impl InProcess {
    /// An empty transport.
    pub fn new() -> InProcess {
        InProcess::default()
    }

    /// Records a leader at `level` handling `msgs` (with their senders' and receivers'
    /// leaders) as one part of a round.
    fn record(&mut self, level: usize, up: bool, msgs: &[(&Msg, usize, usize)]) {
        let Some((first, _, _)) = msgs.first() else {
            return;
        };
        // Totals and databases of one level's children belong to the same round.
        let key = (first.phase(), kind(first), level, up);
        let round = self.rounds.entry(key).or_default();
        let bytes: u64 = msgs.iter().map(|(m, _, _)| m.bytes()).sum();
        round.messages += msgs.len() as u64;
        round.sent += msgs.iter().filter(|(_, a, b)| a != b).count() as u64;
        round.bytes += bytes;
        round.max_bytes = round.max_bytes.max(bytes);
        round.max_children = round.max_children.max(msgs.len() as u64);
    }

    /// Simulated seconds of one phase's message rounds on `machine`.
    pub fn message_time(&self, phase: Phase, machine: &Machine) -> f64 {
        self.rounds
            .iter()
            .filter(|(k, _)| k.0 == phase)
            .map(|(_, r)| round_time(r, machine))
            .sum()
    }

    /// Simulated seconds of the strategies: per level, the largest domain's operations ×
    /// `t_op`, summed over levels.
    pub fn strategy_time(&self, t_op: f64) -> f64 {
        self.ops.values().map(|ops| ops * t_op).sum()
    }
}

/// `latency + max bytes / bandwidth + max children · t_handle`.
pub fn round_time(r: &Round, machine: &Machine) -> f64 {
    machine.latency
        + r.max_bytes as f64 / machine.bandwidth
        + r.max_children as f64 * machine.t_handle
}

impl Transport for InProcess {
    fn runs(&self, _tree: &Tree, _node: Node) -> bool {
        true
    }

    fn send_to_leader(&mut self, _tree: &Tree, from: Node, msg: Msg) -> Result<()> {
        let previous = self.up.insert(from, msg);
        assert!(previous.is_none(), "{from:?} sent twice up in one round");
        Ok(())
    }

    fn receive_children(&mut self, tree: &Tree, node: Node) -> Result<Vec<Msg>> {
        let below = node.level + 1;
        let msgs: Vec<Msg> = tree
            .children(node.level, node.index)
            .map(|c| {
                let child = Node {
                    level: below,
                    index: c,
                };
                self.up
                    .remove(&child)
                    .unwrap_or_else(|| panic!("{child:?} sent nothing up"))
            })
            .collect();
        let me = tree.leader(node.level, node.index);
        let children = tree.children(node.level, node.index);
        let with_ends: Vec<(&Msg, usize, usize)> = msgs
            .iter()
            .zip(children)
            .map(|(m, c)| (m, tree.leader(below, c), me))
            .collect();
        self.record(node.level, true, &with_ends);
        Ok(msgs)
    }

    fn send_to_children(&mut self, tree: &Tree, node: Node, msgs: Vec<Msg>) -> Result<()> {
        let below = node.level + 1;
        let children = tree.children(node.level, node.index);
        assert_eq!(msgs.len(), children.len(), "one message per child");
        let me = tree.leader(node.level, node.index);
        let with_ends: Vec<(&Msg, usize, usize)> = msgs
            .iter()
            .zip(children.clone())
            .map(|(m, c)| (m, me, tree.leader(below, c)))
            .collect();
        self.record(node.level, false, &with_ends);
        for (m, c) in msgs.into_iter().zip(children) {
            let child = Node {
                level: below,
                index: c,
            };
            let previous = self.down.insert(child, m);
            assert!(
                previous.is_none(),
                "{child:?} was sent twice down in one round"
            );
        }
        Ok(())
    }

    fn receive_from_leader(&mut self, _tree: &Tree, node: Node) -> Result<Msg> {
        Ok(self
            .down
            .remove(&node)
            .unwrap_or_else(|| panic!("{node:?} was sent nothing down")))
    }

    fn strategy_ran(&mut self, node: Node, ops: f64) {
        let max = self.ops.entry(node.level).or_insert(0.0);
        *max = max.max(ops);
    }
}
