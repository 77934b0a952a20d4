//! pmval for archives: the values of one metric at regular intervals (interpolated, as
//! PCP 6.0.3's pmval shows them), or every recorded value with `-U`. [`run`] takes the
//! arguments and the output streams so that tests run it in-process.
//!
//! Beyond PCP: `--csv` (a header row, then one row per sample), `--json` (one object
//! per sample, per line), and `--nearest` (PCP 6.3.2's interpolation rule for instant
//! and discrete metrics: the nearest observation instead of the prior one).

mod events;
mod opts;

/// The command line: options, usage, man page and completions come from it.
pub use opts::TOOL;
mod print;
mod setup;
pub use cli_common::metricspec as spec;
use setup::*;

use archive_format::atom::extract;
use archive_format::derive::check::Unavailable;
use archive_format::derive::config::Registry;
use archive_format::derive::context;
use archive_format::error::{pm_err_str, PM_ERR_EOL};
use archive_format::pmns::{Lookup, Pmns};
use archive_format::replay::{Delta, FetchResult, FetchedSet, InterpRule, Mode, Replay};
use archive_format::types::{sem, vtype, Desc, Timestamp};
use archive_format::Archive;
use cli_common::clock;
use cli_common::window::{resolve_window, Bounds, WindowArgs};
use cli_common::TimeZone;
use opts::{Format, Opts};
use print::{pad_left, printreal};
use std::io::{self, Write};
use std::sync::Arc;

const PROG: &str = "pmval";

/// Runs pmval; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&opts::TOOL, args, out, err, opts::parse, |o, out, err| {
        Pmval::run(&o, &mut archive_format::text::RawBytes(out), err)
    })
}

fn secs(t: Timestamp) -> f64 {
    t.as_real_libpcp()
}

struct Pmval<'a> {
    o: &'a Opts,
    desc: Desc,
    metric: String,
    tz: TimeZone,
    cols: usize,
    fixed: Option<usize>,
    /// `(id, name)` of the reported instances, by id.
    ipairs: Vec<(i32, Arc<str>)>,
    iall: bool,
    scale: f64,
    label_style: Option<u8>,
    /// pmval lists over-long instance names once, when it first prints labels.
    label_full_printed: bool,
    /// An event metric: raw records, event arrays unpacked.
    events: bool,
    /// The sampling interval, for `-d`.
    delta_ns: i128,
    meta_archive: &'a Archive,
    finish: f64,
    /// Rows after the header: the first row of CSV is the header.
    csv_header_done: bool,
    /// A derived metric: computed from the archive's metrics at each fetch.
    derived: Option<Derived>,
}

impl<'a> Pmval<'a> {
    /// pmval's steps: the source and the metric as PCP's checks them, in its order
    /// and with its messages, then the header and the samples.
    fn run(o: &'a Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
        let spec = spec::parse(&o.metric).map_err(|e| io::Error::other(e.render(&o.metric)))?;
        if let Some(why) = unsupported(o, &spec) {
            writeln!(err, "{PROG}: {why}")?;
            return Ok(1);
        }
        let source = o
            .archive
            .clone()
            .or_else(|| spec.archive.clone())
            .unwrap_or_default();
        let a = match open_source(o, &source, &spec.metric, err) {
            Ok(a) => a,
            Err(msg) => {
                writeln!(err, "{PROG}: {msg}")?;
                return Ok(1);
            }
        };
        let label = a.label().clone();
        let (tz, note) = o.clock.zone_for(&label);
        if let Some(n) = note.filter(|_| o.format == Format::Text) {
            write!(out, "{n}")?;
        }
        // from here on a refusal follows what was printed
        let refused = |out: &mut dyn Write, err: &mut dyn Write, msg: String| {
            out.flush()?;
            writeln!(err, "{PROG}: {msg}")?;
            Ok(1)
        };
        let window = match window_in(o, &a, &tz) {
            Ok(w) => w,
            Err(msg) => return refused(out, err, msg),
        };
        let derived = match derived_for(o, &spec.metric, &a, err) {
            Ok(d) => d,
            Err(msg) => return refused(out, err, msg),
        };
        let dd = derived.as_ref().map(|d| d.desc);
        let (desc, ipairs, profile) = match metric_and_instances(o, &spec, a.metadata(), dd) {
            Ok(found) => found,
            Err(msg) => return refused(out, err, msg),
        };
        let plan = Plan::new(o, &desc, &window);
        if o.clock.tz.is_none() && !o.clock.hostzone && !plan.events && o.format == Format::Text {
            writeln!(out)?;
        }
        let cols = column_width(o, &desc);
        if let Some(f) = o.fixed.map(|f| f as usize) {
            if (f == 0 && f > cols) || (f > 0 && f + 2 > cols) {
                return refused(
                    out,
                    err,
                    format!("-f {f} too large for column width {cols}"),
                );
            }
        }
        let mut p = Pmval {
            o,
            desc,
            metric: spec.metric.clone(),
            tz,
            cols,
            fixed: o.fixed.map(|f| f as usize),
            iall: o.instances.is_empty() && spec.insts.is_empty(),
            ipairs,
            // a counter of time is shown as a rate in its own time units
            scale: if desc.sem == sem::COUNTER {
                desc.units.time_rate_scale()
            } else {
                1.0
            },
            label_style: None,
            label_full_printed: false,
            events: plan.events,
            delta_ns: plan.delta_ns,
            meta_archive: &a,
            finish: secs(window.finish),
            csv_header_done: false,
            derived,
        };
        if o.format == Format::Text {
            p.header(
                out,
                &source,
                &label.hostname,
                window.origin,
                window.finish,
                plan.samples,
                plan.delta_ns,
                plan.interp,
            )?;
        }
        let mut r = plan.replay(o, &a, &desc, profile);
        p.main_loop(&mut r, plan.samples, out, err)
    }

    #[allow(clippy::too_many_arguments)]
    fn header(
        &self,
        out: &mut dyn Write,
        source: &str,
        host: &str,
        origin: Timestamp,
        finish: Timestamp,
        samples: i64,
        delta_ns: i128,
        interp: bool,
    ) -> io::Result<()> {
        let d = &self.desc;
        if !self.events {
            writeln!(out, "metric:    {}", self.metric)?;
        }
        writeln!(out, "archive:   {source}")?;
        writeln!(out, "host:      {host}")?;
        // 6.0.3 prints the header times with ctime whatever -X says
        let st = cli_common::timefmt::ctime(origin.sec, &self.tz);
        writeln!(out, "start:     {st}")?;
        if finish.sec != setup::UNBOUNDED {
            let en = cli_common::timefmt::ctime(finish.sec, &self.tz);
            writeln!(out, "end:       {en}")?;
        }
        if self.events {
            if samples < 0 {
                writeln!(out, "samples:   all")?;
            } else {
                writeln!(out, "samples:   {samples}")?;
            }
            return Ok(());
        }
        let semantics = match d.sem {
            sem::COUNTER if self.o.raw => "cumulative counter",
            sem::COUNTER => "cumulative counter (converting to rate)",
            sem::INSTANT => "instantaneous value",
            sem::DISCRETE => "discrete instantaneous value",
            _ => "unknown",
        };
        writeln!(out, "semantics: {semantics}")?;
        let u = d.units.to_string();
        write!(out, "units:     {}", if u.is_empty() { "none" } else { &u })?;
        if !self.o.raw && d.sem == sem::COUNTER {
            let scale = if d.units.dim_time() == 0 {
                3
            } else {
                d.units.scale_time()
            };
            let conv = d.units.with_time(d.units.dim_time() - 1, scale);
            if conv.dim_space() == 0 && conv.dim_time() == 0 && conv.dim_count() == 0 {
                write!(out, " (converting to time utilization)")?;
            } else {
                let s = conv.to_string();
                write!(
                    out,
                    " (converting to {})",
                    if s.is_empty() { "none" } else { &s }
                )?;
            }
        }
        writeln!(out)?;
        if samples < 0 {
            writeln!(out, "samples:   all")?;
        } else {
            writeln!(out, "samples:   {samples}")?;
        }
        if samples > 1 && interp {
            let d = delta_ns as f64 / 1e9;
            writeln!(out, "interval:  {d:.2} sec")?;
        }
        Ok(())
    }

    /// pmval's timestamp: `HH:MM:SS.mmm`, or with -X the date and microseconds, -XX
    /// nanoseconds.
    fn stamp(&self, t: Timestamp) -> String {
        let tm = cli_common::timefmt::local_tm(t.sec, &self.tz);
        let hms = format!("{:02}:{:02}:{:02}", tm.hour, tm.minute, tm.second);
        match self.o.xflag {
            0 => format!("{hms}.{:03}", t.nsec / 1_000_000),
            x => {
                let c = cli_common::timefmt::ctime(t.sec, &self.tz);
                let frac = if x == 1 {
                    format!("{:06}", t.nsec / 1000)
                } else {
                    format!("{:09}", t.nsec)
                };
                format!("{} {hms}.{frac} {:>4}", &c[..10], &c[20..])
            }
        }
    }

    /// One fetch as pmval's `getvals`: `Ok(Some)` with values, `Ok(None)` when there
    /// were none (reported), `Err(code)` to stop: 0 at the end of the archive, 1 on
    /// error, -2 past the window.
    fn getvals(
        &mut self,
        r: &mut Replay<'_>,
        out: &mut dyn Write,
        err: &mut dyn Write,
        reporting: &mut bool,
    ) -> io::Result<Result<Option<FetchResult>, i32>> {
        let res = if self.o.nointerp || self.events {
            let pmid = self.desc.pmid;
            loop {
                match r.fetch_archive_for(&|p| p == pmid) {
                    Ok(res) if res.sets.is_empty() => {
                        if self.o.format == Format::Text {
                            writeln!(out, "{}  Archive logging suspended", self.stamp(res.stamp))?;
                        } else if !self.events {
                            self.empty_row(out, res.stamp)?;
                        }
                        *reporting = false;
                        return Ok(Ok(None));
                    }
                    Ok(res) => {
                        if let Some(s) = res.sets.iter().find(|s| s.pmid == self.desc.pmid) {
                            let s = s.clone();
                            break Ok(FetchResult {
                                stamp: res.stamp,
                                sets: vec![s],
                            });
                        }
                    }
                    Err(e) => break Err(e),
                }
            }
        } else if let Some(d) = &mut self.derived {
            d.fetch(r)
        } else {
            r.fetch(&[self.desc.pmid])
        };
        cli_common::notify::removed_archives(err, PROG, self.meta_archive);
        let mut res = match res {
            Ok(res) => res,
            Err(e) if e.pm_err() == PM_ERR_EOL => return Ok(Err(0)),
            Err(e) => {
                out.flush()?;
                let what = if self.o.nointerp {
                    "pmFetchArchive"
                } else {
                    "pmFetch"
                };
                writeln!(err, "\n{PROG}: {what}: {}", e.pm_message())?;
                return Ok(Err(1));
            }
        };
        if secs(res.stamp) > self.finish {
            return Ok(Err(-2));
        }
        let Some(set) = res.sets.first_mut() else {
            return Ok(Ok(None));
        };
        if set.numval == 0 {
            if self.o.format == Format::Text {
                if self.events {
                    // pmval leaves the line open for events (it says more only with -v)
                    write!(out, "{}  ", self.stamp(res.stamp))?;
                    if self.o.verbose {
                        writeln!(out, "{}: No values available", self.metric)?;
                    }
                } else {
                    writeln!(out, "{}  No values available", self.stamp(res.stamp))?;
                }
            } else if !self.events {
                self.empty_row(out, res.stamp)?;
            }
            return Ok(Ok(None));
        }
        if set.numval < 0 {
            out.flush()?;
            let what = if self.o.nointerp {
                "pmFetchArchive"
            } else {
                "pmFetch"
            };
            writeln!(err, "\n{PROG}: {what}: {}", pm_err_str(set.numval))?;
            return Ok(Ok(None));
        }
        set.values.sort_by_key(|v| v.0);
        Ok(Ok(Some(res)))
    }

    fn main_loop(
        &mut self,
        r: &mut Replay<'_>,
        mut samples: i64,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<i32> {
        let forever = samples < 0;
        let rate = !self.o.raw && self.desc.sem == sem::COUNTER;
        let mut prev: Option<FetchResult> = None;
        let mut no_values = false;
        let mut reporting = false;
        loop {
            if !forever {
                if samples <= 0 {
                    break;
                }
                samples -= 1;
            }
            if prev.is_none() {
                match self.getvals(r, out, err, &mut reporting)? {
                    Err(-2) => break,
                    Err(code) => return Ok(code),
                    Ok(None) => no_values = true,
                    Ok(Some(res)) => {
                        if self.events {
                            if let Some(code) = self.row_events(out, err, &res)? {
                                return Ok(code);
                            }
                            reporting = true;
                            prev = Some(res);
                            continue;
                        }
                        if !self.desc.indom.is_null() {
                            self.labels(out)?;
                        }
                        if !rate {
                            self.row_values(out, &res)?;
                            reporting = true;
                            prev = Some(res);
                            continue;
                        }
                        if (no_values || reporting) && self.o.format == Format::Text {
                            writeln!(out, "{}  No values available", self.stamp(res.stamp))?;
                        }
                        no_values = false;
                        prev = Some(res);
                    }
                }
            }
            if self.o.delay {
                // -d: replay at the pace of the samples
                out.flush()?;
                std::thread::sleep(std::time::Duration::from_nanos(self.delta_ns as u64));
            }
            if prev.is_none() {
                continue;
            }
            // next sample
            match self.getvals(r, out, err, &mut reporting)? {
                Err(-2) => break,
                Err(code) => return Ok(code),
                Ok(None) => {
                    prev = None;
                    continue;
                }
                Ok(Some(res)) => {
                    if !self.events && self.unknown_instance(&res) {
                        // pmval looks the instances up again, and prints their
                        // names again even where nothing new is found
                        self.labels(out)?;
                    }
                    if self.events {
                        if let Some(code) = self.row_events(out, err, &res)? {
                            return Ok(code);
                        }
                    } else if rate {
                        if let Some(p) = &prev {
                            self.row_rates(out, &res, p)?;
                        }
                    } else {
                        self.row_values(out, &res)?;
                    }
                    reporting = true;
                    prev = Some(res);
                }
            }
        }
        Ok(0)
    }

    /// An event metric's row: the time, then every instance's event records.
    fn row_events(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        res: &FetchResult,
    ) -> io::Result<Option<i32>> {
        let Some(set) = res.sets.first() else {
            return Ok(None);
        };
        write!(out, "{}  ", self.stamp(res.stamp))?;
        let selected: Vec<(i32, Arc<str>)> = if self.iall {
            Vec::new()
        } else {
            self.ipairs.clone()
        };
        let em = events::EventMetric {
            name: &self.metric,
            desc: self.desc,
            selected: &selected,
            meta: self.meta_archive.metadata(),
            tz: &self.tz,
        };
        if let Err(msg) = events::print_events(out, &em, set, res.stamp)? {
            out.flush()?;
            writeln!(err, "{PROG}: {msg}")?;
            return Ok(Some(1));
        }
        Ok(None)
    }

    fn labels(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.o.format == Format::Csv && !self.csv_header_done {
            self.csv_header_done = true;
            let mut names: Vec<String> = vec!["time".into()];
            if self.desc.indom.is_null() {
                names.push(self.metric.clone());
            } else {
                names.extend(self.ipairs.iter().map(|(_, n)| n.to_string()));
            }
            csv_row(out, &names)?;
        }
        if self.o.format != Format::Text {
            return Ok(());
        }
        let cols = self.cols;
        let style = *self.label_style.get_or_insert_with(|| {
            let mut style = 0;
            for (_, n) in &self.ipairs {
                if n.len() > cols {
                    style = 2;
                    break;
                }
                if n.len() + 3 > cols {
                    style = 1;
                }
            }
            style
        });
        if style == 2 && !self.label_full_printed {
            self.label_full_printed = true;
            for (i, (_, n)) in self.ipairs.iter().enumerate() {
                writeln!(out, "full label for instance[{i}]: {n}")?;
            }
        }
        writeln!(out)?;
        let rate = !self.o.raw && self.desc.sem == sem::COUNTER;
        for (i, (_, n)) in self.ipairs.iter().enumerate() {
            if i == 0 {
                let w = match self.o.xflag {
                    0 => 12,
                    1 => 31,
                    _ => 34,
                };
                write!(out, "{:w$}", "")?;
            }
            let name: String = truncate(n, cols);
            if !rate || style != 0 || self.fixed.is_some() {
                write!(out, "{} ", pad_left(&name, cols))?;
            } else {
                let w = cols.saturating_sub(3);
                write!(out, "{}    ", pad_left(&truncate(n, w), w))?;
            }
        }
        if !self.ipairs.is_empty() {
            writeln!(out)?;
        }
        Ok(())
    }

    fn value_text(
        &self,
        set: &FetchedSet,
        v: &archive_format::replay::OwnedValue,
        width: usize,
    ) -> String {
        let d = &self.desc;
        if d.vtype == vtype::FLOAT || d.vtype == vtype::DOUBLE {
            let x = extract(d.vtype, &v.as_value())
                .and_then(|a| a.as_f64())
                .unwrap_or(0.0);
            return printreal(x, d.sem, width, self.fixed);
        }
        let s = archive_format::format::format_value(d.vtype, set.valfmt, &v.as_value());
        if matches!(d.vtype, vtype::AGGREGATE | vtype::AGGREGATE_STATIC) {
            // pmPrintValue pads the text part of an aggregate, then adds the hex
            if let Some((text, hex)) = s.split_once(" [") {
                return format!("{} [{hex}", pad_left(text, width));
            }
        }
        pad_left(&s, width)
    }

    /// With every instance shown, a value of an instance the archive's
    /// instance domain never names (pmval's `chkinsts`).
    fn unknown_instance(&self, res: &FetchResult) -> bool {
        self.iall
            && !self.desc.indom.is_null()
            && res.sets.first().is_some_and(|set| {
                set.values
                    .iter()
                    .any(|(i, _)| !self.ipairs.iter().any(|(j, _)| j == i))
            })
    }

    fn row_values(&mut self, out: &mut dyn Write, res: &FetchResult) -> io::Result<()> {
        let Some(set) = res.sets.first() else {
            return Ok(());
        };
        match self.o.format {
            Format::Text => {}
            Format::Csv | Format::Json => {
                let vals: Vec<Option<serde_json::Value>> = self.columns(set, |v| {
                    extract(self.desc.vtype, &v.as_value()).map(|a| match a {
                        archive_format::atom::Atom::Bytes(b) => serde_json::Value::String(
                            b.iter().map(|x| format!("{x:02x}")).collect(),
                        ),
                        archive_format::atom::Atom::Float(f) => float_json(f),
                        other => serde_json::to_value(other).unwrap_or(serde_json::Value::Null),
                    })
                });
                return self.machine_row(out, res.stamp, vals);
            }
        }
        write!(out, "{}", self.stamp(res.stamp))?;
        if self.desc.indom.is_null() {
            if set.values.len() == 1 {
                write!(out, "{}", self.value_text(set, &set.values[0].1, self.cols))?;
            } else {
                write!(out, "{:>w$}", "?", w = self.cols)?;
            }
            writeln!(out)?;
            return Ok(());
        }
        for (id, _) in &self.ipairs {
            match set.values.iter().find(|(i, _)| i == id) {
                Some((_, v)) => write!(out, "{}", self.value_text(set, v, self.cols))?,
                None => write!(out, "{:>w$}", "?", w = self.cols)?,
            }
            write!(out, " ")?;
        }
        writeln!(out)?;
        if self.iall {
            for (inst, v) in &set.values {
                if !self.ipairs.iter().any(|(i, _)| i == inst) {
                    writeln!(
                        out,
                        "Warning: value={}, but instance={inst} is unknown",
                        self.value_text(set, v, 1)
                    )?;
                }
            }
        }
        Ok(())
    }

    fn columns(
        &self,
        set: &FetchedSet,
        f: impl Fn(&archive_format::replay::OwnedValue) -> Option<serde_json::Value>,
    ) -> Vec<Option<serde_json::Value>> {
        if self.desc.indom.is_null() {
            vec![set.values.first().and_then(|(_, v)| f(v))]
        } else {
            self.ipairs
                .iter()
                .map(|(id, _)| {
                    set.values
                        .iter()
                        .find(|(i, _)| i == id)
                        .and_then(|(_, v)| f(v))
                })
                .collect()
        }
    }

    /// A sample without values, in CSV or JSON: a row of empty fields or nulls
    /// (where the text output says "No values available").
    fn empty_row(&mut self, out: &mut dyn Write, t: Timestamp) -> io::Result<()> {
        let n = if self.desc.indom.is_null() {
            1
        } else {
            self.ipairs.len()
        };
        self.machine_row(out, t, vec![None; n])
    }

    fn machine_row(
        &mut self,
        out: &mut dyn Write,
        t: Timestamp,
        vals: Vec<Option<serde_json::Value>>,
    ) -> io::Result<()> {
        let time = jiff::Timestamp::new(t.sec, t.nsec as i32)
            .map(|ts| {
                ts.to_zoned(self.tz.clone())
                    .strftime("%Y-%m-%dT%H:%M:%S%.f%:z")
                    .to_string()
            })
            .unwrap_or_default();
        match self.o.format {
            Format::Csv => {
                if !self.csv_header_done {
                    self.labels(out)?;
                }
                let mut cells: Vec<String> = vec![time];
                cells.extend(vals.iter().map(|v| match v {
                    None | Some(serde_json::Value::Null) => String::new(),
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                }));
                csv_row(out, &cells)
            }
            _ => {
                let mut obj = serde_json::Map::new();
                obj.insert("time".into(), serde_json::Value::String(time));
                obj.insert(
                    "metric".into(),
                    serde_json::Value::String(self.metric.clone()),
                );
                if self.desc.indom.is_null() {
                    obj.insert(
                        "value".into(),
                        vals.into_iter()
                            .next()
                            .flatten()
                            .unwrap_or(serde_json::Value::Null),
                    );
                } else {
                    let mut m = serde_json::Map::new();
                    for ((_, n), v) in self.ipairs.iter().zip(vals) {
                        m.insert(n.to_string(), v.unwrap_or(serde_json::Value::Null));
                    }
                    obj.insert("instances".into(), serde_json::Value::Object(m));
                }
                serde_json::to_writer(&mut *out, &obj)?;
                writeln!(out)
            }
        }
    }

    fn rate_of(
        &self,
        now: &archive_format::replay::OwnedValue,
        before: &archive_format::replay::OwnedValue,
        delta: f64,
    ) -> f64 {
        let a = extract(self.desc.vtype, &now.as_value())
            .and_then(|x| x.as_f64())
            .unwrap_or(0.0);
        let b = extract(self.desc.vtype, &before.as_value())
            .and_then(|x| x.as_f64())
            .unwrap_or(0.0);
        let mut v = a - b;
        if v < 0.0 && std::env::var_os("PCP_COUNTER_WRAP").is_some() {
            match self.desc.vtype {
                vtype::I32 | vtype::U32 => v += u32::MAX as f64 + 1.0,
                vtype::I64 | vtype::U64 => v += u64::MAX as f64 + 1.0,
                _ => {}
            }
        }
        v / delta
    }

    fn row_rates(
        &mut self,
        out: &mut dyn Write,
        now: &FetchResult,
        before: &FetchResult,
    ) -> io::Result<()> {
        let (Some(s1), Some(s2)) = (now.sets.first(), before.sets.first()) else {
            return Ok(());
        };
        let delta = self.scale * (secs(now.stamp) - secs(before.stamp));
        if self.o.format != Format::Text {
            let vals: Vec<Option<serde_json::Value>> = if self.desc.indom.is_null() {
                vec![match (s1.values.first(), s2.values.first()) {
                    (Some((_, a)), Some((_, b))) => {
                        Some(serde_json::json!(self.rate_of(a, b, delta)))
                    }
                    _ => None,
                }]
            } else {
                self.ipairs
                    .iter()
                    .map(|(id, _)| {
                        let a = s1.values.iter().find(|(i, _)| i == id)?;
                        let b = s2.values.iter().find(|(i, _)| i == id)?;
                        Some(serde_json::json!(self.rate_of(&a.1, &b.1, delta)))
                    })
                    .collect()
            };
            return self.machine_row(out, now.stamp, vals);
        }
        write!(out, "{}", self.stamp(now.stamp))?;
        if self.desc.indom.is_null() {
            if s1.values.len() == 1 && s2.values.len() == 1 {
                let v = self.rate_of(&s1.values[0].1, &s2.values[0].1, delta);
                write!(out, "{}", printreal(v, sem::COUNTER, self.cols, self.fixed))?;
            } else {
                write!(out, "{:>w$}", "?", w = self.cols)?;
            }
            writeln!(out)?;
            return Ok(());
        }
        for (id, _) in &self.ipairs {
            let a = s1.values.iter().find(|(i, _)| i == id);
            let b = s2.values.iter().find(|(i, _)| i == id);
            match (a, b) {
                (Some((_, a)), Some((_, b))) => {
                    let v = self.rate_of(a, b, delta);
                    write!(out, "{}", printreal(v, sem::COUNTER, self.cols, self.fixed))?;
                }
                _ => write!(out, "{:>w$}", "?", w = self.cols)?,
            }
            write!(out, " ")?;
        }
        writeln!(out)?;
        if self.iall {
            for (j, (inst, a)) in s1.values.iter().enumerate() {
                if self.ipairs.iter().any(|(i, _)| i == inst) {
                    continue;
                }
                if let Some((i2, b)) = s2.values.get(j) {
                    if i2 == inst {
                        let v = self.rate_of(a, b, delta);
                        writeln!(
                            out,
                            "Warning: value={}, but instance={inst} is unknown",
                            printreal(v, sem::COUNTER, 1, self.fixed)
                        )?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A FLOAT as a JSON number in its own shortest form (0.83, not the double
/// 0.8299999833106995 it widens to); null for NaN and infinities.
fn float_json(f: f32) -> serde_json::Value {
    serde_json::Number::from_f64(archive_format::atom::float_as_decimal(f))
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// One CSV row, fields quoted where they must be (a comma, a quote, a line end).
fn csv_row(out: &mut dyn Write, fields: &[String]) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(fields).map_err(io::Error::other)?;
    let row = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    out.write_all(&row)
}

/// `pmLookupInDomArchive`: an exact name, else a name whose first word matches.
fn lookup_instance(union: &[(i32, Arc<str>)], name: &str) -> Option<i32> {
    if let Some((id, _)) = union.iter().find(|(_, n)| &**n == name) {
        return Some(*id);
    }
    union
        .iter()
        .find(|(_, n)| n.split(' ').next() == Some(name))
        .map(|(id, _)| *id)
}

/// `$PCP_IGNORE_MARK_RECORDS`: set and empty ignores every mark; an interval ignores
/// marks in gaps no longer than it.
fn mark_policy() -> Option<archive_format::replay::MarkPolicy> {
    use archive_format::replay::MarkPolicy;
    let v = std::env::var("PCP_IGNORE_MARK_RECORDS").ok()?;
    if v.is_empty() {
        return Some(MarkPolicy::IgnoreAll);
    }
    cli_common::window::parse_interval(&v).map(|ns| MarkPolicy::IgnoreGap(ns as f64 / 1e9))
}

#[cfg(test)]
mod float_tests {
    use super::float_json;

    #[test]
    fn floats_in_their_shortest_form() {
        assert_eq!(float_json(0.83).to_string(), "0.83");
        assert_eq!(float_json(1e20).to_string(), "1e+20");
        assert_eq!(float_json(-2.5).to_string(), "-2.5");
        assert!(float_json(f32::NAN).is_null());
        assert!(float_json(f32::INFINITY).is_null());
    }
}
