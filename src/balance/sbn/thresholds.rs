//! The SBN system level and thresholds ([Harvey 2001, §3.2.3 and fig. 4] `UpdateLoad`, §3.3.3 and
//! fig. 8 the Heuristic variant's estimates, §3.3.4 why `MaxTh` grows exponentially, §4.2 weighted
//! loads, §5.7 the `MinTh` bound; `docs/design/sbn.md`).
//!
//! A processor whose queue is below `MinTh` starts a balance; one above `MaxTh` distributes its
//! excess. Fig. 4 lost a superscript in the text extraction: `MaxTh = SysLL + 2^⌊SysLL/ConstParam⌋`
//! (the worked examples SysLL 8 → MaxTh 24, 6 → 14, 7 → 15 with `ConstParam = 2` confirm it).
//! Everything here is pure arithmetic in job counts or weights ([`WeightThresholds`]); the
//! balancer decides when to call it.

use super::network::Network;

/// Fig. 4's system level and thresholds, in jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Thresholds {
    /// `SysLL`: the (estimated) average number of jobs queued per processor.
    pub(crate) sys_ll: u64,
    /// `MinTh`: a processor with fewer jobs queued starts a balance.
    pub(crate) min_th: u64,
    /// `MaxTh`: a processor with more jobs queued distributes the excess.
    pub(crate) max_th: u64,
}

impl Thresholds {
    /// `UpdateLoad`'s thresholds once `SysLL` is known, e.g. estimated by the Heuristic variant
    /// (fig. 8 computes `TotalJQ = P × estimate`, so `UpdateLoad` sets `SysLL` to the estimate):
    /// `MaxTh = SysLL + 2^⌊SysLL/ConstParam⌋`, saturating at `u64::MAX` instead of overflowing;
    /// `MinTh = SysLL − 1` (0 for an empty system), or `ConstParam` once `SysLL > ConstParam`.
    ///
    /// # Panics
    /// If `const_param` is 0.
    pub(crate) fn from_level(sys_ll: u64, const_param: u64) -> Self {
        let exponent = u32::try_from(sys_ll / const_param).unwrap_or(u32::MAX);
        let max_th = sys_ll.saturating_add(1u64.checked_shl(exponent).unwrap_or(u64::MAX));
        let min_th = if sys_ll > const_param {
            const_param
        } else {
            sys_ll.saturating_sub(1)
        };
        Self {
            sys_ll,
            min_th,
            max_th,
        }
    }
}

/// §5.7's lower bound on `MinTh`, `⌈6 log2 P · J_avg / f⌉`, so that a balance completes (through
/// `3 log P` stages, each answered after `2/f` on average) before the processor runs dry.
/// `jobs_per_check` is `J_avg / f`, the jobs processed between two checks for balancing activity;
/// `log2 P` is the network dimension `⌈log2 P⌉` (0 for one processor). Example: P = 32,
/// `J_avg = 1000` jobs/s, f = 60 checks/s → 500. A non-positive `jobs_per_check` gives 0.
///
/// # Panics
/// If `procs` is 0.
pub(crate) fn min_th_bound(procs: usize, jobs_per_check: f64) -> u64 {
    let log_p = Network::new(procs).dim();
    ceil_to_count(6.0 * f64::from(log_p) * jobs_per_check)
}

/// The Heuristic variant's job distribution from an overloaded processor (the text after fig. 8,
/// and its `Distribute`): returns the new `SysLL = SysLL + ⌈(QLen − SysLL) / P⌉` and the
/// `ExLoad = QLen − SysLL'` jobs sent to the next stage (0 if `QLen ≤ SysLL'`). Example:
/// SysLL 7, QLen 24, P = 8 → (10, 14).
///
/// # Panics
/// If `procs` is 0.
pub(crate) fn heuristic_source_distribution(sys_ll: u64, qlen: u64, procs: usize) -> (u64, u64) {
    let new_sys_ll = sys_ll.saturating_add(qlen.saturating_sub(sys_ll).div_ceil(procs as u64));
    (new_sys_ll, qlen.saturating_sub(new_sys_ll))
}

/// The Heuristic variant's `GetDistribute` for a distribution going away from the source: a
/// processor at `stage` with `qlen` jobs queued receives `jobs_recv` jobs and shares them with the
/// `2^(stage+1) − 1` processors of its subtree in the full SBN (itself included). Returns the new
/// `SysLL = QLen + ⌈JobsRecv / (2^(stage+1) − 1)⌉` and the `QLen + JobsRecv − SysLL'` jobs passed
/// on to the next stage (0 at stage 0). Example: QLen 6, 14 received at stage 2 → (8, 12).
pub(crate) fn heuristic_receive_distribution(qlen: u64, jobs_recv: u64, stage: u32) -> (u64, u64) {
    let subtree = 1u64
        .checked_shl(stage.saturating_add(1))
        .unwrap_or(u64::MAX)
        - 1;
    let new_sys_ll = qlen.saturating_add(jobs_recv.div_ceil(subtree));
    (
        new_sys_ll,
        qlen.saturating_add(jobs_recv).saturating_sub(new_sys_ll),
    )
}

/// The Heuristic variant's `SysLL` estimate at a processor receiving a balancing message: the
/// queue averaged over the `procs_passed` processors the message has passed through (itself
/// included), `path_qlen_sum` being their summed queue lengths, rounded up.
///
/// Fig. 8 writes it `TotalJQ = ⌈P·(QLen(p) + QLen(predecessors)) / (d − Stage(p) + 1)⌉` followed by
/// `UpdateLoad`, whose `⌈TotalJQ / P⌉` gives back this average: `d − Stage(p) + 1` counts the
/// processors from the source down to `p` in SBN(d). With absent processors (see
/// [`super::network`]) the path may be shorter than that, hence the explicit count. Feed the
/// result to [`Thresholds::from_level`].
///
/// # Panics
/// If `procs_passed` is 0.
pub(crate) fn heuristic_balance_estimate(path_qlen_sum: u64, procs_passed: usize) -> u64 {
    path_qlen_sum.div_ceil(procs_passed as u64)
}

/// Fig. 4's thresholds on weighted loads (§4.2: the thresholds "reflect the time passed when all
/// locally-queued jobs are processed"), in the unit of `QWgt(p)` and `WSysLL`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightThresholds {
    /// The system level in weight: `SysLL` in jobs, rounded up, times the mean job weight.
    pub sys_ll: f64,
    /// Below this queued weight a processor starts a balance.
    pub min_th: f64,
    /// Above this queued weight a processor distributes the excess; `f64::INFINITY` when the
    /// job-count `MaxTh` saturates (`2^⌊SysLL/ConstParam⌋` beyond `u64`): never distribute.
    pub max_th: f64,
}

impl WeightThresholds {
    /// The thresholds for the weighted level `wsys_ll` when a job weighs `job_weight > 0` on
    /// average: the level converted to jobs (`SysLL = ⌈wsys_ll / job_weight⌉`), fig. 4's
    /// thresholds in jobs (`MaxTh = SysLL + 2^⌊SysLL/ConstParam⌋`, saturating; `MinTh = SysLL − 1`,
    /// or `ConstParam` once `SysLL > ConstParam`) with `MinTh` raised to §5.7's bound
    /// `⌈6 ⌈log2 P⌉ · jobs_per_check⌉` (`P = procs`), converted back to weight. With a large bound `MinTh` may exceed `SysLL`
    /// and even `MaxTh`: §5.7 then asks for a check frequency high enough to lower the bound.
    ///
    /// # Panics
    /// If `procs` or `const_param` is 0.
    pub fn new(
        wsys_ll: f64,
        job_weight: f64,
        procs: usize,
        const_param: u64,
        jobs_per_check: f64,
    ) -> Self {
        let jobs = Thresholds::from_level(ceil_to_count(wsys_ll / job_weight), const_param);
        let min_th = jobs.min_th.max(min_th_bound(procs, jobs_per_check));
        let to_weight = |count: u64| match count {
            u64::MAX => f64::INFINITY,
            _ => count as f64 * job_weight,
        };
        Self {
            sys_ll: to_weight(jobs.sys_ll),
            min_th: to_weight(min_th),
            max_th: to_weight(jobs.max_th),
        }
    }
}

/// `⌈x⌉` as a count, ignoring floating-point noise: within 8 ulps of an integer counts as that
/// integer (`1000.0 / 60.0 * 30.0` is 500, not 501). Non-positive and NaN give 0; values beyond
/// `u64` saturate.
fn ceil_to_count(x: f64) -> u64 {
    let nearest = x.round();
    let rounded = if (x - nearest).abs() <= 8.0 * f64::EPSILON * nearest.abs() {
        nearest
    } else {
        x.ceil()
    };
    rounded as u64
}

#[cfg(test)]
mod tests;
