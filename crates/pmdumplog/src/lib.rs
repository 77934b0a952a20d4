//! pmdumplog: prints the parts of a PCP archive, byte for byte as PCP 6.0.3's
//! pmdumplog does. [`run`] takes the arguments and the two output streams, so tests
//! run it in-process.

mod dump;
mod fast;
mod json;
mod opts;

/// The command line: options, usage, man page and completions come from it.
pub use opts::{PMLOGDUMP, TOOL};
mod raw;

use std::io::Write;

/// Runs pmdumplog; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_as(&opts::TOOL, args, out, err)
}

/// Runs the tool by the name `tool` has (`pmlogdump`, PCP 6.0.4's name, or
/// `pmdumplog`); returns the exit status.
pub fn run_as(
    tool: &cli_common::spec::Tool,
    args: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let parse = |a: &[String]| opts::parse_as(tool, a);
    cli_common::shell::run(tool, args, out, err, parse, |o, out, err| {
        if let Some(f) = &o.raw {
            raw::dump(o.prog, f, out, err)
        } else if o.json {
            // JSON stays UTF-8: bytes of names and strings that were not UTF-8 show
            // as U+10FF00 + byte (see archive_format::text)
            json::dump(&o, out, err)
        } else {
            dump::dump(&o, out, err)
        }
    })
}
