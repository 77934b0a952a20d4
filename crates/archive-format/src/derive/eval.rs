//! A derived metric's values at each fetch, from its operands' values, as
//! libpcp's `eval_expr` computes them. So far: numbers, metrics, the binary
//! operators (instances matched as libpcp matches them), negation, `instant`,
//! the aggregates (`avg count max min sum`), `scalar`, `defined` and an instance
//! by name; the rest ([`Unsupported`]) is to come.

use super::check::{Kind, Part};
use super::value::{bin_op, Num};
use super::{Func, PatternKind};
use crate::types::InDom;

/// One value of a part: its instance (-1 for none) and its number.
pub type Value = (i32, Num);

/// What a part has at a fetch: its values, or (`Err`) libpcp's count of none
/// (0: no values) or error code.
pub type Values = Result<Vec<Value>, i32>;

/// A kind of part evaluation does not have yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub &'static str);

/// What evaluation asks of the fetch: a metric's values, and an instance's
/// number by its name in a domain.
pub trait Operands {
    fn values(&self, metric: &str) -> Values;
    fn instance(&self, indom: InDom, name: &str) -> Option<i32>;
}

/// Whether evaluation can take `p` (every part of it).
pub fn supported(p: &Part) -> Result<(), Unsupported> {
    match &p.kind {
        Kind::Const(_) | Kind::Metric(_) | Kind::Defined(_) | Kind::Anon => Ok(()),
        Kind::Binary { left, right, .. } => supported(left).and(supported(right)),
        Kind::Neg(e) | Kind::Scalar(e) => supported(e),
        Kind::Func { func, .. } => match func {
            Func::Delta | Func::Rate => Err(Unsupported("delta() and rate()")),
            _ => Ok(()),
        },
        Kind::Filter { pattern, expr } if pattern.kind == PatternKind::Exact => supported(expr),
        Kind::Filter { .. } => Err(Unsupported("matchinst()")),
        Kind::Not(_) => Err(Unsupported("!")),
        Kind::Ternary { .. } => Err(Unsupported("?:")),
        Kind::Rescale { .. } => Err(Unsupported("rescale()")),
    }
}

/// The values of `p` at this fetch (the parts [`supported`] takes).
pub fn eval(p: &Part, ops: &dyn Operands) -> Values {
    match &p.kind {
        Kind::Const(text) => Ok(vec![(-1, Num::constant(text, p.desc.vtype))]),
        Kind::Metric(name) => ops.values(name),
        Kind::Defined(d) => Ok(vec![(-1, Num::U32(u32::from(*d)))]),
        Kind::Anon => Err(0),
        Kind::Neg(e) => {
            let vals = eval(e, ops)?;
            Ok(vals
                .into_iter()
                .map(|(i, v)| (i, negate(v, e.desc.vtype)))
                .collect())
        }
        Kind::Scalar(e) => {
            let vals = eval(e, ops)?;
            Ok(vals
                .first()
                .map(|&(_, v)| vec![(-1, v)])
                .unwrap_or_default())
        }
        Kind::Filter { pattern, expr } => {
            let vals = eval(expr, ops)?;
            let Some(id) = ops.instance(expr.desc.indom, &pattern.text) else {
                return Err(0);
            };
            let picked: Vec<Value> = vals.into_iter().filter(|(i, _)| *i == id).take(1).collect();
            if picked.is_empty() {
                Err(0)
            } else {
                Ok(picked)
            }
        }
        Kind::Func { func, metric } => aggregate(*func, metric, p.desc.vtype, ops),
        Kind::Binary { op, left, right } => {
            let (l, r) = (eval(left, ops), eval(right, ops));
            let (Ok(l), Ok(r)) = (l, r) else {
                return Err(0);
            };
            Ok(binary(p, *op, (left, &l), (right, &r)))
        }
        _ => Err(0),
    }
}

/// `-x` as libpcp negates: unsigned operands become signed.
fn negate(v: Num, ty: i32) -> Num {
    match (v, ty) {
        (Num::I32(x), _) => Num::I32(x.wrapping_neg()),
        (Num::U32(x), _) => Num::I32((x as i32).wrapping_neg()),
        (Num::I64(x), _) => Num::I64(x.wrapping_neg()),
        (Num::U64(x), _) => Num::I64((x as i64).wrapping_neg()),
        (Num::F32(x), _) => Num::F32(-x),
        (Num::F64(x), _) => Num::F64(-x),
    }
}

/// A function of one metric at this fetch.
fn aggregate(func: Func, metric: &Part, ty: i32, ops: &dyn Operands) -> Values {
    let vals = match eval(metric, ops) {
        Ok(v) => v,
        // count() of a metric without values is 0
        Err(_) if func == Func::Count => return Ok(vec![(-1, Num::U32(0))]),
        Err(e) => return Err(e),
    };
    let n = vals.len();
    let one = |v: Num| Ok(vec![(-1, v)]);
    match func {
        Func::Count => one(Num::U32(n as u32)),
        Func::Instant => Ok(vals),
        Func::Avg => {
            // a float, each value divided by the count before it is added
            let mut f = 0f32;
            for (_, v) in &vals {
                f += (v.as_f64() as f32) / n as f32;
            }
            one(Num::F32(f))
        }
        Func::Sum => {
            let zero = Num::constant("0", ty);
            let sum = vals.iter().fold(zero, |acc, &(_, v)| {
                bin_op(ty, super::Op::Plus, acc, (1.0, 1.0), v.to(ty), (1.0, 1.0))
            });
            one(sum)
        }
        Func::Max | Func::Min => {
            let mut best: Option<Num> = None;
            for &(_, v) in &vals {
                let v = v.to(ty);
                let better = match best {
                    None => true,
                    Some(b) if func == Func::Max => b.as_f64() < v.as_f64(),
                    Some(b) => b.as_f64() > v.as_f64(),
                };
                if better {
                    best = Some(v);
                }
            }
            match best {
                Some(b) => one(b),
                None => Err(0),
            }
        }
        _ => Err(0),
    }
}

/// A binary operator over its operands' values, instance by instance as libpcp
/// pairs them: a singular operand goes with every instance of the other; two
/// operands with instances pair by instance, the right one searched from the
/// start when its next value is not the left's instance.
fn binary(
    p: &Part,
    op: super::Op,
    (lp, l): (&Part, &[Value]),
    (rp, r): (&Part, &[Value]),
) -> Vec<Value> {
    let (l_many, r_many) = (!lp.desc.indom.is_null(), !rp.desc.indom.is_null());
    let relational = !matches!(
        op,
        super::Op::Plus | super::Op::Minus | super::Op::Star | super::Op::Slash
    );
    let apply = |a: Num, b: Num| {
        if relational {
            let ty = promote(lp.desc.vtype, rp.desc.vtype);
            let res = bin_op(ty, op, a, (lp.mul, lp.div), b, (rp.mul, rp.div));
            Num::U32(res.as_f64() as u32)
        } else {
            bin_op(p.desc.vtype, op, a, (lp.mul, lp.div), b, (rp.mul, rp.div))
        }
    };
    let mut out = Vec::new();
    match (l_many, r_many) {
        (false, _) => {
            for &(i, b) in r {
                out.push((i, apply(l[0].1, b)));
            }
        }
        (true, false) => {
            for &(i, a) in l {
                out.push((i, apply(a, r[0].1)));
            }
        }
        (true, true) => {
            let mut j = 0;
            for &(i, a) in l {
                if j >= r.len() || r[j].0 != i {
                    match r.iter().position(|(ri, _)| *ri == i) {
                        Some(k) => j = k,
                        None => continue,
                    }
                }
                out.push((i, apply(a, r[j].1)));
                j += 1;
                if j >= r.len() {
                    j = 0;
                }
            }
        }
    }
    out
}

fn promote(a: i32, b: i32) -> i32 {
    let rank = |t: i32| super::NUMERIC.iter().position(|&o| o == t).unwrap_or(0);
    super::NUMERIC[rank(a).max(rank(b))]
}

/// The value of an archive's atom as evaluation holds it (numbers only).
pub fn num_of(a: &crate::atom::Atom<'_>) -> Option<Num> {
    use crate::atom::Atom;
    Some(match a {
        Atom::I32(v) => Num::I32(*v),
        Atom::U32(v) => Num::U32(*v),
        Atom::I64(v) => Num::I64(*v),
        Atom::U64(v) => Num::U64(*v),
        Atom::Float(v) => Num::F32(*v),
        Atom::Double(v) => Num::F64(*v),
        _ => return None,
    })
}
