//! pmdumplog: prints the parts of a PCP archive, byte for byte as PCP 6.0.3's
//! pmdumplog does. [`run`] takes the arguments and the two output streams, so tests
//! run it in-process.

mod dump;
mod fast;
mod json;
mod opts;
mod raw;

use std::io::Write;

const PROG: &str = "pmdumplog";

/// Runs pmdumplog; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let o = match opts::parse(args) {
        opts::Parse::Version => {
            let _ = write!(out, "{}", cli_common::about::version(PROG));
            return 0;
        }
        opts::Parse::Usage(msg) => {
            if let Some(m) = msg {
                let _ = writeln!(err, "{PROG}: {m}");
            }
            let _ = write!(err, "{}", opts::USAGE);
            if cli_common::about::asks_help(args) {
                let _ = write!(
                    err,
                    "{}",
                    cli_common::about::ours(&[(
                        "--json",
                        "the archive as JSON: label, descriptors, instances, records"
                    )])
                );
            }
            return 1;
        }
        opts::Parse::Run(o) => o,
    };
    let mut buf = std::io::BufWriter::with_capacity(dump::OUT_BUF, out);
    let status = if let Some(f) = &o.raw {
        raw::dump(f, &mut buf, err)
    } else if o.json {
        // JSON stays UTF-8: bytes of names and strings that were not UTF-8 show as
        // U+10FF00 + byte (see archive_format::text)
        json::dump(&o, &mut buf, err)
    } else {
        // names and strings byte for byte as the archive holds them
        dump::dump(&o, &mut archive_format::text::RawBytes(&mut buf), err)
    };
    let code = match status {
        Ok(c) => c,
        Err(e) if cli_common::exit::is_broken_pipe(&e) => 0,
        Err(e) => {
            let _ = buf.flush();
            let _ = writeln!(err, "{PROG}: {e}");
            1
        }
    };
    match buf.flush() {
        Err(e) if !cli_common::exit::is_broken_pipe(&e) => 1,
        _ => code,
    }
}
