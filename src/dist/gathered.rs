//! [`GatheredPlum`]: seed 004's PLUM on ranks, the gathered path. Rank 0 keeps the whole dual
//! graph, every root's owner and the size each tree moves with; at each step every rank sends
//! it the rows that changed since it last sent them (new weights, or a root that arrived), rank
//! 0 runs PLUM (any partitioner, remapper and policy) and sends each rank the roots it gives
//! away, with the decision's numbers. Rank 0 alone partitions: every rank running the same
//! partitioner would repeat its work P times over on shared cores.
//!
//! A rank remembers what it last sent of each root it holds, so only changed rows travel; a
//! root that arrived is new to its holder and is sent, which tells rank 0 its owner (each root
//! is held by one rank at each step). The graph on rank 0 thus holds, at every step, the
//! weights of every tree as its holder computes them: the same as before the balancer became
//! a role, bit for bit.

use std::collections::BTreeMap;

use super::balancer::{check_ranks, BalanceOutcome, Balancer, Decision, HeldRows};
use crate::balance::{Balance, Plum};
use crate::comm::{Comm, CommExt};
use crate::graph::DualGraph;
use crate::{Error, Result};

/// What a rank sends rank 0 of one root: its weights, its `CWgt` (aligned with its
/// neighbours, ascending) and the size its tree moves with.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct SentRow {
    pwgt: u64,
    rwgt: u64,
    moving: u64,
    cwgt: Vec<u64>,
}

/// What rank 0 keeps: the graph and its weights, every root's owner and moving size.
struct Whole {
    graph: DualGraph,
    owner: Vec<u32>,
    moving: Vec<u64>,
}

/// PLUM on rank 0 with the gathered weights (see the module doc): the seed's method.
pub struct GatheredPlum {
    plum: Plum,
    /// Rank 0's (after [`Balancer::first_owners`]).
    whole: Option<Whole>,
    /// What this rank last sent of each root it held then.
    sent: BTreeMap<u32, SentRow>,
}

impl GatheredPlum {
    /// `plum` on the gathered weights; its first partitioner ([`Plum::first_by`], or its
    /// partitioner) makes the first owners.
    pub fn new(plum: Plum) -> GatheredPlum {
        GatheredPlum {
            plum,
            whole: None,
            sent: BTreeMap::new(),
        }
    }

    /// Sends rank 0 the rows of `held` that changed since this rank last sent them (a
    /// collective); rank 0 takes them into its graph, owners and moving sizes. Returns rank 0's
    /// failure to take them (`Ok` elsewhere), for the caller to agree on.
    fn gather(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Result<()>> {
        let rows = held.rows;
        let mut changed = Vec::new();
        let mut sent = BTreeMap::new();
        for (i, &root) in rows.roots.iter().enumerate() {
            let e = rows.xadj[i] as usize..rows.xadj[i + 1] as usize;
            let row = SentRow {
                pwgt: rows.pwgt[i],
                rwgt: rows.rwgt[i],
                moving: held.moving[i],
                cwgt: rows.cwgt[e].to_vec(),
            };
            if self.sent.get(&root) != Some(&row) {
                changed.push((root, row.clone()));
            }
            sent.insert(root, row);
        }
        self.sent = sent;
        let mut outgoing = vec![Vec::new(); comm.size()];
        outgoing[0] = changed;
        let incoming = comm.all_to_all_serde(&outgoing)?;
        if comm.rank() != 0 {
            return Ok(Ok(()));
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
            whole.graph.set_row_weights(r, w.pwgt, w.rwgt, &w.cwgt)?;
            whole.owner[r as usize] = rank;
            whole.moving[r as usize] = w.moving;
            Ok(())
        }))
    }

    /// PLUM on rank 0's graph: the decision, its numbers, and each rank's roots that leave.
    fn decide(&mut self, ranks: usize) -> Result<Decided> {
        let whole = self.whole.as_mut().ok_or_else(no_graph)?;
        let graph = whole.graph.view(&whole.graph.weights)?;
        let b = self
            .plum
            .balance_moving(&graph, &whole.owner, &whole.moving)?;
        let mut leaving = vec![Vec::new(); ranks];
        if let Some(new_owner) = &b.new_owner {
            for (r, (&old, &new)) in whole.owner.iter().zip(new_owner).enumerate() {
                if old != new {
                    leaving[old as usize].push((r as u32, new));
                }
            }
            whole.owner.clone_from(new_owner);
        }
        Ok((b.clone(), BalanceOutcome::of(&b), leaving))
    }
}

/// PLUM's whole decision on rank 0, its numbers, and each rank's roots that leave.
type Decided = (Balance, BalanceOutcome, Vec<Vec<(u32, u32)>>);

/// What rank 0 sends each rank: the decision's numbers and the rank's roots that leave.
type RankDecision = (BalanceOutcome, Vec<(u32, u32)>);

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
        self.whole = Some(Whole {
            moving: graph.weights.rwgt.clone(),
            owner: owner.clone(),
            graph,
        });
        Ok(owner)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision> {
        let decided = self.gather(comm, held)?.and_then(|()| match comm.rank() {
            0 => self.decide(comm.size()).map(Some),
            _ => Ok(None),
        });
        let decided = comm.agree(decided)?;
        let (plum, outgoing) = match decided {
            Some((b, outcome, leaving)) => {
                let outgoing = leaving.into_iter().map(|l| Some((outcome.clone(), l)));
                (Some(b), outgoing.collect())
            }
            None => (None, vec![None; comm.size()]),
        };
        let mut incoming: Vec<Option<RankDecision>> = comm.all_to_all_serde(&outgoing)?;
        let (outcome, leaving) = incoming
            .swap_remove(0)
            .ok_or_else(|| Error::Invalid("plum: rank 0 sent no decision".into()))?;
        Ok(Decision {
            leaving,
            outcome: Some(outcome),
            plum,
        })
    }

    /// Brings rank 0's graph up to date.
    fn observe(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<()> {
        let gathered = self.gather(comm, held)?;
        comm.agree(gathered)
    }

    fn graph(&self) -> Option<&DualGraph> {
        self.whole.as_ref().map(|w| &w.graph)
    }
}
