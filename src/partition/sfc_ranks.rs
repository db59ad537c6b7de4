//! The space-filling-curve partition of [`super::Sfc`] computed on ranks (`docs/performance.md`;
//! issue 23 item 3), each rank passing only the roots it holds — any roots, in any
//! numbers, together every root of the mesh once:
//!
//! 1. the bounding box of all centroids, the root count and the total weight by one all-gather
//!    of a few numbers per rank, then [`hilbert_keys`] of the rank's own roots;
//! 2. a parallel sample sort by `(key, global id)` (regular sampling: each rank sorts its roots
//!    and picks P − 1 evenly spaced samples, the samples are all-gathered and P − 1 splitters
//!    taken from them at even spacing, an all-to-all sends each root to the rank whose range of
//!    the curve holds it, each rank merges what it received): then rank r holds the r-th run of
//!    the global order;
//! 3. the weight before each run (an exclusive scan: an all-gather of P sums) and
//!    [`cut_sorted`] of the run, then the serial partitioner's repair of empty parts over the
//!    ranks (only when a heavy root leaves a part empty: a collective per root moved);
//! 4. each root's part sent back to the rank that passed it.
//!
//! The parts are those of [`super::Sfc`] on the whole mesh bit for bit, whatever P and however
//! the roots are spread over the ranks. A rank holds its own roots, the run it sorts (about
//! as many on balanced input, at most twice as many by regular sampling) and O(P²) samples.

use super::repair::refill;
use super::sfc::{cut_sorted, hilbert_keys};
use super::Targets;
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::mesh::chunk::block_of;
use crate::{Error, Result};

/// A root on its way through the sort: its Hilbert key, global id and weight as given.
type Item = (u64, u32, u64);

/// The first owner of each root this rank passes: its part in [`sfc_parts`] with one part of
/// equal weight per rank (`Targets::Equal(comm.size())`). A collective: every rank calls it.
///
/// `ids[i]` is the global id (the index in the whole mesh) of this rank's `i`-th root,
/// `centroids[i]` its centroid, `weights[i]` its weight (all zero: every root weighs 1). The
/// ranks' ids together must be `0..N` for the N roots of the mesh, each once.
///
/// ```
/// use plume::comm::{launch_threads, Comm};
/// use plume::partition::sfc_first_owners;
/// // Four points along x, held two by two: x = 0, 1 go to rank 0, x = 2, 3 to rank 1.
/// let owners = launch_threads(2, |comm| {
///     let (ids, centroids) = match comm.rank() {
///         0 => (vec![0, 1], vec![[3.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
///         _ => (vec![2, 3], vec![[2.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
///     };
///     sfc_first_owners(comm, &ids, &centroids, &[1, 1])
/// })
/// .unwrap();
/// assert_eq!(owners, [vec![1, 0], vec![1, 0]]);
/// ```
///
/// # Errors
/// As [`sfc_parts`].
pub fn sfc_first_owners<C: Comm + ?Sized>(
    comm: &C,
    ids: &[u32],
    centroids: &[[f64; 3]],
    weights: &[u64],
) -> Result<Vec<u32>> {
    sfc_parts(comm, ids, centroids, weights, Targets::Equal(comm.size()))
}

/// The part of each root this rank passes (arguments as in [`sfc_first_owners`]) in the
/// partition [`super::Sfc`] computes on the whole mesh with the same `targets` (every rank
/// passes the same): equal to it bit for bit. A collective: every rank calls it.
///
/// # Errors
/// The same on every rank: [`Error::LengthMismatch`] when `centroids` or `weights` do not
/// have one entry per id, [`Error::Invalid`] naming a root with a non-finite centroid or an id
/// that is not one of `0..N` once over all ranks, those of [`Targets::check`], and
/// [`Error::TooFewVertices`] for more parts than roots (an empty mesh included); or a
/// transport error.
pub fn sfc_parts<C: Comm + ?Sized>(
    comm: &C,
    ids: &[u32],
    centroids: &[[f64; 3]],
    weights: &[u64],
    targets: Targets<'_>,
) -> Result<Vec<u32>> {
    comm.agree(check_local(ids, centroids, weights, targets))?;
    let whole = Whole::gather(comm, ids, centroids, weights)?;
    whole.check(targets.nparts())?;
    check_each_id_once(comm, ids, whole.roots)?;
    let keys = hilbert_keys(centroids, whole.bounds)?;
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (keys[i as usize], ids[i as usize]));
    let sorted: Vec<Item> = order
        .iter()
        .map(|&i| (keys[i as usize], ids[i as usize], weights[i as usize]))
        .collect();
    let (run, sources) = sample_sort(comm, &sorted)?;
    drop(sorted);
    let by_count = whole.max_weight == 0;
    let weight = |w: u64| if by_count { 1 } else { w };
    let run_weights: Vec<u64> = run.iter().map(|it| weight(it.2)).collect();
    let run_total = run_weights.iter().sum::<u64>();
    let totals = comm.all_gather_serde(&run_total)?;
    let before = totals[..comm.rank()].iter().sum();
    let total = if by_count { whole.roots } else { whole.weight };
    let mut parts = cut_sorted(&run_weights, before, total, targets);
    fill_empty_parts_on_ranks(comm, &run, &mut parts, targets.nparts())?;
    // Back to the ranks that passed the roots, in the order each sent them.
    let mut replies = vec![Vec::new(); comm.size()];
    for (&part, &source) in parts.iter().zip(&sources) {
        replies[source as usize].push(part);
    }
    let back: Vec<u32> = comm
        .all_to_all_serde(&replies)?
        .into_iter()
        .flatten()
        .collect();
    if back.len() != ids.len() {
        return Err(Error::Protocol {
            from: comm.rank(),
            message: format!(
                "SFC partition: {} parts came back for {} roots",
                back.len(),
                ids.len()
            ),
        });
    }
    let mut owners = vec![0; ids.len()];
    for (&i, p) in order.iter().zip(back) {
        owners[i as usize] = p;
    }
    Ok(owners)
}

/// The checks of one rank's own arguments.
fn check_local(
    ids: &[u32],
    centroids: &[[f64; 3]],
    weights: &[u64],
    targets: Targets<'_>,
) -> Result<()> {
    Error::check_len("SFC centroids", ids.len(), centroids.len())?;
    Error::check_len("SFC weights", ids.len(), weights.len())?;
    targets.check()?;
    if let Some(i) = centroids
        .iter()
        .position(|c| !c.iter().all(|x| x.is_finite()))
    {
        return Err(Error::Invalid(format!(
            "SFC partition: root {} has a non-finite centroid {:?}",
            ids[i], centroids[i]
        )));
    }
    Ok(())
}

/// What the ranks' roots amount to together.
struct Whole {
    /// Number of roots.
    roots: u64,
    /// The largest global id (None without roots).
    max_id: Option<u32>,
    /// The largest weight.
    max_weight: u64,
    /// The sum of the weights.
    weight: u64,
    /// The bounding box of the centroids.
    bounds: ([f64; 3], [f64; 3]),
}

impl Whole {
    /// Every rank's summary all-gathered and folded in rank order: the same on every rank.
    fn gather<C: Comm + ?Sized>(
        comm: &C,
        ids: &[u32],
        centroids: &[[f64; 3]],
        weights: &[u64],
    ) -> Result<Whole> {
        let weight = weights.iter().try_fold(0u64, |s, &w| s.checked_add(w));
        let own = (
            ids.len() as u64,
            ids.iter().max().copied(),
            weights.iter().max().copied().unwrap_or(0),
            weight,
            crate::mesh::geometry::bounding_box(centroids.iter().copied()),
        );
        let mut whole = Whole {
            roots: 0,
            max_id: None,
            max_weight: 0,
            weight: 0,
            bounds: ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        };
        let mut overflow = false;
        for (n, max_id, max_weight, weight, (lo, hi)) in comm.all_gather_serde(&own)? {
            whole.roots += n;
            whole.max_id = whole.max_id.max(max_id);
            whole.max_weight = whole.max_weight.max(max_weight);
            match weight.and_then(|w| whole.weight.checked_add(w)) {
                Some(w) => whole.weight = w,
                None => overflow = true,
            }
            for k in 0..3 {
                whole.bounds.0[k] = whole.bounds.0[k].min(lo[k]);
                whole.bounds.1[k] = whole.bounds.1[k].max(hi[k]);
            }
        }
        if overflow {
            return Err(Error::Invalid(
                "SFC partition: the roots' total weight overflows 64 bits".into(),
            ));
        }
        Ok(whole)
    }

    /// The checks of the whole: `nparts` parts of these roots, ids below their number.
    fn check(&self, nparts: usize) -> Result<()> {
        if nparts as u64 > self.roots {
            return Err(Error::TooFewVertices {
                parts: nparts,
                vertices: self.roots as usize,
            });
        }
        match self.max_id {
            Some(id) if u64::from(id) >= self.roots => Err(Error::Invalid(format!(
                "SFC partition: root id {id} is not below the number of roots {}",
                self.roots
            ))),
            _ => Ok(()),
        }
    }
}

/// `Ok` on every rank when no id is passed twice (over all ranks), given that there are `n`
/// ids in all, each below `n`: each id goes to the rank whose block of `0..n` holds it, which
/// counts them.
fn check_each_id_once<C: Comm + ?Sized>(comm: &C, ids: &[u32], n: u64) -> Result<()> {
    let (n, size) = (n as usize, comm.size());
    let mut outgoing = vec![Vec::new(); size];
    for &id in ids {
        outgoing[block_of(n, size, id as usize)].push(id);
    }
    let home = crate::mesh::chunk::block(n, size, comm.rank());
    let mut seen = vec![false; home.len()];
    let mut twice = None;
    for id in comm.all_to_all_serde(&outgoing)?.into_iter().flatten() {
        let at = (id as usize)
            .checked_sub(home.start)
            .filter(|&i| i < seen.len());
        match at {
            Some(i) if !seen[i] => seen[i] = true,
            _ => {
                twice = Some(id);
                break;
            }
        }
    }
    comm.agree(match twice {
        None => Ok(()),
        Some(id) => Err(Error::Invalid(format!(
            "SFC partition: root id {id} is passed more than once"
        ))),
    })
}

/// The ranks' items, each rank's `sorted` by `(key, id)`, sorted across the ranks by a sample
/// sort with regular sampling: this rank's run of the global order, and for each of its items
/// the rank that sent it (a rank's items keep the order it sent them in).
fn sample_sort<C: Comm + ?Sized>(comm: &C, sorted: &[Item]) -> Result<(Vec<Item>, Vec<u32>)> {
    let (size, n) = (comm.size(), sorted.len());
    let at = |it: &Item| (it.0, it.1);
    let samples: Vec<(u64, u32)> = if n == 0 {
        Vec::new()
    } else {
        (1..size).map(|i| at(&sorted[i * n / size])).collect()
    };
    let mut all: Vec<(u64, u32)> = comm
        .all_gather_serde(&samples)?
        .into_iter()
        .flatten()
        .collect();
    all.sort_unstable();
    let m = all.len();
    let splitters: Vec<(u64, u32)> = if m == 0 {
        Vec::new()
    } else {
        (1..size).map(|j| all[j * m / size]).collect()
    };
    // Rank r receives the items above splitter r − 1 and up to splitter r.
    let mut outgoing = vec![Vec::new(); size];
    let mut start = 0;
    for (r, out) in outgoing.iter_mut().enumerate() {
        let end = splitters.get(r).map_or(n, |&s| {
            start + sorted[start..].partition_point(|it| at(it) <= s)
        });
        *out = sorted[start..end].to_vec();
        start = end;
    }
    let mut received: Vec<(Item, u32)> = comm
        .all_to_all_serde(&outgoing)?
        .into_iter()
        .zip(0u32..)
        .flat_map(|(items, source)| items.into_iter().map(move |it| (it, source)))
        .collect();
    received.sort_unstable_by_key(|(it, _)| at(it));
    Ok(received.into_iter().unzip())
}

/// [`super::fill_empty_parts`] of the whole partition, each rank holding the roots of its
/// `run` and their `parts`: the parts' counts and weights are summed over the ranks (one
/// all-reduce), and when a part is empty the lightest root of the part giving one is found by
/// an all-gather of each rank's lightest (lowest id on ties).
fn fill_empty_parts_on_ranks<C: Comm + ?Sized>(
    comm: &C,
    run: &[Item],
    parts: &mut [u32],
    nparts: usize,
) -> Result<()> {
    let mut local = vec![0u64; 2 * nparts];
    for (it, &p) in run.iter().zip(parts.iter()) {
        local[p as usize] += 1;
        local[nparts + p as usize] += it.2;
    }
    let summed = comm.all_reduce_u64(&local, ReduceOp::Sum)?;
    let mut count: Vec<usize> = summed[..nparts].iter().map(|&c| c as usize).collect();
    let mut weight = summed[nparts..].to_vec();
    refill(&mut count, &mut weight, |heavy, empty| {
        let lightest = run
            .iter()
            .zip(parts.iter())
            .filter(|&(_, &p)| p as usize == heavy)
            .map(|(it, _)| (it.2, it.1))
            .min();
        let found = comm
            .all_gather_serde(&lightest)?
            .into_iter()
            .flatten()
            .min();
        let Some((w, id)) = found else {
            return Err(Error::Protocol {
                from: comm.rank(),
                message: format!("SFC partition: no rank holds a root of part {heavy}"),
            });
        };
        if let Some(i) = run.iter().position(|it| it.1 == id) {
            parts[i] = empty as u32;
        }
        Ok(w)
    })?;
    Ok(())
}
