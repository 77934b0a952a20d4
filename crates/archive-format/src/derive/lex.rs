//! The derived-metric expression lexer, as libpcp's: one character of lookahead
//! pushed back at a time, `/` starting a pattern only inside `matchinst(`, a name
//! followed by `(` a function when it names one, and each token's start kept for
//! the error marker (the end of the text "starts" at its last character).

use super::tables as t;

/// A token: its kind (the grammar's token code) and its text (without the
/// quotes, brackets or slashes around a string, instance name or pattern).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) kind: i32,
    pub(super) text: String,
}

/// What the lexer reads: a byte, or the end (a NUL ends the text as in C, and
/// so does a byte that is -1 as a C `char`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ch {
    Byte(u8),
    End,
}

/// The functions the lexer knows by name, when `(` follows the name.
const FUNCTIONS: &[(&str, i32)] = &[
    ("avg", t::L_AVG),
    ("count", t::L_COUNT),
    ("delta", t::L_DELTA),
    ("max", t::L_MAX),
    ("min", t::L_MIN),
    ("sum", t::L_SUM),
    ("anon", t::L_ANON),
    ("rate", t::L_RATE),
    ("instant", t::L_INSTANT),
    ("mkconst", t::L_MKCONST),
    ("rescale", t::L_RESCALE),
    ("defined", t::L_DEFINED),
    ("matchinst", t::L_MATCHINST),
    ("scalar", t::L_SCALAR),
];

/// What a token being read is so far.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Integer,
    Double,
    Name,
    Str,
    InstName,
    Pattern,
    /// `<`, `>`, `=`, `!`, `&`, `|`: what they are depends on the next character.
    Pair(u8),
}

/// After one more character of a token: read on, or the token, or an error.
enum Step {
    More,
    Done(i32),
    Fail(&'static str),
}

/// The lexer over one expression.
pub(super) struct Lexer<'a> {
    text: &'a [u8],
    /// The next byte to read.
    pos: usize,
    /// A character pushed back, read before the text goes on.
    peek: Option<Ch>,
    /// Inside `matchinst(`: `/` starts a pattern (the parser turns it off).
    pub(super) in_matchinst: bool,
    /// Where the token read last starts (`-1` for the end of an empty text).
    pub(super) lexicon: isize,
    /// The lexer's own diagnostic for a token it could not make.
    pub(super) error: Option<&'static str>,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text: text.as_bytes(),
            pos: 0,
            peek: None,
            in_matchinst: false,
            lexicon: 0,
            error: None,
        }
    }

    fn get(&mut self) -> Ch {
        if let Some(c) = self.peek.take() {
            return c;
        }
        match self.text.get(self.pos) {
            None | Some(0) => Ch::End,
            Some(&b) => {
                self.pos += 1;
                if b == 0xff {
                    Ch::End
                } else {
                    Ch::Byte(b)
                }
            }
        }
    }

    /// Pushes `c` back; a NUL pushed back is no character (C's empty `lexpeek`).
    fn unget(&mut self, c: u8) {
        self.peek = (c != 0).then_some(Ch::Byte(c));
    }

    /// The next token; one the lexer cannot make is `L_ERROR`, with
    /// [`Lexer::error`] saying why.
    pub(super) fn next(&mut self) -> Token {
        let mut buf: Vec<u8> = Vec::new();
        let mut kind: Option<Kind> = None;
        let mut escape = false;
        let mut first = true;
        loop {
            let c = self.get();
            if first {
                if matches!(c, Ch::Byte(b) if is_space(b)) {
                    continue;
                }
                self.lexicon = self.pos as isize - 1;
                first = false;
            }
            let b = match (c, kind) {
                (Ch::End, None) => return token(t::L_EOS, &[]),
                // the end finishes the token being read
                (Ch::End, Some(_)) => 0,
                (Ch::Byte(b), _) => b,
            };
            buf.push(b);
            let step = match kind {
                None => match self.start(b) {
                    Ok(k) => {
                        kind = Some(k);
                        Step::More
                    }
                    Err(step) => step,
                },
                Some(k) => self.go_on(k, b, &mut buf, &mut kind, &mut escape),
            };
            match step {
                Step::More => {}
                Step::Done(code) => return token(code, &buf),
                Step::Fail(why) => {
                    self.error = Some(why);
                    return token(t::L_ERROR, &buf);
                }
            }
        }
    }

    /// The first character of a token: what it starts, or the token it is.
    fn start(&self, b: u8) -> Result<Kind, Step> {
        Ok(match b {
            b'0'..=b'9' => Kind::Integer,
            b'.' => Kind::Double,
            b if b.is_ascii_alphabetic() => Kind::Name,
            b'/' if self.in_matchinst => Kind::Pattern,
            b'"' => Kind::Str,
            b'[' => Kind::InstName,
            b'<' | b'>' | b'=' | b'!' | b'&' | b'|' => Kind::Pair(b),
            _ => return Err(single(b).map_or(Step::Fail("Illegal character"), Step::Done)),
        })
    }

    /// One more character `b` (the last in `buf`) of a token of `kind`: when it
    /// ends the token without being part of it, it is pushed back and taken off
    /// `buf`. The delimiters around strings, instance names and patterns are
    /// taken off too.
    fn go_on(
        &mut self,
        kind: Kind,
        b: u8,
        buf: &mut Vec<u8>,
        next_kind: &mut Option<Kind>,
        escape: &mut bool,
    ) -> Step {
        let end = |lexer: &mut Lexer<'_>, buf: &mut Vec<u8>| {
            lexer.unget(b);
            buf.pop();
        };
        match kind {
            Kind::Integer if b == b'.' => *next_kind = Some(Kind::Double),
            Kind::Integer if !b.is_ascii_digit() => {
                end(self, buf);
                let text = String::from_utf8_lossy(buf);
                return match text.parse::<u64>() {
                    Ok(v) if v <= u64::from(u32::MAX) => Step::Done(t::L_INTEGER),
                    _ => Step::Fail("Constant value too large"),
                };
            }
            Kind::Double if !b.is_ascii_digit() => {
                end(self, buf);
                return Step::Done(t::L_DOUBLE);
            }
            Kind::Integer | Kind::Double => {}
            Kind::Name => return self.name_goes_on(b, buf),
            Kind::Str => return delimited(b, b'"', buf, None, "unterminated STRING", t::L_STRING),
            Kind::InstName => {
                let why = "unterminated instance name";
                return delimited(b, b']', buf, Some(escape), why, t::L_INSTNAME);
            }
            Kind::Pattern => {
                let why = "unterminated pattern";
                return delimited(b, b'/', buf, Some(escape), why, t::L_PATTERN);
            }
            Kind::Pair(first) => {
                let (with, alone) = pair(first);
                if b == with {
                    return Step::Done(match first {
                        b'<' => t::L_LEQ,
                        b'>' => t::L_GEQ,
                        b'=' => t::L_EQ,
                        b'!' => t::L_NEQ,
                        b'&' => t::L_AND,
                        _ => t::L_OR,
                    });
                }
                end(self, buf);
                return alone.map_or(Step::Fail("Illegal character"), Step::Done);
            }
        }
        Step::More
    }

    /// A name goes on with letters, digits, `_` and `.`; `(` after a function's
    /// name makes the function's token (and is read again); `type`,
    /// `semantics` and `units` are mkconst's words.
    fn name_goes_on(&mut self, b: u8, buf: &mut Vec<u8>) -> Step {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
            return Step::More;
        }
        self.unget(b);
        buf.pop();
        if b == b'(' {
            if let Some(&(_, code)) = FUNCTIONS.iter().find(|(n, _)| n.as_bytes() == &buf[..]) {
                if code == t::L_MATCHINST {
                    self.in_matchinst = true;
                }
                return Step::Done(code);
            }
        }
        Step::Done(match &buf[..] {
            b"type" => t::L_TYPE,
            b"semantics" => t::L_SEMANTICS,
            b"units" => t::L_UNITS,
            _ => t::L_NAME,
        })
    }
}

/// C's `isspace`.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A token of one character.
fn single(b: u8) -> Option<i32> {
    Some(match b {
        b'+' => t::L_PLUS,
        b'-' => t::L_MINUS,
        b'*' => t::L_STAR,
        b'/' => t::L_SLASH,
        b'(' => t::L_LPAREN,
        b')' => t::L_RPAREN,
        b'?' => t::L_QUEST,
        b':' => t::L_COLON,
        b',' => t::L_COMMA,
        _ => return None,
    })
}

/// The second character that makes a pair of `first`, and what `first` is alone
/// (`None`: not a token alone).
fn pair(first: u8) -> (u8, Option<i32>) {
    match first {
        b'<' => (b'=', Some(t::L_LT)),
        b'>' => (b'=', Some(t::L_GT)),
        b'=' => (b'=', Some(t::L_ASSIGN)),
        b'!' => (b'=', Some(t::L_NOT)),
        b'&' => (b'&', None),
        _ => (b'|', None),
    }
}

/// One more character `b` of a string, instance name or pattern that `close`
/// ends; with `escape`, a backslash makes the next character part of the text
/// (and is not). A NUL (the end) before `close` is the error `why`.
fn delimited(
    b: u8,
    close: u8,
    buf: &mut Vec<u8>,
    escape: Option<&mut bool>,
    why: &'static str,
    code: i32,
) -> Step {
    if let Some(escape) = escape {
        if *escape && b != 0 {
            *escape = false;
            return Step::More;
        }
        if !*escape && b == b'\\' {
            buf.pop();
            *escape = true;
            return Step::More;
        }
    }
    if b != close {
        return if b == 0 { Step::Fail(why) } else { Step::More };
    }
    // the opening and closing delimiters are not the text
    buf.pop();
    buf.remove(0);
    Step::Done(code)
}

fn token(kind: i32, text: &[u8]) -> Token {
    Token {
        kind,
        text: String::from_utf8_lossy(text).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &str) -> Vec<(i32, String, isize)> {
        let mut l = Lexer::new(s);
        let mut out = Vec::new();
        loop {
            let tok = l.next();
            let end = tok.kind == t::L_EOS || tok.kind == t::L_ERROR;
            out.push((tok.kind, tok.text, l.lexicon));
            if end || out.len() > 50 {
                return out;
            }
        }
    }

    #[test]
    fn tokens_and_where_they_start() {
        let toks = all("rate(disk.dev.read) >= 1.5e");
        let kinds: Vec<i32> = toks.iter().map(|t| t.0).collect();
        assert_eq!(
            kinds,
            [
                t::L_RATE,
                t::L_LPAREN,
                t::L_NAME,
                t::L_RPAREN,
                t::L_GEQ,
                t::L_DOUBLE,
                t::L_NAME,
                t::L_EOS
            ]
        );
        assert_eq!(toks[2].1, "disk.dev.read");
        assert_eq!(toks[4].2, 20);
        // the end starts at the last character
        assert_eq!(toks[7].2, 26);
        assert_eq!(all("")[0], (t::L_EOS, String::new(), -1));
    }

    #[test]
    fn names_functions_and_words() {
        // a function's name without ( is a name; mkconst's words are words
        assert_eq!(all("sum + type")[0].0, t::L_NAME);
        assert_eq!(all("type")[0].0, t::L_TYPE);
        assert_eq!(all("sum (x)")[0].0, t::L_NAME);
    }

    #[test]
    fn delimited_tokens() {
        assert_eq!(all("a[e\\]th0]")[1], (t::L_INSTNAME, "e]th0".into(), 1));
        assert_eq!(all("\"kbyte / sec\"")[0].1, "kbyte / sec");
        let l = all("a[eth0");
        assert_eq!(l[1].0, t::L_ERROR);
        // outside matchinst( a slash divides
        assert_eq!(all("/x/")[0].0, t::L_SLASH);
        let m = all("matchinst(!/^lo$/, x)");
        assert_eq!(m[3], (t::L_PATTERN, "^lo$".into(), 11));
    }

    #[test]
    fn what_the_lexer_refuses() {
        let mut l = Lexer::new("4294967296");
        assert_eq!(l.next().kind, t::L_ERROR);
        assert_eq!(l.error, Some("Constant value too large"));
        let mut l = Lexer::new("a & b");
        l.next();
        assert_eq!(l.next().kind, t::L_ERROR);
        assert_eq!(l.error, Some("Illegal character"));
        assert_eq!(Lexer::new("4294967295").next().kind, t::L_INTEGER);
        assert_eq!(all("@")[0].0, t::L_ERROR);
    }
}
