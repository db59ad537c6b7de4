//! The shape of the load distribution: [Pearce 2014]'s three moments.

/// Standard deviation, skewness and kurtosis of per-rank loads [Pearce 2014, eq. 2.6–2.8], with
/// `n` ranks of loads `L_i` and mean `L̄`, `m_k = (1/n) Σ (L_i − L̄)^k`:
///
/// - `σ = √m₂` (eq. 2.6);
/// - `g₁ = m₃ / m₂^{3/2}` (eq. 2.7): positive when a few ranks carry much more than the mean;
/// - `g₂ = m₄ / m₂² − 3` (eq. 2.8, excess kurtosis): high when the spread comes from a few
///   extreme ranks.
///
/// Skewness and kurtosis of loads that are all equal (`σ = 0`) are 0.
///
/// ```
/// use plume::metrics::Moments;
/// // Loads 1, 1, 1, 5: mean 2, deviations −1, −1, −1, 3.
/// let m = Moments::new(&[1.0, 1.0, 1.0, 5.0]);
/// assert_eq!(m.sigma, 3f64.sqrt()); // m₂ = 12/4
/// assert!((m.skewness - 2.0 / 3f64.sqrt()).abs() < 1e-12); // m₃ = 24/4 = 6, 6 / 3^{3/2}
/// assert!((m.kurtosis - (21.0 / 9.0 - 3.0)).abs() < 1e-12); // m₄ = 84/4 = 21
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Moments {
    /// `σ`, in the loads' unit.
    pub sigma: f64,
    /// `g₁`, no unit.
    pub skewness: f64,
    /// `g₂` (excess kurtosis: 0 for a normal distribution), no unit.
    pub kurtosis: f64,
}

impl Moments {
    /// The moments of `loads`, one per rank (all zero for no rank).
    pub fn new(loads: &[f64]) -> Moments {
        if loads.is_empty() {
            return Moments::default();
        }
        let n = loads.len() as f64;
        let mean = loads.iter().sum::<f64>() / n;
        let central = |k: i32| loads.iter().map(|l| (l - mean).powi(k)).sum::<f64>() / n;
        let m2 = central(2);
        // Equal loads, up to the rounding of the mean.
        if m2 <= f64::EPSILON * mean * mean {
            return Moments::default();
        }
        Moments {
            sigma: m2.sqrt(),
            skewness: central(3) / m2.powf(1.5),
            kurtosis: central(4) / (m2 * m2) - 3.0,
        }
    }

    /// The moments of integer loads (`W_p = Σ PWgt`).
    pub fn from_u64(loads: &[u64]) -> Moments {
        Moments::new(&loads.iter().map(|&l| l as f64).collect::<Vec<_>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_point_distribution_by_hand() {
        // Loads 0, 0, 0, 4, 4, 4, 4, 4 (mean 2.5): m₂ = 3·6.25/8 + 5·2.25/8 = 3.75 → σ = √3.75;
        // m₃ = (3·(−15.625) + 5·3.375)/8 = −3.75; m₄ = (3·39.0625 + 5·5.0625)/8 = 17.8125.
        let m = Moments::from_u64(&[0, 0, 0, 4, 4, 4, 4, 4]);
        assert!((m.sigma - 3.75f64.sqrt()).abs() < 1e-12);
        assert!((m.skewness + 3.75 / 3.75f64.powf(1.5)).abs() < 1e-12);
        assert!((m.kurtosis - (17.8125 / 14.0625 - 3.0)).abs() < 1e-12);
    }

    #[test]
    fn equal_loads_have_no_shape() {
        assert_eq!(Moments::new(&[7.0; 5]), Moments::default());
        assert_eq!(Moments::new(&[]), Moments::default());
        // Symmetric loads have no skew.
        assert!(Moments::new(&[1.0, 2.0, 3.0]).skewness.abs() < 1e-15);
    }
}
