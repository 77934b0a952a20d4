//! The rules' scanner, as pmlogrewrite's flex scanner reads them: start states
//! (a clause's keywords are keywords only inside it), the longest match with
//! the earlier pattern winning a tie, keywords in any case, and the line count
//! moved only by a newline between tokens (not by one inside a quoted string).
//!
//! The patterns are a table ([`RULES`]), in the scanner's order.

use crate::tables as t;

/// The scanner's start states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Initial,
    Glob,
    Host,
    Indom,
    Metric,
    Text,
    Label,
    Type,
    IfType,
    Sem,
    Units,
    Space,
    Time,
    Count,
    Output,
}

/// The kind of clause being read (what `{` starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clause {
    None,
    Global,
    Indom,
    Metric,
    Text,
    Label,
}

/// A token: its code (0 at the end) and its text as the grammar's value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub(crate) kind: i32,
    pub(crate) text: String,
}

/// What a pattern matches.
#[derive(Clone, Copy)]
enum Pat {
    /// A word, in any case.
    Word(&'static str),
    /// A class-built pattern (see [`matches`]).
    Class(Shape),
}

/// The scanner's patterns that are not plain words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    HostName,
    Digits,
    String,
    TextString,
    Float,
    IndomStar,
    PmidInt,
    PmidStarItem,
    PmidStarBoth,
    JsonNumber,
    JsonString,
    GenericName,
    Comment,
    Blanks,
    Newline,
    AnyChar,
}

/// What a match does.
#[derive(Clone, Copy)]
enum Act {
    /// Returns the token.
    Tok(i32),
    /// Returns the token and enters the state.
    TokTo(i32, State),
    /// A keyword starting a clause.
    Starts(i32, Clause, Option<State>),
    Skip,
    Newline,
    LBrace,
    RBrace,
    UnitsComma,
    Bad,
}

/// Where a pattern applies: every state, or those listed.
type States = &'static [State];
const ALL: States = &[];

use Act::*;
use Pat::{Class as C, Word as W};
use State as S;

/// The scanner's patterns in its order (a table: long on purpose).
const RULES: &[(States, Pat, Act)] = &[
    (
        &[S::Initial],
        W("global"),
        Starts(t::T_GLOBAL, Clause::Global, None),
    ),
    (
        &[S::Initial],
        W("metric"),
        Starts(t::T_METRIC, Clause::Metric, None),
    ),
    (
        &[S::Initial],
        W("indom"),
        Starts(t::T_INDOM, Clause::Indom, None),
    ),
    (
        &[S::Initial],
        W("text"),
        Starts(t::T_TEXT, Clause::Text, Some(S::Text)),
    ),
    (
        &[S::Initial],
        W("label"),
        Starts(t::T_LABEL, Clause::Label, Some(S::Label)),
    ),
    (&[S::Glob], W("hostname"), TokTo(t::T_HOSTNAME, S::Host)),
    (&[S::Glob], W("time"), Tok(t::T_TIME)),
    (&[S::Glob], W("tz"), Tok(t::T_TIMEZONE)),
    (&[S::Glob], W("timezone"), Tok(t::T_TIMEZONE)),
    (&[S::Glob], W("zoneinfo"), Tok(t::T_ZONEINFO)),
    (&[S::Glob], W("features"), Tok(t::T_FEATURES)),
    (&[S::Glob], W("bits"), Tok(t::T_BITS)),
    (&[S::Host], C(Shape::HostName), TokTo(t::T_HNAME, S::Glob)),
    (
        &[S::Indom, S::Metric, S::Text, S::Label],
        W("delete"),
        Tok(t::T_DELETE),
    ),
    (&[S::Indom], W("indom"), Tok(t::T_INDOM)),
    (&[S::Indom], W("duplicate"), Tok(t::T_DUPLICATE)),
    (&[S::Indom], W("iname"), Tok(t::T_INAME)),
    (&[S::Indom], W("inst"), Tok(t::T_INST)),
    (&[S::Metric], W("name"), Tok(t::T_NAME)),
    (&[S::Metric], W("pmid"), Tok(t::T_PMID)),
    (&[S::Metric], W("type"), TokTo(t::T_TYPE, S::Type)),
    (&[S::Metric], W("indom"), Tok(t::T_INDOM)),
    (&[S::Metric], W("NULL"), Tok(t::T_NULL_INT)),
    (&[S::Metric], W("output"), TokTo(t::T_OUTPUT, S::Output)),
    (&[S::Metric], W("sem"), TokTo(t::T_SEM, S::Sem)),
    (&[S::Metric], W("units"), TokTo(t::T_UNITS, S::Units)),
    (&[S::Text], W("metric"), Tok(t::T_METRIC)),
    (&[S::Text], W("indom"), Tok(t::T_INDOM)),
    (&[S::Text], W("oneline"), Tok(t::T_ONELINE)),
    (&[S::Text], W("help"), Tok(t::T_HELP)),
    (&[S::Text], W("text"), Tok(t::T_TEXT)),
    (&[S::Text], W("*"), Tok(t::T_TEXT_STAR)),
    (&[S::Label], W("context"), Tok(t::T_CONTEXT)),
    (&[S::Label], W("domain"), Tok(t::T_DOMAIN)),
    (&[S::Label], W("cluster"), Tok(t::T_CLUSTER)),
    (&[S::Label], W("item"), Tok(t::T_ITEM)),
    (&[S::Label], W("indom"), Tok(t::T_INDOM)),
    (&[S::Label], W("instances"), Tok(t::T_INSTANCES)),
    (&[S::Label], W("instance"), Tok(t::T_INSTANCE)),
    (&[S::Label], W("new"), Tok(t::T_NEW)),
    (&[S::Label], W("label"), Tok(t::T_LABEL)),
    (&[S::Label], W("value"), Tok(t::T_VALUE)),
    (&[S::Label], W("true"), Tok(t::T_JSON_TRUE)),
    (&[S::Label], W("false"), Tok(t::T_JSON_FALSE)),
    (&[S::Label], W("null"), Tok(t::T_JSON_NULL)),
    (&[S::Label], W("*"), Tok(t::T_LABEL_STAR)),
    (&[S::Type], W("32"), TokTo(t::T_TYPE_NAME, S::Metric)),
    (&[S::Type], W("U32"), TokTo(t::T_TYPE_NAME, S::Metric)),
    (&[S::Type], W("64"), TokTo(t::T_TYPE_NAME, S::Metric)),
    (&[S::Type], W("U64"), TokTo(t::T_TYPE_NAME, S::Metric)),
    (&[S::Type], W("FLOAT"), TokTo(t::T_TYPE_NAME, S::Metric)),
    (&[S::Type], W("DOUBLE"), TokTo(t::T_TYPE_NAME, S::Metric)),
    (&[S::Type], W("if"), TokTo(t::T_IF, S::IfType)),
    (&[S::IfType], W("32"), TokTo(t::T_TYPE_NAME, S::Type)),
    (&[S::IfType], W("U32"), TokTo(t::T_TYPE_NAME, S::Type)),
    (&[S::IfType], W("64"), TokTo(t::T_TYPE_NAME, S::Type)),
    (&[S::IfType], W("U64"), TokTo(t::T_TYPE_NAME, S::Type)),
    (&[S::IfType], W("FLOAT"), TokTo(t::T_TYPE_NAME, S::Type)),
    (&[S::IfType], W("DOUBLE"), TokTo(t::T_TYPE_NAME, S::Type)),
    (&[S::Output], W("first"), TokTo(t::T_OUTPUT_TYPE, S::Metric)),
    (&[S::Output], W("last"), TokTo(t::T_OUTPUT_TYPE, S::Metric)),
    (&[S::Output], W("min"), TokTo(t::T_OUTPUT_TYPE, S::Metric)),
    (&[S::Output], W("max"), TokTo(t::T_OUTPUT_TYPE, S::Metric)),
    (&[S::Output], W("sum"), TokTo(t::T_OUTPUT_TYPE, S::Metric)),
    (&[S::Output], W("avg"), TokTo(t::T_OUTPUT_TYPE, S::Metric)),
    (&[S::Output], W("inst"), TokTo(t::T_INST, S::Metric)),
    (&[S::Output], W("iname"), TokTo(t::T_INAME, S::Metric)),
    (&[S::Sem], W("COUNTER"), TokTo(t::T_SEM_NAME, S::Metric)),
    (&[S::Sem], W("INSTANT"), TokTo(t::T_SEM_NAME, S::Metric)),
    (&[S::Sem], W("DISCRETE"), TokTo(t::T_SEM_NAME, S::Metric)),
    (&[S::Units], W(","), UnitsComma),
    (&[S::Metric], W("rescale"), Tok(t::T_RESCALE)),
    (&[S::Space], W("BYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("KBYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("MBYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("GBYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("TBYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("PBYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("EBYTE"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Space], W("0"), TokTo(t::T_SPACE_NAME, S::Units)),
    (&[S::Time], W("NSEC"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Time], W("USEC"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Time], W("MSEC"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Time], W("SEC"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Time], W("MIN"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Time], W("HOUR"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Time], W("0"), TokTo(t::T_TIME_NAME, S::Units)),
    (&[S::Count], W("ONE"), TokTo(t::T_COUNT_NAME, S::Metric)),
    (
        &[S::Count],
        C(Shape::Digits),
        TokTo(t::T_COUNT_NAME, S::Metric),
    ),
    (ALL, C(Shape::String), Tok(t::T_STRING)),
    (ALL, C(Shape::TextString), Tok(t::T_TEXT_STRING)),
    (ALL, C(Shape::Digits), Tok(t::T_NUMBER)),
    (ALL, C(Shape::Float), Tok(t::T_FLOAT)),
    (ALL, C(Shape::IndomStar), Tok(t::T_INDOM_STAR)),
    (ALL, C(Shape::PmidInt), Tok(t::T_PMID_INT)),
    (ALL, C(Shape::PmidStarItem), Tok(t::T_PMID_STAR)),
    (ALL, C(Shape::PmidStarBoth), Tok(t::T_PMID_STAR)),
    (ALL, C(Shape::JsonNumber), Tok(t::T_JSON_NUMBER)),
    (ALL, C(Shape::JsonString), Tok(t::T_JSON_STRING)),
    (ALL, C(Shape::GenericName), Tok(t::T_GNAME)),
    (ALL, C(Shape::Comment), Skip),
    (ALL, C(Shape::Blanks), Skip),
    (ALL, W("->"), Tok(t::T_ASSIGN)),
    (ALL, W("{"), LBrace),
    (ALL, W("}"), RBrace),
    (ALL, W("+"), Tok(t::T_PLUS)),
    (ALL, W("-"), Tok(t::T_MINUS)),
    (ALL, W(":"), Tok(t::T_COLON)),
    (ALL, W(","), Tok(t::T_COMMA)),
    (ALL, W("("), Tok(t::T_LPAREN)),
    (ALL, W(")"), Tok(t::T_RPAREN)),
    (ALL, C(Shape::Newline), Newline),
    (ALL, C(Shape::AnyChar), Bad),
];

fn digits(b: &[u8], from: usize) -> usize {
    b[from..].iter().take_while(|c| c.is_ascii_digit()).count()
}

/// `"`, one or more characters other than `"` and newline, `"`.
fn string(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&b'"') {
        return None;
    }
    let n = b[1..]
        .iter()
        .take_while(|c| **c != b'"' && **c != b'\n')
        .count();
    (n > 0 && b.get(1 + n) == Some(&b'"')).then_some(n + 2)
}

/// `"(\\"|[^"])+"`: a quote inside only after a backslash, newlines allowed;
/// the longest such match (it may end at an escaped quote).
fn text_string(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut end = None;
    for i in 1..b.len() {
        if b[i] != b'"' {
            continue;
        }
        if i > 1 {
            end = Some(i + 1);
        }
        if b[i - 1] != b'\\' || i == 1 {
            break;
        }
    }
    end
}

/// A JSON string: escapes `\"\\/bfnrt` and `\uXXXX`, no newline, no bare `\`.
fn json_string(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Some(i + 1),
            b'\\' => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u')
                    if b.len() >= i + 6 && b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) =>
                {
                    i += 6
                }
                _ => return None,
            },
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

/// `(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn json_number(b: &[u8]) -> Option<usize> {
    let mut i = match b.first() {
        Some(b'0') => 1,
        Some(c) if c.is_ascii_digit() => 1 + digits(b, 1),
        _ => return None,
    };
    if b.get(i) == Some(&b'.') && digits(b, i + 1) > 0 {
        i += 1 + digits(b, i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(b, j) > 0 {
            i = j + digits(b, j);
        }
    }
    Some(i)
}

/// `[A-Za-z]([A-Za-z0-9_.]|([=-][A-Za-z0-9_.]))*`
fn generic_name(b: &[u8]) -> Option<usize> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let mut i = 1;
    loop {
        match b.get(i) {
            Some(&c) if word(c) => i += 1,
            Some(b'=' | b'-') if b.get(i + 1).is_some_and(|&c| word(c)) => i += 2,
            _ => return Some(i),
        }
    }
}

/// How much of `b` a class-built pattern matches.
fn matches(shape: Shape, b: &[u8]) -> Option<usize> {
    let n = digits(b, 0);
    let after = |k: usize, s: &[u8]| b.get(k..k + s.len()) == Some(s);
    match shape {
        Shape::HostName => {
            let ok = |c: &u8| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'-';
            b.first()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|_| 1 + b[1..].iter().take_while(|c| ok(c)).count())
        }
        Shape::Digits => (n > 0).then_some(n),
        Shape::String => string(b),
        Shape::TextString => text_string(b),
        Shape::Float => (n > 0 && after(n, b".")).then(|| n + 1 + digits(b, n + 1)),
        Shape::IndomStar => (n > 0 && after(n, b".*")).then_some(n + 2),
        Shape::PmidInt => {
            let m = (n > 0 && after(n, b".")).then(|| digits(b, n + 1))?;
            let k = n + 1 + m;
            let i = (m > 0 && after(k, b".")).then(|| digits(b, k + 1))?;
            (i > 0).then_some(k + 1 + i)
        }
        Shape::PmidStarItem => {
            let m = (n > 0 && after(n, b".")).then(|| digits(b, n + 1))?;
            (m > 0 && after(n + 1 + m, b".*")).then_some(n + 1 + m + 2)
        }
        Shape::PmidStarBoth => (n > 0 && after(n, b".*.*")).then_some(n + 4),
        Shape::JsonNumber => json_number(b),
        Shape::JsonString => json_string(b),
        Shape::GenericName => generic_name(b),
        Shape::Comment => {
            (b.first() == Some(&b'#')).then(|| b.iter().take_while(|c| **c != b'\n').count())
        }
        Shape::Blanks => {
            let k = b
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t' | b'\r'))
                .count();
            (k > 0).then_some(k)
        }
        Shape::Newline => (b.first() == Some(&b'\n')).then_some(1),
        Shape::AnyChar => b.first().filter(|c| **c != b'\n').map(|_| 1),
    }
}

/// The scanner over one file's text.
pub(crate) struct Lexer<'a> {
    text: &'a [u8],
    at: usize,
    state: State,
    clause: Clause,
    commas: u32,
    /// The line being read (1 first), as pmlogrewrite counts it.
    pub(crate) line: usize,
    /// "Unexpected character 'c'": the scanner stops the run.
    pub(crate) error: Option<String>,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a [u8]) -> Lexer<'a> {
        Lexer {
            text,
            at: 0,
            state: State::Initial,
            clause: Clause::None,
            commas: 0,
            line: 1,
            error: None,
        }
    }

    /// The next token (code 0 at the end, or after an unexpected character).
    pub(crate) fn next(&mut self) -> Token {
        loop {
            let rest = &self.text[self.at..];
            if rest.is_empty() || self.error.is_some() {
                return Token {
                    kind: 0,
                    text: String::new(),
                };
            }
            let (len, act) = self.longest(rest);
            let text = String::from_utf8_lossy(&rest[..len]).into_owned();
            self.at += len;
            let kind = match act {
                Tok(k) => k,
                TokTo(k, s) => {
                    self.state = s;
                    k
                }
                Starts(k, c, s) => {
                    self.clause = c;
                    if let Some(s) = s {
                        self.state = s;
                    }
                    k
                }
                Skip => continue,
                Newline => {
                    self.line += 1;
                    continue;
                }
                LBrace => {
                    match self.clause {
                        Clause::Global => self.state = State::Glob,
                        Clause::Indom => self.state = State::Indom,
                        Clause::Metric => self.state = State::Metric,
                        _ => {}
                    }
                    t::T_LBRACE
                }
                RBrace => {
                    self.clause = Clause::None;
                    self.state = State::Initial;
                    t::T_RBRACE
                }
                UnitsComma => {
                    self.commas += 1;
                    match self.commas {
                        3 => self.state = State::Space,
                        4 => self.state = State::Time,
                        5 => self.state = State::Count,
                        _ => {}
                    }
                    t::T_COMMA
                }
                Bad => {
                    self.error = Some(format!("Unexpected character '{text}'"));
                    continue;
                }
            };
            if act_is_units(act) {
                self.commas = 0;
            }
            let text = match kind {
                k if k == t::T_STRING => text[1..text.len() - 1].to_string(),
                k if k == t::T_TEXT_STRING => unescape(&text[1..text.len() - 1]),
                _ => text,
            };
            return Token { kind, text };
        }
    }

    /// The longest match of the patterns active in the state, the earlier
    /// pattern on a tie.
    fn longest(&self, rest: &[u8]) -> (usize, Act) {
        let mut best: Option<(usize, Act)> = None;
        for (states, pat, act) in RULES {
            if !states.is_empty() && !states.contains(&self.state) {
                continue;
            }
            let len = match pat {
                W(w) => rest
                    .get(..w.len())
                    .filter(|p| p.eq_ignore_ascii_case(w.as_bytes()))
                    .map(|_| w.len()),
                C(shape) => matches(*shape, rest),
            };
            if let Some(len) = len {
                if best.is_none_or(|(b, _)| len > b) {
                    best = Some((len, *act));
                }
            }
        }
        // every byte but a newline matches AnyChar, and a newline Newline
        best.unwrap_or((1, Bad))
    }
}

/// A quoted text's characters with each `\\c` read as `c`.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(n)) => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether the action is the `units` keyword's (which starts its comma count).
fn act_is_units(act: Act) -> bool {
    matches!(act, TokTo(k, State::Units) if k == t::T_UNITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(i32, String)> {
        let mut l = Lexer::new(src.as_bytes());
        let mut out = Vec::new();
        loop {
            let t = l.next();
            if t.kind == 0 {
                return out;
            }
            out.push((t.kind, t.text));
        }
    }

    #[test]
    fn keywords_belong_to_their_clause() {
        let k = kinds("GLOBAL { Hostname -> a.b-c time -> 1:2 }");
        let codes: Vec<i32> = k.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            codes,
            [
                t::T_GLOBAL,
                t::T_LBRACE,
                t::T_HOSTNAME,
                t::T_ASSIGN,
                t::T_HNAME,
                t::T_TIME,
                t::T_ASSIGN,
                t::T_NUMBER,
                t::T_COLON,
                t::T_NUMBER,
                t::T_RBRACE
            ]
        );
        // outside a global clause "time" is a name
        assert_eq!(kinds("time")[0].0, t::T_GNAME);
    }

    #[test]
    fn longest_match_and_first_pattern_on_a_tie() {
        assert_eq!(kinds("12.34.56")[0].0, t::T_PMID_INT);
        assert_eq!(kinds("12.34.*")[0].0, t::T_PMID_STAR);
        assert_eq!(kinds("12.*")[0].0, t::T_INDOM_STAR);
        assert_eq!(kinds("12.5")[0].0, t::T_FLOAT);
        assert_eq!(kinds("1e5")[0].0, t::T_JSON_NUMBER);
        assert_eq!(kinds("\"a\"")[0].0, t::T_STRING);
        assert_eq!(kinds("\"a\\\"b\"")[0].0, t::T_TEXT_STRING);
        assert_eq!(kinds("\"\"")[0].0, t::T_JSON_STRING);
    }

    #[test]
    fn lines_count_newlines_between_tokens_only() {
        let mut l = Lexer::new(b"\"a\nb\"\n# c\nx");
        assert_eq!(l.next().kind, t::T_TEXT_STRING);
        assert_eq!(l.line, 1);
        assert_eq!(l.next().kind, t::T_GNAME);
        assert_eq!(l.line, 3);
    }

    #[test]
    fn an_unexpected_character_stops_the_scan() {
        let mut l = Lexer::new(b"global @");
        assert_eq!(l.next().kind, t::T_GLOBAL);
        assert_eq!(l.next().kind, 0);
        assert_eq!(l.error.as_deref(), Some("Unexpected character '@'"));
    }
}
