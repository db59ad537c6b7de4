//! Time-based balance and efficiency from measured compute times (Huck & Labarta).

use crate::{Error, Result};

/// The load-balance decomposition of [Huck 2010] (eq. 1–6, after Casas et al.), from the compute
/// time `t[p][i]` of rank p in iteration i and the elapsed time `T` of the measured region:
///
/// - `T_p = Σ_i t[p][i]`, `T_ideal = Σ_i max_p t[p][i]` (the run with an instantaneous network);
/// - `LB = mean_p T_p / max_p T_p` (eq. 3: imbalance of the totals);
/// - `μLB = max_p T_p / T_ideal` (eq. 4: imbalance that moves between ranks from one
///   iteration to the next; 1 when the same rank is always the slowest);
/// - `Transfer = T_ideal / T` (eq. 5: time lost to communication itself);
/// - `η = LB · μLB · Transfer = mean_p T_p / T` (eq. 6: parallel efficiency).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TimeBalance {
    /// `mean_p T_p`.
    pub mean: f64,
    /// `max_p T_p`.
    pub max: f64,
    /// `T_ideal = Σ_i max_p t[p][i]`.
    pub t_ideal: f64,
    /// `T`, the measured elapsed time.
    pub elapsed: f64,
    /// `LB = mean / max`.
    pub lb: f64,
    /// `μLB = max / T_ideal`.
    pub mu_lb: f64,
    /// `Transfer = T_ideal / T`.
    pub transfer: f64,
    /// `η = LB · μLB · Transfer`.
    pub eta: f64,
}

impl TimeBalance {
    /// The decomposition from per-rank, per-iteration compute times (`times[p][i]`, every rank
    /// with the same number of iterations) and the elapsed time `T` of the region.
    ///
    /// ```
    /// use plume::metrics::TimeBalance;
    /// // Rank 0 is slow in iteration 0, rank 1 in iteration 1: balanced totals, but μLB < 1.
    /// let b = TimeBalance::new(&[vec![3.0, 1.0], vec![1.0, 3.0]], 8.0).unwrap();
    /// assert_eq!((b.lb, b.mu_lb, b.transfer), (1.0, 4.0 / 6.0, 6.0 / 8.0));
    /// assert!((b.eta - 0.5).abs() < 1e-12);
    /// ```
    ///
    /// # Errors
    /// [`Error::NotFinite`] naming the first time that is not finite; [`Error::Invalid`]
    /// when there is no rank or no iteration, the ranks have different numbers of iterations,
    /// a time is negative, or `T` is not positive.
    pub fn new<R: AsRef<[f64]>>(times: &[R], elapsed: f64) -> Result<TimeBalance> {
        let Some(first) = times.first() else {
            return Err(Error::Invalid("times: time balance of zero ranks".into()));
        };
        let niter = first.as_ref().len();
        if niter == 0 {
            return Err(Error::Invalid(
                "times: time balance of zero iterations".into(),
            ));
        }
        let mut totals = Vec::with_capacity(times.len());
        let mut iter_max = vec![0.0f64; niter];
        for (p, row) in times.iter().enumerate() {
            let row = row.as_ref();
            if row.len() != niter {
                return Err(Error::Invalid(format!(
                    "times: rank {p} has {} iteration times, rank 0 has {niter}",
                    row.len()
                )));
            }
            if let Some(i) = row.iter().position(|t| !t.is_finite() || *t < 0.0) {
                return Err(non_negative(
                    format!("times: time of rank {p} in iteration {i}"),
                    row[i],
                ));
            }
            for (m, &t) in iter_max.iter_mut().zip(row) {
                *m = m.max(t);
            }
            totals.push(row.iter().sum::<f64>());
        }
        Self::from_totals(&totals, iter_max.iter().sum(), elapsed)
    }

    /// The decomposition when only the per-rank totals `T_p` and `T_ideal` are known (as in
    /// published tables).
    ///
    /// # Errors
    /// [`Error::NotFinite`] naming the first value that is not finite; [`Error::Invalid`]
    /// when `totals` is empty, a value is negative, or `T_ideal` or `T` is not positive.
    pub fn from_totals(totals: &[f64], t_ideal: f64, elapsed: f64) -> Result<TimeBalance> {
        if totals.is_empty() {
            return Err(Error::Invalid("totals: time balance of zero ranks".into()));
        }
        if let Some(p) = totals.iter().position(|t| !t.is_finite() || *t < 0.0) {
            return Err(non_negative(
                format!("totals: total time of rank {p}"),
                totals[p],
            ));
        }
        for (name, x) in [("T_ideal", t_ideal), ("elapsed time T", elapsed)] {
            if !x.is_finite() {
                return Err(Error::NotFinite {
                    what: name.into(),
                    value: x,
                });
            }
            if x <= 0.0 {
                return Err(Error::Invalid(format!("{name} must be positive, got {x}")));
            }
        }
        let max = totals.iter().copied().fold(0.0, f64::max);
        let mean = totals.iter().sum::<f64>() / totals.len() as f64;
        let lb = if max > 0.0 { mean / max } else { 1.0 };
        let mu_lb = max / t_ideal;
        let transfer = t_ideal / elapsed;
        Ok(TimeBalance {
            mean,
            max,
            t_ideal,
            elapsed,
            lb,
            mu_lb,
            transfer,
            eta: lb * mu_lb * transfer,
        })
    }
}

/// The error for a time `what` that is not finite or is negative.
fn non_negative(what: String, value: f64) -> Error {
    if value.is_finite() {
        Error::Invalid(format!("{what} is {value}: it must not be negative"))
    } else {
        Error::NotFinite { what, value }
    }
}
