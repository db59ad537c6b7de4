//! Space-filling-curve partition of the root centroids (`docs/performance.md`; issue 23 item
//! 3): every root gets a key on a 3-D Hilbert curve through its centroid, the roots are sorted
//! by key (ties by root id), and the sorted sequence is cut into contiguous pieces of the
//! target shares of `PWgt`. This is how p4est, t8code and Zoltan's HSFC start.
//!
//! The three steps are separate so that ranks can run them on their own roots:
//! 1. [`hilbert_keys`]: a key per root from its centroid and the bounding box of all centroids
//!    (an all-reduce of six numbers), each key independent of the others;
//! 2. sorting `(key, root)` pairs: here one sort; across ranks a parallel sample sort
//!    ([`super::sfc_parts`]), after which each rank holds one contiguous run of the global
//!    order;
//! 3. [`cut_sorted`]: the part of each root in a run, from the weight before the run (an
//!    exclusive prefix sum over the ranks) and the total weight (an all-reduce).
//!
//! Hilbert rather than Morton order: consecutive cells of a Hilbert curve share a face, so a
//! piece of the curve is a connected, compact set of cells, while Morton order jumps across
//! the domain at every power-of-two boundary and leaves pieces in several components.

use rayon::prelude::*;

use super::{check_arguments, coordinates_of, finish, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::mesh::geometry::bounding_box;
use crate::{Error, Result};

/// Bits of each coordinate in a key: 3 × 21 = 63 bits, cells 2⁻²¹ of the box's longest side.
pub const BITS: u32 = 21;

/// The space-filling-curve partitioner over the graph's vertex coordinates
/// ([`GraphView::coordinates`]; for the dual graph, the root centroids). Deterministic,
/// whatever the number of threads: ties in keys are broken by vertex index. Every part is a
/// contiguous run of the curve, and with equal targets each part's weight lies within the
/// heaviest vertex's weight of the mean. Ignores the edges (`CWgt`).
///
/// ```
/// use plume::graph::GraphView;
/// use plume::partition::{Partitioner, Sfc, Targets};
/// // Four points along x, joined as a path 1 – 3 – 2 – 0, unit weights.
/// let c = [[3.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
/// let (xadj, adjncy) = ([0, 1, 2, 4, 6], [2, 3, 0, 3, 1, 2]);
/// let g = GraphView::new(&xadj, &adjncy, &[1; 6], &[1; 4]).unwrap();
/// let mut part = vec![0; 4];
/// Sfc.partition(&g.with_coordinates(&c).unwrap(), Targets::Equal(2), &mut part).unwrap();
/// assert_eq!(part, [1, 0, 1, 0]); // x = 0, 1 in part 0; x = 2, 3 in part 1
/// assert!(Sfc.partition(&g, Targets::Equal(2), &mut part).is_err()); // no coordinates
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sfc;

impl Partitioner for Sfc {
    fn name(&self) -> &'static str {
        "sfc"
    }

    /// # Errors
    /// Those of [`check_arguments`]; [`Error::Invalid`] for a graph without coordinates.
    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        let points = coordinates_of(graph, "sfc")?;
        let bounds = bounding_box(points.iter().copied());
        let keys = hilbert_keys(points, bounds)?;
        let order = curve_order(&keys);
        let w = graph.vertex_weights();
        let by_count = w.iter().all(|&x| x == 0);
        let weight = |v: u32| if by_count { 1 } else { w[v as usize] };
        let sorted: Vec<u64> = order.iter().map(|&v| weight(v)).collect();
        let total = sorted.iter().sum();
        let pieces = cut_sorted(&sorted, 0, total, targets);
        for (&v, &p) in order.iter().zip(&pieces) {
            part[v as usize] = p;
        }
        Ok(finish("sfc", graph, targets.nparts(), part, (1, 1)))
    }
}

/// The Hilbert key of every point, in the cube of side the longest side of `bounds` (`(lo,
/// hi)`, the bounding box of all points, also those other ranks hold) anchored at `lo`: the
/// same key for the same point whatever else is keyed. Computed in parallel; deterministic.
///
/// # Errors
/// [`Error::Invalid`] naming the first point with a non-finite coordinate.
pub fn hilbert_keys(points: &[[f64; 3]], bounds: ([f64; 3], [f64; 3])) -> Result<Vec<u64>> {
    if let Some(v) = points.iter().position(|c| !c.iter().all(|x| x.is_finite())) {
        return Err(Error::Invalid(format!(
            "SFC partition: point {v} has a non-finite coordinate {:?}",
            points[v]
        )));
    }
    let (lo, hi) = bounds;
    let side = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    let cells = (1u64 << BITS) as f64;
    let scale = if side > 0.0 { cells / side } else { 0.0 };
    let cell = |x: f64, k: usize| ((x - lo[k]) * scale).clamp(0.0, cells - 1.0) as u32;
    Ok(points
        .par_iter()
        .map(|c| hilbert_key([cell(c[0], 0), cell(c[1], 1), cell(c[2], 2)]))
        .collect())
}

/// The position of cell `x` (coordinates below 2^21) on the 3-D Hilbert curve of order 21, by
/// J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707 (2004): the
/// axes-to-transpose transform, then the transposed bits interleaved (x's bit first).
pub fn hilbert_key(mut x: [u32; 3]) -> u64 {
    let top = 1u32 << (BITS - 1);
    // Inverse undo of the rotations and reflections, from the coarsest level down.
    let mut q = top;
    while q > 1 {
        let p = q - 1;
        for i in 0..3 {
            if x[i] & q != 0 {
                x[0] ^= p;
            } else {
                let t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
        q >>= 1;
    }
    // Gray encode.
    x[1] ^= x[0];
    x[2] ^= x[1];
    let mut t = 0;
    let mut q = top;
    while q > 1 {
        if x[2] & q != 0 {
            t ^= q - 1;
        }
        q >>= 1;
    }
    x.iter_mut().for_each(|xi| *xi ^= t);
    let mut key = 0u64;
    for b in (0..BITS).rev() {
        for xi in x {
            key = key << 1 | u64::from(xi >> b & 1);
        }
    }
    key
}

/// The vertices in curve order: sorted by key, ties by vertex index (a parallel sort of
/// distinct pairs, so the order does not depend on the threads).
pub fn curve_order(keys: &[u64]) -> Vec<u32> {
    let mut pairs: Vec<(u64, u32)> = keys.iter().zip(0u32..).map(|(&k, v)| (k, v)).collect();
    pairs.par_sort_unstable();
    pairs.into_iter().map(|(_, v)| v).collect()
}

/// The parts of a run of the curve: `sorted[i]` is the weight of the run's `i`-th vertex,
/// `before` the weight of all vertices earlier on the curve (on other ranks), `total` the
/// weight of the whole curve. A vertex goes to the part whose slice of `[0, total)` holds the
/// middle of its weight: part k's slice ends at `total · (s₀ + … + s_k) / Σ s`. So each part is
/// a contiguous run, parts come in curve order, and a part's weight differs from its target by
/// at most the heaviest vertex's weight (half of one at each end).
///
/// # Panics
/// If the targets are invalid ([`Targets::check`]): callers check them first.
#[track_caller]
pub fn cut_sorted(sorted: &[u64], before: u64, total: u64, targets: Targets<'_>) -> Vec<u32> {
    assert!(targets.check().is_ok(), "invalid targets {targets:?}");
    let shares = targets.shares();
    let sum: f64 = shares.iter().sum();
    // Part k ends where 2·(weight up to a vertex's middle)·Σs reaches 2·total·(s₀ + … + s_k).
    let mut ends = Vec::with_capacity(shares.len());
    let mut cum = 0.0;
    for s in &shares {
        cum += s;
        ends.push(2.0 * total as f64 * cum);
    }
    let mut k = 0;
    let mut prefix = before as u128;
    sorted
        .iter()
        .map(|&w| {
            let middle = (2 * prefix + w as u128) as f64 * sum;
            prefix += w as u128;
            while k + 1 < ends.len() && middle >= ends[k] {
                k += 1;
            }
            k as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::rank_loads;

    /// A 3-D grid of `n³` unit cells: centroids and the face-adjacency graph.
    fn grid(n: usize) -> (Vec<[f64; 3]>, Vec<u32>, Vec<u32>) {
        let id = |i: usize, j: usize, k: usize| (i + n * (j + n * k)) as u32;
        let (mut c, mut xadj, mut adjncy) = (Vec::new(), vec![0u32], Vec::new());
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    c.push([i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5]);
                    let mut row = Vec::new();
                    for (d, x) in [(0, i), (1, j), (2, k)] {
                        let mut at = [i, j, k];
                        if x > 0 {
                            at[d] = x - 1;
                            row.push(id(at[0], at[1], at[2]));
                        }
                        if x + 1 < n {
                            at[d] = x + 1;
                            row.push(id(at[0], at[1], at[2]));
                        }
                    }
                    row.sort_unstable();
                    adjncy.extend(row);
                    xadj.push(adjncy.len() as u32);
                }
            }
        }
        (c, xadj, adjncy)
    }

    #[test]
    fn consecutive_cells_of_the_curve_share_a_face() {
        // The Hilbert property (Morton order fails it): on a 8³ grid, each cell's successor
        // along the curve differs by one in exactly one coordinate.
        let (c, _, _) = grid(8);
        let keys = hilbert_keys(&c, bounding_box(c.iter().copied())).unwrap();
        let order = curve_order(&keys);
        for pair in order.windows(2) {
            let (a, b) = (c[pair[0] as usize], c[pair[1] as usize]);
            let d: f64 = (0..3).map(|k| (a[k] - b[k]).abs()).sum();
            assert_eq!(d, 1.0, "cells {a:?} and {b:?}");
        }
        let mut distinct = keys.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), keys.len());
    }

    #[test]
    fn eight_unit_cubes_in_gray_code_order() {
        // The first level of the curve visits the octants (x, y, z) in the Gray code order
        // 000, 001, 011, 010, 110, 111, 101, 100: key bits x, x^y, x^y^z.
        let (c, xadj, adjncy) = grid(2);
        let w = [1u64; 8];
        let g = GraphView::new(&xadj, &adjncy, &[1; 24], &w).unwrap();
        let g = g.with_coordinates(&c).unwrap();
        let mut part = vec![0; 8];
        Sfc.partition(&g, Targets::Equal(8), &mut part).unwrap();
        let at = |x: usize, y: usize, z: usize| part[x + 2 * (y + 2 * z)];
        let gray = [
            (0, 0, 0),
            (0, 0, 1),
            (0, 1, 1),
            (0, 1, 0),
            (1, 1, 0),
            (1, 1, 1),
        ];
        for (p, &(x, y, z)) in gray.iter().enumerate() {
            assert_eq!(at(x, y, z), p as u32, "octant {x}{y}{z}");
        }
        assert_eq!((at(1, 0, 1), at(1, 0, 0)), (6, 7));
        // Two parts: the halves x = 0 and x = 1; four: the quarter columns along z.
        Sfc.partition(&g, Targets::Equal(2), &mut part).unwrap();
        assert_eq!(part, [0, 1, 0, 1, 0, 1, 0, 1]);
        Sfc.partition(&g, Targets::Equal(4), &mut part).unwrap();
        assert_eq!(part, [0, 3, 1, 2, 0, 3, 1, 2]);
    }

    #[test]
    fn parts_are_runs_of_the_curve_within_one_root_of_the_mean() {
        let (c, xadj, adjncy) = grid(6);
        let n = c.len();
        // Weights 1..=8 in a fixed scramble, as refinement would leave them.
        let w: Vec<u64> = (0..n as u64).map(|v| 1 + (v * 7919) % 8).collect();
        let ew = vec![1; adjncy.len()];
        let g = GraphView::new(&xadj, &adjncy, &ew, &w).unwrap();
        let g = g.with_coordinates(&c).unwrap();
        let keys = hilbert_keys(&c, bounding_box(c.iter().copied())).unwrap();
        let order = curve_order(&keys);
        for p in [1, 2, 3, 5, 8, 13, 32, 100] {
            let mut part = vec![0; n];
            let info = Sfc.partition(&g, Targets::Equal(p), &mut part).unwrap();
            assert_eq!(info.repair_moves, 0);
            let along: Vec<u32> = order.iter().map(|&v| part[v as usize]).collect();
            assert!(along.windows(2).all(|x| x[1] == x[0] || x[1] == x[0] + 1));
            assert_eq!((along[0], along[n - 1]), (0, p as u32 - 1));
            let loads = rank_loads(&w, &part, p);
            let mean = w.iter().sum::<u64>() as f64 / p as f64;
            let max_w = *w.iter().max().unwrap() as f64;
            for l in loads {
                assert!(
                    (l as f64 - mean).abs() <= max_w,
                    "P = {p}: {l} vs mean {mean}"
                );
            }
        }
    }

    #[test]
    fn the_same_owners_whatever_the_thread_count() {
        let (c, xadj, adjncy) = grid(10);
        let w: Vec<u64> = (0..c.len() as u64).map(|v| 1 + v % 5).collect();
        let ew = vec![1; adjncy.len()];
        let g = GraphView::new(&xadj, &adjncy, &ew, &w).unwrap();
        let g = g.with_coordinates(&c).unwrap();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut part = vec![0; c.len()];
            pool.install(|| Sfc.partition(&g, Targets::Equal(7), &mut part))
                .unwrap();
            part
        };
        let one = run(1);
        assert_eq!(run(2), one);
        assert_eq!(run(4), one);
    }

    #[test]
    fn a_run_cut_with_the_weight_before_it_continues_the_whole_cut() {
        // What ranks holding consecutive runs of the sorted curve compute: the same parts.
        let w: Vec<u64> = (0..50).map(|v| 1 + (v * 31) % 7).collect();
        let total = w.iter().sum();
        let whole = cut_sorted(&w, 0, total, Targets::Equal(6));
        let (a, b) = w.split_at(17);
        let mut pieces = cut_sorted(a, 0, total, Targets::Equal(6));
        pieces.extend(cut_sorted(b, a.iter().sum(), total, Targets::Equal(6)));
        assert_eq!(pieces, whole);
    }

    #[test]
    fn uneven_shares_and_ties_in_keys() {
        // Four points at the same place: curve order is root order; shares 1 : 3.
        let c = vec![[1.0, 1.0, 1.0]; 4];
        let (xadj, adjncy) = ([0, 1, 3, 5, 6], [1, 0, 2, 1, 3, 2]);
        let g = GraphView::new(&xadj, &adjncy, &[1; 6], &[1; 4]).unwrap();
        let mut part = vec![0; 4];
        Sfc.partition(
            &g.with_coordinates(&c).unwrap(),
            Targets::Shares(&[1.0, 3.0]),
            &mut part,
        )
        .unwrap();
        assert_eq!(part, [0, 1, 1, 1]);
        assert!(matches!(
            Sfc.partition(&g, Targets::Equal(2), &mut part),
            Err(Error::Invalid(m)) if m.contains("no vertex coordinates")
        ));
        let bad = vec![[f64::NAN, 0.0, 0.0]; 4];
        assert!(matches!(
            hilbert_keys(&bad, bounding_box(c.iter().copied())),
            Err(Error::Invalid(_))
        ));
    }
}
