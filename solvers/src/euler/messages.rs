//! Numbers as the solver's errors and notes print them: short, whatever their size.

/// `x` in short form: four significant digits (whole numbers below 1e6 keep theirs), in
/// scientific notation outside `[1e-3, 1e6)` ("0.4", "1.5e-300", "-inf", "NaN"), never
/// hundreds of digits.
pub fn short(x: f64) -> String {
    let size = x.abs();
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    if (1e-3..1e6).contains(&size) {
        let text = format!("{:.*}", decimals(size), x);
        return trim_zeros(&text).to_string();
    }
    let text = format!("{x:.3e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa)),
        None => text,
    }
}

/// Decimals that leave four significant digits of a number of size in `[1e-3, 1e6)`.
fn decimals(size: f64) -> usize {
    (3 - size.log10().floor() as i32).clamp(0, 6) as usize
}

/// `text` without the trailing zeros of its fraction (and without a bare point).
fn trim_zeros(text: &str) -> &str {
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.'),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_whatever_their_size() {
        let cases = [
            (0.4, "0.4"),
            (1.0, "1"),
            (0.97819928619, "0.9782"),
            (-1234.5678, "-1235"),
            (123456.7, "123457"),
            (1e-300, "1e-300"),
            (f64::MAX, "1.798e308"),
            (-2.5e7, "-2.5e7"),
            (0.0, "0"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "NaN"),
        ];
        for (x, text) in cases {
            assert_eq!(short(x), text, "{x:e}");
        }
    }
}
