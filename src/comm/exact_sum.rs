//! Sums of floating-point numbers whose bits do not depend on the order of the additions, so a
//! sum over every rank's values is the same at any P without gathering the values themselves.
//!
//! An [`ExactSum`] holds its sum exactly, as a fixed-point number wide enough for every finite
//! `f64` (a "superaccumulator", after Kulisch, and Neal's *xsum*): each finite `f64` is an
//! integer mantissa times a power of two, added into 32-bit digits held in `i64`s (carries are
//! propagated every 2³⁰ additions and before reading). Two sums merge exactly, so the ranks
//! all-gather one accumulator each ([`all_exact_sums`]), O(P) bytes, and [`ExactSum::value`]
//! rounds the exact total once. Whatever the order and grouping of the additions (a rank's
//! leaves in any order, any number of ranks), the value is the same bits.

use super::{Comm, CommExt};
use crate::Result;

/// Bits of one digit.
const DIGIT_BITS: u32 = 32;
/// Digits: bit 0 of digit 0 is 2⁻¹⁰⁷⁴ (the least subnormal), and 67 digits hold the 2,098
/// bits of every finite `f64` with 46 bits of headroom for carries.
const DIGITS: usize = 67;
/// Additions after which the digits' carries are propagated (each adds less than 2³² to a
/// digit, so an `i64` digit holds 2³⁰ of them without overflow).
const CARRY_EVERY: u32 = 1 << 30;

/// An exact sum of `f64`s (see the module doc).
///
/// ```
/// use plume::comm::ExactSum;
/// let values = [1e16, 1.0, -1e16, 0.5];
/// let mut forward = ExactSum::default();
/// values.iter().for_each(|&x| forward.add(x));
/// let mut backward = ExactSum::default();
/// values.iter().rev().for_each(|&x| backward.add(x));
/// assert_eq!(forward.value(), 1.5); // a left-to-right f64 sum gives 0.5
/// assert_eq!(forward.value().to_bits(), backward.value().to_bits());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExactSum {
    /// The finite values' sum: Σ digits[k]·2^(32k − 1074).
    digits: Vec<i64>,
    /// Additions since the carries were last propagated.
    pending: u32,
    /// The sum of the non-finite values added (0 when none): infinities and NaN, whose sum
    /// does not depend on the order either.
    special: u64,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum {
            digits: vec![0; DIGITS],
            pending: 0,
            special: 0.0f64.to_bits(),
        }
    }
}

impl ExactSum {
    /// Adds `x`.
    pub fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.special = (f64::from_bits(self.special) + x).to_bits();
            return;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & ((1 << 52) - 1);
        // x = ±mantissa·2^(at − 1074).
        let (mantissa, at) = match exponent {
            0 => (fraction, 0),
            e => (fraction | 1 << 52, e - 1),
        };
        if mantissa == 0 {
            return;
        }
        let (digit, shift) = ((at / DIGIT_BITS) as usize, at % DIGIT_BITS);
        let wide = (mantissa as u128) << shift;
        let sign = if bits >> 63 == 1 { -1 } else { 1 };
        for k in 0..3 {
            let part = ((wide >> (DIGIT_BITS * k)) & 0xffff_ffff) as i64;
            self.digits[digit + k as usize] += sign * part;
        }
        self.pending += 1;
        if self.pending == CARRY_EVERY {
            self.carry();
        }
    }

    /// Adds the sum `other` (exactly).
    pub fn merge(&mut self, other: &ExactSum) {
        self.carry();
        let mut other = other.clone();
        other.carry();
        for (d, o) in self.digits.iter_mut().zip(&other.digits) {
            *d += o;
        }
        self.special = (f64::from_bits(self.special) + f64::from_bits(other.special)).to_bits();
        self.carry();
    }

    /// The sum rounded to the nearest `f64` (ties to even; a sum in the subnormal range may
    /// be rounded twice, the same way whatever the order): infinite or NaN when a non-finite
    /// value was added or the sum overflows, `+0.0` for a zero sum.
    pub fn value(&self) -> f64 {
        let special = f64::from_bits(self.special);
        if special != 0.0 {
            return special;
        }
        let mut digits = self.clone();
        digits.carry();
        let negative = digits.digits[DIGITS - 1] < 0;
        if negative {
            digits.digits.iter_mut().for_each(|d| *d = -*d);
            digits.carry();
        }
        let Some(top) = digits.digits.iter().rposition(|&d| d != 0) else {
            return 0.0;
        };
        // The top three digits (at least 65 significant bits), with a sticky bit for any
        // digit below them, round correctly to 53 bits.
        let low = top.saturating_sub(2);
        let mut wide = digits.digits[low..=top]
            .iter()
            .rev()
            .fold(0u128, |w, &d| w << DIGIT_BITS | d as u128);
        if digits.digits[..low].iter().any(|&d| d != 0) {
            wide |= 1;
        }
        let magnitude = scale_by_power_of_two(wide as f64, DIGIT_BITS as i32 * low as i32 - 1074);
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// Propagates the carries: every digit but the top one in `0..2³²`, the top one signed.
    fn carry(&mut self) {
        for k in 0..DIGITS - 1 {
            let carry = self.digits[k] >> DIGIT_BITS;
            self.digits[k] -= carry << DIGIT_BITS;
            self.digits[k + 1] += carry;
        }
        self.pending = 0;
    }
}

impl Extend<f64> for ExactSum {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, values: I) {
        values.into_iter().for_each(|x| self.add(x));
    }
}

impl FromIterator<f64> for ExactSum {
    fn from_iter<I: IntoIterator<Item = f64>>(values: I) -> Self {
        let mut sum = ExactSum::default();
        sum.extend(values);
        sum
    }
}

/// `x·2^e`, exact unless the result leaves the normal range (then rounded as one multiply
/// would), without forming a power of two out of range.
fn scale_by_power_of_two(mut x: f64, mut e: i32) -> f64 {
    const STEP: i32 = 960;
    while e > STEP {
        x *= 2f64.powi(STEP);
        e -= STEP;
    }
    while e < -STEP {
        x *= 2f64.powi(-STEP);
        e += STEP;
    }
    x * 2f64.powi(e)
}

/// Each of `sums` added over every rank and rounded (a collective; every rank passes as many
/// sums): the same bits at any P however the values are spread over the ranks. The ranks
/// all-gather their accumulators (about 540 bytes each), not their values.
///
/// # Errors
/// [`crate::Error::LengthMismatch`] (on every rank) when the ranks pass different numbers of
/// sums; transport errors.
pub fn all_exact_sums<C: Comm + ?Sized>(comm: &C, sums: &[ExactSum]) -> Result<Vec<f64>> {
    let all = comm.all_gather_serde(&sums.to_vec())?;
    let mut total = vec![ExactSum::default(); sums.len()];
    for rank in &all {
        crate::Error::check_len("exact sums", sums.len(), rank.len())?;
        for (t, s) in total.iter_mut().zip(rank) {
            t.merge(s);
        }
    }
    Ok(total.iter().map(ExactSum::value).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The exact sum of `values` (integers times 2⁻¹⁰⁷⁴ that fit an i128 once scaled) for
    /// small exponents: a reference computed in integers.
    fn reference(values: &[f64]) -> f64 {
        // Values are k·2^-20 with |k| < 2^40: the sum fits an i128 exactly.
        let total: i128 = values.iter().map(|&x| (x * 2f64.powi(20)) as i128).sum();
        total as f64 * 2f64.powi(-20)
    }

    #[test]
    fn cancellation_is_exact() {
        let sum: ExactSum = [1e300, 1.0, -1e300, 1e-300].into_iter().collect();
        assert_eq!(sum.value(), 1.0 + 1e-300);
        let tiny: ExactSum = [f64::MIN_POSITIVE / 4.0, f64::MIN_POSITIVE / 4.0]
            .into_iter()
            .collect();
        assert_eq!(tiny.value(), f64::MIN_POSITIVE / 2.0);
        let zero: ExactSum = [2.5, -2.5].into_iter().collect();
        assert_eq!(zero.value().to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn extremes_and_non_finite_values() {
        let max: ExactSum = [f64::MAX, -f64::MAX, f64::MAX].into_iter().collect();
        assert_eq!(max.value(), f64::MAX);
        let over: ExactSum = [f64::MAX, f64::MAX].into_iter().collect();
        assert_eq!(over.value(), f64::INFINITY);
        let inf: ExactSum = [1.0, f64::NEG_INFINITY].into_iter().collect();
        assert_eq!(inf.value(), f64::NEG_INFINITY);
        let nan: ExactSum = [f64::INFINITY, 1.0, f64::NEG_INFINITY]
            .into_iter()
            .collect();
        assert!(nan.value().is_nan());
        let negative: ExactSum = [-3.0, 1.0, -0.25].into_iter().collect();
        assert_eq!(negative.value(), -2.25);
    }

    #[test]
    fn rounds_to_nearest_even() {
        // 1 + 2^-53 is a tie: to even (1); a sticky bit far below breaks it upwards.
        let tie: ExactSum = [1.0, 2f64.powi(-53)].into_iter().collect();
        assert_eq!(tie.value(), 1.0);
        let above: ExactSum = [1.0, 2f64.powi(-53), 2f64.powi(-1000)]
            .into_iter()
            .collect();
        assert_eq!(above.value(), 1.0 + f64::EPSILON);
    }

    proptest! {
        #[test]
        fn equals_the_integer_sum_in_any_order_and_grouping(
            ks in proptest::collection::vec(-(1i64 << 40)..(1i64 << 40), 0..200),
            split in 0usize..200,
        ) {
            let values: Vec<f64> = ks.iter().map(|&k| k as f64 * 2f64.powi(-20)).collect();
            let whole: ExactSum = values.iter().copied().collect();
            prop_assert_eq!(whole.value().to_bits(), reference(&values).to_bits());
            let at = split.min(values.len());
            let mut first: ExactSum = values[at..].iter().rev().copied().collect();
            first.merge(&values[..at].iter().copied().collect());
            prop_assert_eq!(first.value().to_bits(), whole.value().to_bits());
        }

        #[test]
        fn any_order_gives_the_same_bits(
            values in proptest::collection::vec(proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL, 0..100),
        ) {
            let forward: ExactSum = values.iter().copied().collect();
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let backward: ExactSum = sorted.iter().rev().copied().collect();
            prop_assert_eq!(forward.value().to_bits(), backward.value().to_bits());
        }
    }

    #[test]
    fn ranks_agree_at_any_p() {
        let values: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1009) as f64 / 3.0 - 100.0)
            .collect();
        let serial: ExactSum = values.iter().copied().collect();
        for p in [1, 2, 3, 5] {
            let totals = crate::comm::launch_threads(p, |comm| {
                let mine: ExactSum = values
                    .iter()
                    .skip(comm.rank())
                    .step_by(p)
                    .copied()
                    .collect();
                all_exact_sums(comm, &[mine])
            })
            .unwrap();
            for t in totals {
                assert_eq!(t[0].to_bits(), serial.value().to_bits(), "P = {p}");
            }
        }
    }
}
