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
//! Intervals are whole numbers with a unit: `msec`/`millisecond(s)`,
//! `sec`/`second(s)`, `min`/`minute(s)`, `hour(s)` (`0` of any unit is once);
//! `every` may precede them; `once` means a single fetch and `default` the `-t`
//! interval. `log` and the control word (advisory by default) may be left out.
//! A group is one level of braces; each metric may have an instance list in
//! brackets (names, numbers or quoted strings). What the reference refuses, we
//! refuse, on the same line.

use crate::state::{Control, Switch};

/// One metric of a `log` statement, with its instances (empty = all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricSpec {
    pub name: String,
    pub instances: Vec<String>,
}

/// How often a statement logs (`default` is resolved to the `-t` interval).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Every {
    Once,
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
    /// The `[access]` section's statements, in order.
    pub access: Vec<AccessStmt>,
}

/// An `[access]` statement: `allow|disallow HOST[, HOST...] : OPERATIONS;`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessStmt {
    pub allow: bool,
    /// The host patterns, each with the line it is on.
    pub hosts: Vec<(String, usize)>,
    /// `all` (alone, or before `except`).
    pub all: bool,
    /// The operations named (`enquire`, `advisory`, `mandatory`; after `all
    /// except` when `all` is set).
    pub ops: Vec<String>,
}

/// A syntax error, reported as pmlogger does: `Error [file, line N]` and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub line: usize,
    pub message: String,
    /// What was parsed before the error: the reference acts on each metric as it
    /// reads it, so these get their warnings before the error is reported.
    pub partial: Vec<Statement>,
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
    /// A character no rule of the reference's lexer takes (outside comments
    /// and quoted strings: any byte above 0x7f, read as Latin-1).
    Bad(char),
}

/// Where [`decode`] puts the bytes that are not UTF-8: byte `b` is `RAW + b`
/// (a private-use character), so that messages can give the byte back.
const RAW: u32 = 0xF700;

/// A configuration's text: UTF-8 as it is, any other byte as a character of
/// its own that [`raw`] turns back into the byte.
pub fn decode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.extend(char::from_u32(RAW + *b as u32));
        }
    }
    out
}

/// A text for the log with [`decode`]'s characters for bytes made bytes again.
pub fn raw(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match c as u32 {
            v if (RAW + 0x80..=RAW + 0xff).contains(&v) => out.push((v - RAW) as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// The character the reference's byte-wise lexer stops at for `c`: its first
/// byte (as [`decode`] keeps a byte).
fn raw_char(c: char) -> char {
    if (RAW + 0x80..=RAW + 0xff).contains(&(c as u32)) {
        return c;
    }
    let first = c.encode_utf8(&mut [0; 4]).as_bytes()[0];
    char::from_u32(RAW + first as u32).unwrap_or(c)
}

/// What the lexer makes of a configuration: tokens with their lines, the
/// `[access]` section's lines (with their numbers) and the line it starts on,
/// and the line after the last.
type Lexed = (
    Vec<(Tok, usize)>,
    Vec<(usize, String)>,
    Option<usize>,
    usize,
);

fn tokenize(text: &str) -> Lexed {
    let mut toks = Vec::new();
    let mut access = Vec::new();
    let mut in_access = false;
    let mut access_line = None;
    // line numbers as the reference's lexer counts them: pmcpp's markers
    // (`# N "file"`) say which line of which file comes next
    let mut next = 1;
    for raw in text.lines() {
        if let Some(n) = crate::pmcpp::marker(raw) {
            next = n;
            continue;
        }
        let line = next;
        next += 1;
        let body = raw.split('#').next().unwrap_or("");
        if body.trim() == "[access]" && !in_access {
            in_access = true;
            access_line = Some(line);
            continue;
        }
        if in_access {
            access.push((line, raw.to_string()));
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
                c if !c.is_ascii() => {
                    toks.push((Tok::Bad(raw_char(c)), line));
                    i += 1;
                }
                _ => {
                    let st = i;
                    while i < b.len()
                        && b[i].is_ascii()
                        && !b[i].is_whitespace()
                        && !"{}[],\"'".contains(b[i])
                    {
                        i += 1;
                    }
                    toks.push((Tok::Word(b[st..i].iter().collect()), line));
                }
            }
        }
    }
    (toks, access, access_line, next)
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

/// Parses a whole configuration, with the reference's grammar: `[log]
/// [mandatory|advisory] on [every] N unit|once|default`, `... off`, `mandatory
/// maybe`, then one metric or a group `{ m [insts] [,] m ... }` (no nesting);
/// instances are names, numbers or quoted strings.
pub fn parse(text: &str, default_ms: i64) -> Result<Config, ConfigError> {
    let (toks, access_lines, access_line, eof) = tokenize(text);
    // the lexer stops at a character it has no rule for: what comes before it
    // is parsed (and acted on) first
    let bad = toks.iter().enumerate().find_map(|(k, t)| match t.0 {
        Tok::Bad(c) => Some((k, c, t.1)),
        _ => None,
    });
    if let Some((b, c, line)) = bad {
        let unexpected = |partial| ConfigError {
            line,
            message: format!("Unexpected character '{c}'"),
            partial,
        };
        // (a name right before it is the parser's lookahead, not yet acted on)
        let upto = match b.checked_sub(1).map(|k| &toks[k].0) {
            Some(Tok::Word(_)) => b - 1,
            _ => b,
        };
        return Err(
            match parse_tokens(&toks[..upto], &[], None, line, default_ms) {
                Err(e) if e.line < line => e,
                Err(e) => unexpected(e.partial),
                Ok(c) => unexpected(c.statements),
            },
        );
    }
    parse_tokens(&toks, &access_lines, access_line, eof, default_ms)
}

/// The statements of the configuration (a parser: one statement after another,
/// each `log [mandatory|advisory] on|off|maybe [every] INTERVAL METRICS`), then
/// the `[access]` section.
fn parse_tokens(
    toks: &[(Tok, usize)],
    access_lines: &[(usize, String)],
    access_line: Option<usize>,
    eof: usize,
    default_ms: i64,
) -> Result<Config, ConfigError> {
    let mut p = Parser { toks, k: 0, eof };
    let mut out = Config {
        statements: Vec::new(),
        access: Vec::new(),
    };
    while p.k < toks.len() {
        let line = toks[p.k].1;
        let (control, switch) = p.control_and_switch()?;
        let every = match switch {
            Switch::On => p.every(default_ms)?,
            _ => Every::Once,
        };
        let (metrics, grouped) = p.metric_list().map_err(|(e, metrics)| {
            with_partial(e, &out.statements, (control, switch, every, line), &metrics)
        })?;
        // a metric without braces takes `[access]` for its instance list, as the
        // reference's grammar does, and fails on it
        if !grouped && p.k == toks.len() && metrics[0].instances.is_empty() {
            if let Some(l) = access_line {
                return Err(config_error(l, "syntax error"));
            }
        }
        out.statements.push(Statement {
            control,
            switch,
            every,
            metrics,
            line,
        });
    }
    if access_line.is_some() {
        out.access = parse_access(access_lines, eof).map_err(|(line, message)| ConfigError {
            line,
            message,
            partial: out.statements.clone(),
        })?;
    }
    Ok(out)
}

fn config_error(line: usize, m: &str) -> ConfigError {
    ConfigError {
        line,
        message: m.to_string(),
        partial: Vec::new(),
    }
}

/// Where the statement parser stands in the tokens.
struct Parser<'t> {
    toks: &'t [(Tok, usize)],
    k: usize,
    /// The line past the text's end (as the reference's lexer counts lines, one
    /// past the last newline).
    eof: usize,
}

impl Parser<'_> {
    /// The line of token `k`, or the end of the text.
    fn at(&self, k: usize) -> usize {
        self.toks.get(k).map_or(self.eof, |t| t.1)
    }

    fn word(&self) -> Option<&str> {
        match self.toks.get(self.k) {
            Some((Tok::Word(w), _)) => Some(w.as_str()),
            _ => None,
        }
    }

    fn syntax(&self) -> ConfigError {
        config_error(self.at(self.k), "syntax error")
    }

    /// `[log] [mandatory|advisory] on|off|maybe` (`maybe` only when mandatory).
    fn control_and_switch(&mut self) -> Result<(Control, Switch), ConfigError> {
        if self.word() == Some("log") {
            self.k += 1;
        }
        let control = match self.word() {
            Some("mandatory") => Control::Mandatory,
            Some("advisory") => Control::Advisory,
            _ => {
                return self.switch(Control::Advisory);
            }
        };
        self.k += 1;
        self.switch(control)
    }

    fn switch(&mut self, control: Control) -> Result<(Control, Switch), ConfigError> {
        let switch = match self.word() {
            Some("on") => Switch::On,
            Some("off") => Switch::Off,
            Some("maybe") if control == Control::Mandatory => Switch::Maybe,
            _ => return Err(self.syntax()),
        };
        self.k += 1;
        Ok((control, switch))
    }

    /// `[every] once|default|N UNIT`, with the reference's checks of the interval
    /// (`default` is `-t`, or `PMLOGGER_INTERVAL`, checked here as it checks it).
    fn every(&mut self, default_ms: i64) -> Result<Every, ConfigError> {
        if self.word() == Some("every") {
            self.k += 1;
        }
        let too_big = |ms: String| {
            format!("Logging delta ({ms} msec) cannot be bigger than {MAX_DELTA_MS} msec")
        };
        let ms = match self.word() {
            Some("once") => {
                self.k += 1;
                return Ok(Every::Once);
            }
            Some("default") => {
                self.k += 1;
                let line = self.at(self.k - 1);
                if default_ms < 0 {
                    let m = format!("Logging delta ({default_ms} msec) must be positive");
                    return Err(config_error(line, &m));
                }
                if default_ms as u64 > MAX_DELTA_MS {
                    return Err(config_error(line, &too_big(default_ms.to_string())));
                }
                default_ms as u64
            }
            Some(w) if w.starts_with(|c: char| c.is_ascii_digit()) => {
                if let Some(c) = w.chars().find(|c| !c.is_ascii_digit()) {
                    let m = format!("Unexpected character '{c}'");
                    return Err(config_error(self.at(self.k), &m));
                }
                let n: u64 = w.parse().unwrap_or(u64::MAX);
                self.k += 1;
                let Some(mult) = self.word().and_then(unit_ms) else {
                    return Err(self.syntax());
                };
                self.k += 1;
                let ms = n.saturating_mul(mult);
                if ms > MAX_DELTA_MS {
                    return Err(config_error(self.at(self.k - 1), &too_big(ms.to_string())));
                }
                ms
            }
            _ => return Err(self.syntax()),
        };
        Ok(if ms == 0 {
            Every::Once
        } else {
            Every::Millis(ms)
        })
    }

    /// One metric, or a group of them in braces, each with its instances; whether
    /// it was a group. On a syntax error, the error and the metrics read before it.
    #[allow(clippy::type_complexity)]
    fn metric_list(&mut self) -> Result<(Vec<MetricSpec>, bool), (ConfigError, Vec<MetricSpec>)> {
        let mut metrics = Vec::new();
        let grouped = matches!(self.toks.get(self.k), Some((Tok::Open, _)));
        if grouped {
            self.k += 1;
        }
        loop {
            match self.toks.get(self.k) {
                Some((Tok::Word(w), _)) if is_name(w) && (grouped || metrics.is_empty()) => {
                    let mut m = MetricSpec {
                        name: w.clone(),
                        instances: Vec::new(),
                    };
                    self.k += 1;
                    if matches!(self.toks.get(self.k), Some((Tok::LBracket, _))) {
                        self.k += 1;
                        if let Err(e) = self.instances(&mut m) {
                            return Err((e, metrics));
                        }
                    }
                    metrics.push(m);
                    if !grouped {
                        return Ok((metrics, grouped));
                    }
                }
                Some((Tok::Comma, _)) if grouped && !metrics.is_empty() => self.k += 1,
                Some((Tok::Close, _)) if grouped && !metrics.is_empty() => {
                    self.k += 1;
                    return Ok((metrics, grouped));
                }
                _ => return Err((self.syntax(), metrics)),
            }
        }
    }

    /// A metric's instance list, after its `[`: names, numbers or strings, comma
    /// separated, to the `]`.
    fn instances(&mut self, m: &mut MetricSpec) -> Result<(), ConfigError> {
        loop {
            match self.toks.get(self.k) {
                Some((Tok::RBracket, _)) if !m.instances.is_empty() => {
                    self.k += 1;
                    return Ok(());
                }
                Some((Tok::Comma, _)) if !m.instances.is_empty() => self.k += 1,
                Some((Tok::Word(x), _)) if is_name(x) || x.chars().all(|c| c.is_ascii_digit()) => {
                    m.instances.push(x.clone());
                    self.k += 1;
                }
                Some((Tok::Str(x), _)) => {
                    m.instances.push(x.clone());
                    self.k += 1;
                }
                _ => return Err(self.syntax()),
            }
        }
    }
}

/// A token of the `[access]` section.
#[derive(Debug, Clone, PartialEq)]
enum ATok {
    Punct(char),
    /// One of the grammar's words (only some of them mean anything here).
    Key(String),
    /// A host pattern: a name, an address or wildcard, a `unix:`/`local:` URL.
    Host(String),
    /// A quoted string or a number: never right in this section.
    Other,
}

/// What a rule of the `[access]` section's lexer makes.
const KEY: u8 = 1;
const HOST: u8 = 2;
const OTHER: u8 = 3;

/// The `[access]` section lexer's rules, in the reference's order (keywords
/// first): a pattern and what it makes.
const ACCESS_RULES: &[(&str, u8)] = &[
    ("milliseconds?", KEY),
    ("mandatory", KEY),
    ("advisory", KEY),
    ("disallow", KEY),
    ("minutes?", KEY),
    ("seconds?", KEY),
    ("default", KEY),
    ("enquire", KEY),
    ("access", KEY),
    ("except", KEY),
    ("allow", KEY),
    ("every", KEY),
    ("maybe", KEY),
    ("hours?", KEY),
    ("msecs?", KEY),
    ("mins?", KEY),
    ("once", KEY),
    ("secs?", KEY),
    ("log", KEY),
    ("all", KEY),
    ("off", KEY),
    ("on", KEY),
    ("[A-Za-z][A-Za-z0-9_.]*", HOST),
    ("[A-Za-z][A-Za-z0-9_.-]*", HOST),
    (r#""[^"\n][^"\n]*""#, OTHER),
    ("[0-9]+", OTHER),
    (r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+", HOST),
    (r"[0-9]+\.[0-9]+\.[0-9]+\.\*", HOST),
    (r"[0-9]+\.[0-9]+\.\*", HOST),
    (r"[0-9]+\.\*", HOST),
    (r"\.\*", HOST),
    ("([A-Fa-f0-9]+:)*[A-Fa-f0-9]+", HOST),
    ("::", HOST),
    ("::([A-Fa-f0-9]+:)*[A-Fa-f0-9]+", HOST),
    ("([A-Fa-f0-9]+:)+:([A-Fa-f0-9]+:)*[A-Fa-f0-9]+", HOST),
    ("([A-Fa-f0-9]+:)+:", HOST),
    (r"([A-Fa-f0-9]+:)+\*", HOST),
    (r"::([A-Fa-f0-9]+:)*\*", HOST),
    (r"([A-Fa-f0-9]+:)+:([A-Fa-f0-9]+:)*\*", HOST),
    (r":\*", HOST),
    (r"\*", HOST),
    (r"unix:[A-Za-z0-9_./]*\*", HOST),
    ("unix:[A-Za-z0-9_./]*", HOST),
    (r"local:[A-Za-z0-9_./]*\*", HOST),
    ("local:[A-Za-z0-9_./]*", HOST),
];

/// [`ACCESS_RULES`] compiled, each anchored at the start.
fn access_rules() -> &'static [(regex::Regex, u8)] {
    use std::sync::OnceLock;
    static RULES: OnceLock<Vec<(regex::Regex, u8)>> = OnceLock::new();
    RULES.get_or_init(|| {
        ACCESS_RULES
            .iter()
            .filter_map(|(re, kind)| {
                let re = regex::Regex::new(&format!("^(?:{re})")).ok()?;
                Some((re, *kind))
            })
            .collect()
    })
}

/// The longest match of a rule at the start of `rest`, the earlier rule on a
/// tie: its length and what it makes.
fn longest(rest: &str) -> Option<(usize, u8)> {
    let mut best: Option<(usize, u8)> = None;
    for (re, kind) in access_rules() {
        if let Some(m) = re.find(rest) {
            if m.end() > best.map_or(0, |b| b.0) {
                best = Some((m.end(), *kind));
            }
        }
    }
    best
}

/// The section's tokens as PCP's lexer makes them: at each point the longest
/// match of its rules, the earlier rule on a tie; a character no rule takes is
/// an error ("Unexpected character").
fn lex_access(lines: &[(usize, String)]) -> Result<Vec<(ATok, usize)>, (usize, String)> {
    let mut out = Vec::new();
    for (line, text) in lines {
        let mut rest = text.as_str();
        while let Some(c) = rest.chars().next() {
            if c == '#' {
                break;
            }
            if matches!(c, ' ' | '\t' | '\r') {
                rest = &rest[1..];
                continue;
            }
            let best = longest(rest);
            // a lone ':' is punctuation unless a longer rule takes it (":*")
            if "[],{}:;".contains(c) && best.is_none_or(|b| b.0 <= 1) {
                out.push((ATok::Punct(c), *line));
                rest = &rest[1..];
                continue;
            }
            let Some((len, kind)) = best else {
                return Err((*line, format!("Unexpected character '{c}'")));
            };
            let word = &rest[..len];
            let tok = match kind {
                KEY => ATok::Key(word.to_string()),
                HOST => ATok::Host(word.to_string()),
                _ => ATok::Other,
            };
            out.push((tok, *line));
            rest = &rest[len..];
        }
    }
    Ok(out)
}

/// The section's statements, with the reference's grammar: at least one
/// statement; `allow|disallow` hosts separated by commas, `:`, then `all`, `all
/// except` a list, or a list of `enquire`, `advisory`, `mandatory`, and `;`.
/// Errors are the line and the message (`syntax error` at the token that does
/// not fit, or at the end of the text).
fn parse_access(lines: &[(usize, String)], eof: usize) -> Result<Vec<AccessStmt>, (usize, String)> {
    let toks = lex_access(lines)?;
    let at = |k: usize| toks.get(k).map_or(eof, |t| t.1);
    let syntax = |k: usize| (at(k), "syntax error".to_string());
    let key = |k: usize| match toks.get(k) {
        Some((ATok::Key(w), _)) => Some(w.as_str()),
        _ => None,
    };
    let punct = |k: usize, c: char| matches!(toks.get(k), Some((ATok::Punct(p), _)) if *p == c);
    let mut out = Vec::new();
    let mut k = 0;
    loop {
        let allow = match key(k) {
            Some("allow") => true,
            Some("disallow") => false,
            _ => return Err(syntax(k)),
        };
        let mut st = AccessStmt {
            allow,
            ..Default::default()
        };
        k += 1;
        // `item[, item...]`: each token taken by `take`, else a syntax error
        let comma_list = |k: &mut usize, take: &mut dyn FnMut(usize) -> bool| loop {
            if !take(*k) {
                return Err(syntax(*k));
            }
            *k += 1;
            if !punct(*k, ',') {
                return Ok(());
            }
            *k += 1;
        };
        comma_list(&mut k, &mut |k| match toks.get(k) {
            Some((ATok::Host(h), line)) => {
                st.hosts.push((h.clone(), *line));
                true
            }
            _ => false,
        })?;
        if !punct(k, ':') {
            return Err(syntax(k));
        }
        k += 1;
        let list = if key(k) == Some("all") {
            st.all = true;
            k += 1;
            if key(k) == Some("except") {
                k += 1;
                true
            } else {
                false
            }
        } else {
            true
        };
        if list {
            comma_list(&mut k, &mut |k| match key(k) {
                Some(op @ ("enquire" | "advisory" | "mandatory")) => {
                    st.ops.push(op.to_string());
                    true
                }
                _ => false,
            })?;
        }
        if !punct(k, ';') {
            return Err(syntax(k));
        }
        k += 1;
        out.push(st);
        if k == toks.len() {
            return Ok(out);
        }
    }
}

/// An error with what was parsed before it (complete statements, and the
/// metrics read so far of the one the error is in).
fn with_partial(
    mut e: ConfigError,
    done: &[Statement],
    (control, switch, every, line): (Control, Switch, Every, usize),
    metrics: &[MetricSpec],
) -> ConfigError {
    e.partial = done.to_vec();
    if !metrics.is_empty() {
        e.partial.push(Statement {
            control,
            switch,
            every,
            metrics: metrics.to_vec(),
            line,
        });
    }
    e
}

/// The largest logging interval (PMLC_MAX_DELTA).
pub const MAX_DELTA_MS: u64 = 0x0fff_ffff;

/// A metric or instance name as the reference's lexer takes it.
fn is_name(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_alphabetic())
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_groups_intervals_and_instances() {
        let c = parse(
            "# comment\nlog mandatory on 10 sec {\n  kernel.all.load,\n  disk.dev.read [ \"sda\", sdb 3 ]\n  mem.util\n}\nlog mandatory on once hinv.ncpu\nadvisory on default { swap }\nmandatory off proc\non every 500 msec { kernel.all.intr }\nlog mandatory on 0 sec { x }\n[access]\nallow localhost : all;\n",
            60_000,
        )
        .expect("parses");
        assert_eq!(c.statements.len(), 6);
        let s = &c.statements[0];
        assert_eq!(s.every, Every::Millis(10_000));
        assert_eq!(s.metrics.len(), 3);
        assert_eq!(s.metrics[1].instances, ["sda", "sdb", "3"]);
        assert_eq!(c.statements[1].every, Every::Once);
        assert_eq!(c.statements[2].every, Every::Millis(60_000));
        assert_eq!(c.statements[3].switch, Switch::Off);
        assert_eq!(c.statements[4].control, Control::Advisory);
        assert_eq!(c.statements[4].every, Every::Millis(500));
        assert_eq!(c.statements[5].every, Every::Once);
        assert_eq!(
            c.access,
            [AccessStmt {
                allow: true,
                hosts: vec![("localhost".into(), 13)],
                all: true,
                ops: Vec::new(),
            }]
        );
    }

    /// Bytes the reference's lexer has no rule for (anything above 0x7f outside
    /// comments and quoted strings): the error gives the byte itself, and the
    /// metric right before it is not acted on; UTF-8 in quoted instances is kept.
    #[test]
    fn bytes_outside_ascii() {
        let text = decode(
            b"log mandatory on 1 sec { a.b }\n# caf\xe9\nlog mandatory on 1 sec { c.\xff }\n",
        );
        let e = parse(&text, 1000).expect_err("unexpected byte");
        assert_eq!(e.line, 3);
        assert_eq!(raw(&e.message), b"Unexpected character '\xff'");
        assert_eq!(e.partial.len(), 1);
        let e = parse(
            &decode("log mandatory on 1 sec { caf\u{e9} }\n".as_bytes()),
            1000,
        )
        .expect_err("first byte of a UTF-8 character");
        assert_eq!(raw(&e.message), b"Unexpected character '\xc3'");
        let c = parse(
            &decode("log mandatory on 1 sec { x [\"caf\u{e9}\"] }\n".as_bytes()),
            1000,
        )
        .expect("quoted");
        assert_eq!(c.statements[0].metrics[0].instances, ["caf\u{e9}"]);
    }

    /// What PCP 6.0.3's pmlogger refuses, on the line it names (checked against
    /// the reference).
    #[test]
    fn errors_as_the_reference() {
        let cases: [(&str, usize, &str); 9] = [
            ("log mandatory on 1 sec {\n foo\n", 3, "syntax error"),
            ("log sometimes on 1 sec foo\n", 1, "syntax error"),
            ("log advisory maybe foo\n", 1, "syntax error"),
            ("log mandatory on 500 { foo }\n", 1, "syntax error"),
            (
                "log mandatory on 0.5 secs { foo }\n",
                1,
                "Unexpected character '.'",
            ),
            (
                "log mandatory on 1 sec { foo [bin-100] }\n",
                1,
                "syntax error",
            ),
            ("log mandatory on 1 sec { a { b } }\n", 1, "syntax error"),
            (
                "log mandatory on 1 sec kernel.all.load\n[access]\nallow * : all;\n",
                2,
                "syntax error",
            ),
            (
                "log mandatory on 75 hours { foo }\n",
                1,
                "Logging delta (270000000 msec) cannot be bigger than 268435455 msec",
            ),
        ];
        for (text, line, message) in cases {
            let e = parse(text, 60_000).expect_err(text);
            assert_eq!((e.line, e.message.as_str()), (line, message), "{text}");
        }
        // what came before the error, to be acted on first
        let e = parse(
            "log mandatory on 1 sec x\nlog mandatory on 1 sec { a b [c-d] }\n",
            60_000,
        )
        .expect_err("syntax");
        assert_eq!(e.partial.len(), 2);
        assert_eq!(e.partial[1].metrics.len(), 1);
        // the default interval as -t gives it
        let d = |ms: i64| parse("log mandatory on default { x }\n", ms);
        assert_eq!(d(0).expect("once").statements[0].every, Every::Once);
        assert_eq!(
            d(-9_223_372_036_854_775).expect_err("nan").message,
            "Logging delta (-9223372036854775 msec) must be positive"
        );
        assert!(d(1 << 40).is_err());
    }
}
