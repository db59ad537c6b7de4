//! How the erosion case splits its roots over the ranks, as a PLUM pipeline on the fluid work:
//! stripes along x (seed 001's centralized method) kept in place, stripe k on rank k, or the
//! dual graph cut by METIS and mapped onto the ranks by the optimal TotalV remap (PLUM's way).
//! Either way ULBA's uneven shares are the pipeline's target shares: stripe k is cut to rank k's
//! share; a METIS part is cut to the share of a rank and goes to a rank with that share.
//! The erosion loop decides when to balance ([`Plum::propose`]), and every proposal is
//! carried out.

use plume::balance::{Accept, Never, Plum, PlumOptions};
use plume::graph::{DualGraph, Weights};
use plume::mesh::Mesh;
use plume::partition::{root_centroids, Metis, Partitioner, Stripes};
use plume::remap::{Identity, Remapper, TotalVOptimal};

use crate::words::PartitionKind;

/// The balancer of `kind` over `procs` ranks for the roots of `mesh`; stripes over `columns`
/// columns of the box `[0, length]` along x.
///
/// # Errors
/// When `procs` is 0.
pub fn balancer(
    kind: PartitionKind,
    mesh: &Mesh,
    procs: usize,
    length: f64,
    columns: usize,
) -> plume::Result<Plum> {
    let (partitioner, remapper): (Box<dyn Partitioner>, Box<dyn Remapper>) = match kind {
        PartitionKind::Stripes => (
            Box::new(Stripes::along_x(
                &root_centroids(mesh),
                0.0,
                length,
                columns,
            )),
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

/// The dual graph's weights with the fluid work as the work of each root.
pub fn fluid_weights(graph: &DualGraph, fluid: &[u64]) -> Weights {
    Weights {
        pwgt: fluid.to_vec(),
        rwgt: graph.weights.rwgt.clone(),
        cwgt: graph.weights.cwgt.clone(),
    }
}
