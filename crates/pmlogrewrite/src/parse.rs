//! The rules' parser: GNU Bison's LALR(1) algorithm over the tables of
//! `grammar.y` (tables.rs), which are the tables pmlogrewrite's own grammar
//! makes, so that the lexer reads ahead exactly where pmlogrewrite's does (the
//! line a message names depends on it) and an incomplete clause is reduced to
//! the rule that says what it lacks. The actions are in [`crate::config`].

use crate::lex::{Lexer, Token};
use crate::tables as t;

/// A value on the parser's stack: a token's text, or what an action made.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    None,
    Text(String),
    Int(i64),
    Float(f64),
}

impl Val {
    pub(crate) fn text(&self) -> &str {
        match self {
            Val::Text(s) => s,
            _ => "",
        }
    }
    pub(crate) fn int(&self) -> i64 {
        match self {
            Val::Int(n) => *n,
            _ => 0,
        }
    }
    pub(crate) fn float(&self) -> f64 {
        match self {
            Val::Float(x) => *x,
            Val::Int(n) => *n as f64,
            _ => 0.0,
        }
    }
}

/// Why a parse stopped: what pmlogrewrite says, at the line it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// `yyerror`: a specification error.
    Error { line: usize, message: String },
    /// `yysemantic`: a semantic error found once every file is read.
    Semantic(String),
    /// A clause this pmlogrewrite does not apply yet.
    Unsupported(String),
}

/// What reducing by a rule does: given the action's marker, the values of the
/// rule's symbols, the values below them on the stack (what an action inside a
/// rule reads of the symbols before it) and the line the lexer is at.
pub(crate) trait Actions {
    fn reduce(
        &mut self,
        marker: &str,
        rhs: &mut [Val],
        below: &[Val],
        line: usize,
    ) -> Result<Val, Stop>;
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
        c if (c as usize) < t::YYTRANSLATE.len() => i32::from(t::YYTRANSLATE[c as usize]),
        _ => 2,
    }
}

/// Parses one file's rules (Bison's `yyparse`, without error recovery: the
/// grammar has none, and a syntax error ends the run).
/// Returns the line the scanner ended on.
pub(crate) fn parse(text: &[u8], actions: &mut dyn Actions) -> Result<usize, Stop> {
    let mut lexer = Lexer::new(text);
    let mut states: Vec<i32> = vec![0];
    let mut values: Vec<Val> = vec![Val::None];
    let mut lookahead: Option<Token> = None;
    let mut state = 0;
    loop {
        let mut rule = None;
        let n = i32::from(t::YYPACT[state as usize]);
        if n != t::YYPACT_NINF {
            if lookahead.is_none() {
                let tok = lexer.next();
                if let Some(e) = lexer.error.take() {
                    return Err(Stop::Error {
                        line: lexer.line,
                        message: e,
                    });
                }
                lookahead = Some(tok);
            }
            let kind = lookahead.as_ref().map_or(0, |t| t.kind);
            let sym = symbol(kind);
            let i = n + sym;
            if (0..=t::YYLAST).contains(&i) && check(i) == sym {
                let act = table(i);
                if act > 0 {
                    // shift (the end shifted: the termination state, accepted)
                    if act == t::YYFINAL {
                        return Ok(lexer.line);
                    }
                    state = act;
                    let tok = lookahead.take().map(|t| t.text).unwrap_or_default();
                    states.push(state);
                    values.push(Val::Text(tok));
                    continue;
                }
                rule = Some(if act == t::YYTABLE_NINF { 0 } else { -act });
            }
        }
        let rule = rule.unwrap_or_else(|| i32::from(t::YYDEFACT[state as usize]));
        if rule == 0 {
            return Err(Stop::Error {
                line: lexer.line,
                message: "syntax error".into(),
            });
        }
        let len = usize::from(t::YYR2[rule as usize] as u8);
        let at = values.len() - len;
        let mut rhs: Vec<Val> = values.split_off(at);
        states.truncate(states.len() - len);
        let marker = t::ACTIONS[rule as usize];
        let v = actions.reduce(marker, &mut rhs, &values, lexer.line)?;
        let top = *states.last().unwrap_or(&0);
        let lhs = i32::from(t::YYR1[rule as usize]) - t::YYNTOKENS;
        let i = i32::from(t::YYPGOTO[lhs as usize]) + top;
        state = if (0..=t::YYLAST).contains(&i) && check(i) == top {
            table(i)
        } else {
            i32::from(t::YYDEFGOTO[lhs as usize])
        };
        if state == t::YYFINAL {
            return Ok(lexer.line);
        }
        values.push(v);
        states.push(state);
    }
}
