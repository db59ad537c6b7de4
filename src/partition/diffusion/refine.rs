//! Boundary refinement after the flows (`docs/design/diffusive.md`, after step 3): the flows leave
//! the parts' boundaries rough, so passes of greedy gain moves of boundary roots between
//! neighbouring parts lower the cut under a balance bound, as ParMETIS's adaptive
//! repartitioning refines after its diffusion (`libparmetis/akwayfm.c`,
//! `KWayAdaptiveRefine`: moves in passes of one direction, lower to higher parts then higher
//! to lower, `ProperSide`, so that two neighbouring parts do not swap roots; the moves into a
//! part limited by its room under the balance bound).
//!
//! plume's passes are stricter than ParMETIS's direction, so that the cut can never rise
//! whatever the other parts move at the same time: in the pass of bit `b` and side `s`, the
//! parts whose bit `b` is `s` send and the others receive ([`Pass::sends`]). A receiver's
//! roots stay, a sender's roots go only to receivers, and a sender sees its own moves as it
//! makes them; an edge between roots of two senders is cut before the pass and at most cut
//! after it. So the cut falls by at least the sum of the gains the senders counted, every
//! one of them positive. Over the `2 ⌈log₂ P⌉` passes of a cycle every ordered pair of parts
//! gets a pass.
//!
//! Balance: each receiver `j` takes at most its room `cap − load_j`, `cap = ⌊mean (1 +
//! slack)⌋`; each sender keeps at least `⌈mean (1 − slack)⌉`. A pass runs twice on each
//! sender: first unlimited, to ask for what it would send each receiver (summed over the parts:
//! P numbers), then within its share of each receiver's room, proportional to what it asked
//! (integers: the same on every rank and in the serial call).

use std::collections::BinaryHeap;

use super::give::{Choosing, Rows};
use crate::Result;

/// One pass: the parts whose bit `bit` equals `side` send, the others receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pass {
    bit: u32,
    side: u32,
}

impl Pass {
    /// The passes of one cycle on `nparts` parts: for each bit of the part numbers, side 0
    /// then side 1 (none for one part).
    pub(super) fn cycle(nparts: usize) -> Vec<Pass> {
        let bits = usize::BITS - nparts.saturating_sub(1).leading_zeros();
        (0..bits)
            .flat_map(|bit| [0, 1].map(|side| Pass { bit, side }))
            .collect()
    }

    /// Part `k` sends in this pass (and receives otherwise).
    pub(super) fn sends(&self, k: u32) -> bool {
        (k >> self.bit) & 1 == self.side
    }
}

/// What a sender may give in a pass.
#[derive(Debug, Clone)]
pub(super) struct Limits {
    /// `PWgt` it may still send each part (0 for senders).
    pub to: Vec<u64>,
    /// `PWgt` it may still give in all.
    pub total: u64,
}

impl Limits {
    /// No limit: what a sender would send.
    pub(super) fn none(nparts: usize) -> Limits {
        Limits {
            to: vec![u64::MAX; nparts],
            total: u64::MAX,
        }
    }
}

/// The balance bounds of a refinement from the parts' `loads`: the most a part may hold
/// after a move into it, `⌊mean (1 + slack)⌋`, and the least a part keeps after a move out of
/// it, `⌈mean (1 − slack)⌉` (`slack` a fraction).
pub(super) fn bounds(loads: &[u64], slack: f64) -> (u64, u64) {
    let mean = loads.iter().sum::<u64>() as f64 / loads.len().max(1) as f64;
    (
        (mean * (1.0 + slack)).floor() as u64,
        (mean * (1.0 - slack)).max(0.0).ceil() as u64,
    )
}

/// Sender k's limits in a pass from what it asked (`mine[j]`: the `PWgt` it would send part
/// j), what all the parts asked of each receiver (`totals`, summed over the parts) and the
/// parts' `loads`: receiver j's room `cap − load_j` shared in proportion to what was asked
/// when it cannot take all; k may give `load_k − floor`.
pub(super) fn limits(
    mine: &[u64],
    totals: &[u64],
    loads: &[u64],
    k: u32,
    bounds: (u64, u64),
) -> Limits {
    let (cap, floor) = bounds;
    let to = (0..loads.len())
        .map(|j| {
            let total = totals[j];
            let room = cap.saturating_sub(loads[j]);
            if total <= room {
                mine[j]
            } else {
                (room as u128 * mine[j] as u128 / total as u128) as u64
            }
        })
        .collect();
    Limits {
        to,
        total: loads[k as usize].saturating_sub(floor),
    }
}

/// A candidate move: its gain (cut weight saved), the receiving part, the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    gain: i64,
    /// Smaller rows and parts first on equal gains.
    row: std::cmp::Reverse<u32>,
    to: std::cmp::Reverse<u32>,
}

/// The moves part `rank` makes in `pass`, `(root, new owner)` in the order made: repeatedly
/// the root of largest gain (ties: smaller row, then smaller part) among its roots next to a
/// receiver, moved to the receiver that saves the most cut weight when that saves some and
/// the move stays within `limits`. Gains count the moves made so far (a root behind one
/// that moved gains); a root moves at most once. Receivers make no moves.
///
/// # Errors
/// As [`Rows::check`].
pub(super) fn refine_moves(
    rows: Rows<'_>,
    rank: u32,
    pass: Pass,
    mut limits: Limits,
) -> Result<Vec<(u32, u32)>> {
    let mut moves = Vec::new();
    if !pass.sends(rank) {
        return Ok(moves);
    }
    let mut c = Choosing::new(rows, rank)?;
    let mut heap = BinaryHeap::new();
    for i in 0..rows.roots.len() {
        heap.extend(best(&c, pass, i));
    }
    while let Some(top) = heap.pop() {
        let i = top.row.0 as usize;
        // Gains only grow as roots move: an entry below the root's best now is stale.
        if best(&c, pass, i) != Some(top) {
            continue;
        }
        let (j, w) = (top.to.0, rows.pwgt[i]);
        if w > limits.to[j as usize] || w > limits.total {
            continue;
        }
        limits.to[j as usize] -= w;
        limits.total -= w;
        c.set_owner(i, j);
        moves.push((rows.roots[i], j));
        for r in c.local_neighbours(i) {
            heap.extend(best(&c, pass, r));
        }
    }
    Ok(moves)
}

/// Row `i`'s best move in `pass` while it is on the rank: to the receiver next to it that
/// saves the most, when that saves something.
fn best(c: &Choosing<'_>, pass: Pass, i: usize) -> Option<Candidate> {
    if c.owner(i) != c.rank() {
        return None;
    }
    let internal = c.weight_to(i, c.rank());
    c.neighbour_parts(i)
        .filter(|&j| !pass.sends(j))
        .map(|j| Candidate {
            gain: c.weight_to(i, j) as i64 - internal as i64,
            row: std::cmp::Reverse(i as u32),
            to: std::cmp::Reverse(j),
        })
        .max()
        .filter(|m| m.gain > 0)
}

/// The roots of part `rank`'s fragments, each with the part it goes to: the connected pieces
/// of the part (through its own rows) but the heaviest (ties: the one of the smallest row),
/// each to the part its boundary shares the most `CWgt` with (ties: the smaller part).
/// Moving them all never raises the cut, whatever the other parts move at the same time: a
/// fragment has no edge to the rest of its part, so its edges to roots that stay are cut
/// before and after or, to its receiver's, no longer; an edge to a root that moves too was
/// cut before. It lowers the cut by the weight a fragment shares with its receiver's roots
/// that stay.
///
/// # Errors
/// As [`Rows::check`].
pub(super) fn fragments(rows: Rows<'_>, rank: u32) -> Result<Vec<(u32, u32)>> {
    let c = Choosing::new(rows, rank)?;
    let n = rows.roots.len();
    let mut piece = vec![u32::MAX; n];
    let mut pieces: Vec<(Vec<usize>, u64)> = Vec::new();
    for s in 0..n {
        if piece[s] != u32::MAX {
            continue;
        }
        let id = pieces.len() as u32;
        piece[s] = id;
        let (mut members, mut stack) = (vec![s], vec![s]);
        while let Some(v) = stack.pop() {
            for r in c.local_neighbours(v) {
                if piece[r] == u32::MAX {
                    piece[r] = id;
                    members.push(r);
                    stack.push(r);
                }
            }
        }
        let w = members.iter().map(|&i| rows.pwgt[i]).sum();
        pieces.push((members, w));
    }
    let main = (0..pieces.len())
        .max_by(|&a, &b| pieces[a].1.cmp(&pieces[b].1).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut moves = Vec::new();
    for (members, _) in pieces
        .iter()
        .enumerate()
        .filter(|&(id, _)| id != main)
        .map(|x| x.1)
    {
        let mut shared: Vec<(u32, u64)> = members
            .iter()
            .flat_map(|&i| rows.row(i).map(|e| (rows.owner[e], rows.cwgt[e])))
            .filter(|&(o, _)| o != rank)
            .collect();
        shared.sort_unstable_by_key(|&(o, _)| o);
        let mut best: Option<(u64, u32)> = None;
        for group in shared.chunk_by(|a, b| a.0 == b.0) {
            let w: u64 = group.iter().map(|x| x.1).sum();
            if best.is_none_or(|(bw, _)| w > bw) {
                best = Some((w, group[0].0));
            }
        }
        if let Some((_, to)) = best {
            moves.extend(members.iter().map(|&i| (rows.roots[i], to)));
        }
    }
    moves.sort_unstable();
    Ok(moves)
}
