//! HybridLB's three phases (`hierarchical.md` B.3–B.5) over a [`Transport`]: one decision code
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

use serde::{Deserialize, Serialize};

use super::db::{db_bytes, drop_lightest, keep_crossing, CommData, ObjData, RECORD_BYTES};
use super::strategies::{
    greedy, greedy_comm, ops, pick, place_tokens, refine_search, semi_transfers, sorted_ids, Ops,
    Sink, Strategy,
};
use super::tree::{Node, Tree};
use crate::Result;

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

/// How the messages of the three phases travel. A transport runs some nodes' leaders (all of
/// them in one process; its own on a rank); the phases call it only for those.
pub trait Transport {
    /// Whether this transport runs `node`'s leader (for a processor: the processor).
    fn runs(&self, tree: &Tree, node: Node) -> bool;
    /// `from` sends `msg` to its parent's leader.
    ///
    /// # Errors
    /// The transport's.
    fn send_to_leader(&mut self, tree: &Tree, from: Node, msg: Msg) -> Result<()>;
    /// The messages `node`'s children sent it, in child order.
    ///
    /// # Errors
    /// The transport's.
    fn receive_children(&mut self, tree: &Tree, node: Node) -> Result<Vec<Msg>>;
    /// `node` sends `msgs[k]` to its `k`-th child.
    ///
    /// # Errors
    /// The transport's.
    fn send_to_children(&mut self, tree: &Tree, node: Node, msgs: Vec<Msg>) -> Result<()>;
    /// The message `node`'s parent sent it.
    ///
    /// # Errors
    /// The transport's.
    fn receive_from_leader(&mut self, tree: &Tree, node: Node) -> Result<Msg>;
    /// `node`'s strategy ran, modelled at `ops` operations (for a simulated clock).
    fn strategy_ran(&mut self, node: Node, ops: f64) {
        let _ = (node, ops);
    }
}

/// Options of HybridLB.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HierOptions {
    /// The lowest level's strategy.
    pub strategy: Strategy,
    /// Table 5's rule: a domain of more objects works semi-centralized (never the lowest
    /// domains). `None`: no limit.
    pub max_objects: Option<usize>,
    /// Eq. (2)'s `M̄`: a domain whose database exceeds it drops its lightest records, then
    /// works semi-centralized (never the lowest). `None`: no limit.
    pub max_bytes: Option<u64>,
    /// Bandwidth GreedyCommLB charges messages at, bytes per second.
    pub bandwidth: f64,
}

impl Default for HierOptions {
    /// GreedyLB at the lowest level, no reduction, the SP2's 36 MB/s.
    fn default() -> Self {
        HierOptions {
            strategy: Strategy::Greedy,
            max_objects: None,
            max_bytes: None,
            bandwidth: crate::sim::Machine::default().bandwidth,
        }
    }
}

/// What a domain's leader found in phase 1 (for the report).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct DomainInfo {
    /// Objects in the domain.
    pub objects: u64,
    /// Records held (0 when semi-centralized).
    pub records: u64,
    /// Records dropped by reduction (a).
    pub dropped: u64,
    /// Eq. (2)'s bytes of what the leader holds.
    pub bytes: u64,
    /// True when the domain works on totals.
    pub semi: bool,
    /// Operations its strategy was modelled at.
    pub ops: f64,
}

/// What the phases leave on the nodes this transport runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Each domain's phase-1 facts.
    pub domains: BTreeMap<Node, DomainInfo>,
    /// Per processor run here: `(object, destination)` of its objects that move (phase 3's
    /// answer to its home).
    pub moves: BTreeMap<usize, Vec<(u32, u32)>>,
}

/// A full domain's state: objects with their child, records, what it owes, and the objects
/// that left it, picked for what it owed or moved away by an ancestor (id, child).
#[derive(Default)]
struct Full {
    objs: Vec<ObjData>,
    child: Vec<u32>,
    records: Vec<CommData>,
    owe: Vec<(Node, f64)>,
    parent_semi: bool,
    picked: Vec<(u32, u32)>,
}

/// A semi-centralized domain's state: its children's loads (without the objects they picked
/// away) and the tokens it keeps for its children.
struct Semi {
    loads: Vec<f64>,
    kept: Vec<(usize, Token)>,
}

enum State {
    Full(Full),
    Semi(Semi),
}

/// Runs the three phases on `transport`'s nodes; `own(p)` gives processor p's objects (home
/// p) and the records they send, for every processor the transport runs.
///
/// The in-process schedule below runs every node of a level before the next level; a rank
/// runs the same steps for the nodes it leads, in the same order, and tells a semi-centralized
/// parent from a full one by the kind of its parent's first phase-2 message ([`Msg::Owe`] or
/// [`Msg::Decision`]).
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
                State::Full(full) if full.parent_semi => pick_owed(full),
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
                    let (decided, ops) = decide(tree, opts, node, full, &remove, tokens);
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

fn unexpected(node: Node, msg: &Msg) -> crate::Error {
    crate::Error::Protocol {
        from: node.index,
        message: format!(
            "node {node:?} got an unexpected {:?} message in the hierarchical balancer",
            msg.phase()
        ),
    }
}

/// Phase 1 (c) at a full domain: merges its children's databases into `full`, keeps the
/// records that cross its children or leave it, drops the lightest beyond `max_bytes`, fills
/// `info`, and returns what it sends up: its objects and the records leaving it.
fn collect(
    tree: &Tree,
    opts: &HierOptions,
    node: Node,
    full: &mut Full,
    info: &mut DomainInfo,
    msgs: Vec<Msg>,
) -> Result<Msg> {
    for (c, msg) in msgs.into_iter().enumerate() {
        let Msg::Db(db) = msg else {
            return Err(unexpected(node, &msg));
        };
        full.child
            .extend(std::iter::repeat_n(c as u32, db.objs.len()));
        full.objs.extend(db.objs);
        full.records.extend(db.records);
    }
    let index = sorted_ids(&full.objs);
    let child_of = |id: u32| {
        (index.binary_search_by_key(&id, |&(x, _)| x).ok()).map(|j| full.child[index[j].1])
    };
    // GreedyCommLB reassigns every object of a lowest domain: all its records count.
    let lowest = node.level + 1 == tree.proc_level();
    if !(lowest && opts.strategy == Strategy::GreedyComm) {
        keep_crossing(&mut full.records, child_of);
    }
    if let Some(max) = opts.max_bytes {
        info.dropped = drop_lightest(&mut full.records, full.objs.len(), max) as u64;
    }
    info.records = full.records.len() as u64;
    info.bytes = db_bytes(full.objs.len(), full.records.len());
    let inside = |id: u32| index.binary_search_by_key(&id, |&(x, _)| x).is_ok();
    let leaving = full.records.iter().filter(|r| !inside(r.to));
    Ok(Msg::Db(Db {
        objs: full.objs.clone(),
        records: leaving.copied().collect(),
    }))
}

/// Phase 1 (b) at a semi domain: the amounts it owes and its children's imbalance become amounts
/// its children owe.
fn split_amounts(tree: &Tree, node: Node, semi: &Semi, owed: &[(Node, f64)]) -> Vec<Msg> {
    let speeds = tree.speeds(node.level, node.index);
    let amounts: Vec<f64> = owed.iter().map(|&(_, x)| x).collect();
    let first = tree.children(node.level, node.index).start;
    let mut owe: Vec<Vec<(Node, f64)>> = vec![Vec::new(); speeds.len()];
    for (from, to, x) in semi_transfers(&semi.loads, &speeds, &amounts) {
        let dest = match to {
            Sink::Child(k) => Node {
                level: node.level + 1,
                index: first + k,
            },
            Sink::Out(j) => owed[j].0,
        };
        owe[from].push((dest, x));
    }
    owe.into_iter().map(Msg::Owe).collect()
}

/// Sweep B at a topmost full domain: the objects it sends for what it owes, tagged with their
/// destination; they leave its database.
fn pick_owed(full: &mut Full) -> Vec<(Node, Token)> {
    let amounts: Vec<f64> = full.owe.iter().map(|&(_, x)| x).collect();
    let picks = pick(&full.objs, &amounts);
    let mut gone = vec![false; full.objs.len()];
    let mut out = Vec::new();
    for (&(dest, _), picked) in full.owe.iter().zip(&picks) {
        for &i in picked {
            gone[i] = true;
            full.picked.push((full.objs[i].id, full.child[i]));
            out.push((dest, token_of(&full.objs[i], &full.records)));
        }
    }
    retain_objects(full, |i| !gone[i]);
    out
}

/// Sweep B at a semi domain: the tokens its children picked leave their loads; keeps those
/// destined to its children, returns the others.
fn gather_picked<T: Transport>(
    tree: &Tree,
    transport: &mut T,
    node: Node,
    semi: &mut Semi,
) -> Result<Vec<(Node, Token)>> {
    let mut up = Vec::new();
    let children = tree.children(node.level, node.index);
    for (c, msg) in transport
        .receive_children(tree, node)?
        .into_iter()
        .enumerate()
    {
        let Msg::Picked(list) = msg else {
            return Err(unexpected(node, &msg));
        };
        for (dest, token) in list {
            semi.loads[c] -= token.obj.load;
            if dest.level == node.level + 1 && children.contains(&dest.index) {
                semi.kept.push((dest.index - children.start, token));
            } else {
                up.push((dest, token));
            }
        }
    }
    Ok(up)
}

/// Sweep C at a semi domain: tokens kept for a child go to it; tokens for the whole domain go,
/// heaviest first, to the child of least `load / speed`.
fn pass_tokens(tree: &Tree, node: Node, mut semi: Semi, tokens: Vec<Token>) -> Vec<Msg> {
    let mut per_child: Vec<Vec<Token>> = vec![Vec::new(); semi.loads.len()];
    semi.kept.sort_by_key(|(c, t)| (*c, t.obj.id));
    for (c, t) in semi.kept {
        semi.loads[c] += t.obj.load;
        per_child[c].push(t);
    }
    let objs: Vec<ObjData> = tokens.iter().map(|t| t.obj).collect();
    let speeds = tree.speeds(node.level, node.index);
    let bins = place_tokens(&objs, &mut semi.loads, &speeds);
    for (t, b) in tokens.into_iter().zip(bins) {
        per_child[b as usize].push(t);
    }
    per_child
        .into_iter()
        .map(|tokens| Msg::Decision {
            remove: Vec::new(),
            tokens,
        })
        .collect()
}

/// A full domain's decision: messages to its child domains, or (lowest level) the moves.
enum Decided {
    Children(Vec<Msg>),
    Procs(Vec<Match>),
}

/// Sweep D at a full domain: incoming changes, then RefineLB between the children (or the
/// strategy at the lowest level). Returns the decision and the modelled operations.
fn decide(
    tree: &Tree,
    opts: &HierOptions,
    node: Node,
    mut full: Full,
    remove: &[u32],
    tokens: Vec<Token>,
) -> (Decided, f64) {
    if !remove.is_empty() {
        let mut gone = remove.to_vec();
        gone.sort_unstable();
        let keep: Vec<bool> = (full.objs.iter())
            .map(|o| gone.binary_search(&o.id).is_err())
            .collect();
        // The child holding a removed object removes it too.
        for (i, o) in full.objs.iter().enumerate() {
            if !keep[i] {
                full.picked.push((o.id, full.child[i]));
            }
        }
        retain_objects(&mut full, |i| keep[i]);
    }
    let speeds = tree.speeds(node.level, node.index);
    let mut loads = super::strategies::bin_loads(&full.objs, &full.child, speeds.len());
    let settled = full.objs.len();
    let incoming: Vec<ObjData> = tokens.iter().map(|t| t.obj).collect();
    full.child
        .extend(place_tokens(&incoming, &mut loads, &speeds));
    full.objs.extend(incoming);
    full.records
        .extend(tokens.into_iter().flat_map(|t| t.records));
    let lowest = node.level + 1 == tree.proc_level();
    let (bin, ops) = if !lowest {
        let (bin, runs) = refine_search(&full.objs, &full.child, &speeds);
        (
            bin,
            ops(Ops::Refine { runs }, full.objs.len(), speeds.len()),
        )
    } else {
        let (n, k) = (full.objs.len(), speeds.len());
        match opts.strategy {
            Strategy::Greedy => (
                greedy(&full.objs, &speeds, &vec![0.0; k]),
                ops(Ops::Greedy, n, k),
            ),
            Strategy::GreedyComm => {
                let records = full.records.len();
                let bin = greedy_comm(&full.objs, &full.records, &speeds, opts.bandwidth);
                (bin, ops(Ops::GreedyComm { records }, n, k))
            }
            Strategy::Refine => {
                let (bin, runs) = refine_search(&full.objs, &full.child, &speeds);
                (bin, ops(Ops::Refine { runs }, n, k))
            }
        }
    };
    if lowest {
        let first = tree.procs(node.level, node.index).start as u32;
        let moves = (full.objs.iter().zip(&bin))
            .map(|(o, &b)| Match {
                id: o.id,
                home: o.home,
                dest: first + b,
            })
            .filter(|m| m.dest != m.home)
            .collect();
        return (Decided::Procs(moves), ops);
    }
    let mut msgs: Vec<(Vec<u32>, Vec<Token>)> = vec![(Vec::new(), Vec::new()); speeds.len()];
    for &(id, c) in &full.picked {
        msgs[c as usize].0.push(id);
    }
    for (i, o) in full.objs.iter().enumerate() {
        let (from, to) = (full.child[i] as usize, bin[i] as usize);
        if i >= settled || from != to {
            if i < settled {
                msgs[from].0.push(o.id);
            }
            msgs[to].1.push(token_of(o, &full.records));
        }
    }
    let msgs = msgs
        .into_iter()
        .map(|(remove, tokens)| Msg::Decision { remove, tokens })
        .collect();
    (Decided::Children(msgs), ops)
}

/// `o` as a token with the records it sends among `records`.
fn token_of(o: &ObjData, records: &[CommData]) -> Token {
    Token {
        obj: *o,
        records: records.iter().filter(|r| r.from == o.id).copied().collect(),
    }
}

/// Keeps the objects `i` with `keep(i)` (and their child), and the records whose sender is
/// kept.
fn retain_objects(full: &mut Full, keep: impl Fn(usize) -> bool) {
    let mut dropped: Vec<u32> = (0..full.objs.len())
        .filter(|&i| !keep(i))
        .map(|i| full.objs[i].id)
        .collect();
    if dropped.is_empty() {
        return;
    }
    dropped.sort_unstable();
    let mut i = 0;
    full.child.retain(|_| {
        i += 1;
        keep(i - 1)
    });
    let mut i = 0;
    full.objs.retain(|_| {
        i += 1;
        keep(i - 1)
    });
    full.records
        .retain(|r| dropped.binary_search(&r.from).is_err());
}

/// Phase 3 down: the matches whose home lies in each child of `node`.
fn split_matches(tree: &Tree, node: Node, all: Vec<Match>) -> Vec<Msg> {
    let children = tree.children(node.level, node.index);
    let span = tree.span(node.level + 1);
    let mut per: Vec<Vec<Match>> = vec![Vec::new(); children.len()];
    for m in all {
        per[m.home as usize / span - children.start].push(m);
    }
    per.into_iter().map(Msg::Matches).collect()
}
