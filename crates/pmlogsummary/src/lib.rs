//! pmlogsummary, as PCP 6.0.3's: for each metric of numeric type in an archive
//! (or a time window of it), its time and stochastic averages, minimum and
//! maximum with their times, sum, sample count and value distribution, counters
//! as rates; plus `--csv` and `--json` of ours.
//!
//! - [`opts`]: the command line.
//! - [`stats`]: the statistics a pass takes from each record.
//! - [`passes`]: the records read as libpcp gives them, once or twice.
//! - [`report`]: the statistics finished and written as PCP writes them.
//! - [`export`]: the same rows as CSV or JSON.

mod export;
pub mod opts;
mod passes;
pub mod report;
mod source;
pub mod stats;
pub mod tv;

pub use opts::TOOL;

use archive_format::derive::config::Registry;
use archive_format::derive::context::Context;
use archive_format::error::{pm_err_str, PM_ERR_NAME};
use archive_format::pmns::Pmns;
use archive_format::types::{InDom, PmId};
use archive_format::{Archive, Timestamp};
use cli_common::metricspec;
use opts::{Format, Opts};
use report::{Text, Window};
use stats::Warning;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::sync::Arc;
use tv::Tv;

const PROG: &str = "pmlogsummary";

/// Runs pmlogsummary; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, out, err| {
        main(&o, &mut archive_format::text::RawBytes(out), err)
    })
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    // -n is loaded while the options are read, before the archive is opened
    let pmns = match cli_common::pmns::load_option(PROG, o.namespace.as_deref(), err)? {
        Ok(p) => p,
        Err(()) => return Ok(1),
    };
    let run = match passes::streamed_run(o, pmns.as_ref()) {
        Some(run) => run,
        None => match opened(o, pmns.as_ref(), err)? {
            Ok(run) => run,
            Err(code) => return Ok(code),
        },
    };
    report(o, run, out, err)
}

/// An archive with its statistics taken: what the report needs.
pub(crate) struct Run {
    pub a: Archive,
    pub tz: cli_common::TimeZone,
    /// `-z`/`-Z`'s note.
    pub note: Option<String>,
    pub w: Window,
    pub passes: passes::Passes,
}

/// The archive opened as libpcp opens it, its window, and the passes read through
/// libpcp's file positions; `Err` the exit status once an error is said.
fn opened(o: &Opts, pmns: Option<&Pmns>, err: &mut dyn Write) -> io::Result<Result<Run, i32>> {
    let mut a = match cli_common::context::open(PROG, &o.archive, o.skip_damaged, err) {
        Ok(a) => a,
        Err(e) => {
            let (name, msg) = (&o.archive, e);
            writeln!(err, "{PROG}: Cannot open archive \"{name}\": {msg}")?;
            return Ok(Err(1));
        }
    };
    if let Some(p) = pmns {
        let trimmed = cli_common::pmns::trim(p, a.metadata());
        a.set_pmns(trimmed);
    }
    let (tz, note) = o.clock.zone_for(a.label());
    let end = cli_common::clock::archive_end(PROG, &a, &o.archive, &mut io::sink(), err)?;
    let bounds = cli_common::clock::bounds(a.label(), end);
    let (start, mut finish) = match o.clock.window(bounds, &tz) {
        Ok(w) => w,
        Err(msg) => {
            writeln!(err, "{PROG}: {msg}")?;
            return Ok(Err(1));
        }
    };
    if end.is_none() && finish == bounds.end {
        // libpcp's end of an archive whose end it cannot find
        finish = Timestamp::new(i64::MAX, 0);
    }
    let w = Window::new(Tv::of(start), Tv::of(finish));
    let passes = passes::run(o, &a, &w, start);
    Ok(Ok(Run {
        a,
        tz,
        note,
        w,
        passes,
    }))
}

/// The note, the label, the warnings, and each metric's rows.
fn report(o: &Opts, run: Run, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let Run {
        a,
        tz,
        note,
        w,
        passes: (stats, ended),
    } = run;
    cli_common::notify::removed_archives(err, PROG, &a);
    if let Some(n) = note {
        write!(out, "{n}")?;
    }
    if o.label && o.format == Format::Text {
        label(&a, &w, &tz, out)?;
    }
    let mut warned = HashSet::new();
    warnings(o, &a, stats.warnings(), &mut warned, err)?;
    let status = match ended {
        Ok(status) => status,
        Err(corrupt) => {
            warnings(o, &a, std::slice::from_ref(&corrupt.0), &mut warned, err)?;
            out.flush()?;
            writeln!(err, "{PROG}: possibly corrupt archive?")?;
            return Ok(1);
        }
    };
    let mut status_code = 0;
    if let Some(e) = status {
        writeln!(err, "{PROG}: fetch failed: {e}")?;
        status_code = 1;
    }
    let reg = Registry::global(
        &cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp"),
        err,
    );
    let ctx = Context::new(a.metadata(), &reg);
    let mut summary = Summary {
        a: &a,
        ctx: &ctx,
        metrics: stats.metrics,
        w,
        names: HashMap::new(),
    };
    let mut sink = export::sink(o, &w, &tz, out)?;
    if let Some(out) = sink.text_out().filter(|_| o.header) {
        Text { o, w, tz: &tz }.header(out)?;
    }
    if o.metrics.is_empty() {
        let names = ctx.traverse("").unwrap_or_default();
        summary.names(&names, &[], &mut *sink)?;
    }
    for arg in &o.metrics {
        let spec = match metricspec::parse(arg) {
            Ok(s) => s,
            Err(e) => {
                write!(err, "{}", e.render(arg))?;
                continue;
            }
        };
        match ctx.traverse(&spec.metric) {
            Some(names) => summary.names(&names, &spec.insts, &mut *sink)?,
            None => {
                let e = pm_err_str(PM_ERR_NAME);
                writeln!(
                    err,
                    "{PROG}: PMNS traversal failed for {}: {e}",
                    spec.metric
                )?;
            }
        }
    }
    sink.finish()?;
    Ok(status_code)
}

/// `-v`'s warnings, once per metric: `prog: names(pmid) - message`.
fn warnings(
    o: &Opts,
    a: &Archive,
    list: &[Warning],
    warned: &mut HashSet<PmId>,
    err: &mut dyn Write,
) -> io::Result<()> {
    if !o.warn {
        return Ok(());
    }
    for w in list {
        if !warned.insert(w.pmid) {
            continue;
        }
        let names = a.metadata().names(w.pmid);
        let names = match names.is_empty() {
            true => "<nonames>".to_string(),
            false => names.join(" or "),
        };
        write!(err, "{PROG}: {names}({}) - {}", w.pmid, w.message)?;
    }
    Ok(())
}

/// `-l`: the label and the window.
fn label(
    a: &Archive,
    w: &Window,
    tz: &cli_common::TimeZone,
    out: &mut dyn Write,
) -> io::Result<()> {
    let l = a.label();
    writeln!(out, "Log Label (Log Format Version {})", l.version & 0xff)?;
    writeln!(out, "Performance metrics from host {}", l.hostname)?;
    writeln!(out, "  commencing {}", w.start.dated(tz))?;
    if w.finish.sec == i64::MAX {
        writeln!(out, "  ending     UNKNOWN")
    } else {
        writeln!(out, "  ending     {}", w.finish.dated(tz))
    }
}

/// The report: each metric's rows once, under the first of its names met.
struct Summary<'a> {
    a: &'a Archive,
    ctx: &'a Context<'a>,
    metrics: HashMap<PmId, stats::Metric, foldhash::fast::RandomState>,
    w: Window,
    /// Instance names by instance domain (the newest name of each instance).
    names: HashMap<InDom, Vec<(i32, Arc<str>)>>,
}

impl Summary<'_> {
    fn names(
        &mut self,
        names: &[String],
        wanted: &[String],
        sink: &mut dyn export::Sink,
    ) -> io::Result<()> {
        for name in names {
            let Some(pmid) = self.ctx.lookup(name) else {
                continue;
            };
            let Some(m) = self.metrics.remove(&pmid) else {
                continue;
            };
            let indom = m.desc.indom;
            if indom.0 != u32::MAX && !self.names.contains_key(&indom) {
                let union = self.a.metadata().indom_union(indom);
                self.names.insert(indom, union);
            }
            let known = self.names.get(&indom);
            let name_of = |_: InDom, inst: i32| {
                let list = known?;
                let k = list.binary_search_by_key(&inst, |(i, _)| *i).ok()?;
                Some(list[k].1.to_string())
            };
            for row in report::rows(name, m, &self.w, wanted, name_of) {
                sink.row(&row)?;
            }
        }
        Ok(())
    }
}
