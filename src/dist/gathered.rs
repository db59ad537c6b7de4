//! [`GatheredPlum`]: [Harvey 2001]'s PLUM on ranks, the gathered path. Rank 0 keeps the whole dual
//! graph, every root's owner and the size each tree moves with; at each step every rank sends
//! it the rows that changed since it last sent them (new weights, or a root that arrived), rank
//! 0 runs PLUM (any partitioner, remapper and policy) and sends each rank the roots it gives
//! away, with the decision's numbers. Rank 0 alone partitions: every rank running the same
//! partitioner would repeat its work P times over on shared cores.
//!
//! A rank remembers what it last sent of each root it holds, so only changed rows travel. With
//! its decision rank 0 sends each rank the rows of the roots coming to it, as rank 0 holds them;
//! a root that arrived otherwise (moved by the caller, or by SBN while processing) is new to
//! its holder and is sent, which tells rank 0 its owner (each root is held by one rank at each
//! step). The graph on rank 0 thus holds, at every step, the
//! weights of every tree as its holder computes them: the same as before the balancer became
//! a role, bit for bit.

use super::balancer::{check_ranks, BalanceOutcome, Balancer, Decision, HeldRows};
use super::rows::ByRoot;
use crate::balance::{Balance, Plum};
use crate::comm::{Comm, CommExt};
use crate::graph::DualGraph;
use crate::metrics::Movement;
use crate::{Error, Result};

/// What a rank sends rank 0 of one root: its weights, its `CWgt` (aligned with its
/// neighbours, ascending: a root has at most 4 face neighbours) and the size its tree moves
/// with.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct SentRow {
    pwgt: u64,
    rwgt: u64,
    moving: u64,
    degree: u8,
    cwgt: [u64; 4],
}

impl SentRow {
    /// Row `i` of `held`.
    fn of(held: &HeldRows<'_>, i: usize) -> Result<SentRow> {
        let rows = held.rows;
        let e = rows.xadj[i] as usize..rows.xadj[i + 1] as usize;
        let mut cwgt = [0; 4];
        cwgt.get_mut(..e.len())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "plum: root {} has {} neighbours: a tetrahedron has at most 4",
                    rows.roots[i],
                    e.len()
                ))
            })?
            .copy_from_slice(&rows.cwgt[e.clone()]);
        Ok(SentRow {
            pwgt: rows.pwgt[i],
            rwgt: rows.rwgt[i],
            moving: held.moving[i],
            degree: e.len() as u8,
            cwgt,
        })
    }
}

/// What rank 0 keeps: the graph and its weights, every root's owner and moving size.
struct Whole {
    graph: DualGraph,
    owner: Vec<u32>,
    moving: Vec<u64>,
}

impl Whole {
    /// Root `r`'s row as its holder last sent it (or as the graph began).
    fn row(&self, r: u32) -> SentRow {
        let w = &self.graph.weights;
        let e = self.graph.neighbours(r);
        let mut cwgt = [0; 4];
        cwgt[..e.len()].copy_from_slice(&w.cwgt[e.clone()]);
        SentRow {
            pwgt: w.pwgt[r as usize],
            rwgt: w.rwgt[r as usize],
            moving: self.moving[r as usize],
            degree: e.len() as u8,
            cwgt,
        }
    }
}

/// What rank 0 tells one rank of its decision: the roots that leave it (with their new
/// owners) and those that come to it, with their rows as rank 0 holds them (the new holder
/// then sends them again only when they change).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Moves {
    leaving: Vec<(u32, u32)>,
    arriving: Vec<(u32, SentRow)>,
}

/// Rank 0's copy of every root's weights, owner and moving size, kept up to date by each
/// rank's changed rows (see the module doc): PLUM's input, and the records' of a balancer that
/// decides without it ([`Hierarchical::keeping_records`](super::Hierarchical::keeping_records)).
#[derive(Default)]
pub(super) struct Gathered {
    /// Rank 0's (after [`Gathered::keep`]).
    whole: Option<Whole>,
    /// What this rank last sent of each root it held then (or rank 0 sent it of a root
    /// that came here).
    sent: ByRoot<SentRow>,
}

impl Gathered {
    /// On rank 0: keeps `graph` and the first owners `owner`.
    pub(super) fn keep(&mut self, graph: DualGraph, owner: Vec<u32>) {
        self.whole = Some(Whole {
            moving: graph.weights.rwgt.clone(),
            owner,
            graph,
        });
    }

    /// Rank 0's graph.
    pub(super) fn graph(&self) -> Option<&DualGraph> {
        self.whole.as_ref().map(|w| &w.graph)
    }

    /// Rank 0's owners.
    pub(super) fn owners(&self) -> Option<&[u32]> {
        self.whole.as_ref().map(|w| &w.owner[..])
    }

    /// Rank 0's moving sizes.
    pub(super) fn moving(&self) -> Option<&[u64]> {
        self.whole.as_ref().map(|w| &w.moving[..])
    }

    /// Sends rank 0 the rows of `held` that changed since this rank last sent them (a
    /// collective); rank 0 takes them into its graph, owners and moving sizes. Returns rank 0's
    /// failure to take them (`Ok` elsewhere), for the caller to agree on.
    pub(super) fn gather(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Result<()>> {
        let mut changed = Vec::new();
        // A row this rank cannot send fails every rank after the collective, not before it.
        let mut taken = held.rows.check();
        if taken.is_ok() {
            let mut rows = (0..held.rows.roots.len()).map(|i| SentRow::of(&held, i));
            self.sent
                .pass(held.rows.roots.iter().copied(), |root, was| {
                    match rows.next().expect("one row per root") {
                        Ok(row) => {
                            if was != Some(row) {
                                changed.push((root, row));
                            }
                            row
                        }
                        Err(e) => {
                            taken = Err(e);
                            SentRow::default()
                        }
                    }
                });
        }
        let mut outgoing = vec![Vec::new(); comm.size()];
        outgoing[0] = changed;
        let incoming = comm.all_to_all_serde(&outgoing)?;
        if comm.rank() != 0 || taken.is_err() {
            return Ok(taken);
        }
        let Some(whole) = self.whole.as_mut() else {
            return Ok(Err(no_graph()));
        };
        let mut all: Vec<(u32, u32, SentRow)> = incoming
            .into_iter()
            .enumerate()
            .flat_map(|(rank, rows)| rows.into_iter().map(move |(r, w)| (r, rank as u32, w)))
            .collect();
        // Each rank sends its roots ascending: the stable sort merges the ranks' runs.
        all.sort_by_key(|t| t.0);
        Ok(all.into_iter().try_for_each(|(r, rank, w)| {
            let cwgt = &w.cwgt[..usize::from(w.degree).min(4)];
            whole.graph.set_row_weights(r, w.pwgt, w.rwgt, cwgt)?;
            whole.owner[r as usize] = rank;
            whole.moving[r as usize] = w.moving;
            Ok(())
        }))
    }

    /// Tells rank 0 the roots that left each rank (`leaving`, this rank's; a collective):
    /// its owners follow. A root's new holder sends its row again at the next gather. Returns,
    /// on rank 0, the flows of what moves in the sizes the trees move with, and in the
    /// graph's (`RWgt`: predicted before subdivision).
    pub(super) fn moved(
        &mut self,
        comm: &dyn Comm,
        leaving: &[(u32, u32)],
    ) -> Result<Option<(Movement, Movement)>> {
        let mut outgoing = vec![Vec::new(); comm.size()];
        outgoing[0] = leaving.to_vec();
        let incoming: Vec<Vec<(u32, u32)>> = comm.all_to_all_serde(&outgoing)?;
        let Some(whole) = self.whole.as_mut() else {
            return Ok(None);
        };
        let p = comm.size();
        let mut flows = [vec![0u64; p], vec![0u64; p], vec![0u64; p], vec![0u64; p]];
        for (from, moves) in incoming.into_iter().enumerate() {
            for (r, to) in moves {
                let (moving, rwgt) = (
                    whole.moving[r as usize],
                    whole.graph.weights.rwgt[r as usize],
                );
                flows[0][from] += moving;
                flows[1][to as usize] += moving;
                flows[2][from] += rwgt;
                flows[3][to as usize] += rwgt;
                whole.owner[r as usize] = to;
            }
        }
        let [sent, received, planned_sent, planned_received] = flows;
        Ok(Some((
            Movement::from_flows(sent, received),
            Movement::from_flows(planned_sent, planned_received),
        )))
    }
}

/// PLUM on rank 0 with the gathered weights (see the module doc): [Harvey 2001]'s method.
pub struct GatheredPlum {
    plum: Plum,
    gathered: Gathered,
}

impl GatheredPlum {
    /// `plum` on the gathered weights; its first partitioner ([`Plum::first_by`], or its
    /// partitioner) makes the first owners.
    pub fn new(plum: Plum) -> GatheredPlum {
        GatheredPlum {
            plum,
            gathered: Gathered::default(),
        }
    }

    /// PLUM on rank 0's graph: the decision, its numbers, and each rank's roots that leave.
    fn decide(&mut self, ranks: usize) -> Result<Decided> {
        let whole = self.gathered.whole.as_mut().ok_or_else(no_graph)?;
        let graph = whole.graph.view(&whole.graph.weights)?;
        let b = self
            .plum
            .balance_moving(&graph, &whole.owner, &whole.moving)?;
        self.settle(b, ranks)
    }

    /// Rank 0 carries out PLUM's decision `b` on its graph: the owners it keeps take the new
    /// ones; returns the decision, its numbers and each rank's moves.
    fn settle(&mut self, b: Balance, ranks: usize) -> Result<Decided> {
        let whole = self.gathered.whole.as_mut().ok_or_else(no_graph)?;
        let mut moves = vec![Moves::default(); ranks];
        if let Some(new_owner) = &b.new_owner {
            for (r, (&old, &new)) in whole.owner.iter().zip(new_owner).enumerate() {
                if old != new {
                    let r = r as u32;
                    moves[old as usize].leaving.push((r, new));
                    moves[new as usize].arriving.push((r, whole.row(r)));
                }
            }
            whole.owner.clone_from(new_owner);
        }
        let outcome = BalanceOutcome::of(&b);
        Ok((b, outcome, moves))
    }
}

/// PLUM's whole decision on rank 0, its numbers, and each rank's moves.
type Decided = (Balance, BalanceOutcome, Vec<Moves>);

/// What rank 0 sends each rank: the decision's numbers and the rank's moves.
type RankDecision = (BalanceOutcome, Moves);

/// Rank 0 balances before the run made its first owners.
fn no_graph() -> Error {
    Error::Invalid(
        "plum: rank 0 has no dual graph: the balancer did not make the first owners".into(),
    )
}

impl Balancer for GatheredPlum {
    fn check(&self, ranks: usize) -> Result<()> {
        check_ranks("plum", self.plum.opts.nprocs, ranks)
    }

    /// PLUM's first partition ([`Plum::initial_assignment`]); rank 0 keeps the graph.
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>> {
        check_ranks("plum", self.plum.opts.nprocs, ranks)?;
        let owner = self.plum.initial_assignment(&graph.view(&graph.weights)?)?;
        self.gathered.keep(graph, owner.clone());
        Ok(owner)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision> {
        let decided = self
            .gathered
            .gather(comm, held)?
            .and_then(|()| match comm.rank() {
                0 => self.decide(comm.size()).map(Some),
                _ => Ok(None),
            });
        self.send(comm, decided)
    }

    /// Brings rank 0's graph up to date.
    fn observe(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<()> {
        let gathered = self.gathered.gather(comm, held)?;
        comm.agree(gathered)
    }

    /// PLUM's policy's history: rank 0's policy decides.
    fn save_state(&self) -> Vec<u8> {
        self.plum.save_state()
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        self.plum.restore_state(bytes)
    }

    fn graph(&self) -> Option<&DualGraph> {
        self.gathered.graph()
    }

    fn owners(&self) -> Option<&[u32]> {
        self.gathered.owners()
    }

    fn moving(&self) -> Option<&[u64]> {
        self.gathered.moving()
    }
}

/// The halves of a decision a caller of rank 0's PLUM ([`Select`](super::Select)) uses
/// apart.
impl GatheredPlum {
    /// Sends each rank its part of rank 0's decision (`decided`, `Some` on rank 0; a failure
    /// anywhere ends every rank): a collective.
    fn send(&mut self, comm: &dyn Comm, decided: Result<Option<Decided>>) -> Result<Decision> {
        let decided = comm.agree(decided)?;
        let (plum, outgoing) = match decided {
            Some((b, outcome, moves)) => {
                let outgoing = moves.into_iter().map(|m| Some((outcome.clone(), m)));
                (Some(b), outgoing.collect())
            }
            None => (None, vec![None; comm.size()]),
        };
        let mut incoming: Vec<Option<RankDecision>> = comm.all_to_all_serde(&outgoing)?;
        let (outcome, moves) = incoming
            .swap_remove(0)
            .ok_or_else(|| Error::Invalid("plum: rank 0 sent no decision".into()))?;
        // Rank 0 holds the rows of the roots coming here: this rank sends them again only
        // when they change.
        for (r, row) in moves.arriving {
            self.gathered.sent.put(r, row);
        }
        Ok(Decision {
            leaving: moves.leaving,
            outcome: Some(outcome),
            plum,
            hier: None,
        })
    }

    /// Rank 0 proposes PLUM's repartition of its graph without asking the policy
    /// ([`Plum::propose_moving`], the accept rule applied), for a caller that decides when
    /// to balance ([`Select`](super::Select)).
    ///
    /// # Errors
    /// On a rank without the graph; PLUM's.
    pub(super) fn propose(&self) -> Result<Balance> {
        let whole = self.gathered.whole.as_ref().ok_or_else(no_graph)?;
        let graph = whole.graph.view(&whole.graph.weights)?;
        self.plum
            .propose_moving(&graph, &whole.owner, None, &whole.moving)
    }

    /// Carries out `proposed`, rank 0's [`GatheredPlum::propose`] on the graph as it was
    /// last gathered (`None` on the other ranks; a failure on rank 0 ends every rank): a
    /// collective, the sending half of [`Balancer::balance`].
    ///
    /// # Errors
    /// As [`Balancer::balance`].
    pub(super) fn carry_out(
        &mut self,
        comm: &dyn Comm,
        proposed: Result<Option<Balance>>,
    ) -> Result<Decision> {
        let decided = proposed.and_then(|b| b.map(|b| self.settle(b, comm.size())).transpose());
        self.send(comm, decided)
    }

    /// Tells rank 0 of roots another balancer moved (`leaving`: this rank's, with their new
    /// owners), so that the owners it keeps stay every root's: a collective, O(moved).
    ///
    /// # Errors
    /// The transport's.
    pub(super) fn moved_by_others(
        &mut self,
        comm: &dyn Comm,
        leaving: &[(u32, u32)],
    ) -> Result<()> {
        self.gathered.moved(comm, leaving).map(|_| ())
    }

    /// Rank 0's graph (its last gathered weights), every root's owner and moving size.
    pub(super) fn whole(&self) -> Option<(&DualGraph, &[u32], &[u64])> {
        self.gathered
            .whole
            .as_ref()
            .map(|w| (&w.graph, &w.owner[..], &w.moving[..]))
    }
}
