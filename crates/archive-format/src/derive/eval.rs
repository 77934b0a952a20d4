//! A derived metric's values at each fetch, from its operands' values, as
//! libpcp's `eval_expr` computes them: numbers, metrics, the binary
//! operators (instances matched as libpcp matches them), negation, `instant`,
//! `delta` and `rate` (each metric's last values and each function's last
//! time kept by the [`Evaluator`]), the aggregates (`avg count max min sum`),
//! `scalar`, `defined`, an instance by name or by `matchinst()`, `!`, `?:` and
//! `rescale`.

use super::check::{promote, Kind, Part};
use super::value::{bin_op, Num};
use super::{Func, Pattern, PatternKind};
use crate::types::{vtype, InDom, Timestamp};

/// One value of a part: its instance (-1 for none) and its number.
pub type Value = (i32, Num);

/// What a part has at a fetch: its values, or (`Err`) libpcp's count of none
/// (0: no values) or error code.
pub type Values = Result<Vec<Value>, i32>;

/// What evaluation asks of the fetch: a metric's values, and an instance's
/// number by its name in a domain.
pub trait Operands {
    fn values(&self, metric: &str) -> Values;
    fn instance(&self, indom: InDom, name: &str) -> Option<i32>;
    /// An instance's name in a domain at the fetch's time.
    fn instance_name(&self, indom: InDom, inst: i32) -> Option<String>;
    /// The fetch's time.
    fn stamp(&self) -> Timestamp;
}

/// What evaluation keeps of a part from one fetch to the next: a metric's
/// values of this fetch and the last (for `delta()` and `rate()`), and the
/// times of a `delta()` or `rate()`.
#[derive(Debug, Clone, Default)]
struct State {
    /// A filter's decisions: `name[inst]`'s instance once found, each
    /// instance's match of a `matchinst()` once made (libpcp decides each once).
    exact: Option<i32>,
    matched: std::collections::HashMap<i32, bool>,
    /// A `matchinst()`'s pattern, compiled at its first fetch.
    regex: Option<std::sync::Arc<super::regex::Regex>>,
    numval: i32,
    vals: Vec<Value>,
    last_numval: i32,
    last_vals: Vec<Value>,
    stamp: Timestamp,
    last_stamp: Timestamp,
}

/// A derived metric's evaluation, fetch after fetch: its checked expression and
/// what each part keeps (parts numbered in pre-order).
#[derive(Debug, Clone)]
pub struct Evaluator {
    part: Part,
    states: Vec<State>,
}

fn size(p: &Part) -> usize {
    1 + match &p.kind {
        Kind::Binary { left, right, .. } => size(left) + size(right),
        Kind::Ternary { guard, yes, no } => size(guard) + size(yes) + size(no),
        Kind::Neg(e) | Kind::Not(e) | Kind::Scalar(e) => size(e),
        Kind::Filter { expr, .. } | Kind::Rescale { expr, .. } => size(expr),
        Kind::Func { metric, .. } => size(metric),
        _ => 0,
    }
}

impl Evaluator {
    pub fn new(part: Part) -> Evaluator {
        let n = size(&part);
        Evaluator {
            part,
            states: vec![State::default(); n],
        }
    }

    /// The derived metric's values at this fetch.
    pub fn evaluate(&mut self, ops: &dyn Operands) -> Values {
        eval(&self.part, 0, &mut self.states, ops)
    }
}

/// The values of `p` (part number `id`) at this fetch.
fn eval(p: &Part, id: usize, st: &mut [State], ops: &dyn Operands) -> Values {
    match &p.kind {
        Kind::Const(text) => Ok(vec![(-1, Num::constant(text, p.desc.vtype))]),
        Kind::Metric(name) => {
            let s = &mut st[id];
            let got = ops.values(name);
            // as libpcp, this fetch's values become the last
            s.last_numval = s.numval;
            s.last_vals = std::mem::take(&mut s.vals);
            match got {
                Ok(v) => {
                    s.numval = v.len() as i32;
                    s.vals = v.clone();
                    Ok(v)
                }
                Err(n) => {
                    s.numval = n;
                    Err(n)
                }
            }
        }
        Kind::Defined(d) => Ok(vec![(-1, Num::U32(u32::from(*d)))]),
        Kind::Anon => Err(0),
        Kind::Neg(e) => {
            let vals = eval(e, id + 1, st, ops)?;
            Ok(vals
                .into_iter()
                .map(|(i, v)| (i, negate(v, e.desc.vtype)))
                .collect())
        }
        Kind::Scalar(e) => {
            let vals = eval(e, id + 1, st, ops)?;
            Ok(vals
                .first()
                .map(|&(_, v)| vec![(-1, v)])
                .unwrap_or_default())
        }
        Kind::Filter { pattern, expr } => {
            let vals = eval(expr, id + 1, st, ops)?;
            filter(pattern, expr.desc.indom, vals, &mut st[id], ops)
        }
        Kind::Not(e) => {
            let vals = eval(e, id + 1, st, ops)?;
            let ty = e.desc.vtype;
            Ok(vals.into_iter().map(|(i, v)| (i, not(v, ty))).collect())
        }
        Kind::Rescale { expr, units } => {
            let vals = eval(expr, id + 1, st, ops)?;
            let from = expr.desc.units;
            let out: Vec<Value> = vals
                .into_iter()
                .filter_map(|(i, v)| Some((i, super::value::conv_scale(v, from, *units).ok()?)))
                .collect();
            if out.is_empty() {
                Err(0)
            } else {
                Ok(out)
            }
        }
        Kind::Ternary { guard, yes, no } => {
            let g = eval(guard, id + 1, st, ops);
            let yes_id = id + 1 + size(guard);
            let y = eval(yes, yes_id, st, ops);
            let n = eval(no, yes_id + size(yes), st, ops);
            // an error of the guard first, then of the operands
            let g = g?;
            let (y, n) = (y?, n?);
            Ok(ternary(&g, (yes, &y), (no, &n)))
        }
        Kind::Func {
            func: func @ (Func::Delta | Func::Rate),
            metric,
        } => {
            // an error (not "no values") ends it before its times move on
            if let Err(n) = eval(metric, id + 1, st, ops) {
                if n < 0 {
                    return Err(n);
                }
            }
            let (me, rest) = st.split_at_mut(id + 1);
            let s = &mut me[id];
            s.last_stamp = s.stamp;
            s.stamp = ops.stamp();
            let m = &rest[0];
            let elapsed = s.stamp.sub_f64(s.last_stamp);
            change(*func, metric, m, elapsed)
        }
        Kind::Func { func, metric } => aggregate(*func, metric, id, st, p.desc.vtype, ops),
        Kind::Binary { op, left, right } => {
            let l = eval(left, id + 1, st, ops);
            let r = eval(right, id + 1 + size(left), st, ops);
            let (Ok(l), Ok(r)) = (l, r) else {
                return Err(0);
            };
            Ok(binary(p, *op, (left, &l), (right, &r)))
        }
    }
}

/// `delta()` or `rate()` of a metric from its values of this fetch and the
/// last, instance by instance as libpcp pairs them; `elapsed`: the seconds
/// between the two fetches.
fn change(func: Func, metric: &Part, m: &State, elapsed: f64) -> Values {
    let numval = m.numval.min(m.last_numval);
    if numval <= 0 {
        return Err(numval);
    }
    let ty = metric.desc.vtype;
    let units = metric.desc.units;
    let mut out = Vec::new();
    for (k, &(inst, cur)) in m.vals.iter().enumerate() {
        let mut j = if k >= m.last_vals.len() { 0 } else { k };
        if m.last_vals.get(j).map(|v| v.0) != Some(inst) {
            match m.last_vals.iter().position(|v| v.0 == inst) {
                Some(found) => j = found,
                None => continue,
            }
        }
        let last = m.last_vals[j].1;
        let v = if func == Func::Delta {
            difference(cur, last, ty)
        } else {
            let mut d = difference_real(cur, last) / elapsed;
            if units.dim_time() == 1 {
                d *= time_scale(units.scale_time());
            }
            Num::F64(d)
        };
        out.push((inst, v));
    }
    Ok(out)
}

/// delta(): the result's type is the operand's, U32 made 64-bit and U64 a
/// double.
fn difference(cur: Num, last: Num, ty: i32) -> Num {
    match (cur, last) {
        (Num::I32(a), Num::I32(b)) => Num::I32(a.wrapping_sub(b)),
        (Num::U32(a), Num::U32(b)) => Num::I64(i64::from(a) - i64::from(b)),
        (Num::I64(a), Num::I64(b)) => Num::I64(a.wrapping_sub(b)),
        (Num::U64(a), Num::U64(b)) => Num::F64(a as f64 - b as f64),
        (Num::F32(a), Num::F32(b)) => Num::F32(a - b),
        (Num::F64(a), Num::F64(b)) => Num::F64(a - b),
        _ => Num::constant("0", ty),
    }
}

/// rate()'s difference: in the operand's type (integers wrapping), then a double.
fn difference_real(cur: Num, last: Num) -> f64 {
    match (cur, last) {
        (Num::I32(a), Num::I32(b)) => f64::from(a.wrapping_sub(b)),
        (Num::U32(a), Num::U32(b)) => f64::from(a.wrapping_sub(b)),
        (Num::I64(a), Num::I64(b)) => a.wrapping_sub(b) as f64,
        (Num::U64(a), Num::U64(b)) => a.wrapping_sub(b) as f64,
        (Num::F32(a), Num::F32(b)) => f64::from(a - b),
        (Num::F64(a), Num::F64(b)) => a - b,
        _ => 0.0,
    }
}

/// A time counter's rate as a utilisation: its scale to seconds.
fn time_scale(scale: u32) -> f64 {
    const SEC: u32 = 3;
    let mut f = 1.0;
    if scale > SEC {
        for _ in SEC..scale {
            f *= 60.0;
        }
    } else {
        for _ in scale..SEC {
            f /= 1000.0;
        }
    }
    f
}

/// `name[inst]` (its instance found once) or `matchinst()` (each instance's
/// name matched once, its name up to the first space) over `vals`.
fn filter(
    pattern: &Pattern,
    indom: InDom,
    vals: Vec<Value>,
    s: &mut State,
    ops: &dyn Operands,
) -> Values {
    if pattern.kind == PatternKind::Regex {
        let re = match &s.regex {
            Some(re) => re.clone(),
            None => {
                let Ok(re) = super::regex::Regex::new(&pattern.text) else {
                    return Err(0);
                };
                s.regex.insert(std::sync::Arc::new(re)).clone()
            }
        };
        let mut out = Vec::new();
        for (i, v) in vals {
            let m = *s
                .matched
                .entry(i)
                .or_insert_with(|| match ops.instance_name(indom, i) {
                    Some(name) => {
                        let name = name.split(' ').next().unwrap_or_default();
                        re.is_match(name) != pattern.invert
                    }
                    None => false,
                });
            if m {
                out.push((i, v));
            }
        }
        return if out.is_empty() { Err(0) } else { Ok(out) };
    }
    let inst = match s.exact {
        Some(i) => i,
        None => {
            let Some(i) = ops.instance(indom, &pattern.text) else {
                return Err(0);
            };
            s.exact = Some(i);
            i
        }
    };
    match vals.into_iter().find(|(i, _)| *i == inst) {
        Some(v) => Ok(vec![v]),
        None => Err(0),
    }
}

/// `!x`: 1 where x is 0, else 0, kept as libpcp keeps it, in the value's 32-bit
/// word whatever x's type (read back as that type: a float's or a double's
/// bits).
fn not(v: Num, ty: i32) -> Num {
    let b = u32::from(!v.truth());
    match ty {
        vtype::I32 => Num::I32(b as i32),
        vtype::I64 => Num::I64(i64::from(b)),
        vtype::U64 => Num::U64(u64::from(b)),
        vtype::FLOAT => Num::F32(f32::from_bits(b)),
        vtype::DOUBLE => Num::F64(f64::from_bits(u64::from(b))),
        _ => Num::U32(b),
    }
}

/// `guard ? yes : no`, value by value: as many as the larger operand has, each
/// from the operand the guard's value of that place picks (the last picked
/// where the guard has fewer), the instance from the operand with instances.
fn ternary(g: &[Value], (yp, y): (&Part, &[Value]), (np, n): (&Part, &[Value])) -> Vec<Value> {
    let count = y.len().max(n.len());
    let insts = if yp.desc.indom.is_null() && !np.desc.indom.is_null() {
        n
    } else {
        y
    };
    let mut pick_yes = true;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        if let Some(&(_, gv)) = g.get(i) {
            pick_yes = gv.truth();
        }
        let from = if pick_yes { y } else { n };
        let v = from.get(i).or(from.first()).map(|&(_, v)| v);
        let inst = insts.get(i).map_or(-1, |&(inst, _)| inst);
        if let Some(v) = v {
            out.push((inst, v));
        }
    }
    out
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

/// A function (part `id`) of one metric (part `id + 1`) at this fetch.
fn aggregate(
    func: Func,
    metric: &Part,
    id: usize,
    st: &mut [State],
    ty: i32,
    ops: &dyn Operands,
) -> Values {
    let vals = match eval(metric, id + 1, st, ops) {
        Ok(v) => v,
        // count() of a metric without values, or in error, is 0
        Err(_) if func == Func::Count => return Ok(vec![(-1, Num::U32(0))]),
        Err(e) if e < 0 || func == Func::Instant => return Err(e),
        // without values an aggregate is still one value (a sum of none is 0)
        Err(_) => Vec::new(),
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
            // of no values, libpcp's value is the last it had
            let b = best
                .or_else(|| st[id].vals.first().map(|&(_, v)| v))
                .unwrap_or(Num::constant("0", ty));
            st[id].vals = vec![(-1, b)];
            one(b)
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
