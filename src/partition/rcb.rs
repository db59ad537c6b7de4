//! Recursive coordinate bisection (Berger & Bokhari, "A partitioning strategy for nonuniform
//! problems on multiprocessors", IEEE Trans. Computers C-36(5), 1987) of the root centroids,
//! weighted by `PWgt`: split the roots across the longest side of their bounding box so that
//! each side's weight is proportional to the parts it will hold, and recurse. Ignores `CWgt`.

use super::{check_arguments, finish, PartitionInfo, Partitioner};
use crate::graph::{DualGraph, Weights};
use crate::mesh::{geometry::centroid, Mesh};
use crate::{Error, Result};

/// The centroid of every root of `mesh`, the input [`Rcb`] needs.
pub fn root_centroids(mesh: &Mesh) -> Vec<[f64; 3]> {
    (0..mesh.nelems())
        .map(|e| centroid(&mesh.corners(e)))
        .collect()
}

/// Recursive coordinate bisection of the root centroids. Deterministic: ties in coordinates
/// are broken by root index. Any `nparts` works, not only powers of two: a set bound for `k`
/// parts is split into `k / 2` and `k - k / 2` parts with weights in that ratio.
///
/// ```
/// use plume::{adapt::Forest, graph::DualGraph, mesh::generate_box};
/// use plume::partition::{root_centroids, Partitioner, Rcb};
/// let mesh = generate_box([4, 1, 1], [4.0, 1.0, 1.0]).unwrap(); // 24 roots along x
/// let rcb = Rcb::new(root_centroids(&mesh));
/// let graph = DualGraph::new(&Forest::new(mesh, Default::default()).unwrap());
/// let mut part = vec![0; 24];
/// rcb.partition(&graph, &graph.weights, 4, &mut part).unwrap();
/// // Four slabs of one cube (6 roots) each, in order along x.
/// assert!(part.chunks(6).enumerate().all(|(i, c)| c.iter().all(|&p| p == i as u32)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Rcb {
    centroids: Vec<[f64; 3]>,
}

impl Rcb {
    /// RCB over these root centroids (one per root, see [`root_centroids`]).
    pub fn new(centroids: Vec<[f64; 3]>) -> Rcb {
        Rcb { centroids }
    }
}

impl Partitioner for Rcb {
    fn name(&self) -> &'static str {
        "rcb"
    }

    fn partition(
        &self,
        graph: &DualGraph,
        weights: &Weights,
        nparts: usize,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, weights, nparts, part)?;
        if self.centroids.len() != graph.nvertices() {
            return Err(Error::Invalid(format!(
                "RCB has {} centroids but the dual graph has {} roots",
                self.centroids.len(),
                graph.nvertices()
            )));
        }
        let mut ids: Vec<u32> = (0..graph.nvertices() as u32).collect();
        bisect(&self.centroids, &weights.pwgt, &mut ids, 0, nparts, part);
        Ok(finish("rcb", graph, weights, nparts, part, (1, 1)))
    }
}

/// Assigns `ids` (at least `k` roots) to parts `first..first + k`.
fn bisect(c: &[[f64; 3]], w: &[u64], ids: &mut [u32], first: u32, k: usize, part: &mut [u32]) {
    if k == 1 {
        ids.iter().for_each(|&v| part[v as usize] = first);
        return;
    }
    let (lo, hi) = crate::mesh::geometry::bounding_box(ids.iter().map(|&v| c[v as usize]));
    let axis = (0..3)
        .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])).then(b.cmp(&a)))
        .expect("three axes");
    ids.sort_unstable_by(|&a, &b| {
        c[a as usize][axis]
            .total_cmp(&c[b as usize][axis])
            .then(a.cmp(&b))
    });
    // Split at s in [k1, n - k2] (both sides keep enough roots for their parts) with the left
    // weight closest to total · k1 / k; with all weights 0, split by count instead.
    let (k1, k2) = (k / 2, k - k / 2);
    let by_count = ids.iter().all(|&v| w[v as usize] == 0);
    let weight = |v: u32| if by_count { 1 } else { w[v as usize] };
    let total: u128 = ids.iter().map(|&v| weight(v) as u128).sum();
    let target = total * k1 as u128; // compared with prefix · k
    let mut prefix: u128 = ids[..k1].iter().map(|&v| weight(v) as u128).sum();
    let mut best = (target.abs_diff(prefix * k as u128), k1);
    for s in k1 + 1..=ids.len() - k2 {
        prefix += weight(ids[s - 1]) as u128;
        let err = target.abs_diff(prefix * k as u128);
        if err < best.0 {
            best = (err, s);
        }
        if prefix * k as u128 >= target {
            break;
        }
    }
    let (left, right) = ids.split_at_mut(best.1);
    bisect(c, w, left, first, k1, part);
    bisect(c, w, right, first + k1 as u32, k2, part);
}
