//! How the erosion case splits its roots over the ranks: stripes along x of equal fluid work
//! (seed 001's centralized method; stripe k on rank k, so ULBA's uneven shares land on the
//! ranks they were computed for), or the dual graph cut by METIS on the fluid work and mapped
//! onto the ranks by the optimal TotalV remap (PLUM's way).

use plume::graph::{DualGraph, Weights};
use plume::partition::{root_centroids, Metis, Partitioner, Stripes};
use plume::remap::{Remapper, SimilarityMatrix, TotalVOptimal};

/// The partitioning of the roots.
pub enum Layout {
    /// Stripes of equal (or ULBA's) shares of the fluid work along x.
    Stripes(Stripes),
    /// METIS k-way on the fluid work, then the TotalV remap.
    Graph(Metis),
}

impl Layout {
    /// Stripes over `columns` columns of the box `[0, length]` along x.
    pub fn stripes(forest: &plume::adapt::Forest, length: f64, columns: usize) -> Layout {
        Layout::Stripes(Stripes::along_x(
            &root_centroids(forest.mesh()),
            0.0,
            length,
            columns,
        ))
    }

    /// The rank of every root for the fluid work `fluid` over `procs` ranks. `shares` (one per
    /// rank, summing to 1) are ULBA's targets, stripes only; `owner`, the current ranks, lets
    /// the graph layout keep data in place.
    ///
    /// # Errors
    /// When partitioning fails, or when shares are asked of the graph layout.
    pub fn assign(
        &self,
        graph: &DualGraph,
        fluid: &[u64],
        procs: usize,
        shares: Option<&[f64]>,
        owner: Option<&[u32]>,
    ) -> plume::Result<Vec<u32>> {
        let mut part = vec![0u32; fluid.len()];
        match self {
            Layout::Stripes(stripes) => {
                let equal = vec![1.0; procs];
                stripes.partition_shares(fluid, shares.unwrap_or(&equal), &mut part)?;
                Ok(part)
            }
            Layout::Graph(metis) => {
                if shares.is_some() {
                    return Err(plume::Error::Invalid(
                        "uneven shares need the stripes layout".into(),
                    ));
                }
                let weights = Weights {
                    pwgt: fluid.to_vec(),
                    rwgt: graph.weights.rwgt.clone(),
                    cwgt: graph.weights.cwgt.clone(),
                };
                metis.partition(graph, &weights, procs, &mut part)?;
                let Some(owner) = owner else {
                    return Ok(part);
                };
                let sim = SimilarityMatrix::new(owner, &part, &weights.rwgt, procs, 1)?;
                let mut part2proc = vec![0u32; procs];
                TotalVOptimal.remap(&sim, &mut part2proc)?;
                Ok(part.iter().map(|&j| part2proc[j as usize]).collect())
            }
        }
    }
}
