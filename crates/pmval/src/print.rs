//! pmval's number formats.

use archive_format::types::sem;

/// Right-aligns `s` in `width` columns (never truncates).
pub fn pad_left(s: &str, width: usize) -> String {
    format!("{s:>width$}")
}

/// C's `%.{prec}E`: mantissa, `E`, sign and at least two exponent digits.
pub fn c_exp(v: f64, prec: usize) -> String {
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
pub fn printreal(v: f64, semantics: i32, width: usize, fixed: Option<usize>) -> String {
    if v < 0.0 && semantics == sem::COUNTER {
        return pad_left("!", width);
    }
    if let Some(f) = fixed {
        return format!("{v:>width$.f$}");
    }
    let w = |n: usize| width.saturating_sub(n);
    if v == 0.0 {
        format!("{:>w$.0}.0   ", v, w = w(5))
    } else if !(0.1..=9999.0).contains(&v) {
        pad_left(&c_exp(v, 3), width)
    } else if v <= 0.9999 {
        format!("{v:>width$.4}")
    } else if v <= 9.999 {
        format!("{:>w$.3} ", v, w = w(1))
    } else if v <= 99.99 {
        format!("{:>w$.2}  ", v, w = w(2))
    } else if v <= 999.9 {
        format!("{:>w$.1}   ", v, w = w(3))
    } else {
        format!("{:>w$.0}.    ", v, w = w(5))
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
    }
}
