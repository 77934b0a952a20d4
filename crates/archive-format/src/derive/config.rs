//! The derived metrics a process knows, as libpcp's registry: each registered by
//! name (pmRegisterDerived(3)) or from configuration files
//! (pmLoadDerivedConfig(3): `name = expr` lines and `name(attr) = "value"`
//! attributes), with libpcp's diagnostics, and the global configuration loaded
//! as libpcp loads it into every context (`$PCP_DERIVED_CONFIG`).

use super::{parse_after, Node, SyntaxError};
use std::io::{self, Write};
use std::path::Path;

/// A derived metric: its name, expression (as written and parsed) and help.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    pub name: String,
    pub text: String,
    pub expr: Node,
    pub oneline: Option<String>,
    pub helptext: Option<String>,
    /// libpcp's anonymous metrics (`event.flags`, `event.missed`).
    pub anon: bool,
}

/// The registered derived metrics, in the order of registration.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub metrics: Vec<Derived>,
    /// The lexer's state libpcp keeps from one expression to the next.
    in_matchinst: bool,
}

/// Why a registration failed: where in the expression, and why.
pub type RegisterError = SyntaxError;

const FLAGS_HELP: &str = "An anonymous derived metric that is used to encode the event flags\n\
associated with event records.   See pmUnpackEventRecords(3).";
const MISSED_HELP: &str = "An anonymous derived metric that is used to encode the number of\n\
event records missed because either the PMDA could not keep up\n\
or the PMAPI client did not collect the event records fast\n\
enough.  See pmUnpackEventRecords(3).";

impl Registry {
    /// A registry with libpcp's anonymous metrics for event records.
    pub fn new() -> Registry {
        let mut r = Registry::default();
        for (name, oneline, help) in [
            ("event.flags", "Flags for event records", FLAGS_HELP),
            ("event.missed", "Count of missed event records", MISSED_HELP),
        ] {
            r.metrics.push(Derived {
                name: name.into(),
                text: "anon(PM_TYPE_U32)".into(),
                expr: Node::Anon(Some(crate::types::vtype::U32)),
                oneline: Some(oneline.into()),
                helptext: Some(help.into()),
                anon: true,
            });
        }
        r
    }

    /// The registry every context gets, as libpcp builds it: the anonymous
    /// metrics, then `$PCP_DERIVED_CONFIG` (files and directories separated by
    /// `:`; empty for none), or where it is not set `$PCP_VAR_DIR/config/derived`.
    /// The configuration's diagnostics go to `err`.
    pub fn global(var_dir: &Path, err: &mut dyn Write) -> Registry {
        let mut r = Registry::new();
        let path = match std::env::var("PCP_DERIVED_CONFIG") {
            Ok(p) => p,
            Err(_) => {
                let global = var_dir.join("config/derived");
                if !global.exists() {
                    return r;
                }
                global.to_string_lossy().into_owned()
            }
        };
        for part in path.split(':').filter(|p| !p.is_empty()) {
            r.load_component(Path::new(part), err);
        }
        r
    }

    /// Registers `name` as `expr` (pmRegisterDerived).
    pub fn register(&mut self, name: &str, expr: &str) -> Result<(), RegisterError> {
        if self.metrics.iter().any(|m| m.name == name) {
            return Err(SyntaxError {
                at: 0,
                message: Some("Duplicate global derived metric name".into()),
            });
        }
        let node = parse_after(expr, &mut self.in_matchinst)?;
        self.metrics.push(Derived {
            name: name.into(),
            text: expr.into(),
            expr: node,
            oneline: None,
            helptext: None,
            anon: false,
        });
        Ok(())
    }

    /// pmLoadDerivedConfig(3): files and directories separated by `:`;
    /// how many metrics they registered, or the error of one that is not there.
    pub fn load_path(&mut self, path: &str, err: &mut dyn Write) -> io::Result<usize> {
        let mut n = 0;
        for part in path.split(':').filter(|p| !p.is_empty()) {
            let p = Path::new(part);
            std::fs::metadata(p)?;
            n += self.load_component(p, err);
        }
        Ok(n)
    }

    /// A file, or every file below a directory (in the order the directory
    /// lists them, as libpcp reads them); what cannot be read is skipped.
    fn load_component(&mut self, path: &Path, err: &mut dyn Write) -> usize {
        if path.is_file() {
            return self.load_config(path, err).unwrap_or(0);
        }
        let Ok(rd) = std::fs::read_dir(path) else {
            return 0;
        };
        rd.filter_map(|e| e.ok())
            .map(|e| self.load_component(&e.path(), err))
            .sum()
    }
}

/// C's `isspace`.
fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A metric name as libpcp checks one: components of a letter then letters,
/// digits and `_`, separated by `.`.
fn good_name(name: &[u8]) -> bool {
    let mut first = true;
    for &c in name {
        if first {
            if !c.is_ascii_alphabetic() {
                return false;
            }
            first = false;
        } else if c == b'.' {
            first = true;
        } else if !c.is_ascii_alphanumeric() && c != b'_' {
            return false;
        }
    }
    true
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|&c| !space(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|&c| !space(c)).map_or(start, |e| e + 1);
    &b[start..end.max(start)]
}

fn text(b: &[u8]) -> String {
    crate::text::from_bytes(b)
}

/// The file being read: its bytes and where reading is.
struct Input {
    bytes: Vec<u8>,
    at: usize,
}

impl Input {
    fn getc(&mut self) -> Option<u8> {
        let c = self.bytes.get(self.at).copied();
        self.at += usize::from(c.is_some());
        c
    }
}

impl Registry {
    /// Loads one configuration file (pmLoadDerivedConfig): returns how many
    /// metrics it registered; its diagnostics (libpcp's) go to `err`. A last
    /// line without its newline is not read, as libpcp does not read it.
    pub fn load_config(&mut self, path: &Path, err: &mut dyn Write) -> io::Result<usize> {
        let mut input = Input {
            bytes: std::fs::read(path)?,
            at: 0,
        };
        let fname = path.to_string_lossy().into_owned();
        let (mut lineno, mut count) = (1usize, 0usize);
        let mut line: Vec<u8> = Vec::new();
        while let Some(c) = input.getc() {
            if c != b'\n' {
                line.push(c);
                continue;
            }
            if !line.is_empty() && line[0] != b'#' {
                let at = format!("[{fname}:{lineno}]");
                count += self.config_line(&line, &at, &mut lineno, &mut input, err)?;
            }
            lineno += 1;
            line.clear();
        }
        Ok(count)
    }

    /// One line: `name = expr`, or `name(attr) = value` (whose value may go on
    /// over more lines of `input`). 1 when it registered a metric.
    fn config_line(
        &mut self,
        buf: &[u8],
        at: &str,
        lineno: &mut usize,
        input: &mut Input,
        err: &mut dyn Write,
    ) -> io::Result<usize> {
        let shown = text(buf);
        let Some(eq) = buf.iter().position(|&c| c == b'=') else {
            writeln!(
                err,
                "{at} Error: pmLoadDerivedConfig: missing ``='' after derived metric name\n{shown}"
            )?;
            return Ok(0);
        };
        let head = &buf[..eq];
        let lp = head.iter().position(|&c| c == b'(');
        let rp = head.iter().position(|&c| c == b')');
        let name = trim(&head[..lp.unwrap_or(eq)]);
        if name.is_empty() {
            writeln!(
                err,
                "{at} Error: pmLoadDerivedConfig: derived metric name missing\n{shown}"
            )?;
            return Ok(0);
        }
        let name_s = text(name);
        if !good_name(name) {
            writeln!(
                err,
                "{at} Error: pmLoadDerivedConfig: illegal derived metric name ({name_s})"
            )?;
            return Ok(0);
        }
        match (lp, rp) {
            (Some(_), None) => {
                writeln!(
                    err,
                    "{at} Error: pmLoadDerivedConfig: missing ')' after attribute\n{shown}"
                )?;
                Ok(0)
            }
            (None, Some(_)) => {
                writeln!(
                    err,
                    "{at} Error: pmLoadDerivedConfig: missing '(' before attribute\n{shown}"
                )?;
                Ok(0)
            }
            (None, None) => self.config_metric(buf, eq, &name_s, at, err),
            (Some(lp), Some(rp)) => {
                // the attribute between ( and ): libpcp takes it up to the )
                // or, where the ) comes first, nothing
                let attr = if rp > lp {
                    trim(&head[lp + 1..rp])
                } else {
                    &[][..]
                };
                if attr.is_empty() {
                    writeln!(
                        err,
                        "{at} Error: pmLoadDerivedConfig: attribute name missing\n{shown}"
                    )?;
                    return Ok(0);
                }
                self.config_attribute(buf, eq, (&name_s, &text(attr)), at, lineno, input, err)?;
                Ok(0)
            }
        }
    }

    /// `name = expr`: registered, or libpcp's syntax error with its marker.
    fn config_metric(
        &mut self,
        buf: &[u8],
        eq: usize,
        name: &str,
        at: &str,
        err: &mut dyn Write,
    ) -> io::Result<usize> {
        let after = &buf[eq + 1..];
        let lead = after.iter().take_while(|&&c| space(c)).count();
        if lead == after.len() {
            writeln!(
                err,
                "{at} Error: pmLoadDerivedConfig: expression missing\n{}",
                text(buf)
            )?;
            return Ok(0);
        }
        let expr = text(&after[lead..]);
        let Err(e) = self.register(name, &expr) else {
            return Ok(1);
        };
        writeln!(
            err,
            "{at} Error: pmRegisterDerived({name}, ...) syntax error"
        )?;
        writeln!(err, "{}", text(after))?;
        // the text again with the error's place marked, other characters
        // blanked and white space kept
        let place = lead as isize + e.at;
        let marker: Vec<u8> = after
            .iter()
            .enumerate()
            .map(|(k, &c)| match c {
                _ if k as isize == place => b'^',
                c if space(c) => c,
                _ => b' ',
            })
            .collect();
        writeln!(err, "{}", text(&marker))?;
        if let Some(m) = &e.message {
            writeln!(err, "{m}")?;
        }
        Ok(0)
    }
}

impl Registry {
    /// `name(attr) = value`: a value in quotes may hold `\` escapes and go on
    /// over more lines; without quotes it is the rest of the line.
    #[allow(clippy::too_many_arguments)]
    fn config_attribute(
        &mut self,
        buf: &[u8],
        eq: usize,
        (name, attr): (&str, &str),
        at: &str,
        lineno: &mut usize,
        input: &mut Input,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let after = &buf[eq + 1..];
        let mut v = &after[after.iter().take_while(|&&c| space(c)).count()..];
        let delim = match v.first() {
            Some(&d @ (b'"' | b'\'')) => {
                v = &v[1..];
                Some(d)
            }
            _ => None,
        };
        if v.is_empty() {
            writeln!(
                err,
                "{at} Error: pmLoadDerivedConfig: attribute value missing\n{}",
                text(buf)
            )?;
            return Ok(());
        }
        let value = match delim {
            None => text(v),
            Some(d) => match quoted(v, d, input, lineno, at, err)? {
                Some(value) => value,
                None => return Ok(()),
            },
        };
        let Some(m) = self.metrics.iter_mut().find(|m| m.name == name) else {
            writeln!(err, "{at} Error: pmLoadDerivedConfig: cannot set attribute, derived metric ({name}) not defined\n{}", text(buf))?;
            return Ok(());
        };
        let slot = match attr {
            "oneline" => &mut m.oneline,
            "helptext" => &mut m.helptext,
            _ => {
                writeln!(err, "{at} Error: pmLoadDerivedConfig: attribute ({attr}) is unknown for metric ({name})\n{}", text(buf))?;
                return Ok(());
            }
        };
        if slot.is_some() {
            writeln!(err, "{at} Error: pmLoadDerivedConfig: duplicate value for attribute ({attr}) of metric ({name})\n{}", text(buf))?;
            return Ok(());
        }
        *slot = Some(value);
        Ok(())
    }
}

/// A quoted value from `v` (after its opening `delim`), going on into `input`
/// past the line's end: `\` keeps the next character (and a `\` before a
/// newline drops it). `None` (said) when the file ends first; text after the
/// closing quote is warned about.
fn quoted(
    v: &[u8],
    delim: u8,
    input: &mut Input,
    lineno: &mut usize,
    at: &str,
    err: &mut dyn Write,
) -> io::Result<Option<String>> {
    let (mut out, mut esc, mut extra, mut k) = (Vec::new(), false, 0usize, 0usize);
    let closed = loop {
        let c = if k < v.len() {
            k += 1;
            v[k - 1]
        } else if extra == 0 {
            b'\n'
        } else {
            match input.getc() {
                Some(c) => c,
                None => break false,
            }
        };
        if c == b'\n' {
            extra += 1;
        }
        if esc {
            esc = false;
            if c != b'\n' {
                out.push(c);
            }
            continue;
        }
        if c == b'\\' {
            esc = true;
            continue;
        }
        if c == delim {
            break true;
        }
        out.push(c);
    };
    if extra > 1 {
        *lineno += extra - 1;
    }
    // the line number where the value ended, as libpcp says it
    let at = at
        .rsplit_once(':')
        .map_or(at.to_string(), |(f, _)| format!("{f}:{lineno}]"));
    if !closed {
        writeln!(
            err,
            "{at} Error: pmLoadDerivedConfig: missing termination ({}) for value",
            delim as char
        )?;
        return Ok(None);
    }
    let rest = &v[k..];
    if !rest.is_empty() {
        let rest = &rest[rest.iter().take_while(|&&c| space(c)).count()..];
        if !rest.is_empty() {
            writeln!(err, "{at} Warning: pmLoadDerivedConfig: extra text ({}) after attribute value will be ignored", text(rest))?;
        }
    } else if extra > 0 {
        // the rest of the line the value ended on: libpcp passes over its first
        // character whatever it is, then white space
        let mut c = input.getc();
        while let Some(x) = c.filter(|&x| x != b'\n') {
            let _ = x;
            c = input.getc();
            if !c.is_some_and(space) {
                break;
            }
        }
        if let Some(first) = c.filter(|&x| x != b'\n') {
            let mut tail = vec![first];
            while let Some(x) = input.getc().filter(|&x| x != b'\n') {
                tail.push(x);
            }
            writeln!(err, "{at} Warning: pmLoadDerivedConfig: extra text ({}) after attribute value will be ignored", text(&tail))?;
        }
    }
    Ok(Some(text(&out)))
}
