//! How the erosion case splits its roots over the ranks, as a PLUM pipeline on the fluid work:
//! stripes along x ([Boulmier 2019]'s centralized method) kept in place, stripe k on rank k, or the
//! dual graph cut by METIS and mapped onto the ranks by the optimal TotalV remap (PLUM's way).
//! Either way ULBA's uneven shares are the pipeline's target shares: stripe k is cut to rank k's
//! share; a METIS part is cut to the share of a rank and goes to a rank with that share.
//! The erosion loop decides when to balance ([`Plum::propose`]), and every proposal is
//! carried out. With the hierarchical balancer (`--balancer hier`) the partitioning makes only
//! the first owners: each balance is HybridLB's, from the current owners on the fluid work
//! ([`HierSettings::simulated`](crate::hier::HierSettings::simulated) in one process,
//! [`HierSettings::balancer`](crate::hier::HierSettings::balancer) on ranks).

use plume::balance::hier::Clock;
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
    let (partitioner, remapper) = pipeline(kind, centroids, length, columns);
    Plum::with(options(procs), partitioner, remapper, Box::new(Never))
}

/// The partitioner and remapper of `kind` (see [`balancer`]).
fn pipeline(
    kind: PartitionKind,
    centroids: &[[f64; 3]],
    length: f64,
    columns: usize,
) -> (Box<dyn Partitioner>, Box<dyn Remapper>) {
    match kind {
        PartitionKind::Stripes => (
            Box::new(Stripes::along_x(centroids, 0.0, length, columns)),
            Box::new(Identity),
        ),
        PartitionKind::Graph => (Box::new(Metis::default()), Box::new(TotalVOptimal)),
    }
}

/// PLUM's options on `procs` ranks: every proposal carried out.
fn options(procs: usize) -> PlumOptions {
    PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(procs)
    }
}

/// The balancer of the erosion case `cfg` ([`balancer`]): one stripe per rank, `cells[0]`
/// columns each; with `cfg.hier`, the hierarchical balancer from the current owners
/// (simulated in this process, a root's load its fluid work at the machine's `ω`), the
/// partitioning making the first owners.
///
/// # Errors
/// When `cfg` has no rank, or a tree that does not fit its ranks.
pub fn balancer_of(cfg: &ErosionConfig, centroids: &[[f64; 3]]) -> plume::Result<Plum> {
    let p = cfg.procs;
    let Some(hier) = &cfg.hier else {
        return balancer(cfg.partition, centroids, p, p as f64, p * cfg.cells[0]);
    };
    let first = first_partitioner(cfg, centroids);
    let hier = Box::new(hier.simulated(p, Clock::default(), cfg.machine.time_per_leaf())?);
    let plum = Plum::with(options(p), hier, Box::new(Identity), Box::new(Never))?;
    Ok(plum.first_by(first))
}

/// The partitioner of `cfg.partition` (see [`balancer_of`]), which makes the first owners
/// of a run balanced by the hierarchical balancer.
pub fn first_partitioner(cfg: &ErosionConfig, centroids: &[[f64; 3]]) -> Box<dyn Partitioner> {
    let p = cfg.procs;
    pipeline(cfg.partition, centroids, p as f64, p * cfg.cells[0]).0
}

/// The dual graph's weights with the fluid work as the work of each root.
pub fn fluid_weights(graph: &DualGraph, fluid: &[u64]) -> Weights {
    Weights {
        pwgt: fluid.to_vec(),
        rwgt: graph.weights.rwgt.clone(),
        cwgt: graph.weights.cwgt.clone(),
    }
}
