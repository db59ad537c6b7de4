//! The diffusive repartitioner on ranks, each holding only its rows of the dual graph. Each
//! round: the P loads and each rank's neighbouring ranks are all-gathered (the quotient
//! graph), every rank computes the same flows, each rank chooses the roots it gives away from
//! the rows it holds, the moves go to the ranks that hold a neighbour of a moved root (and to
//! its new owner), and the moved rows go to their new owners. The tidyings and the
//! refinement's passes move roots the same way, each pass needing one sum of P numbers (what
//! the senders ask of each receiver) besides the P loads. At the end each root's first
//! owner learns where it went, and tells the ranks next to it. Nothing a rank holds or sends
//! grows with the whole graph, only with its rows and with P.

use super::held::{self, Flat, Row};
use super::{as_f64, give_away, refine, Diffusion, DiffusionReport, Quotient, Rows, Tally};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::metrics::Movement;
use crate::{Error, Result};

/// One rank's outcome of [`Diffusion::on_rank`].
#[derive(Debug, Clone, PartialEq)]
pub struct RankDiffusion {
    /// The rank's roots (of the `rows` it was called with) that end on another rank,
    /// `(root, new owner)`, ascending.
    pub given: Vec<(u32, u32)>,
    /// Moves by other ranks of roots this rank must know about: those it receives and those
    /// neighbouring one of its rows, `(root, new owner)`, ascending (to update `Rows::owner`).
    pub heard: Vec<(u32, u32)>,
    /// The report, the same on every rank.
    pub report: DiffusionReport,
}

impl Diffusion {
    /// [`Diffusion::rebalance`] on ranks: this rank holds `rows` (its roots, all of them owned
    /// by it); parts are the ranks of `comm`. Every rank must call it. The union of the ranks'
    /// moves is what [`Diffusion::rebalance`] moves on the whole graph.
    ///
    /// # Errors
    /// On every rank, the lowest failing rank's: bad rows ([`Rows::check`]), a neighbour owner
    /// that is not a rank ([`Error::RankOutOfRange`]), a bad γ, no rounds; and the
    /// transport's.
    pub fn on_rank(&self, comm: &dyn Comm, rows: Rows<'_>) -> Result<RankDiffusion> {
        let (rank, size) = (comm.rank(), comm.size());
        comm.agree(self.check(size).and_then(|()| check_rows(rows, size)))?;
        let mut held = held::rows_of_rank(rows, rank as u32);
        let loads: Vec<u64> = comm.all_gather_serde(&rows.pwgt.iter().sum::<u64>())?;
        let mut tally = Tally::new(loads);
        self.rounds_on_rank(comm, &mut held, &mut tally)?;
        for _ in 0..self.refine.tidy {
            let kept = (held.clone(), tally.clone());
            let given = refine::fragments(Flat::of(&held).rows(), rank as u32)?;
            let (loads, count) = changed(comm, &held, &given, &tally.loads)?;
            if count == 0 {
                break;
            }
            settle(comm, &mut held, given)?;
            tally.loads = loads;
            tally.tidied += count;
            self.rounds_on_rank(comm, &mut held, &mut tally)?;
            if !self.tidy_stands(&kept.1, &tally) {
                (held, tally) = kept;
                break;
            }
        }
        self.refine_on_rank(comm, &mut held, &mut tally)?;
        self.finish(comm, rows, &held, tally)
    }

    /// The rounds from the rows `held` (the loads in `tally`).
    fn rounds_on_rank(
        &self,
        comm: &dyn Comm,
        held: &mut Vec<Row>,
        tally: &mut Tally,
    ) -> Result<()> {
        let (rank, size) = (comm.rank(), comm.size());
        for _ in 0..self.rounds {
            let mut adjacent: Vec<u32> = held
                .iter()
                .flat_map(|r| r.owner.iter().copied())
                .filter(|&o| o as usize != rank)
                .collect();
            adjacent.sort_unstable();
            adjacent.dedup();
            let adjacency: Vec<Vec<u32>> = comm.all_gather_serde(&adjacent)?;
            let edges = adjacency
                .iter()
                .enumerate()
                .flat_map(|(k, adj)| adj.iter().map(move |&j| (k as u32, j)));
            let q = Quotient::from_edges(size, edges);
            let (gamma, diffused, flows) = comm.agree(self.plan(&q, &as_f64(&tally.loads)))?;
            let given = give_away(Flat::of(held).rows(), rank as u32, &flows)?;
            let (after, count) = changed(comm, held, &given, &tally.loads)?;
            if !tally.round(gamma, &diffused, flows, count > 0, after) {
                break;
            }
            settle(comm, held, given)?;
        }
        Ok(())
    }

    /// The [`Refinement`]'s passes from the rows `held` (the loads in `tally`).
    fn refine_on_rank(
        &self,
        comm: &dyn Comm,
        held: &mut Vec<Row>,
        tally: &mut Tally,
    ) -> Result<()> {
        let (rank, size) = (comm.rank() as u32, comm.size());
        let bounds = refine::bounds(&tally.loads, self.refine.slack);
        for _ in 0..self.refine.cycles {
            let before = tally.refine_moves;
            for pass in refine::Pass::cycle(size) {
                let rows = Flat::of(held);
                let unlimited = refine::Limits::none(size);
                let mut asked = vec![0u64; size];
                for (v, to) in refine::refine_moves(rows.rows(), rank, pass, unlimited)? {
                    asked[to as usize] += held[row_of(held, v)].pwgt;
                }
                let totals = comm.all_reduce_u64(&asked, ReduceOp::Sum)?;
                let limits = refine::limits(&asked, &totals, &tally.loads, rank, bounds);
                let mut given = refine::refine_moves(rows.rows(), rank, pass, limits)?;
                given.sort_unstable();
                let (after, count) = changed(comm, held, &given, &tally.loads)?;
                settle(comm, held, given)?;
                tally.loads = after;
                tally.refine_moves += count;
            }
            if tally.refine_moves == before {
                break;
            }
        }
        Ok(())
    }

    /// Tells each root's first owner where it ended, that owner the ranks next to it, and
    /// sums what moved into the report.
    fn finish(
        &self,
        comm: &dyn Comm,
        rows: Rows<'_>,
        held: &[Row],
        tally: Tally,
    ) -> Result<RankDiffusion> {
        let (rank, size) = (comm.rank(), comm.size());
        let mut ended = vec![Vec::<(u32, u32)>::new(); size];
        let mut sums = vec![0u64; 2 * size + 2]; // RWgt sent, received; roots; PWgt
        for r in held.iter().filter(|r| r.first_owner as usize != rank) {
            ended[r.first_owner as usize].push((r.root, rank as u32));
            sums[r.first_owner as usize] += r.rwgt;
            sums[size + rank] += r.rwgt;
            sums[2 * size] += 1;
            sums[2 * size + 1] += r.pwgt;
        }
        let mut given = comm.all_to_all_serde(&ended)?.concat();
        given.sort_unstable();
        let first = held::rows_of_rank(rows, rank as u32);
        let heard = comm.all_to_all_serde(&announce(&first, &given, rank, size))?;
        let mut heard = heard.concat();
        heard.sort_unstable();
        let sums = comm.all_reduce_u64(&sums, ReduceOp::Sum)?;
        let movement = Movement::from_flows(sums[..size].to_vec(), sums[size..2 * size].to_vec());
        let report = tally.report(sums[2 * size] as usize, sums[2 * size + 1], movement);
        Ok(RankDiffusion {
            given,
            heard,
            report,
        })
    }
}

/// The parts' loads after every rank gives away `given` (roots of `held`) from `loads`, and
/// the roots given in all.
fn changed(
    comm: &dyn Comm,
    held: &[Row],
    given: &[(u32, u32)],
    loads: &[u64],
) -> Result<(Vec<u64>, usize)> {
    let (rank, size) = (comm.rank(), comm.size());
    let mut change = vec![0u64; 2 * size + 1]; // PWgt sent, then received; roots
    for &(v, to) in given {
        let w = held[row_of(held, v)].pwgt;
        change[rank] += w;
        change[size + to as usize] += w;
        change[2 * size] += 1;
    }
    let change = comm.all_reduce_u64(&change, ReduceOp::Sum)?;
    let after = (0..size)
        .map(|k| loads[k] - change[k] + change[size + k])
        .collect();
    Ok((after, change[2 * size] as usize))
}

/// Every rank gives away `given` (roots of `held`): the ranks next to a moved root and its
/// receiver hear of it, and its row goes to the receiver.
fn settle(comm: &dyn Comm, held: &mut Vec<Row>, mut given: Vec<(u32, u32)>) -> Result<()> {
    let (rank, size) = (comm.rank(), comm.size());
    given.sort_unstable();
    let heard = comm.all_to_all_serde(&announce(held, &given, rank, size))?;
    let mut heard = heard.concat();
    heard.extend_from_slice(&given);
    heard.sort_unstable();
    held::hear(held, &heard);
    let mut shipped = vec![Vec::<Row>::new(); size];
    held.retain(|r| match given.binary_search_by_key(&r.root, |&(v, _)| v) {
        Ok(m) => {
            shipped[given[m].1 as usize].push(r.clone());
            false
        }
        Err(_) => true,
    });
    held.extend(comm.all_to_all_serde(&shipped)?.into_iter().flatten());
    held.sort_unstable_by_key(|r| r.root);
    Ok(())
}

/// The index of `root`'s row in `held` (ascending by root).
fn row_of(held: &[Row], root: u32) -> usize {
    held.binary_search_by_key(&root, |r| r.root)
        .expect("a root the rank holds")
}

/// For each rank, the moves of `given` (roots of `held`) it must hear of: those of roots next
/// to one it holds, or coming to it.
fn announce(held: &[Row], given: &[(u32, u32)], rank: usize, size: usize) -> Vec<Vec<(u32, u32)>> {
    let mut outgoing = vec![Vec::new(); size];
    for &(v, to) in given {
        let mut told: Vec<u32> = held[row_of(held, v)]
            .owner
            .iter()
            .copied()
            .chain([to])
            .collect();
        told.sort_unstable();
        told.dedup();
        told.iter()
            .filter(|&&r| r as usize != rank)
            .for_each(|&r| outgoing[r as usize].push((v, to)));
    }
    outgoing
}

/// The rows' shapes, and every neighbour owner a rank of `size`.
fn check_rows(rows: Rows<'_>, size: usize) -> Result<()> {
    rows.check()?;
    match rows.owner.iter().position(|&o| o as usize >= size) {
        None => Ok(()),
        Some(e) => Err(Error::RankOutOfRange {
            vertex: rows.adjncy[e] as usize,
            rank: rows.owner[e],
            nranks: size,
        }),
    }
}
