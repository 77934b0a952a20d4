//! Units from text, as libpcp's `pmParseUnitsStr(3)` reads them: `Kbyte / sec`,
//! `count x 10^6`, `millisec^2`, a multiplier (`1.5 hours`), a dividend and a
//! divisor around one `/`, and libpcp's messages for what it cannot read.

use crate::types::Units;

/// The base units by their words, tried in this order (a word is matched without
/// regard to case, and must be followed by white space, `^` or the end).
const TIME: &[(&str, u32)] = &[
    ("nanoseconds", 0),
    ("nanosecond", 0),
    ("nanosec", 0),
    ("ns", 0),
    ("microseconds", 1),
    ("microsecond", 1),
    ("microsec", 1),
    ("us", 1),
    ("milliseconds", 2),
    ("millisecond", 2),
    ("millisec", 2),
    ("ms", 2),
    ("seconds", 3),
    ("second", 3),
    ("sec", 3),
    ("s", 3),
    ("minutes", 4),
    ("minute", 4),
    ("min", 4),
    ("hours", 5),
    ("hour", 5),
    ("hr", 5),
    ("h", 5),
    ("time-0", 0),
    ("time-2", 2),
    ("time-3", 3),
    ("time-4", 4),
    ("time-5", 5),
    ("time-6", 6),
    ("time-7", 7),
    ("time-8", 8),
    ("time-9", 9),
    ("time-10", 10),
    ("time-11", 11),
    ("time-12", 12),
    ("time-13", 13),
    ("time-14", 14),
    ("time-15", 15),
    ("time-1", 1),
];

const SPACE: &[(&str, u32)] = &[
    ("bytes", 0),
    ("byte", 0),
    ("KB", 1),
    ("KiB", 1),
    ("Kbytes", 1),
    ("Kbyte", 1),
    ("Kibibytes", 1),
    ("Kibibyte", 1),
    ("Kilobytes", 1),
    ("Kilobyte", 1),
    ("MB", 2),
    ("MiB", 2),
    ("Mbytes", 2),
    ("Mbyte", 2),
    ("Mebibytes", 2),
    ("Mebibyte", 2),
    ("Megabytes", 2),
    ("Megabyte", 2),
    ("GB", 3),
    ("GiB", 3),
    ("Gbytes", 3),
    ("Gbyte", 3),
    ("Gibibytes", 3),
    ("Gibibyte", 3),
    ("Gigabytes", 3),
    ("Gigabyte", 3),
    ("TB", 4),
    ("TiB", 4),
    ("Tbytes", 4),
    ("Tbyte", 4),
    ("Tebibytes", 4),
    ("Tebibyte", 4),
    ("Terabytes", 4),
    ("Terabyte", 4),
    ("PB", 5),
    ("PiB", 5),
    ("Pbytes", 5),
    ("Pbyte", 5),
    ("Pebibytes", 5),
    ("Pebibyte", 5),
    ("Petabytes", 5),
    ("Petabyte", 5),
    ("EB", 6),
    ("EiB", 6),
    ("Ebytes", 6),
    ("Ebyte", 6),
    ("Exbibytes", 6),
    ("Exbibyte", 6),
    ("Exabytes", 6),
    ("Exabyte", 6),
    ("ZB", 7),
    ("ZiB", 7),
    ("Zbytes", 7),
    ("Zbyte", 7),
    ("Zebibytes", 7),
    ("Zebibyte", 7),
    ("Zettabytes", 7),
    ("Zettabyte", 7),
    ("YB", 8),
    ("YiB", 8),
    ("Ybytes", 8),
    ("Ybyte", 8),
    ("Yobibytes", 8),
    ("Yobibyte", 8),
    ("Yottabytes", 8),
    ("Yottabyte", 8),
    ("space-0", 0),
    ("space-2", 2),
    ("space-3", 3),
    ("space-4", 4),
    ("space-5", 5),
    ("space-6", 6),
    ("space-7", 7),
    ("space-8", 8),
    ("space-9", 9),
    ("space-10", 10),
    ("space-11", 11),
    ("space-12", 12),
    ("space-13", 13),
    ("space-14", 14),
    ("space-15", 15),
    ("space-1", 1),
];

const COUNT: &[(&str, i32)] = &[
    ("count x 10^-8", -8),
    ("count x 10^-7", -7),
    ("count x 10^-6", -6),
    ("count x 10^-5", -5),
    ("count x 10^-4", -4),
    ("count x 10^-3", -3),
    ("count x 10^-2", -2),
    ("count x 10^-1", -1),
    ("count x 10^2", 2),
    ("count x 10^3", 3),
    ("count x 10^4", 4),
    ("count x 10^5", 5),
    ("count x 10^6", 6),
    ("count x 10^7", 7),
    ("count x 10", 1),
    ("counts", 0),
    ("count", 0),
];

/// A dimension's exponent after its unit (none: 1).
const EXPONENT: &[(&str, i32)] = &[
    ("^-8", -8),
    ("^-7", -7),
    ("^-6", -6),
    ("^-5", -5),
    ("^-4", -4),
    ("^-3", -3),
    ("^-2", -2),
    ("^-1", -1),
    ("^0", 0),
    ("^2", 2),
    ("^3", 3),
    ("^4", 4),
    ("^5", 5),
    ("^6", 6),
    ("^7", 7),
    ("^8", 8),
    ("^9", 9),
    ("^10", 10),
    ("^11", 11),
    ("^12", 12),
    ("^13", 13),
    ("^14", 14),
    ("^15", 15),
    ("^1", 1),
];

/// One side of the `/`: dimensions and scales wider than a `Units` holds, and
/// its multiplier.
#[derive(Debug, Default, Clone, Copy)]
struct Part {
    dim: [i32; 3],
    scale_space: u32,
    scale_time: u32,
    scale_count: i32,
    mult: f64,
}

/// Parses `s`: its units and the multiplier that takes a value in them to the
/// value written (`1.5 hours` is hours and 1.5). Errors are libpcp's texts.
pub fn parse_units(s: &str) -> Result<(Units, f64), String> {
    let b = s.as_bytes();
    let (top, bottom) = match b.iter().position(|&c| c == b'/') {
        None => (
            part(b)?,
            Part {
                mult: 1.0,
                ..Part::default()
            },
        ),
        Some(k) => (part(&b[..k])?, part(&b[k + 1..])?),
    };
    let mut dims = [0i32; 3];
    for (k, what) in ["space", "time", "count"].iter().enumerate() {
        dims[k] = top.dim[k] - bottom.dim[k];
        if !(-8..=7).contains(&dims[k]) {
            return Err(format!("{what} dimension out of bounds"));
        }
    }
    let mut mult = bottom.mult / top.mult;
    let (s_space, m) = scale(&top, &bottom, 0, 1024.0);
    mult *= m;
    let (s_count, m) = scale(&top, &bottom, 2, 10.0);
    mult *= m;
    let (s_time, m) = time_scale(&top, &bottom, dims[1]);
    mult *= m;
    Ok((Units::new(dims, [s_space as u32, s_time], s_count), mult))
}

/// The scale of a dimension (space: 0, count: 2) the result has, and the
/// multiplier that leaves when both sides have the dimension (or neither has):
/// then the result is in bytes, or counts, and the scales go to the multiplier
/// (`base` to the scale's power, for each of the dimension's powers).
fn scale(top: &Part, bottom: &Part, k: usize, base: f64) -> (i32, f64) {
    let of = |p: &Part| match k {
        0 => p.scale_space as i32,
        _ => p.scale_count,
    };
    if top.dim[k] == 0 && bottom.dim[k] != 0 {
        return (of(bottom), 1.0);
    }
    if bottom.dim[k] == 0 && top.dim[k] != 0 {
        return (of(top), 1.0);
    }
    let m = base.powf(f64::from(of(top))).powf(-f64::from(top.dim[k]))
        * base
            .powf(f64::from(of(bottom)))
            .powf(f64::from(bottom.dim[k]));
    (0, m)
}

/// Seconds in each time scale (libpcp asserts the scale is one of these where
/// it needs them; beyond, the scale counts as a second here).
fn seconds(scale: u32) -> f64 {
    [1e-9, 1e-6, 1e-3, 1.0, 60.0, 3600.0]
        .get(scale as usize)
        .copied()
        .unwrap_or(1.0)
}

fn time_scale(top: &Part, bottom: &Part, dim: i32) -> (u32, f64) {
    if top.dim[1] == 0 && bottom.dim[1] != 0 {
        return (bottom.scale_time, 1.0);
    }
    if bottom.dim[1] == 0 && top.dim[1] != 0 {
        return (top.scale_time, 1.0);
    }
    let m = seconds(top.scale_time).powf(-f64::from(top.dim[1]))
        * seconds(bottom.scale_time).powf(f64::from(bottom.dim[1]));
    // a second where a time dimension is left
    (if dim == 0 { 0 } else { 3 }, m)
}

/// `word` at `b[at..]` without regard to case, followed by white space, `^` or
/// the end of the part: where it ends.
fn word_at(b: &[u8], at: usize, word: &str) -> Option<usize> {
    let end = at + word.len();
    let here = b.get(at..end)?;
    if !here.eq_ignore_ascii_case(word.as_bytes()) {
        return None;
    }
    match b.get(end) {
        None => Some(end),
        Some(&c) if c == b'^' || is_space(c) => Some(end),
        Some(_) => None,
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// One side of the `/`.
fn part(b: &[u8]) -> Result<Part, String> {
    let mut p = Part {
        mult: 1.0,
        ..Part::default()
    };
    let mut at = 0;
    while at < b.len() {
        let c = b[at];
        if is_space(c) {
            at += 1;
            continue;
        }
        if c == b'-' || c == b'.' || c.is_ascii_digit() {
            let (m, used) = strtod(&b[at..]).ok_or("invalid floating point literal")?;
            p.mult *= m;
            at += used;
            continue;
        }
        let (k, end) = base_unit(b, at, &mut p).ok_or("unrecognized or duplicate base unit")?;
        at = end;
        p.dim[k] = match b.get(at) {
            None => 1,
            Some(&c) if is_space(c) => 1,
            Some(_) => match first(EXPONENT, b, at) {
                Some((end, e)) => {
                    at = end;
                    e
                }
                None => 0,
            },
        };
    }
    Ok(p)
}

/// The first word of `table` at `b[at..]`: where it ends, and what it stands for.
fn first<T: Copy>(table: &[(&str, T)], b: &[u8], at: usize) -> Option<(usize, T)> {
    table
        .iter()
        .find_map(|(w, s)| Some((word_at(b, at, w)?, *s)))
}

/// A base unit at `at` whose dimension the part has not got yet: its
/// dimension (space, time, count as 0, 1, 2), with its scale set in `p`, and
/// where it ends.
fn base_unit(b: &[u8], at: usize, p: &mut Part) -> Option<(usize, usize)> {
    // the first word of a table at `at`: where it ends, and its scale
    fn first<T: Copy>(table: &[(&str, T)], b: &[u8], at: usize) -> Option<(usize, T)> {
        table
            .iter()
            .find_map(|(w, s)| Some((word_at(b, at, w)?, *s)))
    }
    if p.dim[1] == 0 {
        if let Some((end, s)) = first(TIME, b, at) {
            p.scale_time = s;
            return Some((1, end));
        }
    }
    if p.dim[0] == 0 {
        if let Some((end, s)) = first(SPACE, b, at) {
            p.scale_space = s;
            return Some((0, end));
        }
    }
    if p.dim[2] == 0 {
        if let Some((end, s)) = first(COUNT, b, at) {
            p.scale_count = s;
            return Some((2, end));
        }
    }
    None
}

/// C's `strtod` at the start of `b`: the number and how many bytes it took;
/// `None` for no number, or one out of range.
fn strtod(b: &[u8]) -> Option<(f64, usize)> {
    let text = std::str::from_utf8(b)
        .unwrap_or_else(|e| std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or_default());
    // the longest prefix that reads as a number, as strtod takes it
    let mut best = None;
    for end in (1..=text.len()).rev() {
        if !text.is_char_boundary(end) {
            continue;
        }
        if let Some(v) = c_number(&text[..end]) {
            best = Some((v, end));
            break;
        }
    }
    let (v, used) = best?;
    let written = &text[..used];
    // out of range, as strtod's ERANGE: too large, or a non-zero number that
    // reads as zero
    let lower = written.to_ascii_lowercase();
    let mantissa = lower.split('e').next().unwrap_or_default();
    let underflow = v == 0.0
        && !lower.starts_with("0x")
        && mantissa.bytes().any(|c| (b'1'..=b'9').contains(&c));
    ((v.is_finite() || lower.contains("inf")) && !underflow).then_some((v, used))
}

/// A decimal or hexadecimal floating point number, or infinity or NaN, as
/// strtod reads them (Rust's parser reads the decimal ones the same).
fn c_number(s: &str) -> Option<f64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() || body.starts_with(['+', '-']) {
        return None;
    }
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()? as f64
    } else if body.bytes().all(|c| {
        c.is_ascii_digit() || c == b'.' || c == b'e' || c == b'E' || c == b'+' || c == b'-'
    }) {
        if body.ends_with(['e', 'E', '+', '-']) {
            return None;
        }
        body.parse::<f64>().ok()?
    } else {
        match body.to_ascii_lowercase().as_str() {
            "inf" | "infinity" => f64::INFINITY,
            "nan" => f64::NAN,
            _ => return None,
        }
    };
    Some(if neg { -v } else { v })
}

/// The factors of `pmConvScale(3)` from units `from` to `to`: values are
/// multiplied by the first and divided by the second (whole numbers, as libpcp
/// computes them); a dimensionless side counts as a count. `Err` with libpcp's
/// code where the dimensions differ (PM_ERR_CONV) or a scale is not one of its
/// (PM_ERR_UNIT).
pub fn conv_factors(from: Units, to: Units) -> Result<(i64, i64), i32> {
    const PM_ERR_CONV: i32 = -12365;
    const PM_ERR_UNIT: i32 = -12364;
    let dims = |u: Units| {
        let d = [u.dim_space(), u.dim_time(), u.dim_count()];
        if d == [0, 0, 0] {
            [0, 0, 1]
        } else {
            d
        }
    };
    let (fd, td) = (dims(from), dims(to));
    if fd != td {
        return Err(PM_ERR_CONV);
    }
    let (mut mult, mut div) = (1i64, 1i64);
    let mut apply = |dim: i32, d: i64, m: i64| {
        for _ in 0..dim.max(0) {
            div = div.wrapping_mul(d);
            mult = mult.wrapping_mul(m);
        }
        for _ in dim.min(0)..0 {
            mult = mult.wrapping_mul(d);
            div = div.wrapping_mul(m);
        }
    };
    // space: to and from Mbytes
    if fd[0] != 0 {
        let space = |s: u32| -> Result<(i64, i64), i32> {
            Ok(match s {
                0 => (1 << 20, 1),
                1 => (1 << 10, 1),
                2 => (1, 1),
                3 => (1, 1 << 10),
                4 => (1, 1 << 20),
                5 => (1, 1 << 30),
                6 => (1, 1 << 40),
                _ => return Err(PM_ERR_UNIT),
            })
        };
        let (d_in, m_in) = space(from.scale_space())?;
        let (m_out, d_out) = space(to.scale_space())?;
        apply(fd[0], d_in * d_out, m_in * m_out);
    }
    // time: to and from seconds
    if fd[1] != 0 {
        let time = |s: u32| -> Result<(i64, i64), i32> {
            Ok(match s {
                0 => (1_000_000_000, 1),
                1 => (1_000_000, 1),
                2 => (1000, 1),
                3 => (1, 1),
                4 => (1, 60),
                5 => (1, 3600),
                _ => return Err(PM_ERR_UNIT),
            })
        };
        let (d_in, m_in) = time(from.scale_time())?;
        let (m_out, d_out) = time(to.scale_time())?;
        apply(fd[1], d_in * d_out, m_in * m_out);
    }
    // count (or none): powers of ten
    if fd[2] != 0 || (fd[0] == 0 && fd[1] == 0) {
        let ten = |n: i32| 10i64.saturating_pow(n.unsigned_abs());
        let (fc, tc) = (from.scale_count(), to.scale_count());
        let d = if fc < 0 { ten(fc) } else { 1 } * if tc > 0 { ten(tc) } else { 1 };
        let m = if fc > 0 { ten(fc) } else { 1 } * if tc < 0 { ten(tc) } else { 1 };
        let dim_count = from.dim_count();
        if dim_count == 0 {
            mult = m;
            div = d;
        } else {
            apply(dim_count, d, m);
        }
    }
    if div != 0 && mult % div == 0 {
        mult /= div;
        div = 1;
    }
    Ok((mult, div))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> (i32, i32, i32, u32, u32, i32, f64) {
        let (u, m) = parse_units(s).expect(s);
        (
            u.dim_space(),
            u.dim_time(),
            u.dim_count(),
            u.scale_space(),
            u.scale_time(),
            u.scale_count(),
            m,
        )
    }

    #[test]
    fn units_as_pmunitsstr_writes_them() {
        assert_eq!(u("Kbyte / sec"), (1, -1, 0, 1, 3, 0, 1.0));
        assert_eq!(u("count x 10^6"), (0, 0, 1, 0, 0, 6, 1.0));
        assert_eq!(u("millisec^2"), (0, 2, 0, 0, 2, 0, 1.0));
        assert_eq!(u("Mbytes/hour"), (1, -1, 0, 2, 5, 0, 1.0));
        assert_eq!(u("kbyte / count"), (1, 0, -1, 1, 0, 0, 1.0));
        assert_eq!(u(""), (0, 0, 0, 0, 0, 0, 1.0));
    }

    #[test]
    fn multipliers_and_both_sides_of_a_dimension() {
        // 1.5 hours: hours, and what a value in hours is multiplied by to be one
        // in the units written (libpcp's reciprocal)
        let (_, m) = parse_units("1.5 hours").expect("reads");
        assert!((m - 1.0 / 1.5).abs() < 1e-12);
        // seconds over milliseconds: dimensionless, 1000
        let (units, m) = parse_units("sec / millisec").expect("reads");
        assert_eq!(units, Units(0));
        assert!((m - 1e-3).abs() < 1e-15, "{m}");
    }

    #[test]
    fn conversion_factors_as_pmconvscale_computes_them() {
        let p = |s: &str| parse_units(s).expect(s).0;
        assert_eq!(conv_factors(p("Kbyte"), p("Mbyte")), Ok((1, 1024)));
        assert_eq!(conv_factors(p("sec"), p("millisec")), Ok((1000, 1)));
        assert_eq!(conv_factors(p("Kbyte/sec"), p("Mbyte/min")), Ok((60, 1024)));
        // none counts as a count
        assert_eq!(conv_factors(Units(0), p("count x 10^3")), Ok((1, 1000)));
        assert_eq!(conv_factors(p("count"), p("byte")), Err(-12365));
    }

    #[test]
    fn what_pmparseunitsstr_refuses() {
        let e = |s: &str| parse_units(s).expect_err(s);
        assert_eq!(e("furlongs"), "unrecognized or duplicate base unit");
        assert_eq!(e("sec sec"), "unrecognized or duplicate base unit");
        assert_eq!(e("-"), "invalid floating point literal");
        assert_eq!(e("1e999 sec"), "invalid floating point literal");
        assert_eq!(e("sec^7 / sec^-7"), "time dimension out of bounds");
    }
}
