//! pminfo, as PCP 6.0.3's, for archives and pmcd hosts: the metric names below
//! each argument (the context's namespace with the derived metrics of every
//! context), and for each what was asked: its PMID, descriptor, help, labels,
//! series identifiers and values (at the start of an archive, or `-O`; now, of
//! a host).
//!
//! - [`opts`]: the command line.
//! - [`store`]: the context asked, an archive's or a pmcd's ([`host`]).
//! - [`batch`]: names gathered into batches, as pminfo fetches them.
//! - [`report`]: one metric's report.
//! - [`labels`]: label sets and series identifiers, with libpcp's caches.

mod batch;
mod events;
mod host;
mod json;
mod labels;
pub mod opts;
mod report;
mod store;

pub use opts::TOOL;

use archive_format::codec::meta::text_type as text;
use archive_format::derive::config::Registry;
use archive_format::derive::context::Context;
use archive_format::error::{pm_err_str, PM_ERR_NAME};
use archive_format::types::{InDom, PmId, Timestamp};
use archive_format::Archive;
use cli_common::window::{resolve_window, Bounds, WindowArgs};
use opts::Opts;
use std::io::{self, Write};

const PROG: &str = "pminfo";

/// Runs pminfo; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, out, err| {
        main(&o, &mut archive_format::text::RawBytes(out), err)
    })
}

/// The derived metrics every context has (libpcp's global configuration), then
/// `-c`'s files.
fn registry(o: &Opts, err: &mut dyn Write) -> io::Result<Registry> {
    let var = cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp");
    let mut r = Registry::global(&var, err);
    for f in &o.derived {
        if let Err(e) = r.load_path(f, err) {
            let code = -e.raw_os_error().unwrap_or(2);
            writeln!(
                err,
                "{PROG}: derived configuration(s) error: {}",
                pm_err_str(code)
            )?;
        }
    }
    Ok(r)
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let reg = registry(o, err)?;
    let Some(source) = &o.archive else {
        return live(o, &reg, out, err);
    };
    // pminfo reads one point of the archive: no volume is decompressed ahead
    let opts = archive_format::OpenOptions {
        no_read_ahead: true,
        ..Default::default()
    };
    let mut a = match cli_common::context::open_with(PROG, source, o.skip_damaged, opts, err) {
        Ok(a) => a,
        Err(e) => {
            out.flush()?;
            writeln!(err, "{PROG}: Cannot open archive \"{source}\": {}", e)?;
            return Ok(1);
        }
    };
    if let Some(f) = &o.namespace {
        let Some(p) = cli_common::pmns::load(PROG, f, err)? else {
            return Ok(1);
        };
        let trimmed = cli_common::pmns::trim(&p, a.metadata());
        a.set_pmns(trimmed);
    }
    let (tz, note) = o.clock.zone_for(a.label());
    let Some(origin) = origin(o, &a, &tz, out, err)? else {
        return Ok(1);
    };
    if let Some(n) = note {
        write!(out, "{n}")?;
    }
    let mut p = Pminfo {
        o,
        store: store::Store::Archive(&a),
        ctx: Context::new(a.metadata(), &reg),
        origin,
        caches: labels::Caches::default(),
        tz,
        batch: batch::Batch::new(1),
        cursor: (!a.is_multi()).then(|| archive_format::logfetch::LogCursor::new(&a)),
    };
    let code = p.run(out, err)?;
    cli_common::notify::removed_archives(err, PROG, &a);
    Ok(code)
}

/// pminfo of a pmcd: `-h`'s, else the local one.
fn live(o: &Opts, reg: &Registry, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    if o.local {
        writeln!(
            err,
            "{PROG}: a local context (-L) is not supported by this pminfo; give a host with -h or an archive with -a"
        )?;
        return Ok(1);
    }
    let spec = o.host.as_deref().unwrap_or("local:");
    let container = o.container.clone().or_else(|| {
        std::env::var("PCP_CONTAINER")
            .ok()
            .filter(|c| !c.is_empty())
    });
    let h = match host::Host::connect(spec, container.as_deref()) {
        Ok(h) => h,
        Err(code) => {
            writeln!(
                err,
                "{PROG}: Cannot connect to PMCD on host \"{spec}\": {}",
                pm_err_str(code)
            )?;
            return Ok(1);
        }
    };
    // a host's namespace is pmcd's: the context's own holds the derived names
    let none = archive_format::metadata::Metadata::default();
    let mut p = Pminfo {
        o,
        store: store::Store::Host(Box::new(h)),
        ctx: Context::new(&none, reg),
        origin: Timestamp::default(),
        caches: labels::Caches::default(),
        // pminfo sets no zone for a host: event records are in local time
        tz: cli_common::zone::local(),
        batch: batch::Batch::new(o.batch),
        cursor: None,
    };
    p.run(out, err)
}

/// `-O`'s time, else the start of the archive; `None` once the error is said.
fn origin(
    o: &Opts,
    a: &Archive,
    tz: &cli_common::TimeZone,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Option<Timestamp>> {
    let label = a.label();
    // without -O pminfo's origin stays at time 0: the fetches read from the
    // first record, even one before the label's start (libpcp looks for the
    // end, and warns where it cannot, only for -O)
    let (Some(_), Some(name)) = (&o.origin, &o.archive) else {
        return Ok(Some(Timestamp::default()));
    };
    let end = cli_common::clock::archive_end(PROG, a, name, out, err)?;
    let end = end.unwrap_or(label.start);
    let args = WindowArgs {
        origin: o.origin.as_deref(),
        ..WindowArgs::default()
    };
    let bounds = Bounds {
        start: label.start,
        end,
    };
    match resolve_window(args, bounds, tz) {
        Ok(w) => Ok(Some(w.origin)),
        Err(spec) => {
            let msg = cli_common::clock::invalid_window(&spec, bounds);
            writeln!(err, "{PROG}: {msg}")?;
            Ok(None)
        }
    }
}

/// A run of pminfo over one context.
pub(crate) struct Pminfo<'a> {
    pub(crate) o: &'a Opts,
    pub(crate) store: store::Store<'a>,
    pub(crate) ctx: Context<'a>,
    /// Where fetches start (`-O`, else time 0).
    pub(crate) origin: Timestamp,
    pub(crate) caches: labels::Caches,
    /// The reporting time zone (`-z`, `-Z`), for event records' times.
    pub(crate) tz: cli_common::TimeZone,
    /// The names gathered and not yet reported.
    pub(crate) batch: batch::Batch,
    /// A single archive's file position, which every fetch reads on from.
    pub(crate) cursor: Option<archive_format::logfetch::LogCursor<'a>>,
}

impl Pminfo<'_> {
    fn run(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
        let mut status = 0;
        if self.o.names.is_empty() {
            let r = self.traverse("", out);
            self.say_semantic_errors(err)?;
            if let Err(code) = r {
                out.flush()?;
                writeln!(err, "Error: {}", pm_err_str(code))?;
                status = 1;
            }
        }
        for arg in &self.o.names {
            let r = if arg.starts_with(|c: char| c.is_ascii_digit()) {
                self.digits(arg, out)
            } else {
                self.traverse(arg, out)
            };
            self.say_semantic_errors(err)?;
            if let Err(code) = r {
                out.flush()?;
                writeln!(err, "Error: {arg}: {}", pm_err_str(code))?;
                status = 1;
            }
        }
        self.flush(out)?;
        self.say_semantic_errors(err)?;
        Ok(status)
    }

    /// What libpcp says of derived metrics whose binding met a semantic error.
    fn say_semantic_errors(&mut self, err: &mut dyn Write) -> io::Result<()> {
        for m in self.ctx.take_said() {
            writeln!(err, "{m}")?;
        }
        Ok(())
    }

    /// Every metric at or below `name`, gathered first (as pmTraversePMNS
    /// gathers them), then each given to the batch.
    fn traverse(&mut self, name: &str, out: &mut dyn Write) -> Result<(), i32> {
        let names = self.names_below(name)?;
        for n in names {
            self.dometric(&n, out).map_err(|_| -5)?;
        }
        Ok(())
    }

    /// A PMID (`d.c.i`) or an instance domain (`d.s`) given by number.
    fn digits(&mut self, arg: &str, out: &mut dyn Write) -> Result<(), i32> {
        match scan_u32s(arg).as_slice() {
            [d, c, i, ..] => {
                let name = self.name_of(PmId::new(*d, *c, *i))?;
                self.traverse(&name, out)
            }
            [d, s] => self.indom(InDom::new(*d, *s), out).map_err(|_| -5),
            _ => Err(PM_ERR_NAME),
        }
    }

    /// An instance domain's report: its number, and its help and labels.
    fn indom(&mut self, indom: InDom, out: &mut dyn Write) -> io::Result<()> {
        let s = &self.o.show;
        if s.verify {
            return Ok(());
        }
        write!(out, "\nInDom: {indom}")?;
        if s.full_indom {
            write!(out, " = {} =", indom.0)?;
        }
        write!(out, " 0x{:x}", indom.0)?;
        if s.oneline {
            let t = self.store.text(indom.0, text::ONELINE | text::INDOM);
            report::oneline(out, &t, s.full_indom)?;
        }
        writeln!(out)?;
        if s.labels {
            self.indom_labels(indom, out)?;
        }
        if s.help {
            let t = self.store.text(indom.0, text::HELP | text::INDOM);
            report::help(out, &t)?;
        }
        Ok(())
    }
}

/// What `sscanf(arg, "%u.%u.%u")` reads: the numbers before the first that fails.
fn scan_u32s(arg: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = arg;
    loop {
        let t = rest.trim_start();
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            break;
        }
        out.push(
            t[..digits]
                .parse::<u64>()
                .map(|v| v as u32)
                .unwrap_or(u32::MAX),
        );
        rest = &t[digits..];
        if out.len() == 3 {
            break;
        }
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_scanned_as_sscanf_scans_them() {
        assert_eq!(scan_u32s("60.0.1"), vec![60, 0, 1]);
        assert_eq!(scan_u32s("60.1"), vec![60, 1]);
        assert_eq!(scan_u32s("60.1x.2"), vec![60, 1]);
        assert_eq!(scan_u32s("60"), vec![60]);
        assert_eq!(scan_u32s("1.2.3.4"), vec![1, 2, 3]);
    }
}
