//! Multilevel k-way partitioning with METIS 5 (Karypis & Kumar, "A fast and high quality
//! multilevel scheme for partitioning irregular graphs", SIAM J. Sci. Comput. 20(1), 1998;
//! "Multilevel k-way partitioning scheme for irregular graphs", JPDC 48(1), 1998), through the
//! `metis` crate and its vendored METIS: vertex weight `PWgt`, edge weight `CWgt`, uneven
//! [`Targets`] as METIS's target part weights (`tpwgts`).
//!
//! METIS works with 32-bit signed indices (`metis::Idx`). Our weights are `u64`: when the
//! vertex weights (or the edge weights, summed over both directions of each edge) add up to
//! more than `Idx::MAX / 2`, every weight of that kind is divided by the smallest divisor that
//! brings the total under that bound, rounding up so that no positive weight becomes 0. The
//! divisor is reported in [`PartitionInfo`]; the edge cut there is always the exact one.
//! METIS needs every target share positive: a zero share is raised to [`MIN_FRACTION`] of the
//! total (the part still gets at least one vertex, see [`super::fill_empty_parts`]).
//!
//! METIS keeps its random number generator in process-wide state (GKlib's Mersenne twister)
//! and installs process-wide signal handlers while it runs: two calls on different threads
//! would disturb each other's random sequence and give different parts for the same seed. So
//! every call goes through one process-wide lock; METIS runs one at a time.

use super::{check_arguments, finish, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::{Error, Result};
use ::metis::option;
use ::metis::{Idx, Real};
use std::sync::Mutex;

/// The smallest fraction of the total weight a part is aimed at (METIS rejects zero targets).
pub const MIN_FRACTION: f64 = 1e-6;

/// Serialises the calls into METIS (see the module doc): held for the whole of one call.
static METIS_LOCK: Mutex<()> = Mutex::new(());

/// METIS multilevel k-way partitioning with fixed options, so that the same graph and weights
/// always give the same parts.
///
/// ```
/// use plume::{adapt::Forest, graph::DualGraph, mesh::generate_box};
/// use plume::partition::{Metis, Partitioner, Targets};
/// let forest = Forest::new(generate_box([2, 2, 2], [1.0; 3]).unwrap(), Default::default()).unwrap();
/// let graph = DualGraph::new(&forest); // 48 roots
/// let view = graph.view(&graph.weights).unwrap();
/// let mut part = vec![0; 48];
/// let metis = Metis { ncuts: 2, ..Metis::default() };
/// let info = metis.partition(&view, Targets::Equal(2), &mut part).unwrap();
/// assert_eq!(info.algorithm, "metis-kway");
/// assert_eq!(part.iter().filter(|&&p| p == 0).count(), 24);
/// // A quarter and three quarters of the weight (12 and 36 roots, give or take one).
/// metis.partition(&view, Targets::Shares(&[1.0, 3.0]), &mut part).unwrap();
/// assert!((11..=13).contains(&part.iter().filter(|&&p| p == 0).count()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metis {
    /// Seed of METIS's random number generator (`METIS_OPTION_SEED`); fixed so that runs are
    /// reproducible. Default 1.
    pub seed: i32,
    /// Load imbalance tolerance in thousandths (`METIS_OPTION_UFACTOR`): a part may weigh up
    /// to `(1 + ufactor / 1000)` times the mean. Default 30 (1.03), METIS's default for k-way.
    pub ufactor: u32,
    /// Number of partitionings METIS computes, keeping the one with the lowest cut
    /// (`METIS_OPTION_NCUTS`). Default 1.
    pub ncuts: u32,
    /// Refinement iterations at each uncoarsening level (`METIS_OPTION_NITER`). Default 10.
    pub niter: u32,
    /// Also minimise the maximum number of neighbouring parts (`METIS_OPTION_MINCONN`).
    /// Default false.
    pub minimize_connectivity: bool,
}

impl Default for Metis {
    fn default() -> Self {
        Metis {
            seed: 1,
            ufactor: 30,
            ncuts: 1,
            niter: 10,
            minimize_connectivity: false,
        }
    }
}

impl Partitioner for Metis {
    fn name(&self) -> &'static str {
        "metis"
    }

    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        let nparts = targets.nparts();
        if nparts == 1 {
            part.fill(0);
            return Ok(finish("single-part", graph, 1, part, (1, 1)));
        }
        if graph.adjncy().is_empty() {
            greedy(graph.vertex_weights(), targets, part);
            return Ok(finish("greedy-no-edges", graph, nparts, part, (1, 1)));
        }
        let divisors = self.run(graph, targets, part)?;
        Ok(finish("metis-kway", graph, nparts, part, divisors))
    }
}

impl Metis {
    fn run(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<(u64, u64)> {
        let nparts = targets.nparts();
        let too_large = || {
            Error::Invalid(format!(
                "the graph ({} vertices, {} edges) is too large for METIS's {}-bit indices",
                graph.nvertices(),
                graph.nedges(),
                Idx::BITS
            ))
        };
        let xadj = to_idx_exact(graph.xadj()).ok_or_else(too_large)?;
        let adjncy = to_idx_exact(graph.adjncy()).ok_or_else(too_large)?;
        let (vwgt, vdiv) = to_idx_scaled(graph.vertex_weights()).ok_or_else(too_large)?;
        let (adjwgt, ediv) = to_idx_scaled(graph.edge_weights()).ok_or_else(too_large)?;
        let tpwgts = match targets {
            Targets::Equal(_) => None,
            Targets::Shares(_) => Some(target_fractions(targets)),
        };
        let option = |name: &str, value: u32| {
            Idx::try_from(value)
                .map_err(|_| Error::Invalid(format!("METIS option {name} = {value} is too large")))
        };
        let mut out: Vec<Idx> = vec![0; part.len()];
        // A panic elsewhere while holding the lock leaves no state of ours behind: go on.
        let _one_at_a_time = METIS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let mut metis = ::metis::Graph::new(1, nparts as Idx, &xadj, &adjncy)
            .map_err(|e| Error::Invalid(format!("METIS rejected the graph: {e}")))?
            .set_vwgt(&vwgt)
            .set_adjwgt(&adjwgt);
        if let Some(tpwgts) = &tpwgts {
            metis = metis.set_tpwgts(tpwgts);
        }
        metis
            .set_option(option::Seed(Idx::from(self.seed)))
            .set_option(option::UFactor(option("ufactor", self.ufactor)?))
            .set_option(option::NCuts(option("ncuts", self.ncuts)?))
            .set_option(option::NIter(option("niter", self.niter)?))
            .set_option(option::MinConn(self.minimize_connectivity))
            .part_kway(&mut out)
            .map_err(|e| {
                Error::Invalid(format!(
                    "METIS failed to partition {} vertices into {nparts} parts: {e}",
                    graph.nvertices()
                ))
            })?;
        for (p, &q) in part.iter_mut().zip(&out) {
            *p = u32::try_from(q)
                .ok()
                .filter(|&q| (q as usize) < nparts)
                .unwrap_or_else(|| panic!("METIS returned part {q} for {nparts} parts"));
        }
        Ok((vdiv, ediv))
    }
}

/// METIS's `tpwgts`: every part's fraction of the total, at least [`MIN_FRACTION`], summing
/// to 1.
fn target_fractions(targets: Targets<'_>) -> Vec<Real> {
    let raised: Vec<f64> = (0..targets.nparts())
        .map(|k| targets.fraction(k).max(MIN_FRACTION))
        .collect();
    let sum: f64 = raised.iter().sum();
    raised.iter().map(|f| (f / sum) as Real).collect()
}

/// Index arrays converted to METIS's type, `None` when one does not fit.
fn to_idx_exact(a: &[u32]) -> Option<Vec<Idx>> {
    a.iter().map(|&x| Idx::try_from(x).ok()).collect()
}

/// Weights converted to METIS's type with their total at most `Idx::MAX / 2` (headroom for
/// METIS's own sums), each divided by the returned divisor, rounding up. `None` when even
/// weights of 1 would not fit (more than `Idx::MAX / 2` entries).
pub(crate) fn to_idx_scaled(w: &[u64]) -> Option<(Vec<Idx>, u64)> {
    let limit = (Idx::MAX / 2) as u128;
    let n = w.len() as u128;
    if n >= limit {
        return None;
    }
    let total: u128 = w.iter().map(|&x| x as u128).sum();
    // With d = ceil(total / (limit - n)): Σ ceil(x / d) <= total / d + n <= limit.
    let d = if total <= limit {
        1
    } else {
        total.div_ceil(limit - n)
    };
    let scaled = w
        .iter()
        .map(|&x| Idx::try_from((x as u128).div_ceil(d)).expect("below the limit"))
        .collect();
    Some((scaled, d as u64))
}

/// A graph without edges (for instance a mesh of one element, or of elements sharing no face):
/// vertices by decreasing weight (lowest index first on ties), each to the part whose load is
/// the smallest multiple of its target fraction (lowest id on ties). Parts stay non-empty as
/// long as `nparts <= nvertices` and weights are positive, since the first `nparts` vertices go
/// to distinct parts; [`super::fill_empty_parts`] covers the rest.
fn greedy(pwgt: &[u64], targets: Targets<'_>, part: &mut [u32]) {
    let fraction: Vec<f64> = (0..targets.nparts())
        .map(|k| targets.fraction(k).max(MIN_FRACTION))
        .collect();
    let mut order: Vec<usize> = (0..pwgt.len()).collect();
    order.sort_by_key(|&v| (std::cmp::Reverse(pwgt[v]), v));
    // Keyed by load / fraction: non-negative and finite, so its bits order as the value does.
    let key = |load: u64, p: usize| ((load as f64 / fraction[p]).to_bits(), p);
    let mut load = vec![0u64; fraction.len()];
    let mut lightest: std::collections::BTreeSet<(u64, usize)> =
        (0..fraction.len()).map(|p| key(0, p)).collect();
    for v in order {
        let (_, p) = lightest.pop_first().expect("nparts >= 1");
        part[v] = p as u32;
        load[p] += pwgt[v];
        lightest.insert(key(load[p], p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_weights_are_kept_as_they_are() {
        let (w, d) = to_idx_scaled(&[3, 0, 7]).unwrap();
        assert_eq!((w, d), (vec![3, 0, 7], 1));
    }

    #[test]
    fn huge_weights_are_scaled_under_the_limit_and_stay_positive() {
        let w = [u64::MAX, u64::MAX / 3, 1, 0, u64::MAX];
        let (s, d) = to_idx_scaled(&w).unwrap();
        assert!(d > 1);
        let total: i64 = s.iter().map(|&x| x as i64).sum();
        assert!(total <= (Idx::MAX / 2) as i64, "{total}");
        assert_eq!(s[2], 1, "a positive weight stays positive");
        assert_eq!(s[3], 0);
        assert_eq!(s[0], s[4]);
        assert!(
            s[0] > 2 * s[1] && s[0] <= 3 * s[1] + 3,
            "{s:?}: ratios kept"
        );
    }

    #[test]
    fn greedy_fills_the_lightest_part_heaviest_roots_first() {
        let mut part = [0; 5];
        greedy(&[1, 5, 2, 4, 3], Targets::Equal(2), &mut part);
        // 5 → p0, 4 → p1, 3 → p1 (4 < 5), 2 → p0 (5 < 7), 1 → p0 (7 = 7, lower id).
        assert_eq!(part, [0, 0, 0, 1, 1]);
    }

    #[test]
    fn greedy_follows_uneven_targets() {
        let mut part = [0; 4];
        greedy(&[1, 1, 1, 1], Targets::Shares(&[3.0, 1.0]), &mut part);
        // p0, then p1 (0 / ¼ < 1 / ¾), then p0 twice (1 / ¾ < 1 / ¼, 2 / ¾ < 1 / ¼).
        assert_eq!(part, [0, 1, 0, 0]);
    }

    #[test]
    fn zero_shares_are_raised_and_fractions_sum_to_one() {
        let t = target_fractions(Targets::Shares(&[0.0, 2.0, 2.0]));
        assert!(t[0] > 0.0 && (t[1] - 0.5).abs() < 1e-5);
        assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
