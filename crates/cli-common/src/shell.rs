//! The run shell every PCP-compatible tool shares: arguments in, `--version`, the
//! usage on a wrong command line (with our options after it on `--help`), output
//! buffered and flushed before any error is said, a closed pipe taken as success,
//! `tool: message` and exit status 1 for anything else.

use std::io::{self, BufWriter, Write};

use crate::spec::Tool;

/// What a tool's parser made of its command line.
pub enum Parse<O> {
    Run(O),
    /// `--version` (or `-V` where it means that).
    Version,
    /// The usage, after `tool: MESSAGE` when there is a message.
    Usage(Option<String>),
    /// The usage after this text, printed as it is.
    UsageAfter(String),
}

/// The process around `run`: its arguments, locked standard streams, its status.
pub fn main(run: fn(&[String], &mut dyn Write, &mut dyn Write) -> i32) -> ! {
    let args: Vec<String> = std::env::args().skip(1).collect();
    crate::placed::out_is_stdout();
    let code = run(&args, &mut io::stdout().lock(), &mut io::stderr().lock());
    std::process::exit(code)
}

/// Parses `args` with `parse`, answers `--version` and usage errors, else runs
/// `body` through [`buffered`]. Returns the exit status.
pub fn run<O>(
    tool: &Tool,
    args: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
    parse: impl FnOnce(&[String]) -> Parse<O>,
    body: impl FnOnce(O, &mut dyn Write, &mut dyn Write) -> io::Result<i32>,
) -> i32 {
    match parse(args) {
        Parse::Run(o) => buffered(tool.name, out, err, |out, err| body(o, out, err)),
        Parse::Version => {
            let _ = write!(out, "{}", crate::about::version(tool.name));
            0
        }
        Parse::Usage(msg) => {
            if let Some(m) = msg {
                let _ = writeln!(err, "{}: {m}", tool.name);
            }
            usage(tool, args, err)
        }
        Parse::UsageAfter(text) => {
            let _ = write!(err, "{text}");
            usage(tool, args, err)
        }
    }
}

/// Writes the usage (and on `--help` our options after it); returns 1.
pub fn usage(tool: &Tool, args: &[String], err: &mut dyn Write) -> i32 {
    let _ = write!(err, "{}", tool.usage());
    if crate::about::asks_help(args) {
        let _ = write!(err, "{}", tool.ours());
    }
    1
}

/// Runs `body` with standard output buffered; flushes it before an error is said
/// (so that the error follows what was printed), says the error as
/// `prog: message`, and takes a closed pipe as the reader having had enough.
pub fn buffered(
    prog: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
    body: impl FnOnce(&mut dyn Write, &mut dyn Write) -> io::Result<i32>,
) -> i32 {
    let mut buf = BufWriter::with_capacity(OUT_BUF, out);
    let code = match body(&mut buf, err) {
        Ok(c) => c,
        Err(e) if crate::exit::is_broken_pipe(&e) => 0,
        Err(e) => {
            let _ = buf.flush();
            let _ = writeln!(err, "{prog}: {e}");
            1
        }
    };
    match buf.flush() {
        Err(e) if !crate::exit::is_broken_pipe(&e) => 1,
        _ => code,
    }
}

/// The output buffer: large enough that a dump makes few write calls, small enough
/// to stay in cache.
pub const OUT_BUF: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{std_opts, Opt, Section};

    const TOOL: Tool = Tool {
        name: "pmt",
        synopsis: "[options] archive",
        purpose: "a test",
        sections: &[Section {
            title: "Options",
            opts: &[std_opts::HELP, Opt::flag('J', "json", "as JSON").ours()],
        }],
        notes: "",
    };

    fn go(
        args: &[&str],
        parsed: Parse<u8>,
        body: impl FnOnce(u8, &mut dyn Write, &mut dyn Write) -> io::Result<i32>,
    ) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(&TOOL, &args, &mut out, &mut err, |_| parsed, body);
        let s = |v: Vec<u8>| String::from_utf8(v).unwrap_or_default();
        (code, s(out), s(err))
    }

    #[test]
    fn usage_errors_and_help() {
        let never = |_: u8, _: &mut dyn Write, _: &mut dyn Write| Ok(7);
        let (code, out, err) = go(&["-x"], Parse::Usage(Some("bad -x".into())), never);
        assert_eq!((code, out.as_str()), (1, ""));
        assert_eq!(err, format!("pmt: bad -x\n{}", TOOL.usage()));
        let (_, _, err) = go(&["--help"], Parse::Usage(None), never);
        assert!(err.ends_with("  --json                as JSON\n"), "{err}");
        let (_, _, err) = go(&["-?"], Parse::Usage(None), never);
        assert_eq!(err, TOOL.usage(), "-? is PCP's usage alone");
        let (_, _, err) = go(&[], Parse::UsageAfter("Error: none\n\n".into()), never);
        assert!(err.starts_with("Error: none\n\nUsage: pmt"), "{err}");
        let (code, out, _) = go(&["--version"], Parse::Version, never);
        assert_eq!((code, out.lines().next()), (0, Some("pmt version 6.0.3")));
    }

    #[test]
    fn output_before_an_error_and_broken_pipes() {
        let (code, out, err) = go(&[], Parse::Run(3), |n, out, _| {
            write!(out, "{n} lines")?;
            Err(io::Error::other("it broke"))
        });
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (1, "3 lines", "pmt: it broke\n")
        );
        let (code, _, err) = go(&[], Parse::Run(3), |_, _, _| {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        });
        assert_eq!((code, err.as_str()), (0, ""));
        let (code, out, _) = go(&[], Parse::Run(2), |n, out, _| {
            write!(out, "ok")?;
            Ok(n.into())
        });
        assert_eq!((code, out.as_str()), (2, "ok"));
    }
}
