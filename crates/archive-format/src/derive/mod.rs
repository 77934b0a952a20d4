//! Derived metrics, as libpcp's `pmRegisterDerived(3)`: metrics defined by
//! expressions over other metrics (`disk.dev.avgsz = delta(disk.dev.total_bytes) /
//! delta(disk.dev.total)`).
//!
//! - `grammar.y` and `tables.rs`: the expression language and its LALR(1) tables
//!   (`scripts/gen-parser-tables.py` makes the tables with GNU Bison).
//! - [`lex`] and [`parse`]: the lexer and the table-driven parser, with libpcp's
//!   diagnostics for a bad expression ([`SyntaxError`]).

pub mod check;
pub mod config;
pub mod context;
pub mod eval;
mod lex;
mod parse;
pub mod regex;
#[allow(clippy::all, dead_code)]
mod tables;
pub mod value;

pub use parse::{parse, parse_after, SyntaxError};

use crate::types::{sem, vtype, Units};

/// The numeric types, in the order libpcp promotes them (`32 < U32 < 64 < U64 <
/// FLOAT < DOUBLE`): the types arithmetic takes.
pub(crate) const NUMERIC: [i32; 6] = [
    vtype::I32,
    vtype::U32,
    vtype::I64,
    vtype::U64,
    vtype::FLOAT,
    vtype::DOUBLE,
];

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Plus,
    Minus,
    Star,
    Slash,
    Lt,
    Leq,
    Eq,
    Geq,
    Gt,
    Neq,
    And,
    Or,
}

/// A function of one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Avg,
    Count,
    Delta,
    Max,
    Min,
    Sum,
    Rate,
    Instant,
    Defined,
}

/// How a filter picks instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternKind {
    /// `name[instance]`: the instance of that name.
    Exact,
    /// `(expr)[instance]`: libpcp marks it a pattern but never compiles it.
    Uncompiled,
    /// `matchinst(/re/, expr)`: the instances a POSIX extended regular
    /// expression matches (or, inverted, does not).
    Regex,
}

/// An instance filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub kind: PatternKind,
    pub text: String,
    pub invert: bool,
}

/// What a constant is: its type, semantics and units (mkconst's, or by
/// default a discrete U32 or DOUBLE without units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstDesc {
    pub vtype: i32,
    pub sem: i32,
    pub units: Units,
}

impl ConstDesc {
    pub(crate) fn integer() -> ConstDesc {
        ConstDesc {
            vtype: vtype::U32,
            sem: sem::DISCRETE,
            units: Units(0),
        }
    }
    pub(crate) fn double() -> ConstDesc {
        ConstDesc {
            vtype: vtype::DOUBLE,
            ..ConstDesc::integer()
        }
    }
}

/// An expression, as the parser makes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A number as written, and what it is.
    Const {
        text: String,
        desc: ConstDesc,
    },
    /// A metric by name.
    Name(String),
    /// The instances of `expr` that `pattern` picks.
    Filter {
        pattern: Pattern,
        expr: Box<Node>,
    },
    Binary {
        op: Op,
        left: Box<Node>,
        right: Box<Node>,
    },
    Neg(Box<Node>),
    Not(Box<Node>),
    /// `guard ? yes : no`.
    Ternary {
        guard: Box<Node>,
        yes: Box<Node>,
        no: Box<Node>,
    },
    /// A function of the metric named.
    Func {
        func: Func,
        metric: String,
    },
    /// `anon(PM_TYPE_...)`: libpcp's anonymous metrics (`event.flags`, ...);
    /// `None` for a type anon() does not take.
    Anon(Option<i32>),
    /// `expr` in other units (of the same dimension).
    Rescale {
        expr: Box<Node>,
        units: Units,
    },
    /// The first instance of `expr`, without an instance domain.
    Scalar(Box<Node>),
}

impl SyntaxError {
    /// The message `pmRegisterDerivedMetric(3)` gives for this error in `expr`
    /// registered as `name`: the expression, a marker under where the error was
    /// found, and what is known of it.
    pub fn render(&self, name: &str, expr: &str) -> String {
        let mut s = format!("Error: pmRegisterDerivedMetric(\"{name}\", ...)\n{expr}\n");
        if self.at != 0 {
            s.push_str(&" ".repeat(self.at.unsigned_abs().max(1)));
        }
        s.push_str("^\n");
        if let Some(m) = &self.message {
            s.push_str(m);
            s.push('\n');
        }
        s
    }
}
