//! How pmlogsize words a share and a count: its percentages are single
//! precision floats (`100*(float)part/whole`) printed with `%.0f`, and its
//! details sorted largest first, ties in the order first seen.

/// `part` of `whole` in percent, as pmlogsize computes it in `float`.
pub fn share(part: i64, whole: i64) -> f32 {
    100f32 * part as f32 / whole as f32
}

/// `%.0f` of a share (glibc's words for the infinities and NaN: a share of
/// nothing is `0/0`, which x86 makes a NaN with its sign set).
pub fn pct(part: i64, whole: i64) -> String {
    let v = share(part, whole);
    if v.is_nan() {
        "-nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{:.0}", f64::from(v))
    }
}

/// "s" where `plural`.
pub fn s(plural: bool) -> &'static str {
    if plural {
        "s"
    } else {
        ""
    }
}

/// Whether the details have reached `-x`'s threshold after `sum` of `whole`.
pub fn past(threshold: Option<i32>, sum: i64, whole: i64) -> bool {
    threshold.is_some_and(|t| share(sum, whole) > t as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_round_as_printf_does() {
        assert_eq!(pct(1664, 1976), "84");
        assert_eq!(pct(1, 200), "0", "0.5 rounds to even");
        assert_eq!(pct(3, 200), "2", "1.5 rounds to even");
        assert_eq!(pct(0, 0), "-nan");
        assert_eq!(pct(5, 0), "inf");
    }

    #[test]
    fn the_threshold_is_strictly_passed() {
        assert!(!past(None, 90, 100));
        assert!(!past(Some(50), 50, 100));
        assert!(past(Some(50), 51, 100));
    }
}
