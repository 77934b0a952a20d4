//! pmlogsize, as PCP 6.0.3's: where the space of each file of an archive
//! goes (values, metadata of each kind, index entries, framing), per metric
//! and per instance domain with `-d`, with the repeats `-r` finds.
//!
//! - [`opts`]: the command line.
//! - [`files`]: the files an argument names.
//! - `meta`, `data` and [`index`]: each kind of file accounted (pure).
//! - `share`: pmlogsize's percentages.

mod data;
pub mod files;
pub mod index;
mod meta;
pub mod opts;
mod share;

pub use opts::TOOL;

use archive_format::codec::label::{VOL_INDEX, VOL_META};
use archive_format::codec::rawlabel::{self, RawLabel};
use archive_format::error::pm_err_str;
use archive_format::types::PmId;
use archive_format::volume::{self, Decompressed};
use archive_format::{Archive, OpenOptions};
use opts::Opts;
use std::collections::HashMap;
use std::io::{self, Write};

/// What the report asks for.
#[derive(Debug, Clone, Default)]
pub struct Want {
    pub detail: bool,
    pub replication: bool,
    pub verbose: u32,
    pub threshold: Option<i32>,
}

/// A file's report: what goes to stdout, and the error that stopped it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub out: String,
    pub err: Option<String>,
}

/// Runs pmlogsize; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, out, err| {
        main(&o, out, err)
    })
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    if let Some(msg) = &o.fail {
        writeln!(err, "{msg}")?;
        return Ok(1);
    }
    let want = Want {
        detail: o.detail,
        replication: o.replication,
        verbose: o.verbose,
        threshold: o.threshold,
    };
    for arg in &o.archives {
        let names = match files::named(arg) {
            Ok(n) => n,
            Err(msg) => {
                out.flush()?;
                writeln!(err, "{msg}")?;
                return Ok(1);
            }
        };
        // each compressed file decompressed once (the archive's, for the names of
        // its metrics, too), the ones after the first on the other cores while the
        // first is read
        let cache = Decompressed::new();
        let later = names.iter().skip(1).map(|n| files::file_ref(n)).collect();
        let _prefetch = cache.prefetch(later);
        let mut archives = Archives::default();
        for name in names {
            if !one(&name, &want, (&cache, &mut archives), out, err)? {
                return Ok(1);
            }
        }
    }
    Ok(0)
}

/// The archives data volumes open as (by base name), each opened once.
type Archives = HashMap<String, Option<Archive>>;

/// One file's report; false where pmlogsize stops.
fn one(
    name: &str,
    want: &Want,
    (cache, archives): (&Decompressed, &mut Archives),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let external = match std::fs::metadata(name) {
        Ok(m) => m.len() as i64,
        Err(e) => {
            out.flush()?;
            let msg = pm_err_str(-e.raw_os_error().unwrap_or(5));
            writeln!(err, "{name}: cannot stat file: {msg}")?;
            return Ok(false);
        }
    };
    let bytes = match files::load(name, cache) {
        Ok(b) => b,
        Err(msg) => {
            out.flush()?;
            writeln!(err, "{name}: cannot open file: {msg}")?;
            return Ok(true);
        }
    };
    let mut label = RawLabel::default();
    if let Err(e) = rawlabel::load(&bytes, &mut label) {
        out.flush()?;
        writeln!(err, "{name}: cannot load label record: {}", pm_err_str(e))?;
        return Ok(true);
    }
    write!(out, "{name}:")?;
    let internal = bytes.len() as i64;
    if internal != external {
        let cut = share::pct(internal - external, internal);
        write!(out, " [compression reduces size below by about {cut}%]")?;
    }
    writeln!(out)?;
    let start = label.record_len() as usize;
    let report = match label.vol {
        VOL_INDEX => index::report(&bytes, start, label.version()),
        VOL_META => meta::report(&bytes, start, want),
        _ => {
            // (as pmNewContext of the volume's name opens it: its metrics' names)
            let archive = archives.entry(volume::base_name(name)).or_insert_with(|| {
                let opts = OpenOptions {
                    decompressed: Some(cache.clone()),
                    no_read_ahead: true,
                    ..OpenOptions::default()
                };
                Archive::open_with(name, opts).ok()
            });
            volume_report(&bytes, start, label.version(), want, archive.as_ref())
        }
    };
    write!(out, "{}", report.out)?;
    if let Some(e) = report.err {
        out.flush()?;
        writeln!(err, "{e}")?;
        return Ok(false);
    }
    Ok(true)
}

/// The report of a file's bytes alone, its kind found from its label (a data
/// volume's metrics unnamed and its records not decoded); `None` where the
/// label does not load. For tests and fuzzing: never panics.
pub fn report_of(bytes: &[u8], want: &Want) -> Option<Report> {
    let mut label = RawLabel::default();
    rawlabel::load(bytes, &mut label).ok()?;
    let start = label.record_len() as usize;
    Some(match label.vol {
        VOL_INDEX => index::report(bytes, start, label.version()),
        VOL_META => meta::report(bytes, start, want),
        _ => {
            let none = |_: PmId| Vec::new();
            let vol = data::Volume {
                version: label.version(),
                names: Some(&none),
                release: None,
            };
            data::report(bytes, start, &vol, want)
        }
    })
}

/// A data volume's report, its metrics named where the volume opens as an
/// archive.
fn volume_report(
    bytes: &archive_format::volume::Bytes,
    start: usize,
    version: u32,
    want: &Want,
    archive: Option<&Archive>,
) -> Report {
    let names = |p: PmId| -> Vec<String> {
        archive
            .map(|a| a.metadata().names(p).to_vec())
            .unwrap_or_default()
    };
    let release = |s: usize, e: usize| bytes.release(s, e);
    let vol = data::Volume {
        version,
        names: archive.map(|_| &names as &dyn Fn(PmId) -> Vec<String>),
        release: Some(&release),
    };
    data::report(bytes, start, &vol, want)
}
