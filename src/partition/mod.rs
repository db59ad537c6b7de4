//! Repartitioning a graph (PLUM step 4, `docs/design/plum.md`): every vertex (a root of the
//! dual graph, or a vertex of any [`GraphView`]) gets a part id in `0..nparts`, balancing the
//! vertex weights (`PWgt`) in the proportions asked for and keeping the weight of cut edges
//! (`CWgt`) small.
//!
//! One trait, [`Partitioner`], writes part ids into a slice the caller owns (one entry per
//! vertex) and returns a [`PartitionInfo`]. The graph comes as a [`GraphView`], so the weights
//! may be the dual graph's current ones, *predicted* ones ([`DualGraph::predict`]) before
//! subdivision, or those of a user's own graph. [`Targets`] says how many parts and what share
//! of the total weight each should get: equal shares, or uneven ones (ULBA's, a heterogeneous
//! machine's).
//!
//! Choosing a partitioner:
//!
//! | partitioner | what it does | when |
//! | --- | --- | --- |
//! | [`Metis`] | multilevel k-way graph partitioning (METIS 5), balances `PWgt`, minimises the cut `CWgt` | the PLUM default: low cut, balance within `ufactor` |
//! | [`Rcb`] | recursive coordinate bisection of the vertices' coordinates (the dual graph's: the root centroids), weighted by `PWgt` | fast, geometric, ignores `CWgt`; a baseline |
//! | [`Sfc`] | the vertices' coordinates sorted along a 3-D Hilbert curve, cut into runs of the target shares of `PWgt` | the start-up partition on ranks ([`sfc_first_owners`]: each rank keys its own roots, a sample sort across ranks, the same parts); ignores `CWgt` |
//! | [`Diffusion`] | diffusion of the parts' loads over the quotient graph, then each part gives away roots by `ΔCut` | rebalancing from the current owners without gathering the graph (parts are ranks: the remap is the identity) |
//! | [`Stripes`] | consecutive columns along x cut into stripes of the target shares of `PWgt` | the erosion case's centralized method |
//!
//! Every partitioner here guarantees: ids below `nparts`, **no empty part** (see
//! [`fill_empty_parts`]), and the same answer for the same input and options. `nparts` must lie
//! in `1..=nvertices` ([`Error::Zero`], [`Error::TooFewVertices`]).
//!
//! ```
//! use plume::{adapt::Forest, graph::DualGraph, mesh::generate_box};
//! use plume::partition::{Metis, Partitioner, Targets};
//! let forest = Forest::new(generate_box([4, 2, 2], [2.0, 1.0, 1.0]).unwrap(), Default::default()).unwrap();
//! let graph = DualGraph::new(&forest);
//! let view = graph.view(&graph.weights).unwrap();
//! let mut part = vec![0; graph.nvertices()];
//! let info = Metis::default().partition(&view, Targets::Equal(4), &mut part).unwrap();
//! assert!(part.iter().all(|&p| p < 4));
//! assert!(info.edge_cut > 0);
//! ```
//!
//! [`DualGraph::predict`]: crate::graph::DualGraph::predict

mod diffusion;
mod metis;
pub mod minex;
mod rcb;
mod repair;
mod sfc;
mod sfc_ranks;
mod stripes;

pub use self::metis::Metis;
pub(crate) use diffusion::Flat as FlatRows;
pub use diffusion::{
    check_diffusion, diffuse, lambda_pct, simulate, sweep, Diffused, Diffusion, DiffusionReport,
    Flow, Quotient, RankDiffusion, Refinement, Rows, Simulation, Sweeps,
};
pub use minex::{score, Grid, Latency, Minex, MinexOptions, Totals, UnitCosts};
pub use rcb::Rcb;
pub use repair::fill_empty_parts;
pub use sfc::{curve_order, cut_sorted, hilbert_key, hilbert_keys, Sfc};
pub use sfc_ranks::{sfc_first_owners, sfc_parts};
pub use stripes::{stripe_ends, Stripes};

use crate::graph::GraphView;
use crate::metrics::Cut;
use crate::{Error, Result};

/// What a partitioner did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// What actually ran: `"metis-kway"`, `"rcb"`, `"stripes"`, or a shortcut of a
    /// partitioner: `"single-part"` (nparts = 1, everything in part 0) or `"greedy-no-edges"`
    /// (a graph without edges, each vertex given to the part furthest below its target,
    /// heaviest vertices first).
    pub algorithm: &'static str,
    /// Number of parts.
    pub nparts: usize,
    /// Sum of the weights of the edges whose two vertices are in different parts, each edge
    /// counted once, computed exactly on the weights given (not on any scaled copy).
    pub edge_cut: u64,
    /// Sum of the weights of all edges, each counted once: `100 · edge_cut /
    /// total_edge_weight` is the Cut%.
    pub total_edge_weight: u64,
    /// Vertices moved by [`fill_empty_parts`] because the algorithm left parts empty (usually 0).
    pub repair_moves: usize,
    /// Each vertex weight was divided by this (rounding up) to fit the partitioner's integer
    /// type; 1 when the weights were used as given.
    pub vertex_weight_divisor: u64,
    /// Same for the edge weights.
    pub edge_weight_divisor: u64,
}

/// How many parts, and what share of the total vertex weight each should get.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Targets<'a> {
    /// This many parts of equal weight.
    Equal(usize),
    /// One part per entry, part `k` aiming at `shares[k] / Σ shares` of the total weight.
    /// Shares must be finite and non-negative, not all zero; a zero share still gets a vertex.
    Shares(&'a [f64]),
}

impl Targets<'_> {
    /// The number of parts.
    pub fn nparts(&self) -> usize {
        match self {
            Targets::Equal(n) => *n,
            Targets::Shares(s) => s.len(),
        }
    }

    /// The fraction of the total weight part `k` aims at (the fractions sum to 1).
    ///
    /// # Panics
    /// If `k` is not a part.
    #[track_caller]
    pub fn fraction(&self, k: usize) -> f64 {
        match self {
            Targets::Equal(n) => {
                assert!(k < *n, "part {k} of {n}");
                1.0 / *n as f64
            }
            Targets::Shares(s) => s[k] / s.iter().sum::<f64>(),
        }
    }

    /// The share of every part, unnormalised (1 each for equal parts).
    pub(crate) fn shares(&self) -> Vec<f64> {
        match self {
            Targets::Equal(n) => vec![1.0; *n],
            Targets::Shares(s) => s.to_vec(),
        }
    }

    /// Checks the shares: finite, non-negative, not all zero.
    ///
    /// # Errors
    /// [`Error::Zero`] for no parts, [`Error::InvalidShare`] naming the first bad share (part
    /// 0 when all are zero).
    pub fn check(&self) -> Result<()> {
        if self.nparts() == 0 {
            return Err(Error::Zero { what: "parts" });
        }
        let Targets::Shares(shares) = self else {
            return Ok(());
        };
        if let Some(k) = shares.iter().position(|s| !(s.is_finite() && *s >= 0.0)) {
            return Err(Error::InvalidShare {
                part: k,
                value: shares[k],
            });
        }
        if shares.iter().all(|&s| s == 0.0) {
            return Err(Error::InvalidShare {
                part: 0,
                value: 0.0,
            });
        }
        Ok(())
    }
}

/// Assigns every vertex of a graph to one of `targets.nparts()` parts.
pub trait Partitioner: Send + Sync {
    /// A short name for reports (`"metis"`, `"rcb"`, `"stripes"`).
    fn name(&self) -> &'static str;

    /// Writes into `part[v]` the part of vertex `v`, in `0..targets.nparts()`, no part left
    /// empty, part `k` aiming at `targets.fraction(k)` of the graph's total vertex weight.
    ///
    /// # Errors
    /// Those of [`check_arguments`], or [`Error::Invalid`] when the algorithm itself fails.
    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo>;

    /// [`Partitioner::partition`] of a graph whose vertices already have parts:
    /// `current[v]` in `0..targets.nparts()`. Repartitioners that start from the current
    /// assignment ([`Diffusion`]) use it; the others ignore it (this default).
    ///
    /// # Errors
    /// As [`Partitioner::partition`]; those that read `current` also refuse a bad one.
    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        let _ = current;
        self.partition(graph, targets, part)
    }

    /// Whether [`Partitioner::repartition`] weighs the data that would move now: PLUM then
    /// gives it a view whose sizes are what each vertex would move with (the trees before
    /// subdivision, [`crate::balance::Plum::balance_moving`]'s `moving`), not the graph's
    /// (predicted) sizes. `false` by default: the others see the graph's sizes.
    fn weighs_moving_sizes(&self) -> bool {
        false
    }
}

/// A shared partitioner partitions as the one it shares (a caller keeps a handle to read what
/// the partitioner reports, as [`crate::sim::HierPartitioner::last`], while a balancer owns
/// the other).
impl<T: Partitioner + ?Sized> Partitioner for std::sync::Arc<T> {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        (**self).partition(graph, targets, part)
    }

    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        (**self).repartition(graph, targets, current, part)
    }

    fn weighs_moving_sizes(&self) -> bool {
        (**self).weighs_moving_sizes()
    }
}

/// Checks the arguments every partitioner shares: valid targets, `1 <= nparts <= nvertices`,
/// one `part` entry per vertex. For implementers of [`Partitioner`].
///
/// # Errors
/// [`Error::Zero`], [`Error::InvalidShare`], [`Error::TooFewVertices`] or
/// [`Error::LengthMismatch`], with the numbers involved.
pub fn check_arguments(graph: &GraphView<'_>, targets: Targets<'_>, part: &[u32]) -> Result<()> {
    targets.check()?;
    let (n, nparts) = (graph.nvertices(), targets.nparts());
    if nparts > n {
        return Err(Error::TooFewVertices {
            parts: nparts,
            vertices: n,
        });
    }
    Error::check_len("part", n, part.len())
}

impl PartitionInfo {
    /// The report of a partition a [`Partitioner`] of the caller's own made into `part` on
    /// `graph` with `targets`: fills any part it left empty ([`fill_empty_parts`]), then
    /// measures the cut; the weights were used as given (divisors 1).
    pub fn measure(
        algorithm: &'static str,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> PartitionInfo {
        finish(algorithm, graph, targets.nparts(), part, (1, 1))
    }
}

/// The coordinates of `graph`'s vertices, which the geometric partitioner `name` cuts.
///
/// # Errors
/// [`Error::Invalid`] when the graph has none.
fn coordinates_of<'a>(graph: &GraphView<'a>, name: &str) -> Result<&'a [[f64; 3]]> {
    graph.coordinates().ok_or_else(|| {
        Error::Invalid(format!(
            "{name}: the graph has no vertex coordinates (see GraphView::with_coordinates)"
        ))
    })
}

/// The [`PartitionInfo`] of a finished partition: fills empty parts, then measures the cut.
fn finish(
    algorithm: &'static str,
    graph: &GraphView<'_>,
    nparts: usize,
    part: &mut [u32],
    divisors: (u64, u64),
) -> PartitionInfo {
    let repair_moves = fill_empty_parts(graph.vertex_weights(), nparts, part);
    let cut = Cut::new(graph.xadj(), graph.adjncy(), graph.edge_weights(), part);
    PartitionInfo {
        algorithm,
        nparts,
        edge_cut: cut.cut,
        total_edge_weight: cut.total,
        repair_moves,
        vertex_weight_divisor: divisors.0,
        edge_weight_divisor: divisors.1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::Forest;
    use crate::graph::DualGraph;
    use crate::mesh::generate_box;

    fn graph() -> DualGraph {
        let mesh = generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap();
        DualGraph::new(&Forest::new(mesh, Default::default()).unwrap())
    }

    #[test]
    fn cut_of_everything_in_one_part_is_zero_and_of_singletons_is_total() {
        let g = graph();
        let n = g.nvertices();
        let w = &g.weights;
        let cut = |part: &[u32]| Cut::new(g.xadj(), g.adjncy(), &w.cwgt, part);
        assert_eq!(cut(&vec![0; n]).cut, 0);
        let own: Vec<u32> = (0..n as u32).collect();
        assert_eq!(cut(&own).cut, cut(&own).total);
        assert_eq!(cut(&own).total, g.nedges() as u64);
    }

    #[test]
    fn arguments_are_checked_with_both_numbers() {
        let g = graph();
        let view = g.view(&g.weights).unwrap();
        let n = g.nvertices();
        let err = |targets, len| check_arguments(&view, targets, &vec![0; len]).unwrap_err();
        assert_eq!(err(Targets::Equal(0), n), Error::Zero { what: "parts" });
        assert_eq!(
            err(Targets::Equal(n + 1), n),
            Error::TooFewVertices {
                parts: n + 1,
                vertices: n
            }
        );
        assert!(matches!(
            err(Targets::Equal(2), n - 1),
            Error::LengthMismatch { what: "part", .. }
        ));
        assert!(matches!(
            err(Targets::Shares(&[1.0, f64::NAN]), n),
            Error::InvalidShare { part: 1, .. }
        ));
        assert!(check_arguments(&view, Targets::Equal(n), &vec![0; n]).is_ok());
    }

    #[test]
    fn shares_are_normalised_and_checked() {
        let t = Targets::Shares(&[1.0, 3.0]);
        assert_eq!((t.nparts(), t.fraction(1)), (2, 0.75));
        assert_eq!(Targets::Equal(4).fraction(3), 0.25);
        assert!(t.check().is_ok());
        for bad in [&[1.0, -1.0][..], &[0.0, 0.0], &[f64::INFINITY, 1.0]] {
            assert!(matches!(
                Targets::Shares(bad).check(),
                Err(Error::InvalidShare { .. })
            ));
        }
        assert_eq!(
            Targets::Shares(&[]).check(),
            Err(Error::Zero { what: "parts" })
        );
    }
}
