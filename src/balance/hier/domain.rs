//! What one domain's leader does at each step of the phases ([`super::hybrid::run`]): merge
//! and filter databases, split amounts, pick and pass tokens, decide, route the matches.

use super::db::{db_bytes, drop_lightest, keep_crossing, CommData, DomainInfo, ObjData};
use super::msg::{Db, Match, Msg, Token};
use super::options::HierOptions;
use super::strategies::{
    greedy, greedy_comm, metis, ops, pick, pick_by_cut, place_tokens, refine_search,
    semi_transfers, sorted_ids, Ops, Pick, Sink, Strategy,
};
use super::transport::Transport;
use super::tree::{Node, Tree};
use crate::Result;

/// A full domain's state: objects with their child, records, what it owes, and the objects
/// that left it, picked for what it owed or moved away by an ancestor (id, child).
#[derive(Default)]
pub(super) struct Full {
    pub(super) objs: Vec<ObjData>,
    pub(super) child: Vec<u32>,
    pub(super) records: Vec<CommData>,
    pub(super) owe: Vec<(Node, f64)>,
    pub(super) parent_semi: bool,
    pub(super) picked: Vec<(u32, u32)>,
}

/// A semi-centralized domain's state: its children's loads (without the objects they picked
/// away) and the tokens it keeps for its children.
pub(super) struct Semi {
    pub(super) loads: Vec<f64>,
    pub(super) kept: Vec<(usize, Token)>,
}

/// A domain's state between the steps of the phases.
pub(super) enum State {
    Full(Full),
    Semi(Semi),
}

pub(super) fn unexpected(node: Node, msg: &Msg) -> crate::Error {
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
pub(super) fn collect(
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
    // GreedyCommLB and METIS reassign every object of a lowest domain: all its records count.
    let lowest = node.level + 1 == tree.proc_level();
    let all_count = matches!(opts.strategy, Strategy::GreedyComm | Strategy::Metis);
    if !(lowest && all_count) {
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
pub(super) fn split_amounts(
    tree: &Tree,
    node: Node,
    semi: &Semi,
    owed: &[(Node, f64)],
) -> Vec<Msg> {
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
pub(super) fn pick_owed(opts: &HierOptions, full: &mut Full) -> Vec<(Node, Token)> {
    let amounts: Vec<f64> = full.owe.iter().map(|&(_, x)| x).collect();
    let picks = match opts.pick {
        Pick::Heaviest => pick(&full.objs, &amounts),
        Pick::Cut => pick_by_cut(&full.objs, &full.records, &amounts),
    };
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
pub(super) fn gather_picked<T: Transport>(
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
pub(super) fn pass_tokens(tree: &Tree, node: Node, mut semi: Semi, tokens: Vec<Token>) -> Vec<Msg> {
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
pub(super) enum Decided {
    Children(Vec<Msg>),
    Procs(Vec<Match>),
}

/// Sweep D at a full domain: incoming changes, then RefineLB between the children (or the
/// strategy at the lowest level). Returns the decision and the modelled operations.
///
/// # Errors
/// METIS's ([`metis`]).
pub(super) fn decide(
    tree: &Tree,
    opts: &HierOptions,
    node: Node,
    mut full: Full,
    remove: &[u32],
    tokens: Vec<Token>,
) -> Result<(Decided, f64)> {
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
            Strategy::Metis => {
                let records = full.records.len();
                let bin = metis(&full.objs, &full.child, &full.records, &speeds)?;
                (bin, ops(Ops::Metis { records }, n, k))
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
        return Ok((Decided::Procs(moves), ops));
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
    Ok((Decided::Children(msgs), ops))
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
pub(super) fn split_matches(tree: &Tree, node: Node, all: Vec<Match>) -> Vec<Msg> {
    let children = tree.children(node.level, node.index);
    let span = tree.span(node.level + 1);
    let mut per: Vec<Vec<Match>> = vec![Vec::new(); children.len()];
    for m in all {
        per[m.home as usize / span - children.start].push(m);
    }
    per.into_iter().map(Msg::Matches).collect()
}
