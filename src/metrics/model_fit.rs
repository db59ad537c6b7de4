//! How well a load model predicts measured times ([Pearce 2014, §3.2, §3.4.1];
//! `docs/design/diffusive.md`): "If the model is accurate, the two are linearly related." Per
//! decision point, the model's value `M_p` and the measured time `T_p` of each rank are compared by
//! the rank correlation of eq. 3.8, the least-squares line `T = a M + b` with its R², and the RMSE
//! of that line.

/// The agreement of a model's per-rank values with the measured times.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ModelFit {
    /// Eq. 3.8: Pearson's correlation of the ranks' rank numbers by model and by measurement
    /// (tied values get their average rank); 0 when either side is constant.
    pub rank_correlation: f64,
    /// The slope `a` of the least-squares line `T = a M + b` (0 for a constant model).
    pub slope: f64,
    /// The intercept `b`.
    pub intercept: f64,
    /// The share of the times' variance the line explains (1 when the times are constant and
    /// the line meets them).
    pub r_squared: f64,
    /// The root mean square of the times' distances to the line, in the times' unit.
    pub rmse: f64,
}

impl ModelFit {
    /// The fit of `model` (one value per rank) to `measured` (the same ranks' times); `None`
    /// for no rank or slices of different lengths.
    ///
    /// ```
    /// use plume::metrics::ModelFit;
    /// // A model off by a factor 2 and an offset 1 fits perfectly.
    /// let fit = ModelFit::new(&[1.0, 2.0, 3.0], &[3.0, 5.0, 7.0]).unwrap();
    /// assert_eq!((fit.slope, fit.intercept, fit.rmse), (2.0, 1.0, 0.0));
    /// assert_eq!((fit.rank_correlation, fit.r_squared), (1.0, 1.0));
    /// ```
    pub fn new(model: &[f64], measured: &[f64]) -> Option<ModelFit> {
        if model.is_empty() || model.len() != measured.len() {
            return None;
        }
        let rank_correlation = pearson(&rank_numbers(model), &rank_numbers(measured));
        let (mm, tm) = (mean(model), mean(measured));
        let sxx: f64 = model.iter().map(|m| (m - mm).powi(2)).sum();
        let sxy: f64 = model
            .iter()
            .zip(measured)
            .map(|(m, t)| (m - mm) * (t - tm))
            .sum();
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let intercept = tm - slope * mm;
        let residual: f64 = model
            .iter()
            .zip(measured)
            .map(|(m, t)| (t - (slope * m + intercept)).powi(2))
            .sum();
        let syy: f64 = measured.iter().map(|t| (t - tm).powi(2)).sum();
        let r_squared = if syy > 0.0 {
            1.0 - residual / syy
        } else {
            f64::from(u8::from(residual == 0.0))
        };
        Some(ModelFit {
            rank_correlation,
            slope,
            intercept,
            r_squared,
            rmse: (residual / model.len() as f64).sqrt(),
        })
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Each value's rank number from 1 (smallest) up, tied values sharing their average rank.
pub(crate) fn rank_numbers(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let tied = order[start..]
            .iter()
            .take_while(|&&i| values[i] == values[order[start]])
            .count();
        // Ranks start + 1 … start + tied, averaged.
        let average = start as f64 + (tied as f64 + 1.0) / 2.0;
        order[start..start + tied]
            .iter()
            .for_each(|&i| ranks[i] = average);
        start += tied;
    }
    ranks
}

/// Pearson's correlation of `x` and `y` (eq. 3.8); 0 when either is constant.
fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    match sxx > 0.0 && syy > 0.0 {
        true => sxy / (sxx * syy).sqrt(),
        false => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rank correlation worked by hand on four values.
    #[test]
    fn rank_correlation_c7_test4() {
        let fit = ModelFit::new(&[1.0, 2.0, 3.0, 4.0], &[10.0, 30.0, 20.0, 40.0]).unwrap();
        assert_eq!(
            rank_numbers(&[10.0, 30.0, 20.0, 40.0]),
            [1.0, 3.0, 2.0, 4.0]
        );
        assert!((fit.rank_correlation - 0.8).abs() < 1e-15);
        assert_eq!(rank_numbers(&[1.0, 1.0, 2.0, 3.0]), [1.5, 1.5, 3.0, 4.0]);
    }

    /// Ties anywhere share the average of the ranks they span.
    #[test]
    fn ties_share_their_average_rank() {
        assert_eq!(
            rank_numbers(&[5.0, 2.0, 5.0, 5.0, 1.0]),
            [4.0, 2.0, 4.0, 4.0, 1.0]
        );
        assert_eq!(rank_numbers(&[]), Vec::<f64>::new());
    }

    /// Worked by hand: model 0, 1, 2 against times 1, 1, 4: the line through means (1, 2)
    /// with slope Σ(m − 1)(t − 2) / Σ(m − 1)² = (1 + 0 + 2) / 2 = 1.5, intercept 0.5;
    /// residuals 0.5, −1, 0.5 (sum of squares 1.5, of the times' deviations 6).
    #[test]
    fn the_least_squares_line_by_hand() {
        let fit = ModelFit::new(&[0.0, 1.0, 2.0], &[1.0, 1.0, 4.0]).unwrap();
        assert_eq!((fit.slope, fit.intercept), (1.5, 0.5));
        assert!((fit.r_squared - 0.75).abs() < 1e-15);
        assert!((fit.rmse - 0.5f64.sqrt()).abs() < 1e-15);
        // Ranks 1, 2, 3 against 1.5, 1.5, 3: r = 1.5 / √(2 · 1.5).
        assert!((fit.rank_correlation - 1.5 / 3f64.sqrt()).abs() < 1e-15);
    }

    /// A constant model explains nothing; mismatched or empty input gives no fit.
    #[test]
    fn degenerate_inputs() {
        let flat = ModelFit::new(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            (flat.slope, flat.rank_correlation, flat.r_squared),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(flat.intercept, 2.0);
        assert_eq!(ModelFit::new(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(ModelFit::new(&[], &[]), None);
    }
}
