//! The check every gathered CPU account passes (`tests/dist_cpu.rs` for the library's steps,
//! `cases/tests/euler_cpu.rs` for the Euler flow): each phase's seconds finite and ≥ 0,
//! `max ≤ critical ≤ sum`, one number at P = 1, each rank's own seconds in its slot.

use plume::metrics::{CpuAccount, RankCpu};

/// Clock reads are nanoseconds; sums of f64 seconds may differ from their parts by rounding.
pub const TOLERANCE_S: f64 = 1e-9;

/// Checks one gathered account against this rank's segments: values, order of the ranks,
/// `max ≤ critical ≤ sum`.
pub fn check_account(account: &CpuAccount, mine: &RankCpu, rank: usize, nranks: usize) {
    assert_eq!(
        account.phases.keys().copied().collect::<Vec<_>>(),
        mine.by_phase().keys().copied().collect::<Vec<_>>()
    );
    for (phase, cpu) in &account.phases {
        assert_eq!(cpu.per_rank_s.len(), nranks, "{phase:?}");
        for s in cpu
            .per_rank_s
            .iter()
            .chain([&cpu.max_s, &cpu.sum_s, &cpu.critical_s])
        {
            assert!(s.is_finite() && *s >= 0.0, "{phase:?}: {s}");
        }
        assert_eq!(cpu.per_rank_s[rank], mine.seconds(*phase), "{phase:?}");
        let max = cpu.per_rank_s.iter().copied().fold(0.0, f64::max);
        assert_eq!(cpu.max_s, max, "{phase:?}");
        assert!(
            cpu.max_s <= cpu.critical_s + TOLERANCE_S && cpu.critical_s <= cpu.sum_s + TOLERANCE_S,
            "{phase:?}: max {} critical {} sum {}",
            cpu.max_s,
            cpu.critical_s,
            cpu.sum_s
        );
        if nranks == 1 {
            assert!(
                (cpu.critical_s - cpu.sum_s).abs() <= TOLERANCE_S,
                "{phase:?}"
            );
        }
    }
}
