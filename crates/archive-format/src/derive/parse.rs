//! The derived-metric parser: GNU Bison's LALR(1) algorithm over the tables of
//! `grammar.y` (tables.rs), with its error recovery, so that a bad expression
//! gets the diagnostic and the position libpcp's parser gives it: the `error`
//! alternatives of the grammar say what was expected, and the position is where
//! the last token read starts.

use super::lex::{Lexer, Token};
use super::tables as t;
use super::{ConstDesc, Func, Node, Op, Pattern, PatternKind};
use crate::types::{sem, vtype};

/// A syntax error: where the marker goes (the start of the last token read,
/// `-1` before an empty expression) and what is known of the mistake.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub at: isize,
    pub message: Option<String>,
}

/// A value on the parser's stack.
#[derive(Debug, Clone)]
enum Val {
    None,
    Text(String),
    Node(Node),
    Bang(bool),
    Pattern(Pattern),
}

/// What a reduction did: go on, accept, or fail (YYERROR: recover), or give up
/// at once (the actions that return from the parser).
enum Outcome {
    Value(Val),
    Accept(Node),
    Error,
    Abort,
}

/// The parse of one expression.
struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The first diagnostic, as libpcp keeps it (the lexer's comes first).
    message: Option<String>,
    /// mkconst's descriptor being built.
    spec: ConstDesc,
}

/// Parses `expr`.
pub fn parse(expr: &str) -> Result<Node, SyntaxError> {
    parse_after(expr, &mut false)
}

/// Parses `expr` after others, as libpcp parses one registration after another:
/// `in_matchinst` is the lexer's state that a `matchinst(` without its end
/// leaves to the next expression (libpcp keeps it from one to the next).
pub fn parse_after(expr: &str, in_matchinst: &mut bool) -> Result<Node, SyntaxError> {
    let mut lexer = Lexer::new(expr);
    lexer.in_matchinst = *in_matchinst;
    let mut p = Parser {
        lexer,
        message: None,
        spec: ConstDesc::integer(),
    };
    let parsed = p.run();
    *in_matchinst = p.lexer.in_matchinst;
    match parsed {
        Some(node) => Ok(node),
        None => Err(SyntaxError {
            at: p.lexer.lexicon,
            message: p.lexer.error.map(str::to_string).or(p.message),
        }),
    }
}

fn table(i: i32) -> i32 {
    i32::from(t::YYTABLE[i as usize])
}
fn check(i: i32) -> i32 {
    i32::from(t::YYCHECK[i as usize])
}

/// The symbol number of token code `code`.
fn symbol(code: i32) -> i32 {
    match code {
        c if c <= 0 => 0,
        c if c <= 305 => i32::from(t::YYTRANSLATE[c as usize]),
        _ => 2,
    }
}

/// The `error` symbol.
const ERROR_SYMBOL: i32 = 1;

impl Parser<'_> {
    /// Bison's `yyparse` (long on purpose: the LR loop with its labels as one
    /// state machine, as the skeleton has it). `None` when the parse failed.
    fn run(&mut self) -> Option<Node> {
        let mut states: Vec<i32> = vec![0];
        let mut values: Vec<Val> = vec![Val::None];
        let mut lookahead: Option<Token> = None;
        let mut errstatus = 0;
        let mut state = 0;
        loop {
            // yybackup: an action from the state and the lookahead, or the default
            let mut n = i32::from(t::YYPACT[state as usize]);
            let mut reduce_by = None;
            if n != t::YYPACT_NINF {
                let tok = lookahead.get_or_insert_with(|| self.lexer.next());
                let sym = symbol(tok.kind);
                n += sym;
                if (0..=t::YYLAST).contains(&n) && check(n) == sym {
                    let act = table(n);
                    if act > 0 {
                        // shift
                        errstatus = (errstatus - 1).max(0);
                        state = act;
                        let tok = lookahead.take().unwrap_or_else(|| self.lexer.next());
                        states.push(state);
                        values.push(Val::Text(tok.text));
                        continue;
                    }
                    if act == t::YYTABLE_NINF {
                        reduce_by = Some(0);
                    } else {
                        reduce_by = Some(-act);
                    }
                }
            }
            let rule = match reduce_by {
                Some(r) => r,
                None => i32::from(t::YYDEFACT[state as usize]),
            };
            if rule == 0 {
                // yyerrlab: a syntax error
                if errstatus == 0 {
                    // yyerror: libpcp forgets the tree
                } else if errstatus == 3 {
                    match &lookahead {
                        Some(tok) if tok.kind <= 0 => return None,
                        _ => lookahead = None,
                    }
                }
                state = self.recover(&mut states, &mut values)?;
                errstatus = 3;
                continue;
            }
            // yyreduce
            let len = usize::from(t::YYR2[rule as usize] as u8);
            let at = values.len() - len;
            let rhs: Vec<Val> = values.split_off(at);
            let kept: Vec<i32> = states.split_off(states.len() - len);
            match self.act(rule, rhs) {
                Outcome::Value(v) => {
                    values.push(v);
                    let top = *states.last()?;
                    let lhs = i32::from(t::YYR1[rule as usize]) - t::YYNTOKENS;
                    let i = i32::from(t::YYPGOTO[lhs as usize]) + top;
                    state = if (0..=t::YYLAST).contains(&i) && check(i) == top {
                        table(i)
                    } else {
                        i32::from(t::YYDEFGOTO[lhs as usize])
                    };
                    states.push(state);
                }
                Outcome::Accept(node) => return Some(node),
                Outcome::Abort => return None,
                Outcome::Error => {
                    // YYERROR: the rule's symbols are popped, and recovery goes on
                    drop(kept);
                    state = self.recover(&mut states, &mut values)?;
                    errstatus = 3;
                }
            }
        }
    }

    /// yyerrlab1: pops states until one shifts `error`, and shifts it; `None`
    /// when none does (the parse is abandoned).
    fn recover(&mut self, states: &mut Vec<i32>, values: &mut Vec<Val>) -> Option<i32> {
        loop {
            let state = *states.last()?;
            let n = i32::from(t::YYPACT[state as usize]);
            if n != t::YYPACT_NINF {
                let i = n + ERROR_SYMBOL;
                if (0..=t::YYLAST).contains(&i) && check(i) == ERROR_SYMBOL && table(i) > 0 {
                    let to = table(i);
                    states.push(to);
                    values.push(Val::None);
                    return Some(to);
                }
            }
            if states.len() == 1 {
                return None;
            }
            states.pop();
            values.pop();
        }
    }
}

impl Parser<'_> {
    /// libpcp's `gramerr`: the first diagnostic is kept (the lexer's before any).
    fn say(&mut self, message: String) {
        if self.lexer.error.is_none() && self.message.is_none() {
            self.message = Some(message);
        }
    }

    /// What reducing by `rule` does with the values of its symbols (a table of
    /// the grammar's rules, one arm per kind of action; long on purpose).
    fn act(&mut self, rule: i32, mut rhs: Vec<Val>) -> Outcome {
        let action = t::ACTIONS[rule as usize];
        let (kind, arg) = match action.split_once('(') {
            Some((k, a)) => (k, a.strip_suffix(')').unwrap_or(a)),
            None => (action, ""),
        };
        let mut take = |i: usize| std::mem::replace(&mut rhs[i], Val::None);
        let node = match kind {
            "Accept" => {
                return match take(0) {
                    Val::Node(n) => Outcome::Accept(n),
                    _ => Outcome::Abort,
                }
            }
            "Trailing" => return self.fail(format!("Unexpected '{arg}'")),
            "Initial" => return self.fail(format!("Unexpected initial '{arg}'")),
            "Expected" => {
                let (what, after) = arg.split_once(',').unwrap_or((arg, ""));
                return self.fail(format!("{} expected to follow {after}", expected(what)));
            }
            "Pass" => return Outcome::Value(take(0)),
            "Paren" => return Outcome::Value(take(1)),
            "Name" => Node::Name(text(take(0))),
            "NameInst" => filter(PatternKind::Exact, text(take(1)), Node::Name(text(take(0)))),
            "ParenInst" => match take(1) {
                Val::Node(n) => filter(PatternKind::Uncompiled, text(take(3)), n),
                _ => return Outcome::Abort,
            },
            "Binary" => Node::Binary {
                op: op(arg),
                left: Box::new(node(take(0))),
                right: Box::new(node(take(2))),
            },
            "Neg" => Node::Neg(Box::new(node(take(1)))),
            "Not" => Node::Not(Box::new(node(take(1)))),
            "Ternary" => Node::Ternary {
                guard: Box::new(node(take(0))),
                yes: Box::new(node(take(2))),
                no: Box::new(node(take(4))),
            },
            "Bang" => return Outcome::Value(Val::Bang(true)),
            "NoBang" => return Outcome::Value(Val::Bang(false)),
            "Pattern" => return self.pattern(take(0), text(take(1))),
            "Integer" => constant(text(take(0)), ConstDesc::integer()),
            "Double" => constant(text(take(0)), ConstDesc::double()),
            "ConstInteger" => {
                self.spec = ConstDesc::integer();
                return Outcome::Value(Val::None);
            }
            "ConstDouble" => {
                self.spec = ConstDesc::double();
                return Outcome::Value(Val::None);
            }
            "ConstEnd" => constant(text(take(2)), self.spec),
            "ConstDoubleEnd" => {
                if !matches!(self.spec.vtype, vtype::DOUBLE | vtype::FLOAT) {
                    let ty = vtype::short_name(self.spec.vtype);
                    return self.abort(format!(
                        "Incompatible floating point constant and type '{ty}'"
                    ));
                }
                constant(text(take(2)), self.spec)
            }
            "SpecType" | "SpecSemantics" | "SpecUnits" => return self.spec(kind, text(take(2))),
            "Anon" => Node::Anon(anon_type(&text(take(2)))),
            "Func" => Node::Func {
                func: func(arg),
                metric: text(take(2)),
            },
            "Rescale" => {
                let expr = node(take(2));
                match crate::unitstr::parse_units(&text(take(4))) {
                    Ok((units, _)) => Node::Rescale {
                        expr: Box::new(expr),
                        units,
                    },
                    Err(e) => return self.abort(format!("Illegal units: '{e}'")),
                }
            }
            "MatchInst" => {
                self.lexer.in_matchinst = false;
                match (take(2), take(4)) {
                    (Val::Pattern(p), Val::Node(n)) => Node::Filter {
                        pattern: p,
                        expr: Box::new(n),
                    },
                    _ => return Outcome::Abort,
                }
            }
            "Scalar" => Node::Scalar(Box::new(node(take(2)))),
            _ => return Outcome::Abort,
        };
        Outcome::Value(Val::Node(node))
    }

    /// A diagnostic, and error recovery (YYERROR).
    fn fail(&mut self, message: String) -> Outcome {
        self.say(message);
        Outcome::Error
    }

    /// A diagnostic, and the parse given up.
    fn abort(&mut self, message: String) -> Outcome {
        self.say(message);
        Outcome::Abort
    }

    /// `matchinst(`'s filter: the pattern must compile.
    fn pattern(&mut self, bang: Val, re: String) -> Outcome {
        if let Err(e) = super::regex::Regex::new(&re) {
            return self.abort(format!("bad regular expression: '{e}'"));
        }
        Outcome::Value(Val::Pattern(Pattern {
            kind: PatternKind::Regex,
            text: re,
            invert: matches!(bang, Val::Bang(true)),
        }))
    }

    /// One of mkconst's `type=`, `semantics=` and `units=`.
    fn spec(&mut self, kind: &str, value: String) -> Outcome {
        let v = value.to_ascii_lowercase();
        match kind {
            "SpecType" => match super::NUMERIC
                .iter()
                .find(|&&t| vtype::short_name(t).eq_ignore_ascii_case(&v))
            {
                Some(&ty) => self.spec.vtype = ty,
                None => return self.abort(format!("Unrecognized value for type '{value}'")),
            },
            "SpecSemantics" => match SEMANTICS.iter().find(|(n, _)| *n == v) {
                Some((_, s)) => self.spec.sem = *s,
                None => return self.abort(format!("Unrecognized value for semantics '{value}'")),
            },
            _ => match crate::unitstr::parse_units(&value) {
                Ok((units, _)) => self.spec.units = units,
                Err(e) => return self.abort(format!("Illegal units: '{e}'")),
            },
        }
        Outcome::Value(Val::None)
    }
}

/// mkconst's semantics by their words, without regard to case (its types are
/// the numeric types by pmTypeStr's names).
const SEMANTICS: &[(&str, i32)] = &[
    ("counter", sem::COUNTER),
    ("instant", sem::INSTANT),
    ("discrete", sem::DISCRETE),
];

/// What an `error` alternative says was expected.
fn expected(what: &str) -> &'static str {
    match what {
        "op" => "Arithmetic or relational or boolean operator",
        "arith" => "Arithmetic expression",
        "bool" => "Boolean expression",
        "name" => "Metric name",
        "units" => "Units string",
        "filter" => "<filter>, <expr>)",
        "comma" => ", <expr>)",
        "expr" => "<expr>)",
        _ => "<expr>",
    }
}

fn op(name: &str) -> Op {
    match name {
        "Plus" => Op::Plus,
        "Minus" => Op::Minus,
        "Star" => Op::Star,
        "Slash" => Op::Slash,
        "Lt" => Op::Lt,
        "Leq" => Op::Leq,
        "Eq" => Op::Eq,
        "Geq" => Op::Geq,
        "Gt" => Op::Gt,
        "Neq" => Op::Neq,
        "And" => Op::And,
        _ => Op::Or,
    }
}

fn func(name: &str) -> Func {
    match name {
        "Avg" => Func::Avg,
        "Count" => Func::Count,
        "Delta" => Func::Delta,
        "Max" => Func::Max,
        "Min" => Func::Min,
        "Sum" => Func::Sum,
        "Rate" => Func::Rate,
        "Instant" => Func::Instant,
        _ => Func::Defined,
    }
}

/// anon()'s type, by its PM_TYPE_ name.
fn anon_type(name: &str) -> Option<i32> {
    let ty = name.strip_prefix("PM_TYPE_")?;
    Some(match ty {
        "32" => vtype::I32,
        "U32" => vtype::U32,
        "64" => vtype::I64,
        "U64" => vtype::U64,
        "FLOAT" => vtype::FLOAT,
        "DOUBLE" => vtype::DOUBLE,
        _ => return None,
    })
}

fn text(v: Val) -> String {
    match v {
        Val::Text(s) => s,
        _ => String::new(),
    }
}

/// The node a nonterminal's value holds (the grammar gives every expression one).
fn node(v: Val) -> Node {
    match v {
        Val::Node(n) => n,
        _ => Node::Anon(None),
    }
}

fn filter(kind: PatternKind, text: String, expr: Node) -> Node {
    Node::Filter {
        pattern: Pattern {
            kind,
            text,
            invert: false,
        },
        expr: Box::new(expr),
    }
}

fn constant(text: String, desc: ConstDesc) -> Node {
    Node::Const { text, desc }
}
