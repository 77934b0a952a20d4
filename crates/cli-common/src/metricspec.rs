//! The metric argument, `[host:|archive/]metric[[instance,...]]`, read by the rules
//! of libpcp's `pmParseMetricSpec`: a `:` or `/` before the metric name (the last
//! one before `[`) ends a host or archive name; the name ends at white space or
//! `[`; instance names are separated by commas or white space and may be quoted
//! with `"`; a backslash escapes the next character. Errors name the place, as
//! PCP prints them (the argument, then `^ -- what` under the place).

/// A parsed metric argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricSpec {
    /// `host:` before the metric.
    pub host: Option<String>,
    /// `archive/` before the metric.
    pub archive: Option<String>,
    pub metric: String,
    pub insts: Vec<String>,
}

/// Where the argument is wrong (a byte offset into it), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub at: usize,
    pub what: &'static str,
}

impl SpecError {
    /// The message as PCP prints it: the argument, and the place pointed at.
    pub fn render(&self, spec: &str) -> String {
        format!("{spec}\n{:w$}^ -- {}\n", "", self.what, w = self.at)
    }
}

fn unescape(b: &[u8]) -> String {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ws(c: u8) -> bool {
    c.is_ascii_whitespace()
}

/// Where the white space at `i` ends.
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && ws(b[i]) {
        i += 1;
    }
    i
}

fn fail<T>(at: usize, what: &'static str) -> Result<T, SpecError> {
    Err(SpecError { at, what })
}

/// Parses a metric argument.
pub fn parse(spec: &str) -> Result<MetricSpec, SpecError> {
    let b = spec.as_bytes();
    let (host, archive, i) = source(b, skip_ws(b, 0))?;
    // the metric name
    let start = skip_ws(b, i);
    let mut i = start;
    while i < b.len() && !ws(b[i]) && b[i] != b'[' {
        if b[i] == b']' || b[i] == b',' {
            return fail(i, "unexpected character in metric name");
        }
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
        }
        i += 1;
    }
    if i == start {
        return fail(start, "performance metric name expected");
    }
    let metric = unescape(&b[start..i]);
    i = skip_ws(b, i);
    let mut insts = Vec::new();
    if i < b.len() && b[i] == b'[' {
        (insts, i) = instance_list(b, i + 1)?;
    }
    i = skip_ws(b, i);
    if i < b.len() {
        return fail(i, "unexpected extra characters");
    }
    Ok(MetricSpec {
        host,
        archive,
        metric,
        insts,
    })
}

/// A host (`host:`) or an archive (`archive/`) before the metric name at `i`:
/// the last ':' or '/' before '[' (or the end). Gives them and where the name
/// may start.
#[allow(clippy::type_complexity)]
fn source(b: &[u8], i: usize) -> Result<(Option<String>, Option<String>, usize), SpecError> {
    let limit = b[i..]
        .iter()
        .position(|&c| c == b'[')
        .map_or(b.len(), |k| i + k + 1);
    let Some(k) = b[i..limit]
        .iter()
        .rposition(|&c| c == b':' || c == b'/')
        .map(|k| i + k)
    else {
        return Ok((None, None, i));
    };
    let mut end = k;
    while end > i && ws(b[end - 1]) {
        end -= 1;
    }
    let host = b[k] == b':';
    if end == i {
        let what = if host {
            "host name expected"
        } else {
            "archive name expected"
        };
        return fail(i, what);
    }
    let name = unescape(&b[i..end]);
    Ok(if host {
        (Some(name), None, k + 1)
    } else {
        (None, Some(name), k + 1)
    })
}

/// The instance list after the `[` that ends at `i`: its names, and where the
/// text after its `]` starts.
fn instance_list(b: &[u8], i: usize) -> Result<(Vec<String>, usize), SpecError> {
    let list = skip_ws(b, i);
    let mut i = list;
    let mut quoted = false;
    loop {
        if i >= b.len() {
            let what = if quoted {
                "closing \" and ] expected"
            } else {
                "closing ] expected"
            };
            return fail(b.len(), what);
        }
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
        } else if b[i] == b'"' {
            quoted = !quoted;
        } else if !quoted && b[i] == b']' {
            break;
        }
        i += 1;
    }
    Ok((split(&b[list..i]), i + 1))
}

/// The names of an instance list (between `[` and `]`).
fn split(b: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let mut name = Vec::new();
        if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    i += 1;
                }
                name.push(b[i]);
                i += 1;
            }
            i += 1;
        } else {
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b',' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    i += 1;
                }
                name.push(b[i]);
                i += 1;
            }
        }
        out.push(String::from_utf8_lossy(&name).into_owned());
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> MetricSpec {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
    }

    #[test]
    fn names_sources_and_instances() {
        let m = ok("kernel.all.load");
        assert_eq!((m.metric.as_str(), m.insts.len()), ("kernel.all.load", 0));
        let m = ok("  dir/arch/kernel.all.load [ \"1 minute\", 5\\ minute 15 ] ");
        assert_eq!(m.archive.as_deref(), Some("dir/arch"));
        assert_eq!(m.metric, "kernel.all.load");
        assert_eq!(m.insts, ["1 minute", "5 minute", "15"]);
        let m = ok("localhost:disk.dev.read[sda]");
        assert_eq!(m.host.as_deref(), Some("localhost"));
        assert_eq!(m.insts, ["sda"]);
        // a '/' inside the instance list is not a source
        let m = ok("a.b[x/y]");
        assert_eq!((m.archive, m.insts), (None, vec!["x/y".to_string()]));
        assert_eq!(ok("a.b[]").insts, Vec::<String>::new());
    }

    #[test]
    fn errors_point_where_pcp_does() {
        let e = |s: &str| parse(s).expect_err(s);
        assert_eq!(
            e("kernel.all.load[1 minute").render("kernel.all.load[1 minute"),
            "kernel.all.load[1 minute\n                        ^ -- closing ] expected\n"
        );
        assert_eq!(e("a[\"x]").what, "closing \" and ] expected");
        assert_eq!(
            e("a[x]y"),
            SpecError {
                at: 4,
                what: "unexpected extra characters"
            }
        );
        assert_eq!(
            e("").render(""),
            "\n^ -- performance metric name expected\n"
        );
        assert_eq!(e("a,b").what, "unexpected character in metric name");
        assert_eq!(e(" /a").what, "archive name expected");
        assert_eq!(e(":a").what, "host name expected");
    }
}
