//! HybridLB's three phases (`docs/design/hierarchical.md`) over a [`Transport`]: one decision code
//! for every transport, so the in-process simulation ([`super::InProcess`]) and ranks make the
//! same decisions bit for bit.
//!
//! 1. **Collection**: (a) every node sends its load and object count up, and each domain
//!    chooses its mode: semi-centralized when it holds more than `max_objects` objects or
//!    more than `max_bytes` of objects alone (never the lowest domains); (b) down the tree, a
//!    full leader asks its children for their databases ([`Msg::SendDb`]) and a
//!    semi-centralized one sends the amounts each child owes ([`Msg::Owe`], from
//!    [`semi_transfers`] on the totals and what it owes itself); (c) processors send their
//!    objects and records up to the full leaders, each merging its children's databases,
//!    keeping the records that cross its children or leave it, dropping the lightest beyond
//!    `max_bytes` (B.3), and sending up its objects and the records that leave it unless its
//!    parent is semi-centralized. No leader ever holds more than its limit.
//! 2. **Decisions** (down, tokens): (B) the topmost full domains pick objects for what they
//!    owe ([`pick`]) and send them up as tokens to the leader that decided the move; (C)
//!    tokens come down, each semi leader placing those for its whole domain on its least
//!    loaded child; (D) full domains top-down place incoming tokens ([`place_tokens`]), run
//!    RefineLB with its binary search between their children, and send each moved object as
//!    a token to its new child (and the removal to its old one); the lowest domains run the
//!    strategy (objects → processors).
//! 3. **Matching**: the lowest leaders send `(object, home, destination)` of the objects that
//!    move up to the top and back down to each home processor, which then sends each object
//!    once, home → destination.
//!
//! Data never moves during phase 2; tokens carry ids, loads, homes and records.

use std::collections::BTreeMap;

use super::db::{db_bytes, DomainInfo, RECORD_BYTES};
use super::domain::{
    collect, decide, gather_picked, pass_tokens, pick_owed, split_amounts, split_matches,
    unexpected, Decided, Full, Semi, State,
};
use super::msg::{Db, Match, Msg};
use super::options::HierOptions;
use super::strategies::{ops, Ops};
#[cfg(doc)]
use super::strategies::{pick, place_tokens, semi_transfers};
use super::transport::Transport;
use super::tree::{Node, Tree};
use crate::Result;

/// What the phases leave on the nodes this transport runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Each domain's phase-1 facts.
    pub domains: BTreeMap<Node, DomainInfo>,
    /// Per processor run here: `(object, destination)` of its objects that move (phase 3's
    /// answer to its home).
    pub moves: BTreeMap<usize, Vec<(u32, u32)>>,
}

/// Runs the three phases on `transport`'s nodes; `own(p)` gives processor p's objects (home
/// p) and the records they send, for every processor the transport runs.
///
/// The in-process schedule below runs every node of a level before the next level; a rank
/// runs the same steps for the nodes it leads, in the same order, and tells a semi-centralized
/// parent from a full one by the kind of its parent's first message ([`Msg::Owe`] or
/// [`Msg::SendDb`]).
///
/// # Errors
/// The transport's, and [`crate::Error::Protocol`] for a message of the wrong kind.
pub fn run<T: Transport>(
    tree: &Tree,
    opts: &HierOptions,
    transport: &mut T,
    mut own: impl FnMut(usize) -> Db,
) -> Result<Outcome> {
    let pl = tree.proc_level();
    let mut out = Outcome::default();
    let mut states: BTreeMap<Node, State> = BTreeMap::new();
    let nodes = |level: usize| (0..tree.width(level)).map(move |index| Node { level, index });

    // Phase 1 (a): totals up, every domain choosing its mode.
    let mut own_dbs: BTreeMap<usize, Db> = BTreeMap::new();
    for node in nodes(pl) {
        if transport.runs(tree, node) {
            let db = own(node.index);
            let load = db.objs.iter().map(|o| o.load).sum();
            let objects = db.objs.len() as u64;
            own_dbs.insert(node.index, db);
            transport.send_to_leader(tree, node, Msg::Totals { load, objects })?;
        }
    }
    for level in (0..pl).rev() {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            let mut loads = Vec::new();
            let mut objects = 0;
            for msg in transport.receive_children(tree, node)? {
                match msg {
                    Msg::Totals { load, objects: n } => {
                        loads.push(load);
                        objects += n;
                    }
                    other => return Err(unexpected(node, &other)),
                }
            }
            let lowest = level + 1 == pl;
            let semi = !lowest
                && (opts.max_objects.is_some_and(|m| objects > m as u64)
                    || opts
                        .max_bytes
                        .is_some_and(|m| db_bytes(objects as usize, 0) > m));
            let up = Msg::Totals {
                load: loads.iter().sum(),
                objects,
            };
            let mut info = DomainInfo {
                objects,
                semi,
                ..DomainInfo::default()
            };
            if semi {
                info.bytes = RECORD_BYTES * loads.len() as u64;
                let kept = Vec::new();
                states.insert(node, State::Semi(Semi { loads, kept }));
            } else {
                states.insert(node, State::Full(Full::default()));
            }
            out.domains.insert(node, info);
            if level > 0 {
                transport.send_to_leader(tree, node, up)?;
            }
        }
    }

    // (b): modes down; semi-centralized leaders split what they and their children owe.
    for level in 0..pl {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            // The parent's message tells its mode: amounts owed (semi) or a request (full).
            let (owed, parent_semi) = match level {
                0 => (Vec::new(), false),
                _ => match transport.receive_from_leader(tree, node)? {
                    Msg::Owe(owe) => (owe, true),
                    Msg::SendDb => (Vec::new(), false),
                    other => return Err(unexpected(node, &other)),
                },
            };
            let lowest = level + 1 == pl;
            match states
                .get_mut(&node)
                .expect("a domain run here has a state")
            {
                State::Full(full) => {
                    full.owe = owed;
                    full.parent_semi = parent_semi;
                    if !lowest {
                        let n = tree.children(node.level, node.index).len();
                        transport.send_to_children(tree, node, vec![Msg::SendDb; n])?;
                    }
                }
                State::Semi(s) => {
                    let msgs = split_amounts(tree, node, s, &owed);
                    let info = out.domains.get_mut(&node).expect("counted");
                    info.ops = ops(Ops::Semi, info.objects as usize, s.loads.len());
                    transport.strategy_ran(node, info.ops);
                    transport.send_to_children(tree, node, msgs)?;
                }
            }
        }
    }

    // (c): the databases up to the full leaders.
    for node in nodes(pl) {
        if transport.runs(tree, node) {
            let db = own_dbs.remove(&node.index).expect("taken above");
            transport.send_to_leader(tree, node, Msg::Db(db))?;
        }
    }
    for level in (0..pl).rev() {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            let Some(State::Full(full)) = states.get_mut(&node) else {
                continue;
            };
            let msgs = transport.receive_children(tree, node)?;
            let info = out.domains.get_mut(&node).expect("counted");
            let up = collect(tree, opts, node, full, info, msgs)?;
            if level > 0 && !full.parent_semi {
                transport.send_to_leader(tree, node, up)?;
            }
        }
    }

    // (B): picked tokens up to the leader that decided their move.
    for level in (0..pl).rev() {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            let up = match states
                .get_mut(&node)
                .expect("a domain run here has a state")
            {
                State::Semi(s) => gather_picked(tree, transport, node, s)?,
                State::Full(full) if full.parent_semi => pick_owed(full, opts.pick),
                State::Full(_) => continue,
            };
            if level > 0 {
                transport.send_to_leader(tree, node, Msg::Picked(up))?;
            } else {
                debug_assert!(up.is_empty(), "every token is destined inside the tree");
            }
        }
    }
    // (C) and (D): tokens down, decisions of the full domains.
    let mut matches: BTreeMap<Node, Vec<Match>> = BTreeMap::new();
    for level in 0..pl {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            let (remove, tokens) = match level {
                0 => (Vec::new(), Vec::new()),
                _ => match transport.receive_from_leader(tree, node)? {
                    Msg::Decision { remove, tokens } => (remove, tokens),
                    other => return Err(unexpected(node, &other)),
                },
            };
            match states.remove(&node).expect("a domain run here has a state") {
                State::Semi(s) => {
                    let msgs = pass_tokens(tree, node, s, tokens);
                    transport.send_to_children(tree, node, msgs)?;
                }
                State::Full(full) => {
                    let (decided, ops) = decide(tree, opts, node, full, &remove, tokens)?;
                    out.domains.get_mut(&node).expect("collected").ops += ops;
                    transport.strategy_ran(node, ops);
                    match decided {
                        Decided::Children(msgs) => transport.send_to_children(tree, node, msgs)?,
                        Decided::Procs(m) => {
                            matches.insert(node, m);
                        }
                    }
                }
            }
        }
    }

    // Phase 3: the moves up to the top, then down to their homes.
    for level in (0..pl).rev() {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            let mut all = matches.remove(&node).unwrap_or_default();
            if level + 1 < pl {
                for msg in transport.receive_children(tree, node)? {
                    match msg {
                        Msg::Matches(m) => all.extend(m),
                        other => return Err(unexpected(node, &other)),
                    }
                }
            }
            if level > 0 {
                transport.send_to_leader(tree, node, Msg::Matches(all))?;
            } else {
                transport.send_to_children(tree, node, split_matches(tree, node, all))?;
            }
        }
    }
    for level in 1..=pl {
        for node in nodes(level) {
            if !transport.runs(tree, node) {
                continue;
            }
            let all = match transport.receive_from_leader(tree, node)? {
                Msg::Matches(all) => all,
                other => return Err(unexpected(node, &other)),
            };
            if level == pl {
                let moves = all.iter().map(|m| (m.id, m.dest)).collect();
                out.moves.insert(node.index, moves);
            } else {
                transport.send_to_children(tree, node, split_matches(tree, node, all))?;
            }
        }
    }
    Ok(out)
}
