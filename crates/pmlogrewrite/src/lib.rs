//! pmlogrewrite, as PCP 6.0.3's: an archive copied record by record into a new
//! one (or over itself with `-i`), its metadata and values rewritten by rules.
//!
//! - [`opts`]: the command line.
//! - [`lex`], [`parse`] (over tables.rs, made from grammar.y), [`config`]: the
//!   rewriting rules read as pmlogrewrite reads them.
//! - [`rules`]: what the rules ask for (the global clause for now).
//! - [`rewrite`]: the copy: data records and the metadata they need, in
//!   pmlogrewrite's order, with its temporal index.

mod config;
mod dump;
mod indom;
mod label;
mod labelclause;
mod labeljson;
mod labellink;
mod lex;
mod metric;
pub mod opts;
mod parse;
mod place;
mod relabel;
mod rewrite;
pub mod rules;
mod text;
mod values;
// the generated tables hold every constant bison makes
#[allow(clippy::all, dead_code)]
mod tables;

pub use opts::TOOL;

use archive_format::error::{pm_err_str, PM_ERR_NODATA};
use archive_format::Archive;
use opts::Opts;
use std::io::{self, Write};

pub(crate) const PROG: &str = "pmlogrewrite";

/// Runs pmlogrewrite; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, out, err| {
        main(&o, out, err)
    })
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let a = match Archive::open(&o.input) {
        Ok(a) => a,
        Err(e) if e.pm_err() == PM_ERR_NODATA => {
            writeln!(
                err,
                "{PROG}: Warning: empty archive \"{}\" will be skipped",
                o.input
            )?;
            return Ok(0);
        }
        Err(e) => {
            writeln!(
                err,
                "{PROG}: Error: cannot open archive \"{}\": {}",
                o.input,
                e.pm_message()
            )?;
            return Ok(1);
        }
    };
    let in_version = a.version();
    let version = o.version.unwrap_or(in_version);
    if version == 2 && in_version == 3 {
        writeln!(
            err,
            "{PROG}: Error: cannot create a v2 archive from v3 ({})",
            o.input
        )?;
        return Ok(1);
    }
    let meta = a.meta_records();
    let Some(rules) = read_rules(o, &a, &meta, version, out, err)? else {
        return Ok(1);
    };
    if o.check {
        return Ok(0);
    }
    if o.quick && !rules.any_change() {
        return Ok(0);
    }
    let dest = match (&o.output, o.in_place) {
        (Some(out), false) => out.clone(),
        _ => o.input.clone(),
    };
    if !o.in_place && !place::archive_files(std::path::Path::new(&dest)).is_empty() {
        // as libpcp's __pmLogCreate, which will not clobber an archive
        let e = pm_err_str(-17);
        writeln!(err, "{PROG}: Error: __pmLogCreate({dest},v{version}): {e}")?;
        return Ok(1);
    }
    let place = place::Place::new(&dest, o.in_place);
    let temp = place.temp.to_string_lossy().into_owned();
    let job = rewrite::Job {
        input: &a,
        name: &o.input,
        output: &temp,
        dest: &dest,
        in_place: o.in_place,
        version,
        rules: &rules,
        desperate: o.desperate,
    };
    let done = match job.run(meta, err)? {
        Ok(()) => place.commit(),
        Err(msg) => Err(msg),
    };
    Ok(match done {
        Ok(()) => 0,
        Err(msg) => {
            if !msg.is_empty() {
                writeln!(err, "{msg}")?;
            }
            place.abandon(o.desperate);
            1
        }
    })
}

/// Every `-c` file's rules, checked; `None` once the reason is said.
fn read_rules(
    o: &Opts,
    a: &Archive,
    meta: &archive_format::Result<Vec<archive_format::codec::meta::MetaRecord>>,
    version: u32,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Option<rules::Rules>> {
    let mut c = config::Config::new(a.label(), version, o.warnings);
    c.meta = Some(a.metadata());
    let records = meta.as_deref().unwrap_or_default();
    c.records = records;
    c.text_ids = text::archive_text_ids(records);
    c.label_ids = labellink::archive_label_ids(records);
    c.scale = o.scale;
    for file in &o.configs {
        let text = match std::fs::read(file) {
            Ok(t) => t,
            Err(e) => {
                writeln!(
                    err,
                    "{PROG}: Cannot open config file \"{file}\": {}",
                    os_err(&e)
                )?;
                return Ok(None);
            }
        };
        if o.verbose > 1 {
            writeln!(err, "Start configfile: {file}")?;
        }
        c.file = file.clone();
        let r = parse::parse(&text, &mut c).map(|line| c.line = line);
        for w in c.said.drain(..) {
            writeln!(err, "{w}")?;
        }
        if let Err(stop) = r {
            say_stop(file, stop, err)?;
            return Ok(None);
        }
    }
    if let Err(stop) = c.link() {
        for w in c.said.drain(..) {
            writeln!(err, "{w}")?;
        }
        say_stop(&c.file, stop, err)?;
        return Ok(None);
    }
    for w in c.said.drain(..) {
        writeln!(err, "{w}")?;
    }
    if o.verbose > 0 {
        write!(out, "{}", config::report(&c.rules, a.label()))?;
    }
    Ok(Some(c.rules))
}

/// What pmlogrewrite says when reading the rules (of `file`) stops.
fn say_stop(file: &str, stop: parse::Stop, err: &mut dyn Write) -> io::Result<()> {
    match stop {
        parse::Stop::Error { line, message } => {
            writeln!(err, "Specification error in configuration file ({file})")?;
            writeln!(err, "[line {line}] {message}")
        }
        parse::Stop::Semantic(message) => {
            writeln!(err, "Semantic error in configuration file ({file})")?;
            writeln!(err, "{message}")
        }
        parse::Stop::Unsupported(rule) => writeln!(
            err,
            "{PROG}: {file}: rules of this kind ({rule}) are not supported by this pmlogrewrite yet"
        ),
    }
}

/// The rules of one file's text, for an input with `label` and an output of
/// `version`: what pmlogrewrite would take of them, or its message (without
/// the file's name) where it would stop.
pub fn parse_rules(
    text: &[u8],
    label: &archive_format::codec::label::Label,
    version: u32,
) -> Result<rules::Rules, String> {
    let mut c = config::Config::new(label, version, false);
    match parse::parse(text, &mut c) {
        Ok(_) => Ok(c.rules),
        Err(parse::Stop::Error { line, message }) => Err(format!("[line {line}] {message}")),
        Err(parse::Stop::Unsupported(rule)) => Err(format!("not supported yet: {rule}")),
        Err(parse::Stop::Semantic(message)) => Err(message),
    }
}

/// `strerror`'s text for an I/O error (PCP's `pmErrStr` of `-errno`).
pub(crate) fn os_err(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => pm_err_str(-n),
        None => e.to_string(),
    }
}
