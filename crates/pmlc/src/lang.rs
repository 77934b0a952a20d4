//! pmlc's command language (PCP 6.0.3's gram.y): one statement per line, metric
//! lists in braces may span lines, `#` comments, `at` for `@`.

use crate::client::Target;
use pdu::{control, state};

/// An instance in a metric spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inst {
    Name(String),
    Id(i32),
}

/// `name [inst ...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub instances: Vec<Inst>,
}

/// A logging interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freq {
    Once,
    Millis(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    ShowLoggers(Option<String>),
    Connect(Target, Option<String>),
    Disconnect,
    Status,
    NewVolume,
    Flush,
    Timezone(String),
    Sleep(u64),
    Help,
    Quit,
    Query(Vec<Spec>),
    /// control (MANDATORY/ADVISORY), state (ON/OFF/MAYBE), interval, metrics.
    Log(i32, i32, Freq, Vec<Spec>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    /// A word with a `-` in it: a host name, never a metric's.
    Host(String),
    Num(f64),
    Str(String),
    Sym(char),
}

/// A statement's tokens as PCP's pmlc lexer (lex.l) cuts them: a word starts with
/// a letter and goes on with letters, digits, `_` and `.` (with a `-`, a host
/// name); a number is digits only; a string is one or more characters between
/// double quotes on one line. Any other character where a token starts is one the
/// lexer does not take: lexing stops there.
struct Lexed {
    toks: Vec<Tok>,
    /// For each token, the character right after it when the lexer had to read
    /// it to see the token end (words and numbers): what it holds when the parser
    /// fails at that token.
    after: Vec<Option<char>>,
    /// The character no token starts with, if any, after `toks`.
    bad: Option<char>,
}

fn lex(s: &str) -> Lexed {
    let b: Vec<char> = s.chars().collect();
    let mut out = Lexed {
        toks: Vec::new(),
        after: Vec::new(),
        bad: None,
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if "{}[],@".contains(c) {
            out.toks.push(Tok::Sym(c));
            out.after.push(None);
            i += 1;
        } else if c == '?' {
            out.toks.push(Tok::Word("?".into()));
            out.after.push(None);
            i += 1;
        } else if c == '"' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != c && b[j] != '\n' {
                j += 1;
            }
            if j >= b.len() || b[j] != c || j == start {
                out.bad = Some(c);
                return out;
            }
            out.toks.push(Tok::Str(b[start..j].iter().collect()));
            out.after.push(None);
            i = j + 1;
        } else if c.is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || "_.-".contains(b[i])) {
                i += 1;
            }
            // `name:rest`, a URL (`local:`, `unix:/path`): one colon, then letters,
            // digits and `_./-`
            let url = b.get(i) == Some(&':');
            if url {
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || "_./-".contains(b[i])) {
                    i += 1;
                }
            }
            let w: String = b[start..i].iter().collect();
            out.toks.push(if url || w.contains('-') {
                Tok::Host(w)
            } else {
                Tok::Word(w)
            });
            out.after.push(b.get(i).copied());
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let w: String = b[start..i].iter().collect();
            out.toks.push(Tok::Num(w.parse().unwrap_or(f64::MAX)));
            out.after.push(b.get(i).copied());
        } else {
            out.bad = Some(c);
            return out;
        }
    }
    out
}

struct P {
    t: Vec<Tok>,
    k: usize,
    /// The furthest token looked at: where a syntax error is found.
    seen: std::cell::Cell<usize>,
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.seen.set(self.seen.get().max(self.k));
        self.t.get(self.k)
    }
    fn next(&mut self) -> Option<Tok> {
        self.seen.set(self.seen.get().max(self.k));
        let t = self.t.get(self.k).cloned();
        self.k += 1;
        t
    }
    /// Keyword `w` (PCP's keywords are lower case and case matters).
    fn word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(x)) if x == w) {
            self.k += 1;
            true
        } else {
            false
        }
    }
    fn sym(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Sym(c)) {
            self.k += 1;
            true
        } else {
            false
        }
    }
    fn done(&self) -> bool {
        self.k >= self.t.len()
    }
    /// `@ host` or `at host`.
    fn host(&mut self) -> Result<Option<String>, ()> {
        if self.sym('@') || self.word("at") {
            return match self.next() {
                Some(Tok::Word(h)) | Some(Tok::Host(h)) | Some(Tok::Str(h)) => Ok(Some(h)),
                Some(Tok::Num(n)) => Ok(Some(n.to_string())),
                _ => Err(()),
            };
        }
        Ok(None)
    }
    fn spec(&mut self) -> Result<Spec, ()> {
        let Some(Tok::Word(name)) = self.next() else {
            return Err(());
        };
        let mut instances = Vec::new();
        if self.sym('[') {
            loop {
                match self.next() {
                    Some(Tok::Sym(']')) => break,
                    Some(Tok::Sym(',')) => {}
                    Some(Tok::Word(w)) | Some(Tok::Str(w)) => instances.push(Inst::Name(w)),
                    Some(Tok::Num(n)) => instances.push(Inst::Id(n as i32)),
                    _ => return Err(()),
                }
            }
        }
        Ok(Spec { name, instances })
    }
    fn metrics(&mut self) -> Result<Vec<Spec>, ()> {
        if self.sym('{') {
            let mut v = Vec::new();
            loop {
                if self.sym('}') {
                    break;
                }
                if self.sym(',') {
                    continue;
                }
                v.push(self.spec()?);
            }
            if v.is_empty() {
                return Err(());
            }
            Ok(v)
        } else {
            Ok(vec![self.spec()?])
        }
    }
    fn freq(&mut self) -> Result<Freq, ()> {
        if self.word("once") {
            return Ok(Freq::Once);
        }
        self.word("every");
        let Some(Tok::Num(n)) = self.next() else {
            return Err(());
        };
        let Some(Tok::Word(u)) = self.next() else {
            return Err(());
        };
        let scale = match u.as_str() {
            "msec" | "msecs" | "millisecond" | "milliseconds" => 1.0,
            "sec" | "secs" | "second" | "seconds" => 1000.0,
            "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "hour" | "hours" => 3_600_000.0,
            _ => return Err(()),
        };
        Ok(Freq::Millis((n * scale).round() as u64))
    }
}

/// How a statement fails, as PCP's pmlc reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// A character no token starts with, before anything the parser refused:
    /// "Unexpected character", and the parser's recovery loses the statement after
    /// it (or reports one more syntax error at the end of the input). With the
    /// statement, when it was whole before the character (PCP has looked its
    /// metrics up by then; it is not carried out).
    BadChar(char, Option<Box<Stmt>>),
    /// "syntax error" at a token; with the character the lexer had read past that
    /// token (which it lexes after the recovery has skipped the rest of the line).
    Syntax(Option<char>),
}

/// Parses one statement.
pub fn parse(text: &str) -> Result<Stmt, Fault> {
    let l = lex(text);
    let mut p = P {
        t: l.toks,
        k: 0,
        seen: std::cell::Cell::new(0),
    };
    let parsed = parse_tokens(&mut p);
    let at = p.seen.get();
    match (parsed, l.bad) {
        (Ok(stmt), None) => Ok(stmt),
        // the tokens ran out at the character the lexer did not take
        (Ok(stmt), Some(c)) => Err(Fault::BadChar(c, Some(Box::new(stmt)))),
        (Err(()), Some(c)) if at >= p.t.len() => Err(Fault::BadChar(c, None)),
        (Err(()), _) => Err(Fault::Syntax(l.after.get(at).copied().flatten())),
    }
}

fn parse_tokens(p: &mut P) -> Result<Stmt, ()> {
    let stmt = if p.word("quit") || p.word("q") {
        Stmt::Quit
    } else if p.word("help") || p.word("h") || p.sym_q() {
        Stmt::Help
    } else if p.word("status") {
        Stmt::Status
    } else if p.word("flush") || p.word("sync") {
        Stmt::Flush
    } else if p.word("disconnect") {
        Stmt::Disconnect
    } else if p.word("new") {
        if !p.word("volume") {
            return Err(());
        }
        Stmt::NewVolume
    } else if p.word("show") {
        let _ = p.word("loggers") || p.word("logger");
        Stmt::ShowLoggers(p.host()?)
    } else if p.word("connect") {
        let t = if p.word("primary") {
            Target::Primary
        } else if p.word("port") {
            match p.next() {
                Some(Tok::Num(n)) if n >= 1.0 => Target::Port(n as u16),
                _ => return Err(()),
            }
        } else {
            match p.next() {
                Some(Tok::Num(n)) if n >= 1.0 => Target::Pid(n as u32),
                _ => return Err(()),
            }
        };
        Stmt::Connect(t, p.host()?)
    } else if p.word("timezone") {
        match p.next() {
            Some(Tok::Word(w)) if w == "local" || w == "logger" => Stmt::Timezone(w),
            Some(Tok::Str(s)) => Stmt::Timezone(s),
            _ => return Err(()),
        }
    } else if p.word("sleep") {
        match p.next() {
            Some(Tok::Num(n)) => Stmt::Sleep(n as u64),
            _ => return Err(()),
        }
    } else if p.word("query") {
        Stmt::Query(p.metrics()?)
    } else {
        p.word("log");
        let ctl = if p.word("mandatory") {
            control::MANDATORY
        } else if p.word("advisory") {
            control::ADVISORY
        } else {
            return Err(());
        };
        let (st, freq) = if p.word("on") {
            (state::ON, p.freq()?)
        } else if p.word("off") {
            (state::OFF, Freq::Once)
        } else if ctl == control::MANDATORY && p.word("maybe") {
            (state::MAYBE, Freq::Once)
        } else {
            return Err(());
        };
        Stmt::Log(ctl, st, freq, p.metrics()?)
    };
    if !p.done() {
        p.peek();
        return Err(());
    }
    Ok(stmt)
}

impl P {
    fn sym_q(&mut self) -> bool {
        self.word("?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements() {
        assert_eq!(parse("status"), Ok(Stmt::Status));
        assert_eq!(parse("new volume"), Ok(Stmt::NewVolume));
        assert_eq!(
            parse("connect port 4330 @local:"),
            Ok(Stmt::Connect(Target::Port(4330), Some("local:".into())))
        );
        assert_eq!(
            parse("log mandatory on every 1500 msec { a.b c [\"x y\", 3] }"),
            Ok(Stmt::Log(
                control::MANDATORY,
                state::ON,
                Freq::Millis(1500),
                vec![
                    Spec {
                        name: "a.b".into(),
                        instances: vec![]
                    },
                    Spec {
                        name: "c".into(),
                        instances: vec![Inst::Name("x y".into()), Inst::Id(3)]
                    },
                ]
            ))
        );
        assert_eq!(
            parse("advisory off x"),
            Ok(Stmt::Log(
                control::ADVISORY,
                state::OFF,
                Freq::Once,
                vec![Spec {
                    name: "x".into(),
                    instances: vec![]
                }]
            ))
        );
        assert!(parse("advisory maybe x").is_err());
        assert!(parse("bogus").is_err());
        assert!(parse("query { }").is_err());
    }
}
