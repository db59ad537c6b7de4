//! The diffusive repartitioner on ranks, each holding only its rows of the dual graph: the P
//! loads and each rank's neighbouring ranks are all-gathered (the quotient graph), every rank
//! computes the same flows, each rank chooses the roots it gives away from its own rows, and
//! the moves go to the ranks that hold a neighbour of a moved root (and to its new owner).
//! Nothing a rank holds or sends grows with the whole graph, only with its rows and with P.

use super::{give_away, lambda_pct, Diffusion, DiffusionReport, Quotient, Rows};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::metrics::Movement;
use crate::{Error, Result};

/// One rank's outcome of [`Diffusion::on_rank`].
#[derive(Debug, Clone, PartialEq)]
pub struct RankDiffusion {
    /// The rank's roots it gives away, `(root, new owner)`, in the order chosen (none when
    /// the moves were withdrawn, [`DiffusionReport::withdrawn`]).
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
    /// that is not a rank ([`Error::RankOutOfRange`]), a bad γ; and the transport's.
    pub fn on_rank(&self, comm: &dyn Comm, rows: Rows<'_>) -> Result<RankDiffusion> {
        let (rank, size) = (comm.rank(), comm.size());
        comm.agree(check_rows(rows, size))?;
        let loads: Vec<u64> = comm.all_gather_serde(&rows.pwgt.iter().sum::<u64>())?;
        let mut adjacent: Vec<u32> = rows
            .owner
            .iter()
            .copied()
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
        let loads_f: Vec<f64> = loads.iter().map(|&l| l as f64).collect();
        let (gamma, diffused) = comm.agree(self.plan(&q, &loads_f))?;
        let flows = diffused.flows(&q);
        let mut given = give_away(rows, rank as u32, &flows)?;

        let mut outgoing = vec![Vec::<(u32, u32)>::new(); size];
        let mut sums = vec![0u64; 4 * size]; // sent and received PWgt, then RWgt
        for &(v, to) in &given {
            let i = rows.roots.binary_search(&v).expect("a root of the rows");
            let row = rows.xadj[i] as usize..rows.xadj[i + 1] as usize;
            let mut told: Vec<u32> = rows.owner[row].iter().copied().chain([to]).collect();
            told.sort_unstable();
            told.dedup();
            told.iter()
                .filter(|&&r| r as usize != rank)
                .for_each(|&r| outgoing[r as usize].push((v, to)));
            sums[rank] += rows.pwgt[i];
            sums[size + to as usize] += rows.pwgt[i];
            sums[2 * size + rank] += rows.rwgt[i];
            sums[3 * size + to as usize] += rows.rwgt[i];
        }
        let mut heard: Vec<(u32, u32)> = comm.all_to_all_serde(&outgoing)?.concat();
        heard.sort_unstable();
        let sums = comm.all_reduce_u64(&sums, ReduceOp::Sum)?;
        let roots_moved = comm.reduce_u64(given.len() as u64, ReduceOp::Sum)? as usize;
        let after: Vec<f64> = (0..size)
            .map(|k| (loads[k] - sums[k] + sums[size + k]) as f64)
            .collect();
        let lambda_after = lambda_pct(&after);
        let report = DiffusionReport {
            gamma,
            sweeps: diffused.sweeps,
            flows,
            roots_moved,
            weight_moved: sums[..size].iter().sum(),
            lambda_before: lambda_pct(&loads_f),
            lambda_diffused: lambda_pct(&diffused.loads),
            lambda_after,
            movement: Movement::from_flows(
                sums[2 * size..3 * size].to_vec(),
                sums[3 * size..].to_vec(),
            ),
            withdrawn: lambda_after > lambda_pct(&loads_f),
        };
        if report.withdrawn {
            given.clear();
            heard.clear();
        }
        Ok(RankDiffusion {
            given,
            heard,
            report,
        })
    }
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
