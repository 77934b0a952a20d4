//! Values as a derived metric's evaluation holds them (libpcp's `pmAtomValue`
//! for the numeric types), and its arithmetic: operands promoted to the result's
//! type, scaled where their units differ in scale (a result then is a DOUBLE),
//! integers wrapping as C's do.

use super::Op;
use crate::types::vtype;

/// A numeric value of one of the six numeric types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl Num {
    /// The type code of the value.
    pub fn vtype(self) -> i32 {
        match self {
            Num::I32(_) => vtype::I32,
            Num::U32(_) => vtype::U32,
            Num::I64(_) => vtype::I64,
            Num::U64(_) => vtype::U64,
            Num::F32(_) => vtype::FLOAT,
            Num::F64(_) => vtype::DOUBLE,
        }
    }

    /// The value converted to type `ty` as C converts between the types.
    pub fn to(self, ty: i32) -> Num {
        match ty {
            vtype::I32 => Num::I32(self.as_i64() as i32),
            vtype::U32 => Num::U32(self.as_i64() as u32),
            vtype::I64 => Num::I64(self.as_i64()),
            vtype::U64 => Num::U64(match self {
                Num::U64(v) => v,
                Num::F32(f) => f as u64,
                Num::F64(d) => d as u64,
                other => other.as_i64() as u64,
            }),
            vtype::FLOAT => Num::F32(match self {
                Num::U64(v) => v as f32,
                Num::F64(d) => d as f32,
                Num::F32(f) => f,
                other => other.as_i64() as f32,
            }),
            _ => Num::F64(self.as_f64()),
        }
    }

    fn as_i64(self) -> i64 {
        match self {
            Num::I32(v) => i64::from(v),
            Num::U32(v) => i64::from(v),
            Num::I64(v) => v,
            Num::U64(v) => v as i64,
            Num::F32(f) => f as i64,
            Num::F64(d) => d as i64,
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Num::I32(v) => f64::from(v),
            Num::U32(v) => f64::from(v),
            Num::I64(v) => v as f64,
            Num::U64(v) => v as f64,
            Num::F32(f) => f64::from(f),
            Num::F64(d) => d,
        }
    }

    /// Whether the value is not zero (a guard's or a boolean's truth).
    pub fn truth(self) -> bool {
        match self {
            Num::F32(f) => f != 0.0,
            Num::F64(d) => d != 0.0,
            other => other.as_i64() != 0,
        }
    }

    /// A constant as written, read as libpcp reads it for its type (`atoi` for the
    /// 32-bit types, `strtoll`/`strtoull` for the 64-bit ones, `atof` for the
    /// others).
    pub fn constant(text: &str, ty: i32) -> Num {
        let digits: String = text.chars().take_while(|c| c.is_ascii_digit()).collect();
        let int = || digits.parse::<i64>().unwrap_or(i64::MAX);
        let real = || text.parse::<f64>().unwrap_or_else(|_| int() as f64);
        match ty {
            vtype::I32 => Num::I32(int() as i32),
            vtype::U32 => Num::U32(int() as i32 as u32),
            vtype::I64 => Num::I64(int()),
            vtype::U64 => Num::U64(digits.parse::<u64>().unwrap_or(u64::MAX)),
            vtype::FLOAT => Num::F32(real() as f32),
            _ => Num::F64(real()),
        }
    }
}

/// `v` in units `to` from units `from` (`pmConvScale(3)`): whole-number factors,
/// integers rounded to the nearest; `Err` with libpcp's code where it cannot.
pub fn conv_scale(v: Num, from: crate::types::Units, to: crate::types::Units) -> Result<Num, i32> {
    let (mult, div) = crate::unitstr::conv_factors(from, to)?;
    let half = div / 2;
    let int = |x: i64| {
        x.wrapping_mul(mult)
            .wrapping_add(half)
            .checked_div(div)
            .unwrap_or(0)
    };
    Ok(match v {
        Num::I32(x) => Num::I32(int(i64::from(x)) as i32),
        Num::U32(x) => Num::U32(int(i64::from(x)) as u32),
        Num::I64(x) => Num::I64(int(x)),
        Num::U64(x) => Num::U64(
            x.wrapping_mul(mult as u64)
                .wrapping_add(half as u64)
                .checked_div(div as u64)
                .unwrap_or(0),
        ),
        Num::F32(x) => Num::F32(x * (mult as f32 / div as f32)),
        Num::F64(x) => Num::F64(x * (mult as f64 / div as f64)),
    })
}

/// `l op r` with the result in type `ty` (libpcp's `bin_op`): each operand
/// converted to `ty`, a DOUBLE operand divided by its `div` then multiplied by
/// its `mul`; relational and boolean operators give 1 or 0 in `ty`.
pub fn bin_op(
    ty: i32,
    op: Op,
    l: Num,
    (lmul, ldiv): (f64, f64),
    r: Num,
    (rmul, rdiv): (f64, f64),
) -> Num {
    let (a, b) = (l.to(ty), r.to(ty));
    macro_rules! arith {
        ($a:expr, $b:expr, $add:expr, $sub:expr, $mul:expr, $div:expr, $wrap:path) => {
            match op {
                Op::Plus => $wrap($add($a, $b)),
                Op::Minus => $wrap($sub($a, $b)),
                Op::Star => $wrap($mul($a, $b)),
                Op::Slash => $wrap($div($a, $b)),
                Op::Lt => $wrap(bool_as($a < $b)),
                Op::Leq => $wrap(bool_as($a <= $b)),
                Op::Eq => $wrap(bool_as($a == $b)),
                Op::Geq => $wrap(bool_as($a >= $b)),
                Op::Gt => $wrap(bool_as($a > $b)),
                Op::Neq => $wrap(bool_as($a != $b)),
                Op::And => $wrap(bool_as(truthy($a) && truthy($b))),
                Op::Or => $wrap(bool_as(truthy($a) || truthy($b))),
            }
        };
    }
    match (a, b) {
        (Num::I32(a), Num::I32(b)) => arith!(
            a,
            b,
            i32::wrapping_add,
            i32::wrapping_sub,
            i32::wrapping_mul,
            div_int_i32,
            Num::I32
        ),
        (Num::U32(a), Num::U32(b)) => arith!(
            a,
            b,
            u32::wrapping_add,
            u32::wrapping_sub,
            u32::wrapping_mul,
            div_int_u32,
            Num::U32
        ),
        (Num::I64(a), Num::I64(b)) => arith!(
            a,
            b,
            i64::wrapping_add,
            i64::wrapping_sub,
            i64::wrapping_mul,
            div_int_i64,
            Num::I64
        ),
        (Num::U64(a), Num::U64(b)) => arith!(
            a,
            b,
            u64::wrapping_add,
            u64::wrapping_sub,
            u64::wrapping_mul,
            div_int_u64,
            Num::U64
        ),
        (Num::F32(a), Num::F32(b)) => arith!(
            a,
            b,
            |x: f32, y| x + y,
            |x: f32, y| x - y,
            |x: f32, y| x * y,
            |x: f32, y| x / y,
            Num::F32
        ),
        (Num::F64(a), Num::F64(b)) => {
            let (a, b) = ((a / ldiv) * lmul, (b / rdiv) * rmul);
            arith!(
                a,
                b,
                |x: f64, y| x + y,
                |x: f64, y| x - y,
                |x: f64, y| x * y,
                |x: f64, y| x / y,
                Num::F64
            )
        }
        // the same type on both sides by construction
        _ => Num::F64(f64::NAN),
    }
}

/// A comparison's truth in any numeric type, as 0 or 1 of it.
fn bool_as<T: From<u8>>(b: bool) -> T {
    T::from(u8::from(b))
}

fn truthy<T: PartialEq + From<u8>>(v: T) -> bool {
    v != T::from(0)
}

// the integer result types never divide (a division's result is a DOUBLE)
fn div_int_i32(a: i32, b: i32) -> i32 {
    a.checked_div(b).unwrap_or(0)
}
fn div_int_u32(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(0)
}
fn div_int_i64(a: i64, b: i64) -> i64 {
    a.checked_div(b).unwrap_or(0)
}
fn div_int_u64(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: (f64, f64) = (1.0, 1.0);

    #[test]
    fn promotion_wrapping_and_scaling() {
        // U32 arithmetic wraps as C's unsigned does
        let r = bin_op(vtype::U32, Op::Minus, Num::U32(1), ONE, Num::U32(2), ONE);
        assert_eq!(r, Num::U32(u32::MAX));
        // an I32 operand promoted to U64
        let r = bin_op(vtype::U64, Op::Plus, Num::I32(-1), ONE, Num::U64(2), ONE);
        assert_eq!(r, Num::U64(1));
        // an operand scaled by the factor map_units gives it (Kbytes to bytes)
        let r = bin_op(
            vtype::DOUBLE,
            Op::Plus,
            Num::U32(2),
            (1024.0, 1.0),
            Num::F64(10.0),
            ONE,
        );
        assert_eq!(r, Num::F64(2058.0));
        let r = bin_op(vtype::DOUBLE, Op::Slash, Num::U32(1), ONE, Num::U32(4), ONE);
        assert_eq!(r, Num::F64(0.25));
    }

    #[test]
    fn comparisons_and_booleans_give_one_or_zero() {
        let r = bin_op(vtype::DOUBLE, Op::Gt, Num::F64(2.5), ONE, Num::U32(2), ONE);
        assert_eq!(r, Num::F64(1.0));
        let r = bin_op(vtype::U32, Op::And, Num::U32(7), ONE, Num::U32(0), ONE);
        assert_eq!(r, Num::U32(0));
        let r = bin_op(vtype::I32, Op::Or, Num::I32(0), ONE, Num::I32(-3), ONE);
        assert_eq!(r, Num::I32(1));
    }

    #[test]
    fn constants_as_libpcp_reads_them() {
        assert_eq!(Num::constant("42", vtype::U32), Num::U32(42));
        // atoi of a number past i32: strtol's long, cut to an int
        assert_eq!(Num::constant("4294967295", vtype::U32), Num::U32(u32::MAX));
        assert_eq!(Num::constant("1.5", vtype::DOUBLE), Num::F64(1.5));
        assert_eq!(Num::constant(".5", vtype::FLOAT), Num::F32(0.5));
        assert_eq!(Num::constant("7", vtype::U64), Num::U64(7));
        assert!(!Num::constant("0", vtype::I32).truth());
        assert!(Num::constant("0.5", vtype::DOUBLE).truth());
    }
}
