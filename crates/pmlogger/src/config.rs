//! pmlogger's configuration language (`man pmlogger`):
//!
//! ```text
//! # comment
//! log mandatory on 10 sec { kernel.all.load  disk.dev.read [ "sda" "sdb" ] }
//! log mandatory on once hinv.ncpu
//! log advisory on default { mem.util }
//! log mandatory maybe { network.interface }
//! log mandatory off { proc }
//! [access]
//! allow localhost : all;
//! ```
//!
//! Intervals take `msec`/`millisecond(s)`, `sec`/`second(s)`, `min`/`minute(s)`,
//! `hour(s)` (a bare number is milliseconds); `every` may precede them; `once` means a
//! single fetch and `default` the `-t` interval. Groups nest (`{ { a } b }`); each
//! metric may have an instance list in brackets.

use crate::state::{Control, Switch};

/// One metric of a `log` statement, with its instances (empty = all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricSpec {
    pub name: String,
    pub instances: Vec<String>,
}

/// How often a statement logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Every {
    Once,
    Default,
    Millis(u64),
}

/// A `log` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub control: Control,
    pub switch: Switch,
    pub every: Every,
    pub metrics: Vec<MetricSpec>,
    /// Line of the statement, for messages.
    pub line: usize,
}

/// A parsed configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    pub statements: Vec<Statement>,
    /// Lines of the `[access]` section, kept for the control port.
    pub access: Vec<String>,
}

/// A syntax error, reported as pmlogger does: `Error [file, line N]` and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Open,
    Close,
    LBracket,
    RBracket,
    Comma,
}

fn tokenize(text: &str) -> (Vec<(Tok, usize)>, Vec<String>) {
    let mut toks = Vec::new();
    let mut access = Vec::new();
    let mut in_access = false;
    for (ln, raw) in text.lines().enumerate() {
        let line = ln + 1;
        let body = raw.split('#').next().unwrap_or("");
        if body.trim() == "[access]" {
            in_access = true;
            continue;
        }
        if in_access {
            if !body.trim().is_empty() {
                access.push(body.trim().to_string());
            }
            continue;
        }
        let b: Vec<char> = body.chars().collect();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            match c {
                c if c.is_whitespace() => i += 1,
                '{' => {
                    toks.push((Tok::Open, line));
                    i += 1;
                }
                '}' => {
                    toks.push((Tok::Close, line));
                    i += 1;
                }
                '[' => {
                    toks.push((Tok::LBracket, line));
                    i += 1;
                }
                ']' => {
                    toks.push((Tok::RBracket, line));
                    i += 1;
                }
                ',' => {
                    toks.push((Tok::Comma, line));
                    i += 1;
                }
                '"' | '\'' => {
                    let q = c;
                    i += 1;
                    let st = i;
                    while i < b.len() && b[i] != q {
                        i += 1;
                    }
                    toks.push((Tok::Str(b[st..i].iter().collect()), line));
                    i += 1;
                }
                _ => {
                    let st = i;
                    while i < b.len() && !b[i].is_whitespace() && !"{}[],\"'".contains(b[i]) {
                        i += 1;
                    }
                    toks.push((Tok::Word(b[st..i].iter().collect()), line));
                }
            }
        }
    }
    (toks, access)
}

fn unit_ms(u: &str) -> Option<u64> {
    Some(match u {
        "msec" | "msecs" | "millisecond" | "milliseconds" => 1,
        "sec" | "secs" | "second" | "seconds" => 1000,
        "min" | "mins" | "minute" | "minutes" => 60_000,
        "hour" | "hours" => 3_600_000,
        _ => return None,
    })
}

/// Parses a whole configuration.
pub fn parse(text: &str) -> Result<Config, ConfigError> {
    let (toks, access) = tokenize(text);
    let mut k = 0;
    let mut out = Config {
        statements: Vec::new(),
        access,
    };
    let err = |line: usize, m: &str| ConfigError {
        line,
        message: m.to_string(),
    };
    // where the parser stands: the line of token k, or the end of the text (as
    // the reference's lexer counts lines, one past the last newline)
    let eof = text.matches('\n').count() + 1;
    let at = |k: usize| toks.get(k).map_or(eof, |t| t.1);
    let word = |k: usize| match toks.get(k) {
        Some((Tok::Word(w), _)) => Some(w.as_str()),
        _ => None,
    };
    while k < toks.len() {
        let line = toks[k].1;
        if word(k) != Some("log") {
            return Err(err(at(k), "syntax error"));
        }
        k += 1;
        let control = match word(k) {
            Some("mandatory") => Control::Mandatory,
            Some("advisory") => Control::Advisory,
            _ => return Err(err(at(k), "syntax error")),
        };
        k += 1;
        let switch = match word(k) {
            Some("on") => Switch::On,
            Some("off") => Switch::Off,
            Some("maybe") => Switch::Maybe,
            _ => return Err(err(at(k), "syntax error")),
        };
        k += 1;
        if control == Control::Advisory && switch == Switch::Maybe {
            return Err(err(at(k - 1), "advisory maybe is not allowed"));
        }
        let mut every = Every::Default;
        if switch == Switch::On {
            if word(k) == Some("every") {
                k += 1;
            }
            match word(k) {
                Some("once") => {
                    every = Every::Once;
                    k += 1;
                }
                Some("default") => {
                    k += 1;
                }
                Some(w) if w.parse::<f64>().is_ok() => {
                    let n: f64 = w.parse().unwrap_or(0.0);
                    k += 1;
                    let mult = match word(k).and_then(unit_ms) {
                        Some(m) => {
                            k += 1;
                            m
                        }
                        None => 1,
                    };
                    every = Every::Millis((n * mult as f64).round() as u64);
                }
                _ => return Err(err(at(k), "expected an interval, once or default")),
            }
        }
        // a metric, or a (nested) group of them
        let mut metrics = Vec::new();
        let mut depth = 0usize;
        loop {
            match toks.get(k) {
                Some((Tok::Open, _)) => {
                    depth += 1;
                    k += 1;
                }
                Some((Tok::Close, l)) => {
                    if depth == 0 {
                        return Err(err(*l, "syntax error"));
                    }
                    depth -= 1;
                    k += 1;
                }
                Some((Tok::Word(w), _)) if depth != 0 || metrics.is_empty() => {
                    let mut m = MetricSpec {
                        name: w.clone(),
                        instances: Vec::new(),
                    };
                    k += 1;
                    if matches!(toks.get(k), Some((Tok::LBracket, _))) {
                        k += 1;
                        loop {
                            match toks.get(k) {
                                Some((Tok::RBracket, _)) => {
                                    k += 1;
                                    break;
                                }
                                Some((Tok::Comma, _)) => k += 1,
                                Some((Tok::Word(x) | Tok::Str(x), _)) => {
                                    m.instances.push(x.clone());
                                    k += 1;
                                }
                                _ => return Err(err(at(k), "unterminated instance list")),
                            }
                        }
                    }
                    metrics.push(m);
                }
                None if depth > 0 => return Err(err(eof, "unexpected end of file in a group")),
                _ => {
                    if depth == 0 {
                        break;
                    }
                    return Err(err(toks[k].1, "syntax error"));
                }
            }
            if depth == 0 && !metrics.is_empty() && !matches!(toks.get(k), Some((Tok::Open, _))) {
                break;
            }
        }
        if metrics.is_empty() {
            return Err(err(at(k), "no metrics"));
        }
        out.statements.push(Statement {
            control,
            switch,
            every,
            metrics,
            line,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_groups_intervals_and_instances() {
        let c = parse(
            "# comment\nlog mandatory on 10 sec {\n  kernel.all.load\n  disk.dev.read [ \"sda\", sdb ]\n  { mem.util }\n}\nlog mandatory on once hinv.ncpu\nlog advisory on default { swap }\nlog mandatory off proc\nlog mandatory on every 500 msec { kernel.all.intr }\n[access]\nallow localhost : all;\n",
        )
        .expect("parses");
        assert_eq!(c.statements.len(), 5);
        let s = &c.statements[0];
        assert_eq!(s.every, Every::Millis(10_000));
        assert_eq!(s.metrics.len(), 3);
        assert_eq!(s.metrics[1].instances, ["sda", "sdb"]);
        assert_eq!(c.statements[1].every, Every::Once);
        assert_eq!(c.statements[2].every, Every::Default);
        assert_eq!(c.statements[3].switch, Switch::Off);
        assert_eq!(c.statements[4].every, Every::Millis(500));
        assert_eq!(c.access, ["allow localhost : all;"]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("log mandatory on 1 sec {\n foo\n").unwrap_err();
        assert!(e.message.contains("end of file"), "{e:?}");
        let e = parse("log sometimes on 1 sec foo\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(parse("log advisory maybe foo\n").is_err());
    }
}
