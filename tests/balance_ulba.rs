//! ULBA against the standard method through the public API [Boulmier 2019, §III-C]: with α = 0, or
//! when half of the ranks or more overload, it decides and shares exactly as the standard
//! method; with one clear outlier it underloads that rank only.

use plume::balance::{BalancePolicy, Degradation, Observation, Ulba};

/// Loads of `ranks` ranks at `step`: the first `fast` ranks grow by 10 per step, the others by
/// 1 (plus a small rank-dependent wobble so that the rates are not all equal).
fn loads(ranks: usize, fast: usize, step: usize) -> Vec<f64> {
    (0..ranks)
        .map(|p| {
            let rate = if p < fast {
                10.0
            } else {
                1.0 + 0.01 * p as f64
            };
            1000.0 + rate * step as f64
        })
        .collect()
}

/// Runs a policy over 60 steps, balancing (back to equal loads) whenever it says so; returns
/// the steps it balanced at and the shares it asked for.
fn drive(
    policy: &mut dyn BalancePolicy,
    ranks: usize,
    fast: usize,
) -> Vec<(usize, Option<Vec<f64>>)> {
    let mut out = Vec::new();
    let mut since = 0;
    for step in 0..60 {
        let l = loads(ranks, fast, since);
        let obs = Observation {
            loads: &l,
            time_per_load: 1e-3,
            iterations: 1,
        };
        since += 1;
        if policy.should_balance(&obs) {
            out.push((step, policy.target_shares(ranks)));
            policy.balanced(0.05);
            since = 0;
        }
    }
    out
}

#[test]
fn half_the_ranks_overloading_falls_back_to_the_standard_method() {
    // 16 ranks, 8 of them fast: the z-scores cannot single anyone out, and even a low
    // threshold that flags all 8 falls back.
    for z in [3.0, 0.5] {
        let ulba = drive(&mut Ulba::new(0.4, z, 0.05), 16, 8);
        let standard = drive(&mut Degradation::new(0.05), 16, 8);
        assert_eq!(ulba, standard, "z = {z}");
        assert!(ulba.iter().all(|(_, shares)| shares.is_none()));
        assert!(!ulba.is_empty());
    }
}

#[test]
fn one_fast_rank_among_sixteen_is_underloaded_and_alpha_zero_is_standard() {
    let ulba = drive(&mut Ulba::new(0.4, 3.0, 0.05), 16, 1);
    let shares = ulba
        .iter()
        .find_map(|(_, s)| s.clone())
        .expect("the fast rank is detected");
    assert!((shares[0] - 0.6 / 16.0).abs() < 1e-12);
    assert!(shares[1..].iter().all(|&s| s > 1.0 / 16.0));
    assert_eq!(
        drive(&mut Ulba::new(0.0, 3.0, 0.05), 16, 1),
        drive(&mut Degradation::new(0.05), 16, 1)
    );
}
