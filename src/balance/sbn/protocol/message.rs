//! The messages SBN processors exchange: their format ([`Message`] and the [`Tag`] of a
//! distribution), their [`Kind`] for the report, their size on the wire, and the [`Outbox`] a
//! processor writes them into.

use crate::balance::sbn::network::Template;

/// Names one balance operation: its initiator and the initiator's count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct OpId {
    /// The processor that started it.
    pub initiator: u32,
    /// The initiator's operation count.
    pub serial: u32,
}

/// The kinds of messages, for the report [Harvey 2001, tables 6 and 7].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Gathers loads towards the initiator.
    Balance,
    /// Carries the system level and reassigns work.
    Distribution,
    /// Moves a root's data.
    Migration,
    /// Tells a root's home where its data now is.
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
    /// To the roots' home ([`Directory`]): the data of these roots now lives on `holder`.
    ///
    /// [`Directory`]: crate::balance::sbn::directory::Directory
    Locate {
        /// The roots that moved, each with the moves its data made in the level.
        roots: Vec<(u32, u32)>,
        /// Where their data now is.
        holder: u32,
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
            Message::Locate { roots, .. } => 8 * roots.len() as u64,
        }
    }
}

/// Where a processor's messages go.
pub trait Outbox {
    /// Sends `msg` from processor `from` to processor `to`.
    fn send(&mut self, from: u32, to: u32, msg: Message);
}
