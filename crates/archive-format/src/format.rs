//! PCP's text forms of values (`pmPrintValue` with a minimum width of 1) and C's `%g`.

use crate::codec::result::{Value, VAL_INSITU};
use crate::types::vtype;
use std::fmt::Write;

/// C's `printf("%.*g", prec, x)`.
pub fn fmt_g(x: f64, prec: usize) -> String {
    let mut v = Vec::with_capacity(24);
    push_g(&mut v, x, prec);
    // only ASCII was written
    String::from_utf8(v).unwrap_or_default()
}

/// A small stack buffer for one number's text, so that formatting does not allocate.
struct Stack {
    buf: [u8; 400],
    len: usize,
}

impl std::fmt::Write for Stack {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The longest precision `push_g` lays out itself.
const MAX_FAST_PREC: usize = 120;

/// Appends C's `%.*g` of `x` to `out`: one correctly rounded `%e` conversion, from
/// whose digits and exponent the `%f` form is laid out when C would choose it (both
/// round to `prec` significant digits at the same place).
pub fn push_g(out: &mut Vec<u8>, x: f64, prec: usize) {
    if x.is_nan() {
        out.extend_from_slice(if x.is_sign_negative() {
            b"-nan"
        } else {
            b"nan"
        });
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x < 0.0 { b"-inf" } else { b"inf" });
        return;
    }
    let p = prec.max(1);
    // the significant digits, without the point, and the exponent of the first
    let mut digits = [0u8; MAX_FAST_PREC];
    let (n, exp, neg) = match round_sig(x.abs(), p) {
        Some((sig, exp)) => {
            // exactly p digits
            let mut ib = itoa::Buffer::new();
            let t = ib.format(sig).as_bytes();
            digits[..t.len()].copy_from_slice(t);
            (t.len(), exp, x.is_sign_negative())
        }
        None => {
            let mut e = Stack {
                buf: [0; 400],
                len: 0,
            };
            // the digits below fit MAX_FAST_PREC of them; longer ones take the slow path
            if p > MAX_FAST_PREC || write!(e, "{:.*e}", p - 1, x).is_err() {
                out.extend_from_slice(fmt_g_slow(x, p).as_bytes());
                return;
            }
            let text = &e.buf[..e.len];
            let (neg, text) = match text.split_first() {
                Some((b'-', rest)) => (true, rest),
                _ => (false, text),
            };
            let epos = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
            let exp: i32 = std::str::from_utf8(&text[(epos + 1).min(text.len())..])
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let mut n = 0;
            for &b in &text[..epos] {
                if b.is_ascii_digit() && n < digits.len() {
                    digits[n] = b;
                    n += 1;
                }
            }
            (n, exp, neg)
        }
    };
    let digits = &digits[..n];
    if neg {
        out.push(b'-');
    }
    if exp < -4 || exp >= p as i32 {
        // d.ddd without trailing zeros, then e±XX
        let keep = digits.iter().rposition(|&d| d != b'0').map_or(1, |i| i + 1);
        out.push(digits[0]);
        if keep > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..keep]);
        }
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(itoa_u32(a, &mut [0u8; 10]));
    } else if exp >= 0 {
        let int = exp as usize + 1;
        out.extend_from_slice(&digits[..int.min(n)]);
        let frac = &digits[int.min(n)..];
        let keep = frac.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
        if keep > 0 {
            out.push(b'.');
            out.extend_from_slice(&frac[..keep]);
        }
    } else {
        // 0.000ddd
        let keep = digits.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
        out.extend_from_slice(b"0.");
        for _ in 0..(-exp - 1) {
            out.push(b'0');
        }
        out.extend_from_slice(&digits[..keep]);
    }
}

/// Powers of ten that fit a u64.
const POW10: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// `x` (finite, not negative) correctly rounded to `p` significant digits, ties to
/// even, as C's `%e` rounds: the digits as one integer of exactly `p` digits and the
/// decimal exponent of the first. Exact integer arithmetic in 128 bits; `None` (use
/// the general conversion) for zero, `p` above 17 and magnitudes it cannot hold.
fn round_sig(x: f64, p: usize) -> Option<(u64, i32)> {
    if x == 0.0 || !(1..=17).contains(&p) {
        return None;
    }
    let bits = x.to_bits();
    let bexp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if bexp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, bexp - 1075)
    };
    let lo = POW10[p - 1];
    let hi = POW10[p];
    // floor(log10 x) estimated from the binary exponent (x is in [2^b, 2^(b+1)), so
    // this is low by at most one), then corrected by the digit count of the result
    let b = e + 63 - m.leading_zeros() as i32;
    let mut est = (b * 78913) >> 18;
    for _ in 0..3 {
        let n = scaled_round(m as u128, e, p as i32 - 1 - est)?;
        if n >= hi as u128 {
            est += 1;
        } else if n < lo as u128 {
            est -= 1;
        } else {
            return Some((n as u64, est));
        }
    }
    None
}

/// `m * 2^e * 10^k` rounded to an integer, ties to even, if 128 bits hold the work.
fn scaled_round(m: u128, e: i32, k: i32) -> Option<u128> {
    // numerator m * 2^max(e,0) * 10^max(k,0), denominator 2^max(-e,0) * 10^max(-k,0)
    let mut num = m;
    if k > 0 {
        num = num.checked_mul(10u128.checked_pow(k as u32)?)?;
    }
    if e > 0 {
        if num.leading_zeros() <= e as u32 {
            return None;
        }
        num <<= e;
    }
    let mut den: u128 = 1;
    if k < 0 {
        den = 10u128.checked_pow((-k) as u32)?;
    }
    if e < 0 {
        if den.leading_zeros() <= (-e) as u32 {
            return None;
        }
        den <<= -e;
    }
    let (q, r) = if den.is_power_of_two() {
        let s = den.trailing_zeros();
        (num >> s, num & (den - 1))
    } else {
        (num / den, num % den)
    };
    // r < den, so 2r cannot overflow when den < 2^127 (checked by the shifts above)
    let twice = r << 1;
    Some(if twice > den || (twice == den && q & 1 == 1) {
        q + 1
    } else {
        q
    })
}

fn itoa_u32(mut v: u32, buf: &mut [u8; 10]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

/// The two-conversion `%g`, for precisions beyond `MAX_FAST_PREC`.
fn fmt_g_slow(x: f64, p: usize) -> String {
    let e = format!("{:.*e}", p - 1, x);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let m = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let f = format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x);
        strip_zeros(&f).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

use crate::atom::{host_u32, host_u64};

use crate::atom::host_bytes;

fn is_print(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// `pmPrintValue(f, valfmt, type, value, 1)` into a string (no newline).
pub fn format_value(ty: i32, valfmt: i32, v: &Value<'_>) -> String {
    match (ty, v) {
        (vtype::I32, Value::Insitu(w)) => return (*w as i32).to_string(),
        (vtype::U32, Value::Insitu(w)) => return w.to_string(),
        (vtype::FLOAT, Value::Insitu(w)) => return fmt_g(f32::from_bits(*w) as f64, 8),
        (vtype::I64, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            return (host_u64(*bt, data) as i64).to_string()
        }
        (vtype::U64, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            return host_u64(*bt, data).to_string()
        }
        (vtype::DOUBLE, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            return fmt_g(f64::from_bits(host_u64(*bt, data)), 16)
        }
        (vtype::FLOAT, Value::Block { vtype: bt, data }) if data.len() >= 4 => {
            return fmt_g(f32::from_bits(host_u32(*bt, data)) as f64, 8)
        }
        (vtype::STRING, Value::Block { data, .. }) => {
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            return format!("\"{}\"", crate::text::from_bytes(&data[..end]));
        }
        (vtype::NOSUPPORT, _) => return "pmPrintValue: bogus value, metric Not Supported\n".into(),
        _ => {}
    }
    // aggregates, events and anything that cannot be extracted as its type
    let mut s = String::new();
    match v {
        Value::Insitu(w) => {
            if (ty == vtype::EVENT || ty == vtype::HIGHRES_EVENT) && valfmt == VAL_INSITU {
                return pmlc_control(*w);
            }
            let _ = write!(s, "{w}");
            let f = f32::from_bits(*w);
            if !f.is_nan() {
                let _ = write!(s, " {}", fmt_g(f as f64, 8));
            }
            let _ = write!(s, " 0x{w:x}");
        }
        Value::Block { vtype: bt, data } => {
            let hb = host_bytes(*bt, data);
            let mut sep = "";
            if hb.len() == 8 {
                let u = u64::from_le_bytes(hb[..8].try_into().unwrap_or([0; 8]));
                let _ = write!(s, "{u}");
                let d = f64::from_bits(u);
                if !d.is_nan() {
                    let _ = write!(s, " {}", fmt_g(d, 16));
                }
                sep = " ";
            } else if hb.len() == 4 {
                let u = u32::from_le_bytes(hb[..4].try_into().unwrap_or([0; 4]));
                let f = f32::from_bits(u);
                if !f.is_nan() {
                    let _ = write!(s, "{}", fmt_g(f as f64, 8));
                    sep = " ";
                }
            }
            if hb.iter().all(|&b| is_print(b)) {
                let _ = write!(s, "{sep}\"{}\"", String::from_utf8_lossy(&hb));
                sep = " ";
            }
            s.push_str(sep);
            s.push('[');
            for b in &hb {
                let _ = write!(s, "{b:02x}");
            }
            s.push(']');
        }
    }
    s
}

fn pmlc_control(w: u32) -> String {
    let mand = if w & 2 != 0 { "mand" } else { "adv" };
    let on = if w & 1 != 0 { "on" } else { "off" };
    let hist = if w & 8 != 0 {
        if w & 4 != 0 {
            " "
        } else {
            "na "
        }
    } else {
        "nl "
    };
    format!(
        "[pmlc control {mand} {on} {hist}{}]",
        (w >> 4) & 0x0fff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn exact_digits_match_the_general_conversion(
            bits in proptest::prelude::any::<u64>(),
            int in 0u64..(1 << 53),
            halves in 0u32..8,
            prec in 1usize..=17,
        ) {
            // any double, and integers and halves/quarters... near digit boundaries,
            // where ties to even decide
            for x in [f64::from_bits(bits), int as f64 / (1u64 << halves) as f64] {
                if x.is_finite() && x != 0.0 {
                    if let Some((sig, exp)) = round_sig(x.abs(), prec) {
                        let general = format!("{:.*e}", prec - 1, x.abs());
                        let (mant, e) = general.split_once('e').unwrap_or((&general, "0"));
                        proptest::prop_assert_eq!(sig.to_string(), mant.replace('.', ""));
                        proptest::prop_assert_eq!(exp.to_string(), e);
                    }
                }
            }
        }

        #[test]
        fn one_conversion_g_matches_two(bits in proptest::prelude::any::<u64>(), prec in 1usize..20) {
            let x = f64::from_bits(bits);
            if x.is_finite() {
                proptest::prop_assert_eq!(fmt_g(x, prec), fmt_g_slow(x, prec));
            }
        }
    }

    #[test]
    fn c_g_format() {
        assert_eq!(fmt_g(1e16, 16), "1e+16");
        assert_eq!(fmt_g(1000000.0, 8), "1000000");
        assert_eq!(fmt_g(100.0, 16), "100");
        assert_eq!(fmt_g(0.1, 8), "0.1");
        assert_eq!(fmt_g(0.0001234, 8), "0.0001234");
        assert_eq!(fmt_g(0.00001234, 8), "1.234e-05");
        assert_eq!(fmt_g(123456789.0, 8), "1.2345679e+08");
        assert_eq!(fmt_g(-1.371380375612005e306, 16), "-1.371380375612005e+306");
        assert_eq!(fmt_g(0.0, 8), "0");
        assert_eq!(fmt_g(-0.0, 8), "-0");
        // ties to even at the last digit, rounding up into a new decade
        assert_eq!(fmt_g(2.5, 1), "2");
        assert_eq!(fmt_g(3.5, 1), "4");
        assert_eq!(fmt_g(1234567890123456.5, 16), "1234567890123456");
        assert_eq!(fmt_g(9.996, 3), "10");
        assert_eq!(fmt_g(99.96, 3), "100");
        assert_eq!(fmt_g(9.6, 1), "1e+01");
        assert_eq!(fmt_g(0.1 + 0.2, 15), "0.3");
        assert_eq!(fmt_g(0.1 + 0.2, 17), "0.30000000000000004");
        assert_eq!(fmt_g(279.6666666666667, 16), "279.6666666666667");
        assert_eq!(fmt_g(5e-324, 16), "4.940656458412465e-324");
        assert_eq!(fmt_g(f64::MAX, 16), "1.797693134862316e+308");
    }

    #[test]
    fn aggregate_bytes() {
        let data = [0x01, 0x03, 0x07, 0x0f, 0x1f, 0x3f, 0x7f, 0xff];
        let s = format_value(
            vtype::AGGREGATE,
            1,
            &Value::Block {
                vtype: 7,
                data: &data,
            },
        );
        assert_eq!(
            s,
            "18410503204342530817 -1.371380375612005e+306 [0103070f1f3f7fff]"
        );
    }

    #[test]
    fn numbers_and_strings() {
        assert_eq!(
            format_value(vtype::I32, 0, &Value::Insitu(0xffff_ffff)),
            "-1"
        );
        assert_eq!(
            format_value(vtype::U32, 0, &Value::Insitu(0xffff_ffff)),
            "4294967295"
        );
        let d = 1e6f64.to_bits().to_be_bytes();
        assert_eq!(
            format_value(vtype::DOUBLE, 1, &Value::Block { vtype: 5, data: &d }),
            "1000000"
        );
        assert_eq!(
            format_value(
                vtype::STRING,
                1,
                &Value::Block {
                    vtype: 6,
                    data: b"hi\0"
                }
            ),
            "\"hi\""
        );
    }
}
