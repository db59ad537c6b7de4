//! Recursive coordinate bisection (Berger & Bokhari, "A partitioning strategy for nonuniform
//! problems on multiprocessors", IEEE Trans. Computers C-36(5), 1987) of the root centroids,
//! weighted by `PWgt`: split the roots across the longest side of their bounding box so that
//! each side's weight is proportional to the target shares of the parts it will hold, and
//! recurse. Ignores `CWgt`. Works on any graph whose vertices have coordinates
//! ([`GraphView::coordinates`]).

use super::{check_arguments, coordinates_of, finish, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::Result;

/// Recursive coordinate bisection of the graph's vertex coordinates
/// ([`GraphView::coordinates`]; for the dual graph, the root centroids). Deterministic: ties
/// in coordinates are broken by vertex index. Any `nparts` works, not only powers of two: a
/// set bound for `k` parts is split into `k / 2` and `k - k / 2` parts with weights in the
/// ratio of their target shares.
///
/// ```
/// use plume::{adapt::Forest, graph::DualGraph, mesh::generate_box};
/// use plume::partition::{Partitioner, Rcb, Targets};
/// let mesh = generate_box([4, 1, 1], [4.0, 1.0, 1.0]).unwrap(); // 24 roots along x
/// let graph = DualGraph::new(&Forest::new(mesh, Default::default()).unwrap());
/// let mut part = vec![0; 24];
/// Rcb.partition(&graph.view(&graph.weights).unwrap(), Targets::Equal(4), &mut part).unwrap();
/// // Four slabs of one cube (6 roots) each, in order along x.
/// assert!(part.chunks(6).enumerate().all(|(i, c)| c.iter().all(|&p| p == i as u32)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rcb;

impl Partitioner for Rcb {
    fn name(&self) -> &'static str {
        "rcb"
    }

    /// # Errors
    /// Those of [`check_arguments`]; [`crate::Error::Invalid`] for a graph without
    /// coordinates.
    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        let mut ids: Vec<u32> = (0..graph.nvertices() as u32).collect();
        let input = Input {
            c: coordinates_of(graph, "rcb")?,
            w: graph.vertex_weights(),
            shares: &targets.shares(),
        };
        bisect(&input, &mut ids, (0, targets.nparts()), part);
        Ok(finish("rcb", graph, targets.nparts(), part, (1, 1)))
    }
}

/// What every bisection reads: coordinates, weights and the target share of every part.
struct Input<'a> {
    c: &'a [[f64; 3]],
    w: &'a [u64],
    shares: &'a [f64],
}

/// Assigns `ids` (at least `k` vertices) to parts `first..first + k`.
fn bisect(input: &Input, ids: &mut [u32], (first, k): (usize, usize), part: &mut [u32]) {
    let (c, w) = (input.c, input.w);
    let shares = &input.shares[first..first + k];
    if k == 1 {
        ids.iter().for_each(|&v| part[v as usize] = first as u32);
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
    // Split at s in [k1, n - k2] (both sides keep enough vertices for their parts) with the
    // left weight closest to total · S1 / S, S1 the left parts' shares and S all of them; with
    // all weights 0, split by count instead.
    let (k1, k2) = (k / 2, k - k / 2);
    let (s1, s_all) = (shares[..k1].iter().sum::<f64>(), shares.iter().sum::<f64>());
    let by_count = ids.iter().all(|&v| w[v as usize] == 0);
    let weight = |v: u32| if by_count { 1 } else { w[v as usize] };
    let total: u128 = ids.iter().map(|&v| weight(v) as u128).sum();
    let target = total as f64 * s1; // compared with prefix · S
    let mut prefix: u128 = ids[..k1].iter().map(|&v| weight(v) as u128).sum();
    let err = |prefix: u128| (prefix as f64 * s_all - target).abs();
    let mut best = (err(prefix), k1);
    for s in k1 + 1..=ids.len() - k2 {
        prefix += weight(ids[s - 1]) as u128;
        if err(prefix) < best.0 {
            best = (err(prefix), s);
        }
        if prefix as f64 * s_all >= target {
            break;
        }
    }
    let (left, right) = ids.split_at_mut(best.1);
    bisect(input, left, (first, k1), part);
    bisect(input, right, (first + k1, k2), part);
}
