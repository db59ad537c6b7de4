//! How the erosion case splits its roots over the ranks, as a PLUM pipeline on the fluid work:
//! stripes along x (seed 001's centralized method) kept in place, stripe k on rank k, or the
//! dual graph cut by METIS and mapped onto the ranks by the optimal TotalV remap (PLUM's way).
//! Either way ULBA's uneven shares are the pipeline's target shares: stripe k is cut to rank k's
//! share; a METIS part is cut to the share of a rank and goes to a rank with that share.
//! The erosion loop decides when to balance ([`Plum::propose`]), and every proposal is
//! carried out.

use plume::balance::{Accept, Never, Plum, PlumOptions};
use plume::graph::{DualGraph, Weights};
use plume::partition::{Metis, Partitioner, Stripes};
use plume::remap::{Identity, Remapper, TotalVOptimal};

use super::ErosionConfig;
use crate::words::PartitionKind;

/// The balancer of `kind` over `procs` ranks for the roots whose centroids are `centroids`
/// (every root's, by global id; the stripes cut them, the graph partitioner needs none);
/// stripes over `columns` columns of the box `[0, length]` along x.
///
/// # Errors
/// When `procs` is 0.
pub fn balancer(
    kind: PartitionKind,
    centroids: &[[f64; 3]],
    procs: usize,
    length: f64,
    columns: usize,
) -> plume::Result<Plum> {
    let (partitioner, remapper): (Box<dyn Partitioner>, Box<dyn Remapper>) = match kind {
        PartitionKind::Stripes => (
            Box::new(Stripes::along_x(centroids, 0.0, length, columns)),
            Box::new(Identity),
        ),
        PartitionKind::Graph => (Box::new(Metis::default()), Box::new(TotalVOptimal)),
    };
    let opts = PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(procs)
    };
    Plum::with(opts, partitioner, remapper, Box::new(Never))
}

/// The balancer of the erosion case `cfg` ([`balancer`]): one stripe per rank, `cells[0]`
/// columns each.
///
/// # Errors
/// When `cfg` has no rank.
pub fn balancer_of(cfg: &ErosionConfig, centroids: &[[f64; 3]]) -> plume::Result<Plum> {
    let p = cfg.procs;
    balancer(cfg.partition, centroids, p, p as f64, p * cfg.cells[0])
}

/// The dual graph's weights with the fluid work as the work of each root.
pub fn fluid_weights(graph: &DualGraph, fluid: &[u64]) -> Weights {
    Weights {
        pwgt: fluid.to_vec(),
        rwgt: graph.weights.rwgt.clone(),
        cwgt: graph.weights.cwgt.clone(),
    }
}
