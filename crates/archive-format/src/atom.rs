//! Typed values: a stored value read as its metric's type, as `pmExtractValue` does
//! when the input and output types are the same.

use crate::codec::result::Value;
use crate::types::vtype;

/// One value of a metric, in its own type.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Atom<'a> {
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    Float(f32),
    Double(f64),
    /// A string value (bytes up to the first NUL, lossily UTF-8).
    String(String),
    /// An aggregate's raw bytes, or an event array's packed form.
    Bytes(&'a [u8]),
}

/// A FLOAT widened to the double nearest its own shortest decimal form (0.83,
/// where `f64::from` gives 0.8299999833106995): what JSON and CSV should show.
pub fn float_as_decimal(f: f32) -> f64 {
    f.to_string().parse().unwrap_or(f64::from(f))
}

impl Atom<'_> {
    /// The value as a double, for the numeric types.
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Atom::I32(v) => v as f64,
            Atom::U32(v) => v as f64,
            Atom::I64(v) => v as f64,
            Atom::U64(v) => v as f64,
            Atom::Float(v) => v as f64,
            Atom::Double(v) => v,
            Atom::String(_) | Atom::Bytes(_) => return None,
        })
    }
}

/// The bytes of a value block as libpcp holds them in memory on a little-endian
/// host: it converts a block from network order according to the block's own type
/// byte (64-bit and double: 8 bytes, float: 4), and leaves any other block raw. Very
/// old archives label 64-bit values with another block type, so the reference then
/// reads the big-endian bytes as little-endian: we do the same.
pub(crate) fn host_bytes(block_type: u8, data: &[u8]) -> Vec<u8> {
    let bt = block_type as i32;
    let mut v = data.to_vec();
    if matches!(bt, vtype::I64 | vtype::U64 | vtype::DOUBLE) && v.len() >= 8 {
        v[..8].reverse();
    } else if bt == vtype::FLOAT && v.len() >= 4 {
        v[..4].reverse();
    }
    v
}

/// The first 8 bytes of a block as libpcp reads them (see [`host_bytes`], without
/// the copy); 0 when short.
#[inline]
pub fn host_u64(block_type: u8, data: &[u8]) -> u64 {
    let Some(mut a) = data.first_chunk::<8>().copied() else {
        return 0;
    };
    let bt = block_type as i32;
    if matches!(bt, vtype::I64 | vtype::U64 | vtype::DOUBLE) {
        return u64::from_be_bytes(a);
    }
    if bt == vtype::FLOAT {
        a[..4].reverse();
    }
    u64::from_le_bytes(a)
}

/// The first 4 bytes of a block as libpcp reads them; 0 when short.
pub(crate) fn host_u32(block_type: u8, data: &[u8]) -> u32 {
    let Some(b) = data.get(..4) else {
        return 0;
    };
    let bt = block_type as i32;
    let a = if matches!(bt, vtype::I64 | vtype::U64 | vtype::DOUBLE) && data.len() >= 8 {
        [data[7], data[6], data[5], data[4]]
    } else if bt == vtype::FLOAT {
        [b[3], b[2], b[1], b[0]]
    } else {
        [b[0], b[1], b[2], b[3]]
    };
    u32::from_le_bytes(a)
}

fn be_u32(d: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(d.get(..4)?.try_into().ok()?))
}

/// Reads `v` as a value of type `ty` (a `PM_TYPE_*`). `None` when the stored form
/// cannot hold that type (a too-short block, an in-situ 64-bit value, an unknown type).
/// (Inlined: a caller that takes the value as a number keeps it in registers.)
#[inline]
pub fn extract<'a>(ty: i32, v: &Value<'a>) -> Option<Atom<'a>> {
    Some(match (ty, v) {
        (vtype::I32, Value::Insitu(w)) => Atom::I32(*w as i32),
        (vtype::U32, Value::Insitu(w)) => Atom::U32(*w),
        (vtype::FLOAT, Value::Insitu(w)) => Atom::Float(f32::from_bits(*w)),
        (vtype::I32, Value::Block { data, .. }) => Atom::I32(be_u32(data)? as i32),
        (vtype::U32, Value::Block { data, .. }) => Atom::U32(be_u32(data)?),
        (vtype::FLOAT, Value::Block { vtype: bt, data }) if data.len() >= 4 => {
            Atom::Float(f32::from_bits(host_u32(*bt, data)))
        }
        (vtype::I64, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            Atom::I64(host_u64(*bt, data) as i64)
        }
        (vtype::U64, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            Atom::U64(host_u64(*bt, data))
        }
        (vtype::DOUBLE, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            Atom::Double(f64::from_bits(host_u64(*bt, data)))
        }
        (vtype::STRING, Value::Block { .. }) => Atom::String(extract_text(v)?.into_owned()),
        (
            vtype::AGGREGATE | vtype::AGGREGATE_STATIC | vtype::EVENT | vtype::HIGHRES_EVENT,
            Value::Block { data, .. },
        ) => Atom::Bytes(data),
        _ => return None,
    })
}

/// `extract(ty, v)` as a number (`Atom::as_f64`), for the types most values
/// are (32-bit integers and floats in situ, 64-bit integers and doubles in
/// blocks), without an [`Atom`] made; `None` for the other types and forms,
/// which [`extract`] takes. (Inlined into a caller's loop over values.)
#[inline(always)]
pub fn extract_number(ty: i32, v: &Value<'_>) -> Option<f64> {
    Some(match (ty, *v) {
        (vtype::U32, Value::Insitu(w)) => w as f64,
        (vtype::I32, Value::Insitu(w)) => w as i32 as f64,
        (vtype::FLOAT, Value::Insitu(w)) => f32::from_bits(w) as f64,
        (vtype::U64, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            host_u64(bt, data) as f64
        }
        (vtype::I64, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            host_u64(bt, data) as i64 as f64
        }
        (vtype::DOUBLE, Value::Block { vtype: bt, data }) if data.len() >= 8 => {
            f64::from_bits(host_u64(bt, data))
        }
        _ => return None,
    })
}

/// A `PM_TYPE_STRING` value's text (up to its first NUL, decoded as
/// [`crate::text::from_bytes`] does), borrowed from `v` where it can be; `None`
/// for a value stored in situ.
pub fn extract_text<'a>(v: &Value<'a>) -> Option<std::borrow::Cow<'a, str>> {
    text_bytes(v).map(crate::text::from_bytes_cow)
}

/// A `PM_TYPE_STRING` value's bytes, up to its first NUL (`None` for a value
/// stored in situ): [`extract_text`] before they are decoded.
pub fn text_bytes<'a>(v: &Value<'a>) -> Option<&'a [u8]> {
    let Value::Block { data, .. } = *v else {
        return None;
    };
    let end = memchr::memchr(0, data).unwrap_or(data.len());
    Some(&data[..end])
}

/// `pmExtractValue(valfmt, v, ty, &out, PM_TYPE_DOUBLE)`: a numeric value as a
/// double, or libpcp's error (`PM_ERR_CONV`) where the stored form does not hold
/// that type: a 64-bit or double value in the value word, a 32-bit one in a
/// block, a block of the wrong length or of another type (type 0, of very old
/// archives, is taken as any).
pub fn extract_double(ty: i32, v: &Value<'_>) -> Result<f64, i32> {
    let conv = Err(crate::error::PM_ERR_CONV);
    match *v {
        Value::Insitu(w) => match ty {
            vtype::I32 => Ok(w as i32 as f64),
            vtype::U32 => Ok(w as f64),
            vtype::FLOAT => Ok(f32::from_bits(w) as f64),
            _ => conv,
        },
        Value::Block { vtype: bt, data } => {
            let want = match ty {
                vtype::I64 | vtype::U64 | vtype::DOUBLE => 8,
                vtype::FLOAT => 4,
                _ => return conv,
            };
            if data.len() != want || (bt as i32 != ty && bt != 0) {
                return conv;
            }
            Ok(match ty {
                vtype::I64 => host_u64(bt, data) as i64 as f64,
                vtype::U64 => host_u64(bt, data) as f64,
                vtype::DOUBLE => f64::from_bits(host_u64(bt, data)),
                _ => f32::from_bits(host_u32(bt, data)) as f64,
            })
        }
    }
}

/// A numeric value of one type as another, as `pmExtractValue` converts it:
/// `PM_ERR_TRUNC` where it does not fit (only the upper bound is checked going
/// to a signed type from a 64-bit integer), `PM_ERR_SIGN` for a negative value
/// going unsigned, fractions cut toward zero, `PM_ERR_CONV` for a type that is
/// not numeric.
pub fn convert(a: &Atom<'_>, to: i32) -> Result<Atom<'static>, i32> {
    use crate::error::{PM_ERR_CONV as CONV, PM_ERR_SIGN as SIGN, PM_ERR_TRUNC as TRUNC};
    // the thresholds as libpcp writes them: (float)/(double) of the limits
    let real =
        |x: f64, lim32: f64, limu32: f64, lim64: f64, limu64: f64| -> Result<Atom<'static>, i32> {
            Ok(match to {
                vtype::I32 if x.abs() >= lim32 => return Err(TRUNC),
                vtype::I32 => Atom::I32(x as i32),
                vtype::U32 if x >= limu32 => return Err(TRUNC),
                vtype::U32 if x < 0.0 => return Err(SIGN),
                vtype::U32 => Atom::U32(x as u32),
                vtype::I64 if x >= lim64 => return Err(TRUNC),
                vtype::I64 => Atom::I64(x as i64),
                vtype::U64 if x >= limu64 => return Err(TRUNC),
                vtype::U64 if x < 0.0 => return Err(SIGN),
                vtype::U64 => Atom::U64(x as u64),
                _ => return Err(CONV),
            })
        };
    let int = |x: i128| -> Result<Atom<'static>, i32> {
        Ok(match to {
            vtype::I32 if x > i128::from(i32::MAX) => return Err(TRUNC),
            vtype::I32 => Atom::I32(x as i32),
            vtype::U32 if x > i128::from(u32::MAX) => return Err(TRUNC),
            vtype::U32 if x < 0 => return Err(SIGN),
            vtype::U32 => Atom::U32(x as u32),
            vtype::I64 if x > i128::from(i64::MAX) => return Err(TRUNC),
            vtype::I64 => Atom::I64(x as i64),
            vtype::U64 if x < 0 => return Err(SIGN),
            vtype::U64 => Atom::U64(x as u64),
            vtype::FLOAT => Atom::Float(x as f32),
            vtype::DOUBLE => Atom::Double(x as f64),
            _ => return Err(CONV),
        })
    };
    match *a {
        Atom::I32(x) => int(i128::from(x)),
        Atom::U32(x) => int(i128::from(x)),
        Atom::I64(x) => int(i128::from(x)),
        Atom::U64(x) => int(i128::from(x)),
        Atom::Float(f) => match to {
            vtype::FLOAT => Ok(Atom::Float(f)),
            vtype::DOUBLE => Ok(Atom::Double(f64::from(f))),
            // compared as floats: the limits rounded to float first
            _ => real(
                f64::from(f),
                f64::from(0x7fff_ffff_u32 as f32),
                f64::from(u32::MAX as f32),
                i64::MAX as f32 as f64,
                u64::MAX as f32 as f64,
            ),
        },
        Atom::Double(d) => match to {
            vtype::FLOAT => Ok(Atom::Float(d as f32)),
            vtype::DOUBLE => Ok(Atom::Double(d)),
            _ => real(
                d,
                f64::from(0x7fff_ffff_u32),
                f64::from(u32::MAX),
                i64::MAX as f64,
                u64::MAX as f64,
            ),
        },
        _ => Err(CONV),
    }
}

/// A numeric value stored as libpcp's `__pmStuffValue` stores it: 32-bit
/// integers in the value word, the others in a block of their own type (the
/// bytes in network order); `None` for a value that is not numeric.
pub fn stuff(a: &Atom<'_>) -> Option<crate::codec::result::OwnedValue> {
    use crate::codec::result::{BlockData, OwnedValue};
    let block = |ty: i32, b: &[u8]| OwnedValue::Block {
        vtype: ty as u8,
        data: BlockData::from_slice(b),
    };
    Some(match *a {
        Atom::I32(x) => OwnedValue::Insitu(x as u32),
        Atom::U32(x) => OwnedValue::Insitu(x),
        Atom::I64(x) => block(vtype::I64, &x.to_be_bytes()),
        Atom::U64(x) => block(vtype::U64, &x.to_be_bytes()),
        Atom::Float(x) => block(vtype::FLOAT, &x.to_bits().to_be_bytes()),
        Atom::Double(x) => block(vtype::DOUBLE, &x.to_bits().to_be_bytes()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stuffed_values_extract_as_they_were() {
        for a in [
            Atom::I32(-5),
            Atom::U32(7),
            Atom::I64(-(1 << 40)),
            Atom::U64(u64::MAX),
            Atom::Float(1.25),
            Atom::Double(-2.5e100),
        ] {
            let ty = match a {
                Atom::I32(_) => vtype::I32,
                Atom::U32(_) => vtype::U32,
                Atom::I64(_) => vtype::I64,
                Atom::U64(_) => vtype::U64,
                Atom::Float(_) => vtype::FLOAT,
                _ => vtype::DOUBLE,
            };
            let v = stuff(&a).expect("numeric");
            assert_eq!(extract(ty, &v.as_value()), Some(a.clone()));
        }
        assert_eq!(stuff(&Atom::String("s".into())), None);
    }

    #[test]
    fn conversions_as_pm_extract_value_makes_them() {
        use crate::error::{PM_ERR_CONV, PM_ERR_SIGN, PM_ERR_TRUNC};
        assert_eq!(convert(&Atom::I32(-1), vtype::U64), Err(PM_ERR_SIGN));
        assert_eq!(convert(&Atom::I32(-1), vtype::I64), Ok(Atom::I64(-1)));
        assert_eq!(convert(&Atom::U32(u32::MAX), vtype::I32), Err(PM_ERR_TRUNC));
        assert_eq!(convert(&Atom::U32(7), vtype::U64), Ok(Atom::U64(7)));
        assert_eq!(convert(&Atom::I64(1 << 40), vtype::I32), Err(PM_ERR_TRUNC));
        // only the upper bound is looked at going to a signed 32-bit value
        assert_eq!(
            convert(&Atom::I64(-(1 << 40)), vtype::I32),
            Ok(Atom::I32(0))
        );
        assert_eq!(convert(&Atom::U64(u64::MAX), vtype::I64), Err(PM_ERR_TRUNC));
        assert_eq!(convert(&Atom::Double(2.9), vtype::I32), Ok(Atom::I32(2)));
        assert_eq!(convert(&Atom::Double(-2.9), vtype::I32), Ok(Atom::I32(-2)));
        assert_eq!(convert(&Atom::Double(-1.0), vtype::U32), Err(PM_ERR_SIGN));
        assert_eq!(convert(&Atom::Double(3e9), vtype::I32), Err(PM_ERR_TRUNC));
        assert_eq!(
            convert(&Atom::Float(1.5), vtype::DOUBLE),
            Ok(Atom::Double(1.5))
        );
        assert_eq!(
            convert(&Atom::Float(2147483520.0), vtype::I32),
            Ok(Atom::I32(2147483520))
        );
        assert_eq!(
            convert(&Atom::Float(2147483648.0), vtype::I32),
            Err(PM_ERR_TRUNC)
        );
        assert_eq!(
            convert(&Atom::String("x".into()), vtype::I32),
            Err(PM_ERR_CONV)
        );
    }

    #[test]
    fn doubles_as_pm_extract_value_gives_them() {
        let e = Err(crate::error::PM_ERR_CONV);
        assert_eq!(
            extract_double(vtype::I32, &Value::Insitu(u32::MAX)),
            Ok(-1.0)
        );
        assert_eq!(
            extract_double(vtype::U32, &Value::Insitu(u32::MAX)),
            Ok(4294967295.0)
        );
        assert_eq!(extract_double(vtype::U64, &Value::Insitu(1)), e);
        let b = |bt: i32, data: &'static [u8]| Value::Block {
            vtype: bt as u8,
            data,
        };
        assert_eq!(
            extract_double(vtype::U64, &b(vtype::U64, &[0, 0, 0, 0, 0, 0, 0, 5])),
            Ok(5.0)
        );
        assert_eq!(
            extract_double(vtype::U64, &b(vtype::I64, &[0; 8])),
            e,
            "another type"
        );
        assert_eq!(
            extract_double(vtype::U32, &b(vtype::U32, &[0, 0, 0, 5])),
            e,
            "32 bits in a block"
        );
        assert_eq!(
            extract_double(vtype::DOUBLE, &b(vtype::DOUBLE, &[0; 4])),
            e,
            "short"
        );
    }

    proptest::proptest! {
        #[test]
        fn host_words_are_the_host_bytes(
            bt in 0u8..12,
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
        ) {
            let h = host_bytes(bt, &data);
            let want64 = h.get(..8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
            let want32 = h.get(..4).map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap_or([0; 4])));
            proptest::prop_assert_eq!(host_u64(bt, &data), want64);
            proptest::prop_assert_eq!(host_u32(bt, &data), want32);
        }

        #[test]
        fn numbers_are_what_extract_gives(
            ty in -1i32..12,
            bt in 0u8..12,
            word in proptest::prelude::any::<u32>(),
            insitu in proptest::prelude::any::<bool>(),
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
        ) {
            let v = if insitu { Value::Insitu(word) } else { Value::Block { vtype: bt, data: &data } };
            let want = extract(ty, &v).and_then(|a| a.as_f64());
            if let Some(x) = extract_number(ty, &v) {
                proptest::prop_assert_eq!(Some(x.to_bits()), want.map(f64::to_bits));
            }
        }
    }

    #[test]
    fn extracts_each_numeric_type() {
        assert_eq!(
            extract(vtype::I32, &Value::Insitu(u32::MAX)),
            Some(Atom::I32(-1))
        );
        assert_eq!(extract(vtype::U32, &Value::Insitu(7)), Some(Atom::U32(7)));
        let d = 2.5f64.to_bits().to_be_bytes();
        let b = Value::Block {
            vtype: vtype::DOUBLE as u8,
            data: &d,
        };
        assert_eq!(extract(vtype::DOUBLE, &b), Some(Atom::Double(2.5)));
        assert_eq!(
            extract(vtype::U64, &b).and_then(|a| a.as_f64()),
            Some(2.5f64.to_bits() as f64)
        );
        assert_eq!(extract(vtype::I64, &Value::Insitu(1)), None);
        let s = b"abc\0\0";
        let b = Value::Block {
            vtype: vtype::STRING as u8,
            data: s,
        };
        assert_eq!(extract(vtype::STRING, &b), Some(Atom::String("abc".into())));
        let text = extract_text(&b);
        assert!(
            matches!(text, Some(std::borrow::Cow::Borrowed("abc"))),
            "{text:?}"
        );
        assert_eq!(extract_text(&Value::Insitu(7)), None);
        let short = Value::Block {
            vtype: vtype::U64 as u8,
            data: &d[..4],
        };
        assert_eq!(extract(vtype::U64, &short), None);
    }
}

#[cfg(test)]
mod decimal_tests {
    #[test]
    fn floats_widen_to_their_shortest_decimal() {
        assert_eq!(super::float_as_decimal(0.83), 0.83);
        assert_eq!(super::float_as_decimal(6666.89), 6666.89);
        assert_eq!(super::float_as_decimal(1e20), 1e20);
        assert!(super::float_as_decimal(f32::NAN).is_nan());
    }
}
