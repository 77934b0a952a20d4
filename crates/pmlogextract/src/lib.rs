//! pmlogextract: merge, trim and select PCP archives, writing what PCP 6.0.3's
//! pmlogextract writes for the same inputs.
//!
//! The order of work is the reference's: open every input; gather all metadata (one
//! wanted record from each input in turn, descriptors checked against each other);
//! then repeatedly take the earliest pending data record of any input (ties to the
//! earlier-listed input), write the metadata it needs (restamped to its time), then
//! the record, a temporal index entry where the reference puts one, and a `<mark>`
//! where an input ends and the next one is not the same pmcd session.
//!
//! The output is written under temporary names next to the requested one and
//! renamed into place only when it is complete, so a failure never leaves a partial
//! archive (unless `-d` asks for what was written so far).

pub mod config;
mod input;
pub mod meta;
pub mod opts;
mod output;
use input::*;

/// The command line: options, usage, man page and completions come from it.
pub use opts::TOOL;

use archive_format::codec::meta::{InDomKind, MetaRecord};
use archive_format::codec::result::{OwnedValue, OwnedValueSet};
use archive_format::error::PM_ERR_NODATA;
use archive_format::writer::{ArchiveWriter, FlushPolicy, WriterOptions};
use archive_format::{Archive, InDom, PmId, Position, ReadWindow, Timestamp};
use cli_common::cleanup;
use cli_common::clock;
use cli_common::window::{parse_window, Bounds};
use foldhash::HashMap;
use jiff::tz::TimeZone;
use meta::{Gathered, InDomRec, Selection};
use std::io::Write;
use std::path::{Path, PathBuf};

const PROG: &str = "pmlogextract";
use archive_format::pmids::{PMCD_PID, PMCD_SEQNUM};
const DAY: i64 = 86_400;
/// Input pages behind the reader are let go of every this many bytes (records are
/// read through a window, so few pages of the map are ever touched: a release per
/// large record would be a system call for nothing).
const RELEASE_STEP: u64 = 16 << 20;
/// A data volume grows by this much between temporal index entries.
const FLUSH_SIZE: u64 = 100_000;

/// Runs pmlogextract; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&opts::TOOL, args, out, err, opts::parse, |o, out, err| {
        let mut x = Extract::new(o, err);
        let status = x.run(out);
        let _ = x.err_flush();
        Ok(status)
    })
}

struct Extract<'e> {
    o: opts::Opts,
    err: &'e mut dyn Write,
    inputs: Vec<Input>,
    g: Gathered,
    sel: Option<Selection>,
    tz: TimeZone,
    version: u32,
    w: Option<ArchiveWriter>,
    tmp_base: PathBuf,
    written: u64,
    first_datarec: bool,
    /// The instance domains' delta encoding (pmaTryDeltaInDom).
    deltas: archive_format::writer::delta::DeltaInDoms,
    /// The metrics of the last record whose metadata was all written (and which
    /// have no instance domain).
    settled_shape: Vec<PmId>,
    /// The metrics of a record handled when nothing was left to write for any
    /// record (labels, help text, instance domains): a record of the same metrics
    /// needs nothing before it while that lasts.
    done_shape: Vec<PmId>,
    old_log_offset: u64,
    old_meta_offset: u64,
    flushsize: u64,
    current: Timestamp,
    /// The time of the current output volume's first record (`-v` by time).
    vol_start: Option<Timestamp>,
    progress: Option<indicatif::ProgressBar>,
}

/// Why extraction stopped early.
enum Stop {
    /// Give up: remove the output (unless -d) and exit 1.
    Abandon,
    /// An I/O problem writing the output.
    Write(archive_format::Error),
}

impl From<archive_format::Error> for Stop {
    fn from(e: archive_format::Error) -> Self {
        Stop::Write(e)
    }
}

impl<'e> Extract<'e> {
    fn new(o: opts::Opts, err: &'e mut dyn Write) -> Self {
        Extract {
            o,
            err,
            inputs: Vec::new(),
            g: Gathered::default(),
            sel: None,
            tz: TimeZone::UTC,
            version: 3,
            w: None,
            tmp_base: PathBuf::new(),
            written: 0,
            first_datarec: true,
            deltas: Default::default(),
            settled_shape: Vec::new(),
            done_shape: Vec::new(),
            old_log_offset: 0,
            old_meta_offset: 0,
            flushsize: FLUSH_SIZE,
            current: Timestamp::new(0, 0),
            vol_start: None,
            progress: None,
        }
    }

    fn err_flush(&mut self) -> std::io::Result<()> {
        self.err.flush()
    }

    fn say(&mut self, msg: &str) {
        if let Some(p) = &self.progress {
            p.suspend(|| {
                let _ = writeln!(self.err, "{msg}");
            });
        } else {
            let _ = writeln!(self.err, "{msg}");
        }
    }

    fn run(&mut self, out: &mut dyn Write) -> i32 {
        if self.o.daily && (self.o.clock.start.is_none() || self.o.clock.finish.is_none()) {
            self.say(&format!(
                "{PROG}: Warning: -w flag requires that both -S and -T are specified.\nIgnoring -w flag."
            ));
            self.o.daily = false;
        }
        if let Err(code) = self.open_inputs() {
            return code;
        }
        let Some((logstart, logend)) = self.span() else {
            return 1;
        };
        if let Some(cfg) = self.o.config.clone() {
            match config::load(&cfg, &self.inputs_archives()) {
                Ok((sel, warnings)) => {
                    for w in warnings {
                        self.say(&w);
                    }
                    self.sel = config::selects(&sel).then_some(sel);
                }
                Err(msgs) => {
                    for m in msgs {
                        self.say(&m);
                    }
                    return 1;
                }
            }
        }
        self.choose_zone(out);
        let _ = out.flush();
        if let Some(code) = self.refuse_existing() {
            return code;
        }
        match self.extract(logstart, logend) {
            Ok(()) => self.finish_ok(),
            Err(Stop::Abandon) => self.abandon(),
            Err(Stop::Write(e)) => {
                let msg = format!("{PROG}: Error: {e}");
                self.say(&msg);
                self.abandon()
            }
        }
    }

    /// Opens the inputs; an empty one is skipped with a warning, and all of them
    /// empty, or one that does not open, ends the run.
    fn open_inputs(&mut self) -> Result<(), i32> {
        let mut nempty = 0;
        for name in self.o.inputs.clone() {
            match Archive::open(&name) {
                Ok(a) => self.inputs.push(Input::new(name, Some(a))),
                Err(e) if e.pm_err() == PM_ERR_NODATA => {
                    self.say(&format!(
                        "{PROG}: Warning: empty archive \"{name}\" will be skipped"
                    ));
                    nempty += 1;
                    let mut i = Input::new(name, None);
                    i.eof = true;
                    self.inputs.push(i);
                }
                Err(e) => {
                    self.say(&format!(
                        "{PROG}: Error: cannot open archive \"{name}\": {}",
                        e.pm_message()
                    ));
                    return Err(1);
                }
            }
        }
        if nempty == self.inputs.len() {
            self.say(&format!(
                "{PROG}: Warning: all input archive(s) are empty, no output archive created"
            ));
            return Err(1);
        }
        Ok(())
    }

    /// The earliest start and the latest end of the inputs; `None` (said) when an
    /// end cannot be found, unless desperate (`-x`).
    fn span(&mut self) -> Option<(Timestamp, Timestamp)> {
        let mut logstart: Option<Timestamp> = None;
        let mut logend: Option<Timestamp> = None;
        let mut failed = None;
        for i in &self.inputs {
            let Some(a) = &i.arch else { continue };
            let s = a.label().start;
            if logstart.is_none_or(|l| s < l) {
                logstart = Some(s);
            }
            let end = match a.end_time() {
                Ok(e) => e,
                Err(_) if self.o.desperate => Timestamp::new(i64::MAX, 0),
                Err(e) => {
                    failed = Some(format!(
                        "{PROG}: Error: cannot get end of archive ({}): {}",
                        i.name,
                        e.pm_message()
                    ));
                    break;
                }
            };
            if logend.is_none_or(|l| end > l) {
                logend = Some(end);
            }
        }
        if let Some(msg) = failed {
            self.say(&msg);
            return None;
        }
        let zero = Timestamp::new(0, 0);
        Some((logstart.unwrap_or(zero), logend.unwrap_or(zero)))
    }

    /// The time zone of `-S`/`-T` and the messages, with its `Note:` line.
    fn choose_zone(&mut self, out: &mut dyn Write) {
        let first = self.inputs.iter().find(|i| i.arch.is_some());
        if let Some(label) = first.and_then(|i| i.arch.as_ref()).map(|a| a.label()) {
            let (tz, note) =
                clock::zone_for(self.o.clock.hostzone, self.o.clock.tz.as_deref(), label);
            self.tz = tz;
            let _ = write!(out, "{}", note.unwrap_or_default());
        } else if let Some(tz) = self
            .o
            .clock
            .tz
            .as_deref()
            .filter(|_| !self.o.clock.hostzone)
        {
            self.tz = cli_common::zone::parse_tz(tz);
            let _ = writeln!(out, "Note: timezone set to \"TZ={tz}\"\n");
        } else {
            self.tz = cli_common::zone::local();
        }
    }

    fn inputs_archives(&self) -> Vec<(&str, &Archive)> {
        self.inputs
            .iter()
            .filter_map(|i| i.arch.as_ref().map(|a| (i.name.as_str(), a)))
            .collect()
    }

    /// The reference's __pmLogCreate refuses an output that exists.
    fn refuse_existing(&mut self) -> Option<i32> {
        let base = self.o.output.clone();
        for suffix in ["meta", "index", "0"] {
            let p = format!("{base}.{suffix}");
            if Path::new(&p).exists() {
                self.say(&format!(
                    "__pmLogNewFile: \"{p}\" already exists, not over-written\n{PROG}: Error: __pmLogCreate: File exists"
                ));
                return Some(1);
            }
        }
        None
    }

    fn output_files(&self, base: &Path) -> Vec<(PathBuf, PathBuf)> {
        let vols = self.w.as_ref().map(|w| w.volume()).unwrap_or(0);
        let mut v = Vec::new();
        for n in 0..=vols {
            v.push(n.to_string());
        }
        v.push("meta".into());
        v.push("index".into());
        v.into_iter()
            .map(|s| {
                (
                    PathBuf::from(format!("{}.{s}", base.display())),
                    PathBuf::from(format!("{}.{s}", self.o.output)),
                )
            })
            .collect()
    }

    fn finish_ok(&mut self) -> i32 {
        if let Some(p) = self.progress.take() {
            p.finish_and_clear();
        }
        let files = self.output_files(&self.tmp_base.clone());
        if let Some(w) = self.w.take() {
            if let Err(e) = w.close() {
                let msg = format!("{PROG}: Error: {e}");
                self.say(&msg);
                return self.abandon_files(&files);
            }
        }
        let renamed = cleanup::commit(|| {
            for (from, to) in &files {
                if let Err(e) = std::fs::rename(from, to) {
                    return Err(format!(
                        "{PROG}: Error: cannot rename {}: {e}",
                        from.display()
                    ));
                }
            }
            Ok(())
        });
        if let Err(msg) = renamed {
            self.say(&msg);
            return self.abandon_files(&files);
        }
        0
    }

    fn abandon(&mut self) -> i32 {
        if let Some(p) = self.progress.take() {
            p.finish_and_clear();
        }
        let files = self.output_files(&self.tmp_base.clone());
        if let Some(w) = self.w.take() {
            // -d keeps what was written: whole records, and an index that
            // points into them, even when the disk filled up
            let _ = if self.o.desperate {
                w.salvage()
            } else {
                w.close()
            };
        }
        if self.o.desperate {
            // desperate mode keeps what was written
            for (from, to) in &files {
                let _ = std::fs::rename(from, to);
            }
            cleanup::disarm();
            return 1;
        }
        self.abandon_files(&files)
    }

    fn abandon_files(&mut self, files: &[(PathBuf, PathBuf)]) -> i32 {
        let msg = format!("Archive \"{}\" not created.", self.o.output);
        self.say(&msg);
        for (from, _) in files {
            let _ = std::fs::remove_file(from);
        }
        cleanup::disarm();
        1
    }

    fn label_checks(&mut self) -> Result<(String, String, String), Stop> {
        let mut max = 0;
        for i in &self.inputs {
            let Some(a) = &i.arch else { continue };
            let v = a.label().version;
            max = max.max(v);
            if let Some(want) = self.o.version {
                if v > want {
                    let msg = format!(
                        "{PROG}: Error: input archive version must be no more than {want}\narchive: {} version: {v}",
                        i.name
                    );
                    self.say(&msg);
                    return Err(Stop::Abandon);
                }
            }
        }
        self.version = self.o.version.unwrap_or(max);
        for i in &mut self.inputs {
            i.out_version = self.version;
        }
        let live: Vec<(String, archive_format::Label)> = self
            .inputs
            .iter()
            .filter_map(|i| i.arch.as_ref().map(|a| (i.name.clone(), a.label().clone())))
            .collect();
        let (fname, flabel) = live[0].clone();
        let (lname, llabel) = live[live.len() - 1].clone();
        let (used_name, used) = if self.o.first_tz {
            (fname.clone(), flabel.clone())
        } else {
            (lname, llabel)
        };
        for (name, l) in &live {
            if l.hostname != flabel.hostname {
                let msg = format!(
                    "{PROG}: Error: host name mismatch for input archives\narchive: {fname} host: {}\narchive: {name} host: {}",
                    flabel.hostname, l.hostname
                );
                self.say(&msg);
                return Err(Stop::Abandon);
            }
            if l.timezone != used.timezone {
                let msg = format!(
                    "{PROG}: Warning: timezone mismatch for input archives\narchive: {used_name} timezone: {} [will be used]\narchive: {name} timezone: {} [will be ignored]",
                    used.timezone, l.timezone
                );
                self.say(&msg);
            }
        }
        Ok((flabel.hostname, used.timezone, used.zoneinfo))
    }

    /// The extraction: the output created under a temporary name, the window, the
    /// metadata gathered, then the records of every input merged in time order.
    fn extract(&mut self, logstart: Timestamp, logend: Timestamp) -> Result<(), Stop> {
        self.create_output()?;
        let (mut winstart, mut winend) = self.window(logstart, logend)?;
        self.gather_metadata()?;
        self.g.count_pending();
        if !self.g.skipped.is_empty() {
            let mut msg =
                String::from("Warning: the metrics below will be missing from the output archive");
            for p in self.g.skipped.clone() {
                msg.push_str(&format!("\n\tPMID: {p}"));
            }
            self.say(&msg);
        }
        self.start_progress();
        // position inputs at the window, remembering each one's pmcd session first
        if let Some(ws) = winstart {
            for i in &mut self.inputs {
                i.seek(ws);
            }
        }
        loop {
            if self.o.samples.is_some_and(|n| self.written >= n) {
                break;
            }
            self.old_meta_offset = self.writer().meta_offset();
            if self.next_log(winstart)? {
                break;
            }
            let Some((ilog, now)) = self.earliest() else {
                break;
            };
            if now > logend {
                break;
            }
            if winend.is_some_and(|we| now > we) {
                if !self.o.daily || !self.next_day(&mut winstart, &mut winend, logend)? {
                    break;
                }
                continue;
            }
            self.current = now;
            if self.inputs[ilog].mark {
                self.end_of_input(ilog)?;
                continue;
            }
            let Some(rec) = self.inputs[ilog].pending.take() else {
                break;
            };
            self.write_record(ilog, rec, now)?;
            self.update_progress();
        }
        if self.first_datarec {
            self.say(&format!("{PROG}: Warning: no qualifying records found."));
            return Err(Stop::Abandon);
        }
        // the final index entry, for the last time written
        if self.old_log_offset == 0 {
            self.old_log_offset = self.writer().label_len();
        }
        let meta_off = self.writer().meta_offset();
        let (t, d) = (self.current, self.old_log_offset);
        self.writer().put_index_at(t, meta_off, d)?;
        Ok(())
    }

    /// The output, created under a temporary name beside the requested one.
    fn create_output(&mut self) -> Result<(), Stop> {
        let (host, tz, zoneinfo) = self.label_checks()?;
        let out = PathBuf::from(&self.o.output);
        // what killed runs left beside the output goes first
        cleanup::sweep(&out, "pmlogextract");
        self.tmp_base = cleanup::temp_base(&out, "pmlogextract");
        cleanup::arm(&self.tmp_base);
        let opts = WriterOptions {
            version: self.version,
            hostname: host,
            timezone: tz,
            zoneinfo,
            auto_index: false,
            buffered: true,
            flush: FlushPolicy::NoSync,
            ..Default::default()
        };
        self.w = Some(ArchiveWriter::create(&self.tmp_base, opts)?);
        cleanup::created("pmlogextract");
        Ok(())
    }

    /// `-S` and `-T` as 6.0.3 applies them (a second added to the end, to dodge
    /// usec truncation), and `-w` dropped where the window spans more than a day.
    #[allow(clippy::type_complexity)]
    fn window(
        &mut self,
        logstart: Timestamp,
        logend: Timestamp,
    ) -> Result<(Option<Timestamp>, Option<Timestamp>), Stop> {
        let bounds = Bounds {
            start: logstart,
            end: logend,
        };
        let (start, finish) = (
            self.o.clock.start.as_deref(),
            self.o.clock.finish.as_deref(),
        );
        let (ws, we) = match parse_window(start, finish, bounds, &self.tz) {
            Ok(w) => w,
            Err(spec) => {
                let msg = format!("{PROG}: Invalid time window specified: {spec}");
                self.say(&msg);
                return Err(Stop::Abandon);
            }
        };
        let winstart = start.map(|_| ws);
        let winend = finish.map(|_| Timestamp::new(we.sec + 1, we.nsec));
        if let (true, Some(s), Some(e)) = (self.o.daily, winstart, winend) {
            if s.sec + DAY < e.sec {
                self.say(&format!("{PROG}: Warning: -S and -T must specify a time window within\nthe same day, for -w to be used.  Ignoring -w flag."));
                self.o.daily = false;
            }
        }
        Ok((winstart, winend))
    }

    /// The input whose next record (or end) comes first, ties to the earlier
    /// input, and its time.
    fn earliest(&self) -> Option<(usize, Timestamp)> {
        let mut best: Option<(usize, Timestamp)> = None;
        for (k, i) in self.inputs.iter().enumerate() {
            let t = match (&i.pending, i.mark) {
                (Some(r), _) => r.stamp,
                (None, true) => i.laststamp,
                _ => continue,
            };
            if best.is_none_or(|(_, bt)| bt > t) {
                best = Some((k, t));
            }
        }
        best
    }

    /// `-w`: the window rolled a day on, with a `<mark>` for the gap; false when
    /// the new window starts past the archives' end.
    fn next_day(
        &mut self,
        winstart: &mut Option<Timestamp>,
        winend: &mut Option<Timestamp>,
        logend: Timestamp,
    ) -> Result<bool, Stop> {
        let Some(s) = winstart.as_mut() else {
            return Ok(false);
        };
        s.sec += DAY;
        if let Some(e) = winend.as_mut() {
            e.sec += DAY;
        }
        let s = *s;
        if s > logend {
            return Ok(false);
        }
        for i in &mut self.inputs {
            if i.pending.as_ref().is_some_and(|r| r.stamp < s) {
                i.pending = None;
            }
        }
        let t = Timestamp::from_nanos(self.current.as_nanos() + 1_000_000);
        self.writer().write_mark(t)?;
        self.current = t;
        self.written += 1;
        Ok(true)
    }

    /// Input `ilog` has ended: a `<mark>` after its last record unless it is the
    /// last input going, or the next continues the same pmcd session.
    fn end_of_input(&mut self, ilog: usize) -> Result<(), Stop> {
        if !self.same_session(ilog) {
            let last = self
                .inputs
                .iter()
                .enumerate()
                .all(|(k, i)| k == ilog || i.eof);
            if !last {
                let t = Timestamp::from_nanos(self.inputs[ilog].laststamp.as_nanos() + 1_000_000);
                self.writer().write_mark(t)?;
                self.current = t;
                self.written += 1;
            }
        }
        self.inputs[ilog].mark = false;
        self.inputs[ilog].eof = true;
        Ok(())
    }

    fn writer(&mut self) -> &mut ArchiveWriter {
        self.w.as_mut().expect("writer exists while extracting")
    }

    /// pmlogextract's `do_not_need_mark`: the input that ended and the one whose
    /// record comes next are the same pmcd session (same pmcd.pid and seqnum).
    fn same_session(&self, ended: usize) -> bool {
        let me = &self.inputs[ended];
        if self.o.always_mark {
            return false;
        }
        let (Some(pid), Some(seq)) = (me.pmcd_pid, me.pmcd_seqnum) else {
            return false;
        };
        let mut best: Option<(usize, Timestamp)> = None;
        for (k, i) in self.inputs.iter().enumerate() {
            if k == ended {
                continue;
            }
            if let Some(r) = &i.pending {
                if best.is_none_or(|(_, t)| r.stamp < t) {
                    best = Some((k, r.stamp));
                }
            }
        }
        match best {
            Some((k, _)) => {
                self.inputs[k].pmcd_pid == Some(pid) && self.inputs[k].pmcd_seqnum == Some(seq)
            }
            None => false,
        }
    }

    /// Reads the next wanted record of every input that has none pending; returns
    /// true when every input is at its end.
    fn next_log(&mut self, winstart: Option<Timestamp>) -> Result<bool, Stop> {
        let mut eofs = 0;
        // records can be copied as stored when nothing in them changes
        let fast = self.sel.is_none() && self.g.skipped.is_empty();
        for k in 0..self.inputs.len() {
            if self.inputs[k].eof {
                eofs += 1;
                continue;
            }
            if self.inputs[k].mark || self.inputs[k].pending.is_some() {
                continue;
            }
            // (the values filter keeps: every metric's without a selection)
            let (sel, skipped) = (self.sel.as_ref(), &self.g.skipped);
            let keep =
                |p: PmId| sel.is_none_or(|s| s.metrics.contains_key(&p)) && !skipped.contains(&p);
            loop {
                let got = self.inputs[k].read(fast, &keep);
                match got {
                    Ok(Some(rec)) => {
                        let i = &mut self.inputs[k];
                        i.laststamp = rec.stamp;
                        if rec.len() == 5 {
                            i.note_session(&rec);
                        }
                        if winstart.is_some_and(|w| rec.stamp < w) {
                            continue;
                        }
                        let kept = if rec.len() == 0 {
                            Some(rec)
                        } else {
                            filter(rec, self.sel.as_ref(), &self.g.skipped)
                        };
                        if let Some(r) = kept {
                            self.inputs[k].pending = Some(r);
                            break;
                        }
                    }
                    Ok(None) => {
                        self.input_ended(k);
                        break;
                    }
                    Err((msg, fatal)) => {
                        self.say(&msg);
                        if fatal {
                            return Err(Stop::Abandon);
                        }
                        self.input_ended(k);
                        break;
                    }
                }
            }
            if self.inputs[k].eof {
                eofs += 1;
            }
        }
        Ok(eofs == self.inputs.len())
    }

    fn input_ended(&mut self, k: usize) {
        let first = self.first_datarec;
        let i = &mut self.inputs[k];
        i.pos = None;
        if first {
            i.eof = true;
        } else {
            i.mark = true;
        }
    }

    /// Every wanted metadata record of every input, one from each in turn.
    fn gather_metadata(&mut self) -> Result<(), Stop> {
        let mut queues: Vec<std::collections::VecDeque<MetaRecord>> = Vec::new();
        let mut currents: Vec<HashMap<InDom, Vec<(i32, String)>>> = Vec::new();
        for i in &self.inputs {
            let recs = match &i.arch {
                Some(a) => a.meta_records().unwrap_or_default(),
                None => Vec::new(),
            };
            queues.push(recs.into());
            currents.push(HashMap::default());
        }
        let to_v3 = self.version >= 3;
        loop {
            let mut any = false;
            for k in 0..queues.len() {
                // the next wanted record of input k
                let rec = loop {
                    let Some(r) = queues[k].pop_front() else {
                        break None;
                    };
                    // a delta resolves against that input's own previous set
                    if let MetaRecord::InDom {
                        kind,
                        indom,
                        instances,
                        ..
                    } = &r
                    {
                        let (_, full) = archive_format::writer::delta::resolve(
                            *kind,
                            instances,
                            currents[k].get(indom),
                        );
                        currents[k].insert(*indom, full);
                    }
                    if meta::wanted(&r, self.sel.as_ref(), &self.g.skipped) {
                        break Some(r);
                    }
                };
                let Some(rec) = rec else { continue };
                any = true;
                match rec {
                    MetaRecord::Desc { desc, names } => {
                        let conflicts = self.g.add_desc(desc, names, self.o.skip_conflicts);
                        for c in &conflicts {
                            self.say(&c.0);
                        }
                        if !conflicts.is_empty() && !self.o.skip_conflicts {
                            return Err(Stop::Abandon);
                        }
                    }
                    MetaRecord::InDom {
                        kind, stamp, indom, ..
                    } => {
                        let full = currents[k].get(&indom).cloned().unwrap_or_default();
                        self.g.add_indom(
                            indom,
                            InDomRec {
                                stamp,
                                v2: kind == InDomKind::V2 && !to_v3,
                                instances: full,
                                written: false,
                            },
                        );
                    }
                    MetaRecord::Label {
                        stamp,
                        ltype,
                        ident,
                        sets,
                        ..
                    } => self.g.add_label(ltype, ident, stamp, sets),
                    MetaRecord::Text { ttype, ident, text } => self.g.add_text(ttype, ident, text),
                }
            }
            if !any {
                break;
            }
        }
        Ok(())
    }

    fn start_progress(&mut self) {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return;
        }
        let total: u64 = self
            .inputs
            .iter()
            .filter_map(|i| i.arch.as_ref())
            .flat_map(|a| a.files().volumes.values())
            .filter_map(|f| std::fs::metadata(&f.path).ok())
            .map(|m| m.len())
            .sum();
        if total < 64 << 20 {
            return;
        }
        let pb = indicatif::ProgressBar::new(total);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        self.progress = Some(pb);
    }

    fn update_progress(&mut self) {
        let Some(p) = &self.progress else { return };
        let done: u64 = self
            .inputs
            .iter()
            .map(|i| i.done_bytes + i.pos.map(|p| p.offset).unwrap_or(0))
            .sum();
        p.set_position(done.min(p.length().unwrap_or(done)));
    }
}
