//! The messages of HybridLB's three phases and the bytes they carry (eq. (2)'s sizes).

use serde::{Deserialize, Serialize};

use super::db::{db_bytes, CommData, ObjData};
use super::tree::Node;

/// A domain's objects and records as they travel up (phase 1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Db {
    /// The objects.
    pub objs: Vec<ObjData>,
    /// The records that matter above.
    pub records: Vec<CommData>,
}

/// An object decided to cross into another domain, with the records its decider holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// The object.
    pub obj: ObjData,
    /// Its records (sent by it) that the decider held.
    pub records: Vec<CommData>,
}

/// One message between a node and its leader or children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Msg {
    /// Phase 1 (c): a node's database, to a full leader.
    Db(Db),
    /// Phase 1 (b), from a full leader to a child domain: send your database up.
    SendDb,
    /// Phase 1 (a): a node's total load and objects.
    Totals {
        /// Σ load.
        load: f64,
        /// Objects.
        objects: u64,
    },
    /// Phase 1 (b), from a semi-centralized leader to a child: the amounts of load the child
    /// owes to other nodes (its first decision).
    Owe(Vec<(Node, f64)>),
    /// Phase 2 sweep B: picked tokens on their way to the node they are destined to.
    Picked(Vec<(Node, Token)>),
    /// Phase 2, to a child: objects that leave it and tokens that enter it.
    Decision {
        /// Ids of objects moved away from the child.
        remove: Vec<u32>,
        /// Objects moved into the child.
        tokens: Vec<Token>,
    },
    /// Phase 3: the objects that move.
    Matches(Vec<Match>),
}

/// An object's move, as phase 3 tells its home.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    /// The object.
    pub id: u32,
    /// Its home processor.
    pub home: u32,
    /// The processor it moves to.
    pub dest: u32,
}

impl Msg {
    /// The bytes the message carries: 16 a record (eq. (2)'s sizes), 12 a match, 16 a total
    /// or an amount.
    pub fn bytes(&self) -> u64 {
        match self {
            Msg::Db(db) => db_bytes(db.objs.len(), db.records.len()),
            Msg::Totals { .. } => 16,
            Msg::SendDb => 0,
            Msg::Owe(owe) => 16 * owe.len() as u64,
            Msg::Decision { remove, tokens } => {
                4 * remove.len() as u64 + tokens_bytes(tokens.iter())
            }
            Msg::Picked(t) => 16 * t.len() as u64 + tokens_bytes(t.iter().map(|(_, t)| t)),
            Msg::Matches(m) => 12 * m.len() as u64,
        }
    }

    /// The phase the message belongs to.
    pub fn phase(&self) -> Phase {
        match self {
            Msg::Db(_) | Msg::SendDb | Msg::Totals { .. } => Phase::Collection,
            Msg::Owe(_) | Msg::Decision { .. } | Msg::Picked(_) => Phase::Decisions,
            Msg::Matches(_) => Phase::Matching,
        }
    }
}

fn tokens_bytes<'a>(tokens: impl Iterator<Item = &'a Token>) -> u64 {
    tokens.map(|t| db_bytes(1, t.records.len())).sum()
}

/// The three phases (migration is the caller's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Phase {
    /// Phase 1, load data up.
    Collection,
    /// Phase 2, tokens down.
    Decisions,
    /// Phase 3, destinations to the home processors.
    Matching,
}
