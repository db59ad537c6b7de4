//! SBN thresholds ([Harvey 2001, fig. 4] `UpdateLoad`, fig. 8 and §3.3.3's Heuristic example,
//! §5.7's `MinTh` bound, §4.2 weighted loads): the worked examples, saturation, and the weighted
//! thresholds agreeing with the job-count ones.

use super::*;
use proptest::prelude::*;

/// Fig. 4's `UpdateLoad(TotalJQ)` on `procs` processors: `SysLL = ⌈TotalJQ / P⌉`, then
/// [`Thresholds::from_level`] (the balancer gets `SysLL` from its estimates instead; the
/// examples of [Harvey 2001] are given in `TotalJQ`).
fn update_load(total_jq: u64, procs: usize, const_param: u64) -> Thresholds {
    Thresholds::from_level(total_jq.div_ceil(procs as u64), const_param)
}

fn th(sys_ll: u64, min_th: u64, max_th: u64) -> Thresholds {
    Thresholds {
        sys_ll,
        min_th,
        max_th,
    }
}

/// A job count as a weight of unit jobs, a saturated count being unbounded.
fn unit_weight(count: u64) -> f64 {
    if count == u64::MAX {
        f64::INFINITY
    } else {
        count as f64
    }
}

#[test]
fn update_load_worked_examples() {
    // Fig. 6 (SBN(3)): SysLL L = 8 → m = 2, M = 24; §3.3.3: SysLL 7 → MaxTh 15.
    assert_eq!(update_load(64, 8, 2), th(8, 2, 24));
    assert_eq!(update_load(57, 8, 2), th(8, 2, 24));
    assert_eq!(update_load(48, 8, 2), th(6, 2, 14));
    assert_eq!(update_load(56, 8, 2), th(7, 2, 15));
}

#[test]
fn min_th_is_sys_ll_minus_one_up_to_const_param() {
    assert_eq!(Thresholds::from_level(0, 2), th(0, 0, 1));
    assert_eq!(Thresholds::from_level(1, 2), th(1, 0, 2));
    assert_eq!(Thresholds::from_level(2, 2), th(2, 1, 4));
    assert_eq!(Thresholds::from_level(3, 2), th(3, 2, 5));
    assert_eq!(Thresholds::from_level(5, 3), th(5, 3, 7));
}

#[test]
fn huge_levels_saturate_max_th() {
    assert_eq!(Thresholds::from_level(126, 2).max_th, 126 + (1 << 63));
    assert_eq!(Thresholds::from_level(128, 2).max_th, u64::MAX);
    assert_eq!(update_load(u64::MAX, 1, 2), th(u64::MAX, 2, u64::MAX));
    assert_eq!(update_load(u64::MAX, 3, 1).max_th, u64::MAX);
}

#[test]
fn min_th_bound_of_section_5_7() {
    // P = 32, J_avg = 1000 jobs/s, f = 60 checks/s → MinTh ≥ 500.
    assert_eq!(min_th_bound(32, 1000.0 / 60.0), 500);
    assert_eq!(min_th_bound(1, 5.0), 0);
    assert_eq!(min_th_bound(5, 1.0), 18);
    assert_eq!(min_th_bound(8, 0.51), 10);
    assert_eq!(min_th_bound(8, 0.0), 0);
    assert_eq!(min_th_bound(8, -1.0), 0);
}

#[test]
fn heuristic_distribution_worked_example() {
    // SBN(3): p with SysLL 7, MaxTh 15 and QLen 24 → SysLL 10, 14 jobs to its successor r,
    // which has QLen 6 at stage 2 → SysLL 8, 12 jobs to the next stage.
    assert_eq!(update_load(56, 8, 2).max_th, 15);
    assert_eq!(heuristic_source_distribution(7, 24, 8), (10, 14));
    assert_eq!(heuristic_receive_distribution(6, 14, 2), (8, 12));
}

#[test]
fn heuristic_distribution_edges() {
    assert_eq!(heuristic_source_distribution(10, 5, 8), (10, 0));
    assert_eq!(heuristic_source_distribution(0, 9, 1), (9, 0));
    assert_eq!(heuristic_receive_distribution(3, 5, 0), (8, 0));
    assert_eq!(
        heuristic_receive_distribution(u64::MAX, 5, 70),
        (u64::MAX, 0)
    );
}

#[test]
fn heuristic_balance_estimate_averages_the_path() {
    // SBN(3), p at stage 1 after the source (QLen 1) and a stage-2 processor (QLen 3), QLen(p) 4:
    // fig. 8 takes TotalJQ = ⌈8·8/3⌉ = 22, so UpdateLoad gives SysLL 3.
    assert_eq!(heuristic_balance_estimate(8, 3), 3);
    assert_eq!(update_load(22, 8, 2).sys_ll, 3);
    assert_eq!(heuristic_balance_estimate(0, 1), 0);
}

#[test]
fn weighted_thresholds_of_fractional_weights() {
    // Three jobs of weight 0.1: the sum 0.1 + 0.1 + 0.1 is three jobs, not four.
    let w = WeightThresholds::new(0.1 + 0.1 + 0.1, 0.1, 8, 2, 0.0);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(
        close(w.sys_ll, 0.3) && close(w.min_th, 0.2) && close(w.max_th, 0.5),
        "{w:?}"
    );
    // 2.5 jobs of weight 2 round up to 3 jobs.
    let w = WeightThresholds::new(5.0, 2.0, 8, 2, 0.0);
    assert_eq!((w.sys_ll, w.min_th, w.max_th), (6.0, 4.0, 10.0));
    // §5.7's bound raises MinTh; a huge level never distributes.
    assert_eq!(
        WeightThresholds::new(8.0, 1.0, 32, 2, 1000.0 / 60.0).min_th,
        500.0
    );
    assert_eq!(
        WeightThresholds::new(1e6, 1.0, 8, 2, 0.0).max_th,
        f64::INFINITY
    );
}

proptest! {
    #[test]
    fn unit_job_weights_give_update_load_with_the_bound(
        total in 0u64..1 << 32,
        procs in 1usize..1024,
        const_param in 1u64..8,
        jobs_per_check in 0.0f64..100.0,
    ) {
        let jobs = update_load(total, procs, const_param);
        let w = WeightThresholds::new(total as f64 / procs as f64, 1.0, procs, const_param, jobs_per_check);
        let min_th = jobs.min_th.max(min_th_bound(procs, jobs_per_check));
        prop_assert_eq!(w.sys_ll, unit_weight(jobs.sys_ll));
        prop_assert_eq!(w.min_th, unit_weight(min_th));
        prop_assert_eq!(w.max_th, unit_weight(jobs.max_th));
    }

    #[test]
    fn balance_estimate_is_fig_8_total_through_update_load(
        path in prop::collection::vec(0u64..1000, 1..7),
        const_param in 1u64..8,
    ) {
        // SBN(6), the message has passed through `path.len()` processors.
        let procs = 64u64;
        let sum: u64 = path.iter().sum();
        let total_jq = (procs * sum).div_ceil(path.len() as u64);
        let estimate = heuristic_balance_estimate(sum, path.len());
        prop_assert_eq!(update_load(total_jq, 64, const_param), Thresholds::from_level(estimate, const_param));
    }
}
