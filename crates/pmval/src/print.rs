//! pmval's number formats.

use archive_format::types::sem;

/// Right-aligns `s` in `width` columns (never truncates).
pub fn pad_left(s: &str, width: usize) -> String {
    format!("{s:>width$}")
}

/// C's `%.{prec}f` (`inf`, `nan` with their sign for non-finite values).
pub fn c_fixed(v: f64, prec: usize) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    format!("{v:.prec$}")
}

/// C's `%.{prec}E`: mantissa, `E`, sign and at least two exponent digits.
pub fn c_exp(v: f64, prec: usize) -> String {
    if !v.is_finite() {
        return c_fixed(v, prec).to_uppercase();
    }
    let s = format!("{v:.prec$E}");
    match s.split_once('E') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}E{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// pmval's `printreal`: a real value in a column of `width`, with a layout that keeps
/// decimal points roughly aligned; `!` for a negative counter rate; `-f N` fixes the
/// number of decimals.
// The explicit comparisons are deliberate: NaN must fail all of them, as in C.
#[allow(clippy::manual_range_contains)]
pub fn printreal(v: f64, semantics: i32, width: usize, fixed: Option<usize>) -> String {
    if v < 0.0 && semantics == sem::COUNTER {
        return pad_left("!", width);
    }
    if let Some(f) = fixed {
        return pad_left(&c_fixed(v, f), width);
    }
    let w = |n: usize| width.saturating_sub(n);
    // the comparisons are C's: false for NaN, which ends in the last branch
    if v == 0.0 {
        format!("{}.0   ", pad_left(&c_fixed(v, 0), w(5)))
    } else if v < 0.1 || v > 9999.0 {
        pad_left(&c_exp(v, 3), width)
    } else if v <= 0.9999 {
        pad_left(&c_fixed(v, 4), width)
    } else if v <= 9.999 {
        format!("{} ", pad_left(&c_fixed(v, 3), w(1)))
    } else if v <= 99.99 {
        format!("{}  ", pad_left(&c_fixed(v, 2), w(2)))
    } else if v <= 999.9 {
        format!("{}   ", pad_left(&c_fixed(v, 1), w(3)))
    } else {
        format!("{}.    ", pad_left(&c_fixed(v, 0), w(5)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_layouts() {
        assert_eq!(printreal(2.0, sem::COUNTER, 11, None), "     2.000 ");
        assert_eq!(printreal(0.0, sem::COUNTER, 11, None), "     0.0   ");
        assert_eq!(
            printreal(67_580_000.0, sem::INSTANT, 21, None),
            "            6.758E+07"
        );
        assert_eq!(printreal(0.05, sem::INSTANT, 13, None), "    5.000E-02");
        assert_eq!(printreal(-1.0, sem::COUNTER, 11, None), "          !");
        assert_eq!(printreal(-1.0, sem::INSTANT, 11, None), " -1.000E+00");
        assert_eq!(printreal(12345.0, sem::INSTANT, 11, Some(2)), "   12345.00");
        assert_eq!(printreal(1234.0, sem::INSTANT, 11, None), "  1234.    ");
        assert_eq!(printreal(f64::NAN, sem::INSTANT, 13, None), "     nan.    ");
        assert_eq!(
            printreal(f64::INFINITY, sem::INSTANT, 13, None),
            "          INF"
        );
    }
}
