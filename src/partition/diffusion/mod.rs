//! The diffusive repartitioner (`diffusion.md` C.2(a); seed 004 §5.1.2's "diffusive
//! repartitioners … use the current partition as a starting point"): from the current owners,
//! 1. the quotient graph `Q` of the parts ([`Quotient`]);
//! 2. synchronous diffusion sweeps on the parts' loads (`PWgt`), accumulating the net flow
//!    `F_kj` across every edge of `Q` ([`diffuse`]);
//! 3. each part gives away roots to realise its outgoing flows, largest first, choosing by
//!    `ΔCut` and growing breadth-first ([`give_away`]);
//! 4. the new owners and a [`DiffusionReport`].
//!
//! Steps 1–2 need only `Q` and the P loads, which ranks can all-gather; step 3 needs only a
//! rank's own rows of the dual graph ([`Rows`]). So no rank needs the whole graph:
//! [`Diffusion::on_rank`] runs it on ranks ([`crate::comm`]), [`Diffusion::rebalance`] on the
//! whole graph, with the same owners. Parts are ranks: under PLUM the remap is the identity.
//!
//! Seed 000's Algorithm 5, the simulator of diffusion that weighs it against global
//! balancing, runs on the same sweep: [`simulate`].
//!
//! ```
//! use plume::graph::GraphView;
//! use plume::partition::{Diffusion, Sweeps};
//! // A path of 12 unit roots on parts [0×6, 1×3, 2×3] (`diffusion.md` C.7 test 3).
//! let xadj: Vec<u32> = (0..12).map(|v: u32| (2 * v).saturating_sub(1)).chain([22]).collect();
//! let adjncy: Vec<u32> = (0..12u32)
//!     .flat_map(|v| [v.wrapping_sub(1), v + 1].into_iter().filter(|&w| w < 12))
//!     .collect();
//! let g = GraphView::new(&xadj, &adjncy, &[1; 22], &[1; 12]).unwrap();
//! let owners = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2];
//! let one = Diffusion { sweeps: Sweeps::Fixed(1), ..Default::default() };
//! let (new, report) = one.rebalance(&g, &owners, 3).unwrap();
//! assert_eq!(new, [0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]); // root 5 moves to part 1
//! assert_eq!(report.roots_moved, 1);
//! ```

mod give;
mod quotient;
mod ranks;
mod sweep;

pub use give::{give_away, Rows};
pub use quotient::Quotient;
pub use ranks::RankDiffusion;
pub use sweep::{
    check_diffusion, diffuse, lambda_pct, simulate, sweep, Diffused, Flow, Simulation, Sweeps,
};

use super::{check_arguments, finish, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::metrics::{rank_loads, Movement};
use crate::{Error, Result};

/// `λ*` of [`Diffusion::default`], percent: diffusion runs until the diffused loads are within
/// 1 % of the mean, below PLUM's trigger (`LoadImb` 1.05), so that rounding to whole roots
/// leaves the next step below the trigger.
pub const DEFAULT_LAMBDA_PCT: f64 = 1.0;

/// Most sweeps of [`Diffusion::default`]: enough for a path of 100 parts to converge; a sweep
/// costs one pass over `Q`'s edges.
pub const DEFAULT_MAX_SWEEPS: usize = 100_000;

/// The diffusive repartitioner's options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diffusion {
    /// When the sweeps stop: `Fixed(1)` is one diffusive step, `UntilBalanced` "global by
    /// diffusion".
    pub sweeps: Sweeps,
    /// The diffusion constant; `None`: `1 / (1 + Δ)` ([`Quotient::safe_gamma`]).
    pub gamma: Option<f64>,
}

impl Default for Diffusion {
    /// Until `λ ≤ 1 %` ([`DEFAULT_LAMBDA_PCT`]), `γ = 1 / (1 + Δ)`.
    fn default() -> Self {
        Diffusion {
            sweeps: Sweeps::UntilBalanced {
                lambda_pct: DEFAULT_LAMBDA_PCT,
                max: DEFAULT_MAX_SWEEPS,
            },
            gamma: None,
        }
    }
}

/// What the diffusive repartitioner did.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffusionReport {
    /// The diffusion constant used.
    pub gamma: f64,
    /// Sweeps run.
    pub sweeps: usize,
    /// The net flows `F_kj > 0`, largest first.
    pub flows: Vec<Flow>,
    /// Roots that changed owner.
    pub roots_moved: usize,
    /// Their `PWgt`.
    pub weight_moved: u64,
    /// `λ` of the parts' `PWgt` before, percent.
    pub lambda_before: f64,
    /// `λ` of the diffused loads (before rounding to whole roots), percent.
    pub lambda_diffused: f64,
    /// `λ` of the parts' `PWgt` after, percent.
    pub lambda_after: f64,
    /// TotalV, MaxV, MaxSR of the move in the graph's sizes (`RWgt`).
    pub movement: Movement,
    /// True when the chosen moves would have raised `λ` (whole roots rounding several flows
    /// into one part the same way) and were withdrawn: the owners are then unchanged and the
    /// other fields describe the withdrawn moves.
    pub withdrawn: bool,
}

impl Diffusion {
    /// The diffusion constant for `q` and the flows from the parts' `loads`.
    fn plan(&self, q: &Quotient, loads: &[f64]) -> Result<(f64, Diffused)> {
        let gamma = self.gamma.unwrap_or_else(|| q.safe_gamma());
        Ok((gamma, diffuse(q, loads, gamma, self.sweeps)?))
    }

    /// The new owner of every vertex of `graph` from `owner` (a part `< nparts` per vertex),
    /// with the report. Each part's choice reads only its own rows, as on ranks. Never raises
    /// `λ`: moves that would are withdrawn ([`DiffusionReport::withdrawn`]).
    ///
    /// # Errors
    /// [`Error::Zero`] for no parts, [`Error::LengthMismatch`] and [`Error::RankOutOfRange`]
    /// for a bad `owner`, [`Error::Invalid`] for a bad γ.
    pub fn rebalance(
        &self,
        graph: &GraphView<'_>,
        owner: &[u32],
        nparts: usize,
    ) -> Result<(Vec<u32>, DiffusionReport)> {
        if nparts == 0 {
            return Err(Error::Zero { what: "parts" });
        }
        crate::balance::ranks::check_assignment("owner", owner, graph.nvertices(), nparts)?;
        let pwgt = graph.vertex_weights();
        let before = rank_loads(pwgt, owner, nparts);
        let loads: Vec<f64> = before.iter().map(|&l| l as f64).collect();
        let q = Quotient::of_partition(graph.xadj(), graph.adjncy(), owner, nparts);
        let (gamma, diffused) = self.plan(&q, &loads)?;
        let flows = diffused.flows(&q);
        let mut new = owner.to_vec();
        let mut members = vec![Vec::new(); nparts];
        (0..owner.len() as u32).for_each(|v| members[owner[v as usize] as usize].push(v));
        for (k, roots) in members.iter().enumerate() {
            let rows = OwnedRows::of(graph, owner, roots);
            for (v, to) in give_away(rows.rows(), k as u32, &flows)? {
                new[v as usize] = to;
            }
        }
        let after = rank_loads(pwgt, &new, nparts);
        let moved: Vec<usize> = (0..new.len()).filter(|&v| new[v] != owner[v]).collect();
        let lambda_after = lambda_pct(&after.iter().map(|&l| l as f64).collect::<Vec<_>>());
        let report = DiffusionReport {
            gamma,
            sweeps: diffused.sweeps,
            flows,
            roots_moved: moved.len(),
            weight_moved: moved.iter().map(|&v| pwgt[v]).sum(),
            lambda_before: lambda_pct(&loads),
            lambda_diffused: lambda_pct(&diffused.loads),
            lambda_after,
            movement: Movement::new(owner, &new, graph.sizes(), nparts),
            withdrawn: lambda_after > lambda_pct(&loads),
        };
        if report.withdrawn {
            new.copy_from_slice(owner);
        }
        Ok((new, report))
    }
}

/// A part's rows copied out of the whole graph (what a rank would hold).
struct OwnedRows<'a> {
    roots: &'a [u32],
    pwgt: Vec<u64>,
    rwgt: Vec<u64>,
    xadj: Vec<u32>,
    adjncy: Vec<u32>,
    cwgt: Vec<u64>,
    owner: Vec<u32>,
}

impl<'a> OwnedRows<'a> {
    fn of(graph: &GraphView<'_>, owner: &[u32], roots: &'a [u32]) -> OwnedRows<'a> {
        let mut r = OwnedRows {
            roots,
            pwgt: roots
                .iter()
                .map(|&v| graph.vertex_weights()[v as usize])
                .collect(),
            rwgt: roots.iter().map(|&v| graph.sizes()[v as usize]).collect(),
            xadj: vec![0],
            adjncy: Vec::new(),
            cwgt: Vec::new(),
            owner: Vec::new(),
        };
        for &v in roots {
            let row = graph.xadj()[v as usize] as usize..graph.xadj()[v as usize + 1] as usize;
            r.adjncy.extend_from_slice(&graph.adjncy()[row.clone()]);
            r.cwgt.extend_from_slice(&graph.edge_weights()[row.clone()]);
            r.owner
                .extend(graph.adjncy()[row].iter().map(|&w| owner[w as usize]));
            r.xadj.push(r.adjncy.len() as u32);
        }
        r
    }

    fn rows(&self) -> Rows<'_> {
        Rows {
            roots: self.roots,
            pwgt: &self.pwgt,
            rwgt: &self.rwgt,
            xadj: &self.xadj,
            adjncy: &self.adjncy,
            cwgt: &self.cwgt,
            owner: &self.owner,
        }
    }
}

impl Partitioner for Diffusion {
    fn name(&self) -> &'static str {
        "diffusion"
    }

    /// Refused: diffusion starts from the current owners ([`Partitioner::repartition`]).
    fn partition(
        &self,
        _graph: &GraphView<'_>,
        _targets: Targets<'_>,
        _part: &mut [u32],
    ) -> Result<PartitionInfo> {
        Err(Error::Invalid(
            "the diffusion repartitioner starts from the current owners: it rebalances, it does not make a first partition (use sfc, rcb or metis for that, and one part per rank)".into(),
        ))
    }

    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        if let Targets::Shares(s) = targets {
            if s.iter().any(|&x| x != s[0]) {
                return Err(Error::Invalid(
                    "the diffusion repartitioner balances to equal shares only".into(),
                ));
            }
        }
        let (new, _) = self.rebalance(graph, current, targets.nparts())?;
        part.copy_from_slice(&new);
        Ok(finish("diffusion", graph, targets.nparts(), part, (1, 1)))
    }
}

#[cfg(test)]
mod tests;
