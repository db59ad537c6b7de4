//! The messages SBN processors exchange: their format ([`Message`] and the [`Tag`] of a
//! distribution), their [`Kind`] for the report, their size on the wire, and the [`Outbox`] a
//! processor writes them into.

use crate::balance::sbn::network::{Pattern, Template};

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
        ///
        /// [`Broadcast::Sbn`]: crate::balance::sbn::policy::Broadcast::Sbn
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
