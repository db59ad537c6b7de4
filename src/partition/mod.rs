//! Repartitioning the dual graph (PLUM step 4, `shared/spec/plum.md`): every root gets a part
//! id in `0..nparts`, balancing the processing weight `PWgt` and keeping the communication
//! weight `CWgt` of cut dual edges small.
//!
//! One trait, [`Partitioner`], writes part ids into a slice the caller owns (one entry per
//! root) and returns a [`PartitionInfo`]. The weights are passed apart from the graph so that a
//! caller can partition on *predicted* weights ([`DualGraph::predict`]) before subdivision.
//!
//! Choosing a partitioner:
//!
//! | partitioner | what it does | when |
//! | --- | --- | --- |
//! | [`Metis`] | multilevel k-way graph partitioning (METIS 5), balances `PWgt`, minimises the cut `CWgt` | the PLUM default: low cut, balance within `ufactor` |
//! | [`Rcb`] | recursive coordinate bisection of the root centroids, weighted by `PWgt` | fast, geometric, ignores `CWgt`; a baseline |
//! | [`Stripes`] | consecutive columns along x cut into stripes of equal (or given) shares of `PWgt` | the erosion case's centralized method; ULBA's uneven targets |
//!
//! Every partitioner here guarantees: ids below `nparts`, **no empty part** (see
//! [`fill_empty_parts`]), and the same answer for the same input and options. `nparts` must lie
//! in `1..=nroots`; anything else is an [`Error::Invalid`].
//!
//! ```
//! use plume::{adapt::Forest, graph::DualGraph, mesh::generate_box};
//! use plume::partition::{Metis, Partitioner};
//! let forest = Forest::new(generate_box([4, 2, 2], [2.0, 1.0, 1.0]).unwrap(), Default::default()).unwrap();
//! let graph = DualGraph::new(&forest);
//! let mut part = vec![0; graph.nvertices()];
//! let info = Metis::default().partition(&graph, &graph.weights, 4, &mut part).unwrap();
//! assert!(part.iter().all(|&p| p < 4));
//! assert!(info.edge_cut > 0);
//! ```
//!
//! [`DualGraph::predict`]: crate::graph::DualGraph::predict

mod metis;
mod rcb;
mod repair;
mod stripes;

pub use self::metis::Metis;
pub use rcb::{root_centroids, Rcb};
pub use repair::fill_empty_parts;
pub use stripes::{stripe_ends, Stripes};

use crate::graph::{DualGraph, Weights};
use crate::metrics::Cut;
use crate::{Error, Result};

/// What a partitioner did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// What actually ran: `"metis-kway"`, `"rcb"`, or a shortcut of a partitioner:
    /// `"single-part"` (nparts = 1, everything in part 0) or `"greedy-no-edges"` (a graph
    /// without edges, each root given to the lightest part, heaviest roots first).
    pub algorithm: &'static str,
    /// Number of parts.
    pub nparts: usize,
    /// `Σ CWgt` over the dual edges whose two roots are in different parts, each edge counted
    /// once, computed exactly on the weights given (not on any scaled copy).
    pub edge_cut: u64,
    /// `Σ CWgt` over all dual edges, each counted once: `100 · edge_cut / total_edge_weight`
    /// is the Cut%.
    pub total_edge_weight: u64,
    /// Roots moved by [`fill_empty_parts`] because the algorithm left parts empty (usually 0).
    pub repair_moves: usize,
    /// Each vertex weight was divided by this (rounding up) to fit the partitioner's integer
    /// type; 1 when the weights were used as given.
    pub vertex_weight_divisor: u64,
    /// Same for the edge weights.
    pub edge_weight_divisor: u64,
}

/// Assigns every root of a dual graph to one of `nparts` parts.
pub trait Partitioner: Send + Sync {
    /// The name the command line knows this partitioner by (see [`partitioner_by_name`]).
    fn name(&self) -> &'static str;

    /// Writes into `part[v]` the part of root `v`, in `0..nparts`, no part left empty, using
    /// `weights` (current or predicted) rather than `graph.weights`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `nparts` is 0 or larger than the number of roots, when `part`
    /// or the weight arrays do not match the graph's size, or when the algorithm itself fails.
    fn partition(
        &self,
        graph: &DualGraph,
        weights: &Weights,
        nparts: usize,
        part: &mut [u32],
    ) -> Result<PartitionInfo>;
}

/// The names [`partitioner_by_name`] accepts.
pub const PARTITIONER_NAMES: [&str; 2] = ["metis", "rcb"];

/// The partitioner called `name` (`metis` or `rcb`) with default options. `centroids` (one per
/// root, see [`root_centroids`]) is used by `rcb` only.
///
/// # Errors
/// [`Error::Invalid`] naming the valid names when `name` is unknown.
pub fn partitioner_by_name(name: &str, centroids: &[[f64; 3]]) -> Result<Box<dyn Partitioner>> {
    match name {
        "metis" => Ok(Box::new(Metis::default())),
        "rcb" => Ok(Box::new(Rcb::new(centroids.to_vec()))),
        _ => Err(Error::Invalid(format!(
            "unknown partitioner {name:?}: valid names are {}",
            PARTITIONER_NAMES.join(", ")
        ))),
    }
}

/// Checks the arguments every partitioner shares: `1 <= nparts <= nroots`, `part` and the
/// weight arrays sized for the graph.
///
/// # Errors
/// [`Error::Invalid`] saying which argument is wrong and both numbers involved.
pub fn check_arguments(
    graph: &DualGraph,
    weights: &Weights,
    nparts: usize,
    part: &[u32],
) -> Result<()> {
    let n = graph.nvertices();
    if nparts == 0 {
        return Err(Error::Invalid(
            "the number of parts must be at least 1, got 0".into(),
        ));
    }
    if nparts > n {
        return Err(Error::Invalid(format!(
            "cannot partition {n} roots into {nparts} parts: \
             the number of parts ({nparts}) exceeds the number of roots ({n})"
        )));
    }
    if part.len() != n {
        return Err(Error::Invalid(format!(
            "the part array has {} entries but the graph has {n} roots",
            part.len()
        )));
    }
    if weights.pwgt.len() != n {
        return Err(Error::Invalid(format!(
            "{} vertex weights (PWgt) for a graph of {n} roots",
            weights.pwgt.len()
        )));
    }
    if weights.cwgt.len() != graph.adjncy.len() {
        return Err(Error::Invalid(format!(
            "{} edge weights (CWgt) for a graph of {} CSR entries",
            weights.cwgt.len(),
            graph.adjncy.len()
        )));
    }
    Ok(())
}

/// The [`PartitionInfo`] of a finished partition: fills empty parts, then measures the cut.
fn finish(
    algorithm: &'static str,
    graph: &DualGraph,
    weights: &Weights,
    nparts: usize,
    part: &mut [u32],
    divisors: (u64, u64),
) -> PartitionInfo {
    let repair_moves = fill_empty_parts(&weights.pwgt, nparts, part);
    let cut = Cut::new(&graph.xadj, &graph.adjncy, &weights.cwgt, part);
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
    use crate::mesh::generate_box;

    fn graph() -> DualGraph {
        let mesh = generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap();
        DualGraph::new(&Forest::new(mesh, Default::default()).unwrap())
    }

    #[test]
    fn by_name_knows_metis_and_rcb_and_lists_them_otherwise() {
        let g = graph();
        let c = vec![[0.0; 3]; g.nvertices()];
        assert_eq!(partitioner_by_name("metis", &c).unwrap().name(), "metis");
        assert_eq!(partitioner_by_name("rcb", &c).unwrap().name(), "rcb");
        let e = partitioner_by_name("scotch", &c).err().unwrap().to_string();
        assert!(e.contains("scotch") && e.contains("metis, rcb"), "{e}");
    }

    #[test]
    fn cut_of_everything_in_one_part_is_zero_and_of_singletons_is_total() {
        let g = graph();
        let n = g.nvertices();
        let w = &g.weights;
        let cut = |part: &[u32]| Cut::new(&g.xadj, &g.adjncy, &w.cwgt, part);
        assert_eq!(cut(&vec![0; n]).cut, 0);
        let own: Vec<u32> = (0..n as u32).collect();
        assert_eq!(cut(&own).cut, cut(&own).total);
        assert_eq!(cut(&own).total, g.nedges() as u64);
    }

    #[test]
    fn arguments_are_checked_with_both_numbers() {
        let g = graph();
        let n = g.nvertices();
        let msg = |nparts, len| {
            check_arguments(&g, &g.weights, nparts, &vec![0; len])
                .unwrap_err()
                .to_string()
        };
        assert!(msg(0, n).contains("at least 1"));
        let m = msg(n + 1, n);
        assert!(
            m.contains(&format!("({})", n + 1)) && m.contains(&format!("({n})")),
            "{m}"
        );
        assert!(msg(2, n - 1).contains("part array"));
        assert!(check_arguments(&g, &g.weights, n, &vec![0; n]).is_ok());
    }
}
