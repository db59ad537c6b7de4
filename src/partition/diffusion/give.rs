//! Which roots a rank gives away to realise its outgoing flows (`docs/design/diffusive.md`). Needs
//! only the rank's own rows of the dual graph: its roots, their weights, their neighbours and those
//! neighbours' owners.
//!
//! For each flow `F_kj > 0` out of rank k, largest first: the candidates are k's roots with a
//! neighbour on j, the region growing from them as roots move; the next root moved is the
//! candidate of smallest `ΔCut` for the move k → j ([`RootCosts::delta_cut`], owners as data
//! locations, with the moves made so far), ties to the one nearest k's boundary with j
//! (breadth-first), then by root. A root moves when that brings the moved `PWgt` closer to
//! `F_kj` (moved + half the root's weight below `F_kj`) and is skipped otherwise, until no
//! root of weight 1 or more could still do so. A root moves at most once per call.
//! The rank sees its own moves as it makes them; other ranks' roots keep their owners from
//! before the call, so ranks can choose at the same time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::sweep::Flow;
use crate::balance::sbn::costs::RootCosts;
use crate::{Error, Result};

/// A rank's rows of the dual graph, in the manner of ParMETIS's `xadj`/`adjncy` on one rank:
/// row `i` is root `roots[i]`; its neighbours are `adjncy[xadj[i]..xadj[i + 1]]` (global
/// root ids) with edge weights `cwgt` and current owners `owner` (both aligned with
/// `adjncy`).
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    /// The rank's roots, global ids, ascending.
    pub roots: &'a [u32],
    /// `PWgt` of each row's root.
    pub pwgt: &'a [u64],
    /// `RWgt` of each row's root.
    pub rwgt: &'a [u64],
    /// CSR offsets into `adjncy`, one more than the rows.
    pub xadj: &'a [u32],
    /// Neighbours, global root ids.
    pub adjncy: &'a [u32],
    /// `CWgt` of each neighbour entry.
    pub cwgt: &'a [u64],
    /// The owner of each neighbour entry's root.
    pub owner: &'a [u32],
}

impl Rows<'_> {
    /// Checks the shapes: one weight per root, `xadj` from 0 to `adjncy.len()` never
    /// decreasing, one edge weight and owner per entry, roots ascending.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] or [`Error::Invalid`] saying which array is wrong.
    pub fn check(&self) -> Result<()> {
        let n = self.roots.len();
        Error::check_len("row PWgt", n, self.pwgt.len())?;
        Error::check_len("row RWgt", n, self.rwgt.len())?;
        Error::check_len("row offsets", n + 1, self.xadj.len())?;
        Error::check_len("row edge weights", self.adjncy.len(), self.cwgt.len())?;
        Error::check_len("row neighbour owners", self.adjncy.len(), self.owner.len())?;
        let offsets_ok = self.xadj[0] == 0
            && self.xadj.windows(2).all(|x| x[0] <= x[1])
            && self.xadj[n] as usize == self.adjncy.len();
        if !offsets_ok || !self.roots.windows(2).all(|x| x[0] < x[1]) {
            return Err(Error::Invalid(
                "diffusion: a rank's rows need offsets from 0 to the neighbour count and roots ascending".into(),
            ));
        }
        Ok(())
    }

    pub(super) fn row(&self, i: usize) -> std::ops::Range<usize> {
        self.xadj[i] as usize..self.xadj[i + 1] as usize
    }
}

/// The rank's view while it chooses: the owners of its own roots change as it moves them.
pub(super) struct Choosing<'a> {
    rows: Rows<'a>,
    rank: u32,
    /// The current owner of each row's root.
    mine: Vec<u32>,
    /// For each neighbour entry, the row of its root when the rank holds it.
    local: Vec<Option<u32>>,
}

impl<'a> Choosing<'a> {
    /// The view of `rank`'s `rows` before any move: every row on `rank`.
    ///
    /// # Errors
    /// As [`Rows::check`].
    pub(super) fn new(rows: Rows<'a>, rank: u32) -> Result<Choosing<'a>> {
        rows.check()?;
        let local = rows
            .adjncy
            .iter()
            .map(|w| rows.roots.binary_search(w).ok().map(|i| i as u32))
            .collect();
        Ok(Choosing {
            rows,
            rank,
            mine: vec![rank; rows.roots.len()],
            local,
        })
    }

    /// The rank choosing.
    pub(super) fn rank(&self) -> u32 {
        self.rank
    }

    /// The current owner of row `i`'s root.
    pub(super) fn owner(&self, i: usize) -> u32 {
        self.mine[i]
    }

    /// Moves row `i`'s root to `p`.
    pub(super) fn set_owner(&mut self, i: usize, p: u32) {
        self.mine[i] = p;
    }

    /// The rows of row `i`'s neighbours the rank holds.
    pub(super) fn local_neighbours(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.rows
            .row(i)
            .filter_map(|e| self.local[e].map(|r| r as usize))
    }

    /// The current owners of row `i`'s neighbours, once per neighbour.
    pub(super) fn neighbour_parts(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        self.rows.row(i).map(|e| self.owner_of_entry(e))
    }

    /// `CWgt` between row `i`'s root and the roots now on part `p`.
    pub(super) fn weight_to(&self, i: usize, p: u32) -> u64 {
        self.rows
            .row(i)
            .filter(|&e| self.owner_of_entry(e) == p)
            .map(|e| self.rows.cwgt[e])
            .sum()
    }

    fn owner_of_entry(&self, e: usize) -> u32 {
        match self.local[e] {
            Some(i) => self.mine[i as usize],
            None => self.rows.owner[e],
        }
    }
}

/// The costs of the rank's own roots (`v` is a row), with owners as data locations: the data
/// of every root still on the rank is there.
impl RootCosts for Choosing<'_> {
    fn wgt(&self, v: u32) -> f64 {
        self.rows.pwgt[v as usize] as f64
    }
    fn comm(&self, v: u32, p: u32) -> f64 {
        self.rows
            .row(v as usize)
            .filter(|&e| self.owner_of_entry(e) != p)
            .map(|e| self.rows.cwgt[e] as f64)
            .sum()
    }
    fn remap(&self, v: u32, p: u32) -> f64 {
        if p == self.rank {
            0.0
        } else {
            self.rows.rwgt[v as usize] as f64
        }
    }
}

/// The roots rank `rank` gives away for its outgoing `flows` (those with `from == rank`; any
/// others are ignored), as `(root, new owner)` in the order chosen (see the module doc).
///
/// # Errors
/// As [`Rows::check`].
pub fn give_away(rows: Rows<'_>, rank: u32, flows: &[Flow]) -> Result<Vec<(u32, u32)>> {
    let mut c = Choosing::new(rows, rank)?;
    let mut mine: Vec<&Flow> = flows.iter().filter(|f| f.from == rank).collect();
    mine.sort_by(|x, y| y.amount.total_cmp(&x.amount).then(x.to.cmp(&y.to)));
    let mut moves = Vec::new();
    for flow in mine {
        realise(&mut c, flow, &mut moves);
    }
    Ok(moves)
}

/// The order in which a rank gives its roots to one receiver: smallest `ΔCut` first, then
/// nearest the first boundary (breadth-first), then by row.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key {
    delta_cut: f64,
    depth: u32,
    row: u32,
}

impl Eq for Key {}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.delta_cut
            .total_cmp(&other.delta_cut)
            .then(self.depth.cmp(&other.depth))
            .then(self.row.cmp(&other.row))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Moves the rank's roots to `flow.to` until the moved `PWgt` is as close to `flow.amount`
/// as whole roots get, appending the moves. The candidates are the roots still on the rank
/// next to one on `flow.to`: first its boundary (depth 0), then the neighbours of each root
/// moved (one deeper); the next root moved is the candidate of smallest [`Key`], its `ΔCut`
/// taken with the moves made so far (a root next to moved ones costs less to move).
fn realise(c: &mut Choosing<'_>, flow: &Flow, moves: &mut Vec<(u32, u32)>) {
    let (k, j, amount) = (c.rank, flow.to, flow.amount);
    let rows = c.rows;
    let on_k = |c: &Choosing, i: usize| c.mine[i] == k;
    let key = |c: &Choosing, i: usize, depth: u32| {
        Reverse(Key {
            delta_cut: c.delta_cut(i as u32, k, j),
            depth,
            row: i as u32,
        })
    };
    let mut depth = vec![u32::MAX; rows.roots.len()];
    let mut heap = BinaryHeap::new();
    for (i, d) in depth.iter_mut().enumerate() {
        if on_k(c, i) && rows.row(i).any(|e| c.owner_of_entry(e) == j) {
            *d = 0;
            heap.push(key(c, i, 0));
        }
    }
    let mut moved = 0.0;
    while let Some(Reverse(top)) = heap.pop() {
        if moved + 0.5 >= amount {
            return;
        }
        let i = top.row as usize;
        // A root's key only falls as roots move: an entry above its current key is stale.
        if !on_k(c, i) || key(c, i, depth[i]).0 != top {
            continue;
        }
        let w = rows.pwgt[i] as f64;
        if moved + w / 2.0 >= amount {
            continue;
        }
        moved += w;
        c.mine[i] = j;
        moves.push((rows.roots[i], j));
        for r in rows.row(i).filter_map(|e| c.local[e]).map(|r| r as usize) {
            if on_k(c, r) {
                depth[r] = depth[r].min(top.depth + 1);
                heap.push(key(c, r, depth[r]));
            }
        }
    }
}
