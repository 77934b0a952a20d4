//! A derived metric's expression bound to a context's metrics and checked as
//! libpcp checks it when a context is made: each part's descriptor (type,
//! semantics, instance domain, units), the scale conversions between operands,
//! and libpcp's semantic errors (`Semantic error: derived metric NAME: ...`).
//!
//! libpcp compares a descriptor's type with two node numbers in the relational
//! operators' dimension check (a U32 operand passes as a constant would); that is
//! kept, as are its other rules, so that the same expressions are accepted.

use super::{Func, Node, Op, Pattern};
use crate::types::{sem, vtype, Desc, InDom, PmId, Units};

/// A part of a checked expression: what it is, its descriptor, and the factors
/// its values are multiplied and divided by before its parent uses them.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub kind: Kind,
    pub desc: Desc,
    pub mul: f64,
    pub div: f64,
}

/// What a part is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A number as written (a U32 or a DOUBLE by its descriptor).
    Const(String),
    Metric(String),
    Filter {
        pattern: Pattern,
        expr: Box<Part>,
    },
    Binary {
        op: Op,
        left: Box<Part>,
        right: Box<Part>,
    },
    Neg(Box<Part>),
    Not(Box<Part>),
    Ternary {
        guard: Box<Part>,
        yes: Box<Part>,
        no: Box<Part>,
    },
    Func {
        func: Func,
        metric: Box<Part>,
    },
    /// `defined(name)`: whether the context had the metric.
    Defined(bool),
    Anon,
    Rescale {
        expr: Box<Part>,
        units: Units,
    },
    Scalar(Box<Part>),
}

/// Why a derived metric is not in a context: an operand the context does not
/// have (libpcp says nothing), or a semantic error (its message).
#[derive(Debug, Clone, PartialEq)]
pub enum Unavailable {
    Operand(String),
    Semantics(String),
}

/// Node numbers of libpcp's that its relational check compares types with.
const N_INTEGER: i32 = 1;
const N_DOUBLE: i32 = 16;

fn arithmetic(ty: i32) -> bool {
    super::NUMERIC.contains(&ty)
}

fn part(kind: Kind, desc: Desc) -> Part {
    Part {
        kind,
        desc,
        mul: 1.0,
        div: 1.0,
    }
}

fn constant_desc(vtype: i32, sem: i32, units: Units) -> Desc {
    Desc {
        pmid: PmId::NULL,
        vtype,
        indom: InDom::NULL,
        sem,
        units,
    }
}

/// Binds `node`, the expression of the derived metric `name`, to the metrics
/// `lookup` finds by name, and checks it.
pub fn check(
    name: &str,
    node: &Node,
    lookup: &dyn Fn(&str) -> Option<Desc>,
) -> Result<Part, Unavailable> {
    let mut p = bind(node, lookup)?;
    Checker { name }.check(&mut p)?;
    Ok(p)
}

/// The parts with the descriptors of the metrics named (before the checks).
fn bind(node: &Node, lookup: &dyn Fn(&str) -> Option<Desc>) -> Result<Part, Unavailable> {
    let b = |n: &Node| bind(n, lookup).map(Box::new);
    let metric = |name: &str| {
        let desc = lookup(name).ok_or_else(|| Unavailable::Operand(name.to_string()))?;
        Ok::<_, Unavailable>(part(Kind::Metric(name.to_string()), desc))
    };
    let none = constant_desc(vtype::U32, sem::DISCRETE, Units(0));
    Ok(match node {
        Node::Const { text, desc } => part(
            Kind::Const(text.clone()),
            constant_desc(desc.vtype, desc.sem, desc.units),
        ),
        Node::Name(n) => metric(n)?,
        Node::Filter { pattern, expr } => part(
            Kind::Filter {
                pattern: pattern.clone(),
                expr: b(expr)?,
            },
            none,
        ),
        Node::Binary { op, left, right } => part(
            Kind::Binary {
                op: *op,
                left: b(left)?,
                right: b(right)?,
            },
            none,
        ),
        Node::Neg(e) => part(Kind::Neg(b(e)?), none),
        Node::Not(e) => part(Kind::Not(b(e)?), none),
        Node::Ternary { guard, yes, no } => part(
            Kind::Ternary {
                guard: b(guard)?,
                yes: b(yes)?,
                no: b(no)?,
            },
            none,
        ),
        Node::Func {
            func: Func::Defined,
            metric: m,
        } => part(Kind::Defined(lookup(m).is_some()), none),
        Node::Func { func, metric: m } => part(
            Kind::Func {
                func: *func,
                metric: Box::new(metric(m)?),
            },
            none,
        ),
        Node::Anon(ty) => part(
            Kind::Anon,
            constant_desc(ty.unwrap_or(vtype::U32), sem::DISCRETE, Units(0)),
        ),
        Node::Rescale { expr, units } => part(
            Kind::Rescale {
                expr: b(expr)?,
                units: *units,
            },
            none,
        ),
        Node::Scalar(e) => part(Kind::Scalar(b(e)?), none),
    })
}

/// The checks of one derived metric.
struct Checker<'a> {
    name: &'a str,
}

/// The type of `+ - *` between operands of two types (libpcp's promotion table).
/// The type two numeric operands are promoted to: the later of the two in
/// libpcp's order of promotion.
pub(crate) fn promote(a: i32, b: i32) -> i32 {
    let rank = |t: i32| super::NUMERIC.iter().position(|&o| o == t).unwrap_or(0);
    super::NUMERIC[rank(a).max(rank(b))]
}

/// How a part is named in a semantic error: a number or a metric as written,
/// else `<expr>`.
fn shown(p: &Part) -> String {
    match &p.kind {
        Kind::Const(t) | Kind::Metric(t) => t.clone(),
        _ => "<expr>".into(),
    }
}

fn op_text(op: Op) -> &'static str {
    match op {
        Op::Plus => "+",
        Op::Minus => "-",
        Op::Star => "*",
        Op::Slash => "/",
        Op::Lt => "<",
        Op::Leq => "<=",
        Op::Eq => "==",
        Op::Geq => ">=",
        Op::Gt => ">",
        Op::Neq => "!=",
        Op::And => "&&",
        Op::Or => "||",
    }
}

fn func_text(f: Func) -> &'static str {
    match f {
        Func::Avg => "AVG",
        Func::Count => "COUNT",
        Func::Delta => "DELTA",
        Func::Max => "MAX",
        Func::Min => "MIN",
        Func::Sum => "SUM",
        Func::Rate => "RATE",
        Func::Instant => "INSTANT",
        Func::Defined => "DEFINED",
    }
}

fn same_dims(a: Units, b: Units) -> bool {
    a.dim_count() == b.dim_count() && a.dim_time() == b.dim_time() && a.dim_space() == b.dim_space()
}

/// Count against none, which pmConvScale(3) allows: dimensions differing only so.
fn count_and_none(a: Units, b: Units) -> bool {
    a.dim_time() == 0
        && b.dim_time() == 0
        && a.dim_space() == 0
        && b.dim_space() == 0
        && matches!((a.dim_count(), b.dim_count()), (0, 1) | (1, 0))
}

fn dimensionless(u: Units) -> bool {
    u.dim_count() == 0 && u.dim_time() == 0 && u.dim_space() == 0
}

impl Checker<'_> {
    /// libpcp's report of a semantic error at a part described by `what`.
    fn error(&self, what: &str, why: &str) -> Unavailable {
        Unavailable::Semantics(format!(
            "Semantic error: derived metric {}: {what}: {why}",
            self.name
        ))
    }

    /// check_expr: the parts below first, then this one's descriptor.
    fn check(&self, p: &mut Part) -> Result<(), Unavailable> {
        match &mut p.kind {
            Kind::Const(_) | Kind::Metric(_) | Kind::Anon => Ok(()),
            Kind::Defined(_) => {
                p.desc = constant_desc(vtype::U32, sem::DISCRETE, Units(0));
                Ok(())
            }
            Kind::Filter { expr, .. } => {
                self.check(expr)?;
                p.desc = expr.desc;
                Ok(())
            }
            Kind::Ternary { guard, yes, no } => {
                self.check(guard)?;
                self.check(yes)?;
                self.check(no)?;
                let colon = format!("{} : {}", shown(yes), shown(no));
                let desc = self.colon(yes, no, &colon)?;
                if !arithmetic(guard.desc.vtype) {
                    let what = format!("{} ? {colon}", shown(guard));
                    return Err(self.error(&what, "Non-arithmetic operand for ternary guard"));
                }
                if yes.desc.indom.is_null()
                    && no.desc.indom.is_null()
                    && !guard.desc.indom.is_null()
                {
                    let what = format!("{} ? {colon}", shown(guard));
                    return Err(
                        self.error(&what, "Non-scalar ternary guard with scalar expressions")
                    );
                }
                p.desc = desc;
                Ok(())
            }
            Kind::Binary { op, left, right } => {
                self.check(left)?;
                self.check(right)?;
                let what = format!("{} {} {}", shown(left), op_text(*op), shown(right));
                p.desc = self.binary(*op, left, right, &what)?;
                Ok(())
            }
            Kind::Rescale { expr, units } => {
                self.check(expr)?;
                let what = format!("{} RESCALE {}", shown(expr), units_or_none(*units));
                if !arithmetic(expr.desc.vtype) {
                    return Err(self.error(&what, "Non-arithmetic operand for function"));
                }
                if crate::unitstr::conv_factors(expr.desc.units, *units).is_err() {
                    return Err(self.error(&what, "Incompatible dimensions"));
                }
                p.desc = Desc {
                    units: *units,
                    ..expr.desc
                };
                Ok(())
            }
            Kind::Scalar(e) => {
                self.check(e)?;
                p.desc = Desc {
                    indom: InDom::NULL,
                    ..e.desc
                };
                Ok(())
            }
            Kind::Neg(e) => {
                self.check(e)?;
                if !arithmetic(e.desc.vtype) {
                    let what = format!("- {}", shown(e));
                    return Err(self.error(&what, "Non-arithmetic operand for unary negation"));
                }
                let vtype = match e.desc.vtype {
                    vtype::U32 => vtype::I32,
                    vtype::U64 => vtype::I64,
                    t => t,
                };
                p.desc = Desc {
                    vtype,
                    sem: sem::INSTANT,
                    ..e.desc
                };
                Ok(())
            }
            Kind::Not(e) => {
                // no check of its own: the operand's descriptor, without units
                self.check(e)?;
                p.desc = e.desc;
                Ok(())
            }
            Kind::Func { func, metric } => {
                p.desc = self.function(*func, metric)?;
                Ok(())
            }
        }
    }

    /// The true and false operands of `?:` must have the same metadata; the
    /// result is the true operand's, with the instance domain either has.
    fn colon(&self, yes: &Part, no: &Part, what: &str) -> Result<Desc, Unavailable> {
        let (a, b) = (yes.desc, no.desc);
        let fail = |why: &str| Err(self.error(what, why));
        if a.vtype != b.vtype {
            return fail("Different types for ternary operands");
        }
        if a.indom != b.indom && !a.indom.is_null() && !b.indom.is_null() {
            return fail("Different instance domains for ternary operands");
        }
        let indom = if a.indom.is_null() { b.indom } else { a.indom };
        if a.sem != b.sem {
            return fail("Different semantics for ternary operands");
        }
        let (ua, ub) = (a.units, b.units);
        if ua.dim_space() != ub.dim_space() || ua.scale_space() != ub.scale_space() {
            return fail("Different units or scale (space) for ternary operands");
        }
        if ua.dim_time() != ub.dim_time() || ua.scale_time() != ub.scale_time() {
            return fail("Different units or scale (time) for ternary operands");
        }
        if ua.dim_count() != ub.dim_count() || ua.scale_count() != ub.scale_count() {
            return fail("Different units or scale (count) for ternary operands");
        }
        Ok(Desc { indom, ..a })
    }

    /// A function of a metric: its descriptor from the metric's.
    fn function(&self, func: Func, metric: &Part) -> Result<Desc, Unavailable> {
        let m = metric.desc;
        let mut d = m;
        let what = format!("{}({})", func_text(func), shown(metric));
        match func {
            Func::Count => {
                return Ok(Desc {
                    vtype: vtype::U32,
                    units: Units::new([0, 0, 1], [0, 0], 0),
                    sem: sem::INSTANT,
                    indom: InDom::NULL,
                    ..m
                })
            }
            Func::Instant => {
                if m.sem == sem::COUNTER {
                    d.sem = sem::INSTANT;
                }
                return Ok(d);
            }
            Func::Defined => return Ok(constant_desc(vtype::U32, sem::DISCRETE, Units(0))),
            _ => {}
        }
        if !arithmetic(m.vtype) {
            return Err(self.error(&what, "Non-arithmetic operand for function"));
        }
        if func != Func::Sum {
            d.sem = sem::INSTANT;
        }
        match func {
            Func::Delta => {
                d.vtype = match m.vtype {
                    vtype::U32 => vtype::I64,
                    vtype::U64 => vtype::DOUBLE,
                    t => t,
                };
            }
            Func::Rate => {
                if m.units.dim_time() != 0 && m.units.dim_time() != 1 {
                    return Err(self.error(&what, "Incorrect time dimension for operand"));
                }
                d.vtype = vtype::DOUBLE;
                let dim = m.units.dim_time() - 1;
                d.units = m.units.with_time(dim, if dim == 0 { 0 } else { 3 });
            }
            _ => {
                // the aggregates: one value
                d.indom = InDom::NULL;
                if func == Func::Avg {
                    d.vtype = vtype::FLOAT;
                }
            }
        }
        Ok(d)
    }
}

/// pmUnitsStr, or `none` where it is empty.
fn units_or_none(u: Units) -> String {
    let s = u.to_string();
    if s.is_empty() {
        "none".into()
    } else {
        s
    }
}

/// Seconds between one time scale and the next (nanoseconds up to hours).
const TIME_FACTOR: [f64; 5] = [1000.0, 1000.0, 1000.0, 60.0, 60.0];

impl Checker<'_> {
    /// map_desc: a binary operator's descriptor from its operands', with their
    /// scale conversions set (long on purpose: libpcp's rules in their order,
    /// each with its message).
    fn binary(
        &self,
        op: Op,
        left: &mut Part,
        right: &mut Part,
        what: &str,
    ) -> Result<Desc, Unavailable> {
        let (l, r) = (left.desc, right.desc);
        let fail = |why: &str| Err(self.error(what, why));
        let relational = matches!(op, Op::Lt | Op::Leq | Op::Eq | Op::Geq | Op::Gt | Op::Neq);
        let boolean = matches!(op, Op::And | Op::Or);
        if !relational && !boolean {
            match (l.sem == sem::COUNTER, r.sem == sem::COUNTER) {
                (true, true) if !matches!(op, Op::Plus | Op::Minus) => {
                    return fail("Illegal operator for counters")
                }
                (true, false) if !matches!(op, Op::Star | Op::Slash) => {
                    return fail("Illegal operator for counter and non-counter")
                }
                (false, true) if op != Op::Star => {
                    return fail("Illegal operator for non-counter and counter")
                }
                _ => {}
            }
        }
        // the metric's or expression's descriptor rather than a constant's
        let mut d = if matches!(left.kind, Kind::Const(_)) {
            r
        } else {
            l
        };
        if l.sem != sem::COUNTER && r.sem != sem::COUNTER {
            d.sem = if l.sem == sem::DISCRETE && r.sem == sem::DISCRETE {
                sem::DISCRETE
            } else {
                sem::INSTANT
            };
        }
        if !arithmetic(l.vtype) {
            return fail("Non-arithmetic type for left operand");
        }
        if !arithmetic(r.vtype) {
            return fail("Non-arithmetic type for right operand");
        }
        d.vtype = if op == Op::Slash {
            vtype::DOUBLE
        } else if relational || boolean {
            vtype::U32
        } else {
            promote(l.vtype, r.vtype)
        };
        let (lu, ru) = (l.units, r.units);
        if matches!(op, Op::Plus | Op::Minus) && !same_dims(lu, ru) && !count_and_none(lu, ru) {
            return fail("Dimensions are not the same");
        }
        // libpcp compares the operands' types with its constants' node numbers
        let like_constant = |t: i32| t == N_INTEGER || t == N_DOUBLE;
        if relational
            && !like_constant(l.vtype)
            && !like_constant(r.vtype)
            && !same_dims(lu, ru)
            && !count_and_none(lu, ru)
        {
            return fail("Dimensions are not the same");
        }
        if boolean && (!dimensionless(lu) || !dimensionless(ru)) {
            return fail("Dimensions are not the same");
        }
        if matches!(op, Op::Star | Op::Slash) || relational {
            if l.sem == sem::COUNTER && r.sem != sem::COUNTER && !dimensionless(ru) {
                return fail("Non-counter and not dimensionless for right operand");
            }
            if l.sem != sem::COUNTER && r.sem == sem::COUNTER && !dimensionless(lu) {
                return fail("Non-counter and not dimensionless for left operand");
            }
        }
        if matches!(op, Op::Plus | Op::Minus | Op::Star | Op::Slash) {
            map_units(op, &mut d, left, right);
        } else {
            d.units = Units(0);
        }
        if !l.indom.is_null() && !r.indom.is_null() && l.indom != r.indom {
            return fail("Operands should have the same instance domain");
        }
        if l.indom.is_null() != r.indom.is_null() {
            d.indom = if l.indom.is_null() { r.indom } else { l.indom };
        }
        Ok(d)
    }
}

/// One dimension both operands have, at scales `ls` and `rs`: the operand of
/// the smaller scale is scaled to the larger (`factor(i)` from scale `i` to the
/// next), divided where `up` says (the right operand: its dimension positive;
/// the left: `left_up`), else multiplied. Whether the scales differed.
fn align(
    (ls, rs): (i32, i32),
    (left, left_up): (&mut Part, bool),
    (right, right_up): (&mut Part, bool),
    factor: &dyn Fn(i32) -> f64,
) -> bool {
    let scale = |p: &mut Part, up: bool, f: f64| {
        if up {
            p.div *= f;
        } else {
            p.mul *= f;
        }
    };
    for i in rs..ls {
        scale(right, right_up, factor(i));
    }
    for i in ls..rs {
        scale(left, left_up, factor(i));
    }
    ls != rs
}

/// map_units: the result's units, and the operand whose scale is the smaller
/// scaled to the other's (a result then is a DOUBLE). Kept as libpcp has it,
/// where the time and space cases of a left operand look at the right's sign.
fn map_units(op: Op, d: &mut Desc, left: &mut Part, right: &mut Part) {
    let (l, r) = (left.desc.units, right.desc.units);
    let mut dims = [d.units.dim_space(), d.units.dim_time(), d.units.dim_count()];
    let (mut s_space, mut s_time, mut s_count) = (
        d.units.scale_space(),
        d.units.scale_time(),
        d.units.scale_count(),
    );
    // the left operand is scaled by its own sign for counts, by the right's
    // for time and space (as libpcp)
    if l.dim_count() != 0 && r.dim_count() != 0 {
        let (ls, rs) = (l.scale_count(), r.scale_count());
        let up = (l.dim_count() > 0, r.dim_count() > 0);
        if align((ls, rs), (left, up.0), (right, up.1), &|_| 10.0) {
            d.vtype = vtype::DOUBLE;
        }
        if ls < rs {
            s_count = rs;
        }
    }
    let time = |i: i32| TIME_FACTOR.get(i as usize).copied().unwrap_or(1.0);
    if l.dim_time() != 0 && r.dim_time() != 0 {
        let (ls, rs) = (l.scale_time() as i32, r.scale_time() as i32);
        let up = r.dim_time() > 0;
        if align((ls, rs), (left, up), (right, up), &time) {
            d.vtype = vtype::DOUBLE;
        }
        if ls < rs {
            s_time = rs as u32;
        }
    }
    if l.dim_space() != 0 && r.dim_space() != 0 {
        let (ls, rs) = (l.scale_space() as i32, r.scale_space() as i32);
        let up = r.dim_space() > 0;
        if align((ls, rs), (left, up), (right, up), &|_| 1024.0) {
            d.vtype = vtype::DOUBLE;
        }
        if ls < rs {
            s_space = rs as u32;
        }
    }
    match op {
        Op::Star => {
            dims = [
                l.dim_space() + r.dim_space(),
                l.dim_time() + r.dim_time(),
                l.dim_count() + r.dim_count(),
            ]
        }
        Op::Slash => {
            dims = [
                l.dim_space() - r.dim_space(),
                l.dim_time() - r.dim_time(),
                l.dim_count() - r.dim_count(),
            ]
        }
        _ => {}
    }
    // a dimension that came from the right operand brings its scale
    if dims[2] != 0 && l.dim_count() == 0 {
        s_count = r.scale_count();
    }
    if dims[1] != 0 && l.dim_time() == 0 {
        s_time = r.scale_time();
    }
    if dims[0] != 0 && l.dim_space() == 0 {
        s_space = r.scale_space();
    }
    // no scale where there is no dimension
    if dims[2] == 0 {
        s_count = 0;
    }
    if dims[1] == 0 {
        s_time = 0;
    }
    if dims[0] == 0 {
        s_space = 0;
    }
    d.units = Units::new(dims, [s_space, s_time], s_count);
}
