//! Load imbalance of per-rank loads, in the three conventions users know.

/// How unevenly work is spread over the ranks: one fact, three conventions
/// (`docs/fields.md`).
///
/// - `load_imb = max / mean` — PLUM's `LoadImb` [Harvey 2001, §5.3.1]; 1.0 is perfect.
/// - `lambda_pct = (max / mean − 1) · 100` — percent imbalance λ ([Pearce 2014], Charm++'s σ).
/// - `lb = mean / max` — Huck & Labarta's load balance [Huck 2010, eq. 3]; 1.0 is perfect.
///
/// Identities: `load_imb = 1 / lb = 1 + lambda_pct / 100`. Ranks without any load
/// (all loads zero) are perfectly balanced: `(1, 0, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Imbalance {
    /// `max / mean`.
    pub load_imb: f64,
    /// `(max / mean − 1) · 100`.
    pub lambda_pct: f64,
    /// `mean / max`.
    pub lb: f64,
}

impl Imbalance {
    /// The imbalance of per-rank loads (times, weights…), one entry per rank.
    ///
    /// # Panics
    /// If `loads` is empty or holds a negative or non-finite value (a caller's bug: loads are
    /// sums of weights or measured times).
    #[track_caller]
    pub fn from_f64(loads: &[f64]) -> Imbalance {
        assert!(!loads.is_empty(), "Imbalance of zero ranks");
        assert!(
            loads.iter().all(|x| x.is_finite() && *x >= 0.0),
            "loads must be finite and non-negative"
        );
        let max = loads.iter().copied().fold(0.0, f64::max);
        let sum: f64 = loads.iter().sum();
        Self::from_max_sum(max, sum, loads.len())
    }

    /// The imbalance of integer per-rank loads (`W_p = Σ PWgt`, `QWgt`…), one entry per rank.
    ///
    /// # Panics
    /// If `loads` is empty.
    #[track_caller]
    pub fn from_u64(loads: &[u64]) -> Imbalance {
        assert!(!loads.is_empty(), "Imbalance of zero ranks");
        let max = loads.iter().copied().max().unwrap_or(0);
        let sum: u128 = loads.iter().map(|&x| x as u128).sum();
        Self::from_max_sum(max as f64, sum as f64, loads.len())
    }

    fn from_max_sum(max: f64, sum: f64, n: usize) -> Imbalance {
        if max == 0.0 {
            return Imbalance {
                load_imb: 1.0,
                lambda_pct: 0.0,
                lb: 1.0,
            };
        }
        // max / mean = max · n / sum, computed so that integer loads give exact ratios
        // whenever max · n and sum are exact.
        let load_imb = max * n as f64 / sum;
        Imbalance {
            load_imb,
            lambda_pct: (load_imb - 1.0) * 100.0,
            lb: sum / (max * n as f64),
        }
    }
}

/// Per-rank loads `W_p = Σ_{assignment[v] = p} weight_v` [Harvey 2001, §5.3.1], for `nranks` ranks.
///
/// # Panics
/// If the slices differ in length or an assignment is `≥ nranks`.
#[track_caller]
pub fn rank_loads(weight: &[u64], assignment: &[u32], nranks: usize) -> Vec<u64> {
    assert_eq!(weight.len(), assignment.len(), "one rank per root");
    let mut loads = vec![0u64; nranks];
    for (&w, &p) in weight.iter().zip(assignment) {
        loads[p as usize] += w;
    }
    loads
}
