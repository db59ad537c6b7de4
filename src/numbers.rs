//! Numbers a user gave, as messages and file names echo them: short and bounded, never the
//! hundreds of digits `{}` writes for `1e308`.

/// `x` in at most 6 significant digits and about a dozen characters: plainly from `1e-4` to
/// below `1e6` (`0.1`, `2.5`, `1000`), in scientific notation beyond (`1e308`, `2.5e-7`),
/// `inf`, `-inf` or `NaN` when not finite. Rounding to 6 digits also hides the binary noise of
/// arithmetic (`0.1 + 0.2` reads `0.3`).
///
/// ```
/// use plume::numbers::short;
/// assert_eq!(short(1e308), "1e308");
/// assert_eq!(short(0.1 + 0.2), "0.3");
/// assert_eq!(short(1234.5), "1234.5");
/// assert_eq!(short(-2.5e-7), "-2.5e-7");
/// assert_eq!(short(f64::INFINITY), "inf");
/// ```
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let rounded: f64 = format!("{x:.5e}")
        .parse()
        .expect("Rust parses its own scientific notation");
    let size = rounded.abs();
    if size == 0.0 || (1e-4..1e6).contains(&size) {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn every_number_is_short_and_reads_back_within_six_digits() {
        for x in [
            0.0,
            -0.0,
            1e-300,
            3e-5,
            1e-4,
            0.123456789,
            1.0,
            999_999.4,
            999_999.6,
            1e6,
            1e308,
            -1.7976931348623157e308,
            5e-324,
        ] {
            let s = short(x);
            assert!(s.len() <= 13, "{x}: {s}");
            let back: f64 = s.parse().unwrap();
            assert!((back - x).abs() <= 1e-5 * x.abs(), "{x}: {s}");
        }
        assert_eq!(short(f64::NAN), "NaN");
        assert_eq!(short(f64::NEG_INFINITY), "-inf");
        assert_eq!(short(999_999.6), "1e6");
    }
}
