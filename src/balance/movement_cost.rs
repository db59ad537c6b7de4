//! [Pearce 2014]'s cost of moving data at a balance (Pearce, eq. 3.2–3.3): `C = α + β · E`, `E` the
//! elements the busiest process moves, with `α` (start-up) and `β` (per element) fitted by
//! least squares from the balances a run has measured, and `E` estimated before a balance from
//! the loads alone.

/// The fitted line `cost = α + β · elements` over the balances recorded so far (eq. 3.2, with
/// the element size folded into `β`). Before any balance the cost is `initial`; with one
/// balance, or several that moved the same number of elements, the line is flat at their mean
/// cost (no slope can be fitted).
///
/// ```
/// use plume::balance::MovementCost;
/// let mut m = MovementCost::new(0.5);
/// assert_eq!(m.estimate(1000.0), 0.5);
/// m.record(100.0, 0.3); // 0.1 s + 2 ms per 1000 elements
/// m.record(600.0, 1.3);
/// let (alpha, beta) = m.fit().unwrap();
/// assert!((alpha - 0.1).abs() < 1e-12 && (beta - 0.002).abs() < 1e-15);
/// assert!((m.estimate(1000.0) - 2.1).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MovementCost {
    /// Cost assumed before any balance was measured, in seconds.
    pub initial: f64,
    count: usize,
    sum_x: f64,
    sum_y: f64,
    sum_xx: f64,
    sum_xy: f64,
}

impl MovementCost {
    /// No balance seen yet; `initial` seconds assumed.
    pub fn new(initial: f64) -> Self {
        MovementCost {
            initial,
            count: 0,
            sum_x: 0.0,
            sum_y: 0.0,
            sum_xx: 0.0,
            sum_xy: 0.0,
        }
    }

    /// Records a balance that moved `elements` (from or to the busiest process) and cost
    /// `cost` seconds.
    pub fn record(&mut self, elements: f64, cost: f64) {
        self.count += 1;
        self.sum_x += elements;
        self.sum_y += cost;
        self.sum_xx += elements * elements;
        self.sum_xy += elements * cost;
    }

    /// Balances recorded.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The mean cost of the balances recorded, `initial` before the first.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            self.initial
        } else {
            self.sum_y / self.count as f64
        }
    }

    /// `(α, β)` minimizing `Σ (α + β·x_i − y_i)²` over the balances recorded, or `None` with
    /// fewer than two distinct element counts.
    pub fn fit(&self) -> Option<(f64, f64)> {
        let n = self.count as f64;
        // n·Σx² − (Σx)², relative to its terms: zero (up to rounding) when every x is equal.
        let spread = n * self.sum_xx - self.sum_x * self.sum_x;
        if self.count < 2 || spread <= 1e-12 * n * self.sum_xx {
            return None;
        }
        let beta = (n * self.sum_xy - self.sum_x * self.sum_y) / spread;
        let alpha = (self.sum_y - beta * self.sum_x) / n;
        Some((alpha, beta))
    }

    /// What the fit carries from balance to balance (not `initial`): the count and the
    /// sums, for a checkpoint.
    pub(crate) fn history(&self) -> (u64, [f64; 4]) {
        let sums = [self.sum_x, self.sum_y, self.sum_xx, self.sum_xy];
        (self.count as u64, sums)
    }

    /// Takes back a [`MovementCost::history`].
    pub(crate) fn restore(&mut self, (count, sums): (u64, [f64; 4])) {
        self.count = count as usize;
        [self.sum_x, self.sum_y, self.sum_xx, self.sum_xy] = sums;
    }

    /// The cost expected of a balance moving `elements`: `α + β · elements` once fitted (never
    /// below 0), the mean cost before.
    pub fn estimate(&self, elements: f64) -> f64 {
        match self.fit() {
            Some((alpha, beta)) => (alpha + beta * elements).max(0.0),
            None => self.mean(),
        }
    }
}

/// Eq. 3.3: the elements a global balance moves from the most loaded process,
/// `E_max · (L_max − L_ave) / L_max`, `E_max` the elements it holds: the share of its elements
/// above the mean, the load per element taken as constant. ([Pearce 2014] prints the ratio upside
/// down, `L_ave / (L_max − L_ave)`, which grows as the imbalance vanishes; its text says the
/// share moved is proportional to the imbalance.) Zero when `L_max` is not positive.
///
/// ```
/// use plume::balance::elements_to_move;
/// // The most loaded of loads 150, 50 holds 3000 elements: a third of them go.
/// assert_eq!(elements_to_move(3000.0, 150.0, 100.0), 1000.0);
/// ```
pub fn elements_to_move(elements_max: f64, load_max: f64, load_mean: f64) -> f64 {
    if load_max > 0.0 {
        elements_max * (load_max - load_mean).max(0.0) / load_max
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_of_three_points_by_hand() {
        // (0, 1), (1, 2), (2, 4): x̄ = 1, ȳ = 7/3, Σ(x−x̄)(y−ȳ) = 3, Σ(x−x̄)² = 2 → β = 1.5,
        // α = 7/3 − 1.5 = 5/6.
        let mut m = MovementCost::new(9.0);
        for (x, y) in [(0.0, 1.0), (1.0, 2.0), (2.0, 4.0)] {
            m.record(x, y);
        }
        let (alpha, beta) = m.fit().unwrap();
        assert!((alpha - 5.0 / 6.0).abs() < 1e-12, "{alpha}");
        assert!((beta - 1.5).abs() < 1e-12, "{beta}");
        assert!((m.estimate(4.0) - (5.0 / 6.0 + 6.0)).abs() < 1e-12);
    }

    #[test]
    fn no_slope_from_one_element_count() {
        let mut m = MovementCost::new(9.0);
        assert_eq!((m.fit(), m.estimate(10.0)), (None, 9.0));
        m.record(5.0, 1.0);
        m.record(5.0, 3.0);
        assert_eq!((m.fit(), m.estimate(100.0), m.count()), (None, 2.0, 2));
        // A falling line is never extrapolated below zero.
        m.record(10.0, 0.0);
        assert!(m.fit().unwrap().1 < 0.0);
        assert_eq!(m.estimate(1e6), 0.0);
    }

    #[test]
    fn balanced_loads_move_nothing() {
        assert_eq!(elements_to_move(500.0, 10.0, 10.0), 0.0);
        assert_eq!(elements_to_move(500.0, 0.0, 0.0), 0.0);
    }
}
