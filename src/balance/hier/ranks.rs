//! The [`Transport`] over ranks that talk ([`crate::comm::Comm`], threads or MPI): each rank
//! runs the nodes it leads (its processor and the domains whose lowest processor it is), and
//! every message is one point-to-point message, one tag per phase. The decisions are those of
//! the in-process run bit for bit (the same [`run`] on the same data).

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::db::{CommData, DomainInfo, ObjData};
use super::hybrid::run;
use super::msg::{Db, Msg, Phase};
use super::options::HierOptions;
use super::transport::Transport;
use super::tree::{Node, Tree};
use crate::comm::{Comm, CommExt, Tag};
use crate::{Error, Result};

/// The tags of the three phases' messages.
const TAGS: [Tag; 3] = [0x5D00, 0x5D01, 0x5D02];

/// The tag of a failure a rank tells the others, so that none waits for its messages.
const TAG_FAIL: Tag = 0x5D03;

fn tag(phase: Phase) -> Tag {
    match phase {
        Phase::Collection => TAGS[0],
        Phase::Decisions => TAGS[1],
        Phase::Matching => TAGS[2],
    }
}

/// One rank's side of the tree: its messages go through `comm`.
pub struct RankTransport<'a, C: Comm + ?Sized> {
    comm: &'a C,
    /// Messages that arrived before they were asked for, by (sender node, receiver node).
    stash: HashMap<(Node, Node), VecDeque<Msg>>,
    /// What arrived from other ranks.
    received: Received,
    /// Another rank's failure arrived (this rank's error is not its own).
    heard_failure: bool,
}

/// What a rank received from other ranks during one balance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Received {
    /// Phase 1's objects ([`ObjData`]).
    pub objects: u64,
    /// Phase 1's records ([`CommData`]).
    pub records: u64,
    /// Bytes of every phase's messages ([`Msg::bytes`]).
    pub bytes: u64,
}

impl<'a, C: Comm + ?Sized> RankTransport<'a, C> {
    /// This rank's transport on `comm`.
    pub fn new(comm: &'a C) -> Self {
        RankTransport {
            comm,
            stash: HashMap::new(),
            received: Received::default(),
            heard_failure: false,
        }
    }

    /// Tells every other rank that this one failed with `error`, unless the error is another
    /// rank's.
    fn tell_failure(&self, error: &Error) {
        if !self.heard_failure {
            self.comm.tell_failure(TAG_FAIL, error);
        }
    }

    fn send(&self, tree: &Tree, from: Node, to: Node, msg: Msg) -> Result<()> {
        let dest = tree.leader(to.level, to.index);
        let bytes = bincode::serialize(&(from, to, &msg))
            .map_err(|e| Error::Invalid(format!("hierarchical message: cannot encode: {e}")))?;
        self.comm.send(dest, tag(msg.phase()), bytes)
    }

    /// The next message from `from` to `to`, receiving (and stashing others) until it comes.
    fn receive(&mut self, from: Node, to: Node) -> Result<Msg> {
        loop {
            if let Some(msg) = self
                .stash
                .get_mut(&(from, to))
                .and_then(VecDeque::pop_front)
            {
                return Ok(msg);
            }
            let m = self.comm.receive()?;
            if m.tag == TAG_FAIL {
                self.heard_failure = true;
                return Err(m.decode()?);
            }
            if !TAGS.contains(&m.tag) {
                return Err(Error::Protocol {
                    from: m.source,
                    message: format!("tag {} during a hierarchical balance", m.tag),
                });
            }
            let (f, t, msg): (Node, Node, Msg) = m.decode()?;
            if m.source != self.comm.rank() {
                self.received.bytes += msg.bytes();
                if let Msg::Db(db) = &msg {
                    self.received.objects += db.objs.len() as u64;
                    self.received.records += db.records.len() as u64;
                }
            }
            self.stash.entry((f, t)).or_default().push_back(msg);
        }
    }
}

impl<C: Comm + ?Sized> Transport for RankTransport<'_, C> {
    fn runs(&self, tree: &Tree, node: Node) -> bool {
        tree.leader(node.level, node.index) == self.comm.rank()
    }

    fn send_to_leader(&mut self, tree: &Tree, from: Node, msg: Msg) -> Result<()> {
        let to = Node {
            level: from.level - 1,
            index: tree.parent(from.level, from.index),
        };
        self.send(tree, from, to, msg)
    }

    fn receive_children(&mut self, tree: &Tree, node: Node) -> Result<Vec<Msg>> {
        tree.children(node.level, node.index)
            .map(|c| {
                self.receive(
                    Node {
                        level: node.level + 1,
                        index: c,
                    },
                    node,
                )
            })
            .collect()
    }

    fn send_to_children(&mut self, tree: &Tree, node: Node, msgs: Vec<Msg>) -> Result<()> {
        let children = tree.children(node.level, node.index);
        for (c, msg) in children.zip(msgs) {
            self.send(
                tree,
                node,
                Node {
                    level: node.level + 1,
                    index: c,
                },
                msg,
            )?;
        }
        Ok(())
    }

    fn receive_from_leader(&mut self, tree: &Tree, node: Node) -> Result<Msg> {
        let parent = Node {
            level: node.level - 1,
            index: tree.parent(node.level, node.index),
        };
        self.receive(parent, node)
    }
}

/// One rank's part of a balance on ranks ([`run_on_ranks`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankOutcome {
    /// `(object, destination)` of this rank's objects that move.
    pub moves: Vec<(u32, u32)>,
    /// The domains this rank leads, with what their leaders found in phase 1.
    pub domains: BTreeMap<Node, DomainInfo>,
    /// What this rank received from the others.
    pub received: Received,
}

/// HybridLB on ranks: every rank calls it with its own objects (home = its rank) and the
/// records they send; returns `(object, destination)` of its objects that move. The tree must
/// have one processor per rank.
///
/// # Errors
/// As [`run_on_ranks`].
pub fn balance_on_ranks<C: Comm + ?Sized>(
    comm: &C,
    tree: &Tree,
    opts: &HierOptions,
    objs: Vec<ObjData>,
    records: Vec<CommData>,
) -> Result<Vec<(u32, u32)>> {
    run_on_ranks(comm, tree, opts, objs, records).map(|o| o.moves)
}

/// [`balance_on_ranks`] with what the rank found on the way: the domains it leads and what it
/// received. A rank that fails tells the others, which then return its error instead of
/// waiting for its messages; the caller agrees on the outcome
/// ([`CommExt::agree`](crate::comm::CommExt::agree)).
///
/// # Errors
/// [`Error::LengthMismatch`] unless the tree has `comm.size()` processors,
/// [`Error::Invalid`] for an object whose home is not this rank, and the transport's errors.
pub fn run_on_ranks<C: Comm + ?Sized>(
    comm: &C,
    tree: &Tree,
    opts: &HierOptions,
    objs: Vec<ObjData>,
    records: Vec<CommData>,
) -> Result<RankOutcome> {
    Error::check_len("tree processors", comm.size(), tree.nprocs())?;
    let me = comm.rank();
    let mut transport = RankTransport::new(comm);
    let out = match objs.iter().find(|o| o.home as usize != me) {
        Some(o) => Err(Error::Invalid(format!(
            "object {}: its home is {}, but rank {me} holds it",
            o.id, o.home
        ))),
        None => {
            let mut own = Some(Db { objs, records });
            run(tree, opts, &mut transport, |_| {
                own.take().unwrap_or_default()
            })
        }
    };
    let out = out.inspect_err(|e| transport.tell_failure(e))?;
    Ok(RankOutcome {
        moves: out.moves.into_values().next().unwrap_or_default(),
        domains: out.domains,
        received: transport.received,
    })
}
