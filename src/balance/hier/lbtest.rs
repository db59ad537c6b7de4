//! `lb_test`, [Zheng 2011]'s synthetic benchmark (§4.1, `docs/design/hierarchical.md`): N objects
//! with loads drawn uniformly in a range (seeded), ring communication `o ↔ o ± 1 mod N`, and the
//! seed's placement: "all objects are sorted by their load … and this ordering is used to place
//! them on all processors assigning equal number of objects to each".

use super::db::{CommData, ObjData};
use crate::rng::Rng;
use crate::{Error, Result};

/// The benchmark's parameters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LbTest {
    /// Objects N.
    pub objects: usize,
    /// Processors P.
    pub nprocs: usize,
    /// Seed of the loads.
    pub seed: u64,
    /// Loads are uniform in `[lo, hi]` seconds (default 1 to 10 ms).
    pub load_range: (f64, f64),
    /// Bytes of each ring record, each way (default 1 KiB).
    pub record_bytes: f64,
}

impl LbTest {
    /// `objects` objects on `nprocs` processors, seed 1, loads in [1, 10] ms, 1 KiB records.
    pub fn new(objects: usize, nprocs: usize) -> LbTest {
        LbTest {
            objects,
            nprocs,
            seed: 1,
            load_range: (1e-3, 10e-3),
            record_bytes: 1024.0,
        }
    }

    /// The objects, in id order, placed by [`sorted_placement`], and their ring records
    /// (object `o` sends to `o + 1` and `o − 1`, once when they are the same object, none for
    /// a single object), in the order of their senders.
    ///
    /// # Errors
    /// [`Error::Zero`] for no processor; [`Error::Invalid`] for more objects than `u32` ids,
    /// or a range that is not `0 ≤ lo ≤ hi` finite.
    pub fn generate(&self) -> Result<(Vec<ObjData>, Vec<CommData>)> {
        let n = self.objects;
        if n > u32::MAX as usize {
            return Err(Error::Invalid(format!("objects: {n} is above 2^32 − 1")));
        }
        let (lo, hi) = self.load_range;
        if !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi) {
            return Err(Error::Invalid(format!(
                "load range: [{lo}, {hi}] must be finite with 0 ≤ lo ≤ hi"
            )));
        }
        let mut rng = Rng::new(self.seed);
        let loads: Vec<f64> = (0..n).map(|_| lo + (hi - lo) * rng.unit()).collect();
        let home = sorted_placement(&loads, self.nprocs)?;
        let objs = (0..n)
            .map(|i| ObjData {
                id: i as u32,
                home: home[i],
                load: loads[i],
            })
            .collect();
        let mut records = Vec::with_capacity(2 * n);
        for o in 0..n {
            let (next, prev) = ((o + 1) % n, (o + n - 1) % n);
            let ends: &[usize] = if next == prev { &[next] } else { &[next, prev] };
            for &to in ends.iter().filter(|&&to| to != o) {
                records.push(CommData {
                    from: o as u32,
                    to: to as u32,
                    bytes: self.record_bytes,
                });
            }
        }
        Ok((objs, records))
    }
}

/// [Zheng 2011]'s placement (B.1): objects by ascending load (id on ties), processor k gets the
/// k-th block of `⌊N/P⌋` or `⌈N/P⌉` objects, the first `N mod P` blocks one larger. Returns
/// each object's processor.
///
/// ```
/// // B.11 test 6: loads 1 … 8 on 4 processors → blocks {1,2} {3,4} {5,6} {7,8}.
/// let home = plume::balance::hier::sorted_placement(&[3.0, 1.0, 2.0, 8.0, 7.0, 6.0, 5.0, 4.0], 4)
///     .unwrap();
/// assert_eq!(home, [1, 0, 0, 3, 3, 2, 2, 1]);
/// ```
///
/// # Errors
/// [`Error::Zero`] for no processor.
pub fn sorted_placement(loads: &[f64], nprocs: usize) -> Result<Vec<u32>> {
    if nprocs == 0 {
        return Err(Error::Zero { what: "processors" });
    }
    let mut order: Vec<usize> = (0..loads.len()).collect();
    order.sort_by(|&a, &b| loads[a].total_cmp(&loads[b]).then(a.cmp(&b)));
    let (base, extra) = (loads.len() / nprocs, loads.len() % nprocs);
    let mut home = vec![0u32; loads.len()];
    let mut next = order.into_iter();
    for p in 0..nprocs {
        for i in next.by_ref().take(base + usize::from(p < extra)) {
            home[i] = p as u32;
        }
    }
    Ok(home)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balance::hier::{bin_loads, greedy};
    use crate::metrics::Imbalance;

    #[test]
    fn test_6_placement_then_greedy() {
        let loads: Vec<f64> = (1..=8).map(f64::from).collect();
        let home = sorted_placement(&loads, 4).unwrap();
        assert_eq!(home, [0, 0, 1, 1, 2, 2, 3, 3]);
        let objs: Vec<ObjData> = (0..8)
            .map(|i| ObjData {
                id: i,
                home: home[i as usize],
                load: loads[i as usize],
            })
            .collect();
        let before = bin_loads(&objs, &home, 4);
        assert_eq!(before, [3.0, 7.0, 11.0, 15.0]);
        let sigma = Imbalance::from_f64(&before).load_imb - 1.0;
        assert_eq!((sigma * 1000.0).round(), 667.0);
        let after = greedy(&objs, &[1.0; 4], &[0.0; 4]);
        // 8 → p0, 7 → p1, 6 → p2, 5 → p3, 4 → p3, 3 → p2, 2 → p1, 1 → p0.
        assert_eq!(after, [0, 1, 2, 3, 3, 2, 1, 0]);
        assert_eq!(bin_loads(&objs, &after, 4), [9.0; 4]);
        let moved: Vec<u32> = (0..8)
            .filter(|&i| after[i] != home[i])
            .map(|i| i as u32 + 1)
            .collect();
        assert_eq!(moved, [2, 3, 4, 5, 7, 8], "1 and 6 stay");
    }

    #[test]
    fn blocks_of_uneven_size_and_ring_records() {
        let t = LbTest::new(10, 4);
        let (objs, records) = t.generate().unwrap();
        let mut count = [0; 4];
        for o in &objs {
            assert!((1e-3..=10e-3).contains(&o.load));
            count[o.home as usize] += 1;
        }
        assert_eq!(count, [3, 3, 2, 2]);
        assert_eq!(records.len(), 20);
        assert_eq!((records[0].from, records[0].to, records[1].to), (0, 1, 9));
        assert_eq!(records[0].bytes, 1024.0);
        // Same seed, same loads; heavier blocks on higher processors.
        assert_eq!(t.generate().unwrap().0, objs);
        let max_of = |p: u32| {
            objs.iter()
                .filter(|o| o.home == p)
                .map(|o| o.load)
                .fold(0.0, f64::max)
        };
        let min_of = |p: u32| {
            objs.iter()
                .filter(|o| o.home == p)
                .map(|o| o.load)
                .fold(1.0, f64::min)
        };
        assert!((0..3).all(|p| max_of(p) <= min_of(p + 1)));
        assert_eq!(LbTest::new(2, 1).generate().unwrap().1.len(), 2);
        assert_eq!(LbTest::new(1, 1).generate().unwrap().1.len(), 0);
        assert!(LbTest::new(4, 0).generate().is_err());
    }
}
