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

mod cleanup;
pub mod config;
pub mod meta;
pub mod opts;

/// The command line: options, usage, man page and completions come from it.
pub use opts::TOOL;

use archive_format::codec::meta::{InDomKind, Instance, MetaRecord};
use archive_format::codec::result::{OwnedValue, OwnedValueSet};
use archive_format::error::PM_ERR_NODATA;
use archive_format::writer::{ArchiveWriter, FlushPolicy, WriterOptions};
use archive_format::{Archive, InDom, PmId, Position, ReadWindow, Timestamp};
use cli_common::clock;
use cli_common::window::{parse_window, Bounds};
use foldhash::HashMap;
use jiff::tz::TimeZone;
use meta::{Gathered, InDomRec, Selection};
use std::io::Write;
use std::path::{Path, PathBuf};

const PROG: &str = "pmlogextract";
const PMCD_PID: PmId = PmId((2 << 22) | 23);
const PMCD_SEQNUM: PmId = PmId((2 << 22) | 24);
const DAY: i64 = 86_400;
/// Input pages behind the reader are let go of every this many bytes (records are
/// read through a window, so few pages of the map are ever touched: a release per
/// large record would be a system call for nothing).
const RELEASE_STEP: u64 = 16 << 20;
/// A data volume grows by this much between temporal index entries.
const FLUSH_SIZE: u64 = 100_000;

/// A data record read from an input: decoded with its values owned, or (when it is
/// stored exactly as it will be written) left where it is.
struct Rec {
    stamp: Timestamp,
    vsets: Vec<OwnedValueSet>,
    /// Copied as stored: where the record is and its PMIDs (`vsets` is empty).
    raw: Option<(Position, Vec<PmId>)>,
}

impl Rec {
    fn len(&self) -> usize {
        match &self.raw {
            Some((_, p)) => p.len(),
            None => self.vsets.len(),
        }
    }
}

/// One input archive and where reading it has got to.
struct Input {
    name: String,
    arch: Option<Archive>,
    pos: Option<Position>,
    released: Option<Position>,
    /// The next record to write (`_Nresult`).
    pending: Option<Rec>,
    eof: bool,
    /// At its end; a `<mark>` may still be due.
    mark: bool,
    laststamp: Timestamp,
    pmcd_pid: Option<u64>,
    pmcd_seqnum: Option<u32>,
    /// Bytes of data volumes before the current one (for progress).
    done_bytes: u64,
    /// The output's version (records of the same version may be copied as stored).
    out_version: u32,
    /// Records are read through this (`pread`), not the memory map, so that memory
    /// stays one window per input whatever the page cache does.
    window: ReadWindow,
    /// The PMID list of a copied record, handed back once it is written (so that
    /// copying allocates nothing per record).
    spare_pmids: Vec<PmId>,
}

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
    /// Last full instance set written per instance domain (pmaTryDeltaInDom).
    last_full: HashMap<InDom, Vec<(i32, String)>>,
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
            last_full: HashMap::default(),
            settled_shape: Vec::new(),
            done_shape: Vec::new(),
            old_log_offset: 0,
            old_meta_offset: 0,
            flushsize: FLUSH_SIZE,
            current: Timestamp::new(0, 0),
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
        if self.o.daily && (self.o.start.is_none() || self.o.finish.is_none()) {
            self.say(&format!(
                "{PROG}: Warning: -w flag requires that both -S and -T are specified.\nIgnoring -w flag."
            ));
            self.o.daily = false;
        }
        // inputs
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
                    return 1;
                }
            }
        }
        if nempty == self.inputs.len() {
            self.say(&format!(
                "{PROG}: Warning: all input archive(s) are empty, no output archive created"
            ));
            return 1;
        }
        let mut logstart: Option<Timestamp> = None;
        let mut logend: Option<Timestamp> = None;
        for i in &self.inputs {
            let Some(a) = &i.arch else { continue };
            let s = a.label().start;
            if logstart.is_none_or(|l| s < l) {
                logstart = Some(s);
            }
            let end = match a.end_time() {
                Ok(e) => e,
                Err(e) => {
                    if self.o.desperate {
                        Timestamp::new(i64::MAX, 0)
                    } else {
                        let msg = format!(
                            "{PROG}: Error: cannot get end of archive ({}): {}",
                            i.name,
                            e.pm_message()
                        );
                        self.say(&msg);
                        return 1;
                    }
                }
            };
            if logend.is_none_or(|l| end > l) {
                logend = Some(end);
            }
        }
        let (logstart, logend) = (
            logstart.unwrap_or(Timestamp::new(0, 0)),
            logend.unwrap_or(Timestamp::new(0, 0)),
        );
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
        // time zone for -S/-T and messages
        let first = self.inputs.iter().find(|i| i.arch.is_some());
        if let Some(label) = first.and_then(|i| i.arch.as_ref()).map(|a| a.label()) {
            let (tz, note) = clock::zone_for(self.o.hostzone, self.o.tz.as_deref(), label);
            self.tz = tz;
            let _ = write!(out, "{}", note.unwrap_or_default());
        } else if let Some(tz) = self.o.tz.as_deref().filter(|_| !self.o.hostzone) {
            self.tz = cli_common::zone::parse_tz(tz);
            let _ = writeln!(out, "Note: timezone set to \"TZ={tz}\"\n");
        } else {
            self.tz = cli_common::zone::local();
        }
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
        let dir = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let file = out
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.tmp_base = dir.join(format!(".{file}.pmlogextract-{}", std::process::id()));
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
        cleanup::created();
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
        let (start, finish) = (self.o.start.as_deref(), self.o.finish.as_deref());
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
            loop {
                let got = self.inputs[k].read(fast);
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
                        let (_, full) = meta::full_form(*kind, instances, currents[k].get(indom));
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

    /// `writerlist` for one record: its metadata, a volume switch if due, the record,
    /// and a temporal index entry if due.
    fn write_record(&mut self, ilog: usize, mut rec: Rec, now: Timestamp) -> Result<(), Stop> {
        // a copied record of the same metrics as one fully handled before
        let mut same_shape = false;
        if let Some((at, pmids)) = &rec.raw {
            same_shape = !pmids.is_empty() && same_pmids(pmids, &self.settled_shape);
            let known = same_shape
                || (!pmids.is_empty() && same_pmids(pmids, &self.done_shape))
                || pmids.iter().all(|p| self.g.descs.contains_key(p));
            if !known {
                // some value sets will be culled: decode after all
                let input = &mut self.inputs[ilog];
                let decoded = input
                    .arch
                    .as_ref()
                    .and_then(|a| a.read_forward_in(*at, &mut input.window).ok().flatten())
                    .map(|(_, r, _)| to_owned(&r));
                match decoded {
                    Some(d) => {
                        rec = d;
                        same_shape = false;
                    }
                    None => return Err(Stop::Abandon),
                }
            }
        }
        self.first_datarec = false;
        self.write_labels(1, u32::MAX, now)?;
        let mut needti = false;
        self.write_metadata(&mut rec, same_shape, &mut needti)?;
        let n = self.o.volume_samples.unwrap_or(0);
        if n > 0 && self.written > 0 && self.written.is_multiple_of(n) {
            let vol = self.writer().new_volume()?;
            let when = cli_common::timefmt::stamp(rec.stamp, 9, &self.tz.clone());
            self.say(&format!("{PROG}: New log volume {vol}, at {when}"));
        }
        let before = match &rec.raw {
            Some((at, _)) => {
                let input = &mut self.inputs[ilog];
                let arch = input.arch.as_ref();
                // the pending record is still in the input's window
                let payload = arch
                    .and_then(|a| a.read_raw_forward_in(*at, &mut input.window).ok().flatten())
                    .and_then(|(_, p, _)| p);
                let Some(payload) = payload else {
                    return Err(Stop::Abandon);
                };
                // the record as stored: the writer may copy it file to file
                let source = arch
                    .and_then(|a| a.volume_file(at.vol))
                    .map(|f| (((ilog as u64) << 32) | at.vol as u64, f, at.offset));
                let w = self.w.as_mut().expect("writer exists while extracting");
                w.write_result_from(rec.stamp, payload, source)?
            }
            None => self.writer().write_result(rec.stamp, &rec.vsets)?,
        };
        self.old_log_offset = before;
        self.written += 1;
        let label_len = self.writer().label_len();
        let after = self.writer().data_offset();
        if before == 0 || before == label_len || after > self.flushsize {
            needti = true;
        }
        if needti && rec.stamp.sec > 0 {
            let meta = self.old_meta_offset;
            self.writer().put_index_at(rec.stamp, meta, before)?;
            self.old_log_offset = after;
            self.flushsize = after + FLUSH_SIZE;
        }
        if let Some((_, pmids)) = rec.raw {
            self.inputs[ilog].spare_pmids = pmids;
        }
        Ok(())
    }

    /// `write_priorlabelset`: the label set of one kind and identifier that the
    /// reference's table lookup finds, if not yet written and not later than `now`,
    /// restamped to `now`.
    fn write_labels(&mut self, ltype: u32, ident: u32, now: Timestamp) -> Result<(), Stop> {
        let Some(l) = self
            .g
            .labels
            .get_mut(&ltype)
            .and_then(|t| t.find_mut(ident))
        else {
            return Ok(());
        };
        if l.stamp > now || l.written {
            return Ok(());
        }
        l.written = true;
        let sets = l.sets.clone();
        self.g.unwritten_labels -= 1;
        self.writer().put_labels(now, ltype, ident, sets)?;
        Ok(())
    }

    fn write_text(&mut self, ttype: u32, ident: u32) -> Result<(), Stop> {
        let Some(t) = self.g.texts.get_mut(&(ttype, ident)) else {
            return Ok(());
        };
        if t.written {
            return Ok(());
        }
        t.written = true;
        let text = t.text.clone();
        self.g.unwritten_texts -= 1;
        self.writer().put_text(ttype, ident, &text)?;
        Ok(())
    }

    /// `write_metareclist`: what a record needs, before it.
    fn write_metadata(
        &mut self,
        rec: &mut Rec,
        same_shape: bool,
        needti: &mut bool,
    ) -> Result<(), Stop> {
        let stamp = rec.stamp;
        let nothing_left = |g: &meta::Gathered| {
            g.unwritten_labels == 0 && g.unwritten_texts == 0 && g.unwritten_indoms == 0
        };
        let shape_is = |rec: &Rec, shape: &[PmId]| match &rec.raw {
            Some((_, pmids)) => same_pmids(pmids, shape),
            None => rec.vsets.iter().map(|v| v.pmid).eq(shape.iter().copied()),
        };
        if nothing_left(&self.g) && !self.done_shape.is_empty() && shape_is(rec, &self.done_shape) {
            return Ok(());
        }
        // a record of the same metrics as one fully handled before, when nothing is
        // left to write for them, needs nothing
        if self.g.unwritten_labels == 0 && self.g.unwritten_texts == 0 {
            let same = match &rec.raw {
                Some(_) => same_shape,
                None => rec
                    .vsets
                    .iter()
                    .map(|v| v.pmid)
                    .eq(self.settled_shape.iter().copied()),
            };
            if same && !self.settled_shape.is_empty() {
                return Ok(());
            }
        }
        let mut settled = true;
        let mut k = 0;
        loop {
            let pmid = match &rec.raw {
                Some((_, pmids)) => match pmids.get(k) {
                    Some(p) => *p,
                    None => break,
                },
                None => match rec.vsets.get(k) {
                    Some(v) => v.pmid,
                    None => break,
                },
            };
            let Some(entry) = self.g.descs.get_mut(&pmid) else {
                // PCP 6.0.3 gives up here (later versions cull the metric)
                let msg = format!(
                    "{PROG}: Error: meta data (TYPE_DESC) for pmid {pmid} has not been found."
                );
                self.say(&msg);
                return Err(Stop::Abandon);
            };
            k += 1;
            let desc = entry.desc;
            if !entry.written {
                entry.written = true;
                let names = entry.names.clone();
                self.writer().put_desc(desc, &names)?;
            }
            if self.g.unwritten_labels == 0 && self.g.unwritten_texts == 0 && desc.indom.is_null() {
                continue;
            }
            self.write_labels(0x10, pmid.0, stamp)?;
            self.write_labels(2, pmid.0 >> 22 & 0x1ff, stamp)?;
            self.write_labels(8, pmid.0 & !0x3ff, stamp)?;
            self.write_text(4 | 1, pmid.0)?;
            self.write_text(4 | 2, pmid.0)?;
            let indom = desc.indom;
            if indom.is_null() {
                continue;
            }
            settled = false;
            let has_recs = self
                .g
                .indoms
                .get(&indom)
                .is_some_and(|l| !l.recs.is_empty());
            if has_recs {
                let Some(at) = self.g.closest_indom(indom, stamp) else {
                    continue;
                };
                let Some(r) = self
                    .g
                    .indoms
                    .get_mut(&indom)
                    .and_then(|l| l.recs.get_mut(at))
                else {
                    continue;
                };
                if r.written {
                    continue;
                }
                r.written = true;
                self.g.unwritten_indoms = self.g.unwritten_indoms.saturating_sub(1);
                let r = r.clone();
                *needti = true;
                self.write_indom(indom, stamp, &r)?;
            }
            self.write_labels(4, indom.0, stamp)?;
            self.write_labels(0x20, indom.0, stamp)?;
            self.write_text(8 | 1, indom.0)?;
            self.write_text(8 | 2, indom.0)?;
        }
        if nothing_left(&self.g) {
            self.done_shape = match &rec.raw {
                Some((_, pmids)) => pmids.clone(),
                None => rec.vsets.iter().map(|v| v.pmid).collect(),
            };
        }
        if settled {
            self.settled_shape = match &rec.raw {
                Some((_, pmids)) => pmids.clone(),
                None => rec.vsets.iter().map(|v| v.pmid).collect(),
            };
        }
        Ok(())
    }

    fn write_indom(&mut self, indom: InDom, stamp: Timestamp, r: &InDomRec) -> Result<(), Stop> {
        let full: Vec<Instance> = r
            .instances
            .iter()
            .map(|(i, n)| Instance {
                inst: *i,
                name: Some(n.clone()),
            })
            .collect();
        if self.version < 3 || r.v2 {
            self.writer()
                .put_indom_record(InDomKind::V2, stamp, indom, full)?;
            return Ok(());
        }
        let delta = self
            .last_full
            .get(&indom)
            .and_then(|old| meta::delta(old, &r.instances));
        self.last_full.insert(indom, r.instances.clone());
        match delta {
            Some(d) => self
                .writer()
                .put_indom_record(InDomKind::Delta, stamp, indom, d)?,
            None => self
                .writer()
                .put_indom_record(InDomKind::Full, stamp, indom, full)?,
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

impl Input {
    fn new(name: String, arch: Option<Archive>) -> Input {
        let pos = arch.as_ref().map(|a| a.start());
        Input {
            name,
            arch,
            pos,
            released: pos,
            pending: None,
            eof: false,
            mark: false,
            laststamp: Timestamp::new(0, 0),
            pmcd_pid: None,
            pmcd_seqnum: None,
            done_bytes: 0,
            out_version: 0,
            window: ReadWindow::new(),
            spare_pmids: Vec::new(),
        }
    }

    /// Moves to the temporal-index entry before `t`, after noting the pmcd session
    /// of the first record (the prologue the reference would have read on its way).
    fn seek(&mut self, t: Timestamp) {
        let Some(a) = &self.arch else { return };
        let to = a.position_before(t);
        if to == a.start() {
            return;
        }
        let first = match a.read_forward(a.start()) {
            Ok(Some((_, rec, _))) => Some(to_owned(&rec)),
            _ => None,
        };
        if let Some(owned) = first {
            self.laststamp = owned.stamp;
            if owned.vsets.len() == 5 {
                self.note_session(&owned);
            }
        }
        self.pos = Some(to);
    }

    /// Moves past the record at `at`, letting go of the memory behind it.
    fn advance(&mut self, at: Position, next: Position) {
        if let (Some(a), Some(r)) = (&self.arch, self.released) {
            if at.vol != r.vol {
                self.done_bytes += r.offset;
            }
            if at.vol != r.vol || at.offset.saturating_sub(r.offset) > RELEASE_STEP {
                // from where the last release ended, to a page boundary (so that no
                // page is left between two releases)
                let to = Position {
                    vol: at.vol,
                    offset: at.offset / 65_536 * 65_536,
                };
                a.release_range(r, to);
                self.released = Some(to);
            }
        }
        self.pos = Some(next);
    }

    fn note_session(&mut self, rec: &Rec) {
        for vs in &rec.vsets {
            let Some((_, v)) = vs.values.first() else {
                continue;
            };
            let word = match v {
                OwnedValue::Insitu(w) => Some(*w as u64),
                OwnedValue::Block { data, .. } if data.len() >= 8 => {
                    Some(u64::from_be_bytes(data[..8].try_into().unwrap_or([0; 8])))
                }
                OwnedValue::Block { data, .. } if data.len() >= 4 => {
                    Some(u32::from_be_bytes(data[..4].try_into().unwrap_or([0; 4])) as u64)
                }
                _ => None,
            };
            if vs.pmid == PMCD_PID {
                self.pmcd_pid = word;
            } else if vs.pmid == PMCD_SEQNUM {
                self.pmcd_seqnum = word.map(|w| w as u32);
            }
        }
    }

    /// The next record, `None` at the end; on a damaged record, the messages and
    /// whether the damage is fatal.
    fn read(&mut self, fast: bool) -> Result<Option<Rec>, (String, bool)> {
        let (Some(a), Some(pos)) = (&self.arch, self.pos) else {
            return Ok(None);
        };
        if fast {
            let version = a.label().version;
            let mut copied: Option<(Position, Position, Rec)> = None;
            let mut pmids = std::mem::take(&mut self.spare_pmids);
            let canonical = match a.read_raw_forward_in(pos, &mut self.window) {
                Ok(Some((at, Some(payload), next)))
                    if version == self.out_version
                        && archive_format::codec::result::scan_canonical(
                            payload, version, &mut pmids,
                        ) =>
                {
                    let stamp = archive_format::codec::result::decode_stamp(payload, 0, version)
                        .unwrap_or(Timestamp::new(0, 0));
                    Some((at, next, stamp))
                }
                _ => None,
            };
            if let Some((at, next, stamp)) = canonical {
                // prologue and epilogue records are looked into for the session
                let session = if pmids.len() == 5 {
                    a.read_forward_in(at, &mut self.window)
                        .ok()
                        .flatten()
                        .map(|(_, r, _)| to_owned(&r))
                } else {
                    None
                };
                let rec = match session {
                    Some(mut owned) => {
                        owned.raw = Some((at, pmids));
                        owned
                    }
                    None => Rec {
                        stamp,
                        vsets: Vec::new(),
                        raw: Some((at, pmids)),
                    },
                };
                copied = Some((at, next, rec));
            } else {
                self.spare_pmids = pmids;
            }
            if let Some((at, next, rec)) = copied {
                self.advance(at, next);
                return Ok(Some(rec));
            }
        }
        let (Some(a), Some(pos)) = (&self.arch, self.pos) else {
            return Ok(None);
        };
        let read = a
            .read_forward_in(pos, &mut self.window)
            .map(|r| r.map(|(at, rec, next)| (at, to_owned(&rec), next)));
        match read {
            Ok(Some((at, owned, next))) => {
                self.advance(at, next);
                Ok(Some(owned))
            }
            Ok(None) => Ok(None),
            Err(e) => {
                let file = e
                    .path()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| self.name.clone());
                let size = e
                    .path()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
                    .unwrap_or(0);
                let msg = format!(
                    "{PROG}: Error: __pmLogRead[log {}]: {}\n{PROG}: Error occurred at byte offset {} into a file of {size} bytes.\nThe last record, and the remainder of this file will not be extracted.",
                    self.name,
                    e.pm_message(),
                    e.offset().unwrap_or(0),
                );
                let _ = file;
                Err((msg, false))
            }
        }
    }
}

/// Whether two PMID lists are equal; every pair is looked at (no early exit), which
/// lets the compiler compare several at once: most lists compared are equal.
fn same_pmids(a: &[PmId], b: &[PmId]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x.0 ^ y.0)) == 0
}

fn to_owned(rec: &archive_format::ResultRecord<'_>) -> Rec {
    Rec {
        raw: None,
        stamp: rec.stamp,
        vsets: rec.vsets.iter().map(OwnedValueSet::from_set).collect(),
    }
}

/// `searchmlist`: the value sets (and instances) `-c` keeps, without `-x`'s skipped
/// metrics; `None` when nothing is left.
fn filter(mut rec: Rec, sel: Option<&Selection>, skipped: &[PmId]) -> Option<Rec> {
    if sel.is_none() && skipped.is_empty() {
        return Some(rec);
    }
    rec.vsets.retain(|vs| !skipped.contains(&vs.pmid));
    if let Some(sel) = sel {
        let mut kept = Vec::new();
        for mut vs in std::mem::take(&mut rec.vsets) {
            let Some(insts) = sel.metrics.get(&vs.pmid) else {
                continue;
            };
            if let Some(insts) = insts {
                if vs.numval > 0 {
                    vs.values.retain(|(i, _)| insts.contains(i));
                    vs.numval = vs.values.len() as i32;
                    if vs.numval == 0 {
                        continue;
                    }
                }
            }
            kept.push(vs);
        }
        rec.vsets = kept;
    }
    (!rec.vsets.is_empty()).then_some(rec)
}
