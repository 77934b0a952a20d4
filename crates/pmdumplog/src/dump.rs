//! The text report, section by section, in PCP 6.0.3's order and format.

use crate::fast::{self, Padded, Piece};
use crate::opts::Opts;
use archive_format::codec::event::{decode_events, flags_str, FLAG_MISSED};
use archive_format::codec::meta::{label_type, text_type, InDomKind};
use archive_format::codec::result::record_size;
use archive_format::error::{PM_ERR_FEATURE, PM_ERR_NONLEAF};
use archive_format::format::format_value;
use archive_format::logfetch::{Direction, LogCursor, RecordPlace};
use archive_format::metadata::label_class;
use archive_format::pmns::Lookup;
use archive_format::types::vtype;
use archive_format::{
    pm_err_str, Archive, InDom, OpenOptions, PmId, ResultRecord, Timestamp, Value,
};
use cli_common::clock;
use cli_common::timefmt::{ctime, stamp};
use cli_common::TimeZone;
use std::io::{self, Write};

const PROG: &str = "pmdumplog";

/// Timestamp printing state.
pub struct Clock {
    pub tz: TimeZone,
    pub digits: usize,
    pub x: u32,
    pub start: Timestamp,
}

impl Clock {
    /// A record-style timestamp with the -x decorations.
    pub fn ts(&self, t: Timestamp) -> String {
        self.ts_digits(t, self.digits)
    }
    /// Timestamps of (non-highres) event records: microseconds, the offset taken from
    /// the label start truncated to microseconds, and never the epoch seconds.
    fn event_ts(&self, t: Timestamp) -> String {
        let s = stamp(t, 6, &self.tz);
        if self.x == 0 {
            return s;
        }
        let c = ctime(t.sec, &self.tz);
        let mut r = format!("{} {} {}", &c[..10], s, &c[20..]);
        if self.x >= 2 {
            let st = Timestamp::new(self.start.sec, self.start.nsec / 1000 * 1000);
            r.push_str(&format!(" ({:.6})", t.sub_f64(st)));
        }
        r
    }

    /// An index entry's timestamp, printed from its raw (possibly illegal) fields.
    fn index_ts(&self, e: &archive_format::IndexEntry) -> String {
        let s = self.index_hms(e);
        if self.x == 0 {
            return s;
        }
        // from the raw fields: libpcp's offset and its unsigned seconds
        let off = (e.stamp.sec - self.start.sec) as f64
            + (e.raw_nsec - self.start.nsec as i64) as f64 / 1e9;
        self.dated(e.stamp.sec, &s, off, e.stamp.sec as u64, self.digits)
    }

    /// An index entry's time of day (what the index checks print, whatever -x says).
    fn index_hms(&self, e: &archive_format::IndexEntry) -> String {
        let tm = cli_common::timefmt::local_tm(e.stamp.sec, &self.tz);
        let frac = if self.digits == 6 {
            e.raw_nsec / 1000
        } else {
            e.raw_nsec
        };
        let hms = format!("{:02}:{:02}:{:02}", tm.hour, tm.minute, tm.second);
        format!("{hms}.{:0w$}", frac, w = self.digits)
    }

    fn ts_digits(&self, t: Timestamp, digits: usize) -> String {
        let s = stamp(t, digits, &self.tz);
        if self.x == 0 {
            return s;
        }
        self.dated(t.sec, &s, t.sub_f64(self.start), t.sec, digits)
    }

    /// `-x` and up: the date around a time of day, then (`-xx`) the offset from the
    /// archive's start and (`-xxx`) the seconds.
    fn dated(
        &self,
        sec: i64,
        hms: &str,
        off: f64,
        secs: impl std::fmt::Display,
        digits: usize,
    ) -> String {
        let c = ctime(sec, &self.tz);
        let mut r = format!("{} {} {}", &c[..10], hms, &c[20..]);
        if self.x >= 2 {
            r.push_str(&format!(" ({:.*})", digits, off));
        }
        if self.x >= 3 {
            r.push_str(&format!(" {secs}"));
        }
        r
    }
}

fn open(name: &str, err: &mut dyn Write) -> io::Result<Result<Archive, i32>> {
    match Archive::open(name) {
        Ok(a) => Ok(Ok(a)),
        Err(e) if e.pm_err() == PM_ERR_FEATURE => {
            writeln!(
                err,
                "{PROG}: Warning: unsupported feature bits, other errors may follow ..."
            )?;
            match Archive::open_with(
                name,
                OpenOptions {
                    ignore_features: true,
                    ..OpenOptions::default()
                },
            ) {
                Ok(a) => Ok(Ok(a)),
                Err(e) => {
                    writeln!(
                        err,
                        "{PROG}: Cannot open archive \"{name}\": {}",
                        e.pm_message()
                    )?;
                    Ok(Err(1))
                }
            }
        }
        Err(e) => {
            writeln!(
                err,
                "{PROG}: Cannot open archive \"{name}\": {}",
                e.pm_message()
            )?;
            Ok(Err(1))
        }
    }
}

/// A metric's names joined by " or ", or `none` when it has no name (pmdumplog says
/// `<noname>` in descriptor dumps and `<nonames>` in value dumps).
fn names_str(a: &Archive, pmid: PmId, none: &str) -> String {
    let n = a.metadata().names(pmid);
    if n.is_empty() {
        none.into()
    } else {
        n.join(" or ")
    }
}

pub fn dump(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let name = o.archive.clone().unwrap_or_default();
    if name.contains(',') || std::path::Path::new(&name).is_dir() {
        writeln!(err, "{PROG}: Multiple archives are not supported")?;
        return Ok(1);
    }
    let Ok(pmns) = cli_common::pmns::load_option(PROG, o.namespace.as_deref(), err)? else {
        return Ok(1);
    };
    let mut a = match open(&name, err)? {
        Ok(a) => a,
        Err(c) => return Ok(c),
    };
    if let Some(p) = pmns {
        a.set_pmns(p);
    }
    let meta = a.metadata();

    // metric names on the command line
    let mut wanted: Vec<PmId> = Vec::new();
    if !o.names.is_empty() {
        for n in &o.names {
            match meta.pmns.lookup(n) {
                Lookup::Leaf(p) => wanted.push(p),
                Lookup::NonLeaf => {
                    let leaves = meta.pmns.traverse(n);
                    if leaves.is_empty() {
                        writeln!(
                            err,
                            "{PROG}: pmTraversePMNS({n}): {}",
                            pm_err_str(PM_ERR_NONLEAF)
                        )?;
                    }
                    wanted.extend(leaves.into_iter().map(|(_, p)| p));
                }
                Lookup::Unknown => {
                    writeln!(
                        err,
                        "{PROG}: pmLookupName({n}): {}",
                        pm_err_str(archive_format::error::PM_ERR_NAME)
                    )?;
                }
            }
        }
        if wanted.is_empty() {
            writeln!(err, "No metric names can be translated, dump abandoned")?;
            return Ok(1);
        }
    }

    let label = a.label().clone();
    let end = match a.end_time() {
        Ok(e) => Some(e),
        Err(e) => {
            out.flush()?;
            writeln!(
                err,
                "{PROG}: Cannot locate end of archive {name}: {}",
                e.pm_message()
            )?;
            writeln!(
                err,
                "\nWARNING: This archive is sufficiently damaged that it may not be possible to"
            )?;
            writeln!(
                err,
                "         produce complete information.  Continuing and hoping for the best.\n"
            )?;
            None
        }
    };

    let (tz, note) = clock::zone_for(o.hostzone, o.tz.as_deref(), &label);
    if let Some(n) = note {
        write!(out, "{n}")?;
    }
    let clock = Clock {
        tz,
        digits: if label.version >= 3 { 9 } else { 6 },
        x: o.x,
        start: label.start,
    };
    let bounds = clock::bounds(&label, end);
    let (wstart, wend) =
        match clock::window(o.start.as_deref(), o.finish.as_deref(), bounds, &clock.tz) {
            Ok(w) => w,
            Err(msg) => {
                writeln!(err, "{PROG}: {msg}")?;
                return Ok(1);
            }
        };

    if o.label {
        dump_label(&a, end, o.verbose_label, &clock, out)?;
    }
    if o.descs {
        dump_descs(&a, out)?;
    }
    if o.labelsets {
        dump_labelsets(&a, &clock, out)?;
    }
    if o.help {
        dump_help(&a, out)?;
    }
    if o.ondisk {
        dump_ondisk(&a, &clock, out)?;
    }
    if o.insts {
        dump_insts(&a, &clock, out)?;
    }
    if o.index {
        dump_index(&a, &clock, out)?;
    }
    if o.metrics {
        return dump_values(&a, o, &wanted, wstart, wend, &clock, out, err);
    }
    Ok(0)
}

fn dump_label(
    a: &Archive,
    end: Option<Timestamp>,
    verbose: bool,
    c: &Clock,
    out: &mut dyn Write,
) -> io::Result<()> {
    let l = a.label();
    writeln!(out, "Log Label (Log Format Version {})", l.version)?;
    writeln!(out, "Performance metrics from host {}", l.hostname)?;
    let line = |t: Timestamp| {
        let ct = ctime(t.sec, &c.tz);
        let mut s = format!("{} {} {}", &ct[..10], stamp(t, c.digits, &c.tz), &ct[20..]);
        if c.x >= 3 {
            s.push_str(&format!(" {}", t.sec));
        }
        s
    };
    writeln!(out, "    commencing {}", line(l.start))?;
    match end {
        Some(e) => writeln!(out, "    ending     {}", line(e))?,
        None => writeln!(out, "    ending     UNKNOWN")?,
    }
    if verbose {
        if !l.timezone.is_empty() {
            writeln!(out, "Archive timezone: {}", l.timezone)?;
        }
        if l.version >= 3 && !l.zoneinfo.is_empty() {
            writeln!(out, "Archive zoneinfo: {}", l.zoneinfo)?;
        }
        if l.features != 0 {
            let unknown = l.features & !archive_format::codec::label::FEATURE_QA;
            if unknown != 0 {
                writeln!(
                    out,
                    "Archive features: 0x{:x} [unknown: 0x{:x}]",
                    l.features, unknown
                )?;
            } else {
                writeln!(out, "Archive features: 0x{:x}", l.features)?;
            }
        }
        writeln!(out, "PID for pmlogger: {}", l.pid)?;
    }
    Ok(())
}

fn indom_str(indom: InDom) -> String {
    format!("{} 0x{:x}", indom, indom.0)
}

fn dump_descs(a: &Archive, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nDescriptions for Metrics in the Log ...")?;
    for d in a.metadata().descs_hash_order() {
        writeln!(
            out,
            "PMID: {} ({})",
            d.pmid,
            names_str(a, d.pmid, "<noname>")
        )?;
        if d.vtype == vtype::NOSUPPORT {
            writeln!(out, "    Data Type: Not Supported")?;
            continue;
        }
        let t = match vtype::long_name(d.vtype) {
            Some(s) => s.to_string(),
            None => format!("??? ({})", d.vtype),
        };
        writeln!(out, "    Data Type: {t}  InDom: {}", indom_str(d.indom))?;
        let sem = match archive_format::types::sem::name(d.sem) {
            Some(s) => s.to_string(),
            None => format!("??? ({})", d.sem),
        };
        let units = d.units.to_string();
        writeln!(
            out,
            "    Semantics: {sem}  Units: {}",
            if units.is_empty() { "none" } else { &units }
        )?;
    }
    Ok(())
}

fn dump_labelsets(a: &Archive, c: &Clock, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nMetric Labels in the Log ...")?;
    let labels = a.metadata().labels();
    let mut stamps: Vec<Timestamp> = labels.iter().map(|l| l.stamp).collect();
    stamps.sort();
    stamps.dedup();
    let order = [
        label_type::CONTEXT,
        label_type::DOMAIN,
        label_type::CLUSTER,
        label_type::ITEM,
        label_type::INDOM,
        label_type::INSTANCES,
    ];
    for t in stamps {
        writeln!(out, "{}", c.ts(t))?;
        for &lt in &order {
            let mut recs: Vec<_> = labels
                .iter()
                .filter(|l| l.stamp == t && l.ltype == lt)
                .collect();
            recs.sort_by_key(|l| l.ident);
            for r in recs {
                for s in &r.sets {
                    let what = match lt {
                        label_type::CONTEXT => "Context".to_string(),
                        label_type::DOMAIN => format!("Domain {}", r.ident),
                        label_type::CLUSTER => {
                            let p = PmId(r.ident);
                            format!("Cluster {}.{}", p.domain(), p.cluster())
                        }
                        label_type::ITEM => format!("PMID {}", PmId(r.ident)),
                        label_type::INDOM => format!("InDom {}", InDom(r.ident)),
                        _ => format!("InDom {}[{}]", InDom(r.ident), s.inst as u32),
                    };
                    writeln!(
                        out,
                        "    {what} labels ({} bytes): {}",
                        s.json.len(),
                        s.json
                    )?;
                    for (k, l) in s.labels.iter().enumerate() {
                        let mut flags = label_class(l.flags).to_string();
                        if l.flags as u32 & label_type::COMPOUND != 0 {
                            flags.push_str(",compound");
                        }
                        if l.flags as u32 & label_type::OPTIONAL != 0 {
                            flags.push_str(",optional");
                        }
                        writeln!(
                            out,
                            "        [{k}] name({},{}) : value({},{}) [{flags}]",
                            l.name_off, l.name_len, l.value_off, l.value_len
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn dump_help(a: &Archive, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nMetric Help Text in the Log ...")?;
    let m = a.metadata();
    for (kind, label) in [(text_type::PMID, "PMID"), (text_type::INDOM, "InDom")] {
        let mut idents: Vec<u32> = m
            .texts()
            .keys()
            .filter(|(t, _)| t & kind != 0)
            .map(|(_, i)| *i)
            .collect();
        idents.sort();
        idents.dedup();
        for id in idents {
            let shown = if kind == text_type::PMID {
                PmId(id).to_string()
            } else {
                InDom(id).to_string()
            };
            if let Some(t) = m.text(kind | text_type::ONELINE, id) {
                writeln!(out, "{label}: {shown} [{t}]")?;
            }
            if let Some(t) = m.text(kind | text_type::HELP, id) {
                writeln!(out, "{label}: {shown}\n{t}")?;
            }
        }
    }
    Ok(())
}

fn dump_ondisk(a: &Archive, c: &Clock, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nInstance Domains on-disk ...")?;
    let records = a.indom_records().map_err(io::Error::other)?;
    for r in &records {
        let delta = if r.kind == InDomKind::Delta {
            " delta"
        } else {
            ""
        };
        writeln!(
            out,
            "{} InDom: {}{delta} {} instances",
            c.ts(r.stamp),
            r.indom,
            r.instances.len()
        )?;
        for i in &r.instances {
            match (&i.name, r.kind) {
                (Some(n), InDomKind::Delta) => writeln!(out, "   add {} or \"{n}\"", i.inst)?,
                (None, _) => writeln!(out, "   del {}", i.inst)?,
                (Some(n), _) => writeln!(out, "   {} or \"{n}\"", i.inst)?,
            }
        }
    }
    Ok(())
}

fn dump_insts(a: &Archive, c: &Clock, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nInstance Domains in the Log ...")?;
    let m = a.metadata();
    for indom in m.indoms_hash_order() {
        writeln!(out, "InDom: {indom}")?;
        for s in m.snapshots(indom) {
            writeln!(out, "{} {} instances", c.ts(s.stamp), s.instances.len())?;
            for (i, n) in &s.instances {
                writeln!(out, "   {i} or \"{n}\"")?;
            }
        }
    }
    Ok(())
}

fn file_size(p: &std::path::Path) -> Option<u64> {
    std::fs::metadata(p).ok().map(|m| m.len())
}

fn dump_index(a: &Archive, c: &Clock, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nTemporal Index")?;
    let mut hdr = String::new();
    if c.x >= 1 {
        hdr.push_str("\t\t");
    }
    if c.x >= 2 {
        hdr.push_str("\t\t");
    }
    if c.digits == 9 {
        hdr.push('\t');
    }
    writeln!(out, "{hdr}\t\tLog Vol    end(meta)     end(log)")?;
    let meta_size = Some(a.meta_size());
    let mut log_size: Option<u64> = None;
    let mut last: Option<&archive_format::IndexEntry> = None;
    for e in a.index() {
        let its = c.index_ts(e);
        writeln!(
            out,
            "{its}\t  {:5}  {:11}  {:11}",
            e.vol, e.off_meta, e.off_data
        )?;
        if last.is_none_or(|l| l.vol != e.vol) {
            log_size = a
                .files()
                .volumes
                .get(&(e.vol as u32))
                .filter(|_| e.vol >= 0)
                .and_then(|f| {
                    if f.compression.is_some() {
                        None
                    } else {
                        file_size(&f.path)
                    }
                });
            if log_size.is_none() && (e.vol < 0 || !a.files().volumes.contains_key(&(e.vol as u32)))
            {
                writeln!(out, "\t\tWarning: file missing for log volume {}", e.vol)?;
            }
        }
        if e.stamp.sec < 0 || e.raw_nsec < 0 || e.raw_nsec > 999_999_999 {
            writeln!(
                out,
                "\t\tError: illegal timestamp value ({} sec, {} nsec)",
                e.stamp.sec, e.raw_nsec
            )?;
        }
        if let Some(ms) = meta_size {
            if e.off_meta > ms as i64 {
                writeln!(
                    out,
                    "\t\tError: offset to meta file past end of file ({ms})"
                )?;
            }
        }
        if let Some(ls) = log_size {
            if e.off_data > ls as i64 {
                writeln!(out, "\t\tError: offset to log file past end of file ({ls})")?;
            }
        }
        if let Some(l) = last {
            if (e.stamp.sec, e.raw_nsec) < (l.stamp.sec, l.raw_nsec) {
                writeln!(
                    out,
                    "\t\tError: timestamp went backwards in time {} -> {}",
                    c.index_hms(l),
                    c.index_hms(e)
                )?;
            }
            if e.vol < l.vol {
                writeln!(out, "\t\tError: volume number decreased")?;
            }
            if e.vol == l.vol && e.off_meta < l.off_meta {
                writeln!(out, "\t\tError: offset to meta file decreased")?;
            }
            if e.vol == l.vol && e.off_data < l.off_data {
                writeln!(out, "\t\tError: offset to log file decreased")?;
            }
        }
        last = Some(e);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn dump_values(
    a: &Archive,
    o: &Opts,
    wanted: &[PmId],
    wstart: Timestamp,
    wend: Timestamp,
    c: &Clock,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    // pmSetMode(FORW, start) or pmSetMode(BACK, finish), then pmFetchArchive until
    // the end, as the reference does (so damaged archives end as they do there)
    let windowed = o.start.is_some() || o.finish.is_some();
    // forward: on as many threads as there are (one included: records are
    // decoded a part at a time there too)
    if !o.reverse {
        return dump_values_on(
            cli_common::parallel::threads(),
            a,
            o,
            wanted,
            wstart,
            windowed.then_some(wend),
            c,
            out,
            err,
        );
    }
    // backward, on this thread
    let mut cur = LogCursor::new(a);
    cur.set_mode(Direction::Backward, wend);
    let mut first = true;
    // each metric's text, built once; records are built in one buffer that goes out
    // when it holds OUT_BATCH bytes (as one write, past the output's buffer)
    let texts = MetricTexts::of_archive(a);
    let mut cache = MetricCache::new(&texts);
    let mut line = Vec::with_capacity(OUT_BATCH + 64 * 1024);
    loop {
        if line.len() >= OUT_BATCH {
            out.write_all(&line)?;
            line.clear();
        }
        let rec = match cur.fetch() {
            Ok(Some(rec)) => rec,
            Ok(None) => return out.write_all(&line).map(|_| 0),
            Err(e) => {
                out.write_all(&line)?;
                out.flush()?;
                writeln!(err, "{PROG}: pmFetch: {}", e.pm_message())?;
                return Ok(1);
            }
        };
        if !picked(o, wanted, &rec) {
            continue;
        }
        if first {
            first = false;
            writeln!(
                line,
                "\nLog finished at {} - dump in reverse order",
                ctime(rec.stamp.sec, &c.tz)
            )?;
        }
        if windowed && rec.stamp < wstart {
            return out.write_all(&line).map(|_| 0);
        }
        if !splits(wanted) || rec.vsets.len() <= PART_SETS {
            dump_record(a, &rec, None, o, wanted, c, &mut cache, &mut line)?;
            continue;
        }
        // a large record a part at a time, its text written as it grows
        let size = if o.sizes { rec.size(a.version()) } else { 0 };
        for from in (0..rec.vsets.len()).step_by(PART_SETS) {
            let part = Part {
                sets: from..(from + PART_SETS).min(rec.vsets.len()),
                first_slot: from,
                total: rec.vsets.len(),
                heading: from == 0,
                size,
            };
            dump_record(a, &rec, Some(part), o, wanted, c, &mut cache, &mut line)?;
            if line.len() >= OUT_BATCH {
                out.write_all(&line)?;
                line.clear();
            }
        }
    }
}

/// Value sets of a large record dumped in one go by the backward dump.
const PART_SETS: usize = 64;

/// Whether records may be dumped a part at a time: not with metric arguments (a
/// part would not know which sets of the whole the heading counts).
fn splits(wanted: &[PmId]) -> bool {
    wanted.is_empty()
}

/// Payload bytes of the records of one job of [`dump_values_on`] (about 4 times as
/// many bytes of text).
const JOB_BYTES: usize = 32 * 1024;

/// Room a text buffer starts with: a job's text, mostly.
const TEXT_ROOM: usize = 5 * JOB_BYTES;

/// Records fetched in order, their payloads copied out of the read window; or a
/// part of one large record.
#[derive(Default)]
struct Job {
    payloads: Vec<u8>,
    /// Each record's end in `payloads` and where it was read.
    recs: Vec<(usize, RecordPlace)>,
    /// A part of a large record (checked whole by the job of its first part),
    /// shared by its parts.
    /// The offset of its first set's value list with it.
    part: Option<(std::sync::Arc<Record>, RecordPlace, Part, usize)>,
    /// The fetch error that ends the run after these records.
    fail: Option<archive_format::Error>,
}

/// A record of more payload bytes than this is cut into parts of about this many
/// (about 4 times as many bytes of text each), so that no job holds its whole text.
/// Small jobs cost little time because threads seldom wait for each other (see
/// [`cli_common::parallel::ordered`]): on the wide archive (560 KB records) 32 KB
/// parts take the same time as 128 KB parts, in 2 MB less memory.
const PART_BYTES: usize = 32 * 1024;

/// Jobs made and not yet written, beyond one per thread: enough that a thread
/// seldom waits for the writer.
const SPARE_JOBS: usize = 2;

/// A job's text, and the error that ends the run after it.
struct Done {
    text: Vec<u8>,
    fail: Option<archive_format::Error>,
}

/// [`dump_values`] forward on `threads` threads (this one among them): whichever
/// is free fetches the next records (framing them and checking their times, as
/// pmFetch does) into a job and decodes and formats it, and this one writes the
/// jobs' text in order. The output is the same byte for byte as one thread's, a
/// fetch or decoding error included.
#[allow(clippy::too_many_arguments)]
fn dump_values_on(
    threads: usize,
    a: &Archive,
    o: &Opts,
    wanted: &[PmId],
    wstart: Timestamp,
    wend: Option<Timestamp>,
    c: &Clock,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let mut cur = LogCursor::new(a);
    cur.set_mode(Direction::Forward, wstart);
    let mut failed: Option<io::Result<()>> = None;
    // buffers go round, so memory stays at what is in flight: a job's payloads
    // (from the fetch into the job and back once it is done), its text (from the
    // job to the writer and back), and the read buffers of large records (from the
    // cursor to the record's parts and back); the same few buffers, allocated
    // once, not in every thread's memory arena in turn
    let pools = (Pool::default(), Pool::default(), Pool::default());
    let (payload_pool, text_pool, record_pool) = (&pools.0, &pools.1, &pools.2);
    let mut source = Source {
        a,
        cur,
        wend,
        split: splits(wanted),
        pool: payload_pool,
        records: record_pool,
        lend: false,
        parts: std::collections::VecDeque::new(),
        ended: false,
    };
    let texts = MetricTexts::of_archive(a);
    let work = |cache: &mut MetricCache<'_>, job: Job| {
        let mut text = text_pool.take(TEXT_ROOM);
        let mut fail = job.fail;
        if let Some((record, place, part, at)) = job.part {
            let payload = record.payload();
            let checked = if part.heading {
                place.check(a, payload).map(|_| ())
            } else {
                Ok(())
            };
            let start = (part.first_slot, at);
            match checked.and_then(|_| place.decode_part(a, payload, start, part.sets.len())) {
                Ok(rec) => {
                    let _ = dump_record(a, &rec, Some(part), o, wanted, c, cache, &mut text);
                }
                Err(e) => fail = Some(e),
            }
            // the last part done gives the read buffer back
            if let Ok(r) = std::sync::Arc::try_unwrap(record) {
                record_pool.give(r.buf);
            }
            return Done { text, fail };
        }
        let mut from = 0;
        for &(end, place) in &job.recs {
            let rec = match place.decode(a, &job.payloads[from..end]) {
                Ok(r) => r,
                Err(e) => {
                    fail = Some(e);
                    break;
                }
            };
            from = end;
            if picked(o, wanted, &rec) {
                // writing to a Vec does not fail
                let _ = dump_record(a, &rec, None, o, wanted, c, cache, &mut text);
            }
        }
        payload_pool.give(job.payloads);
        Done { text, fail }
    };
    let produce = move || source.next();
    cli_common::parallel::ordered(
        threads,
        threads + SPARE_JOBS,
        || MetricCache::new(&texts),
        produce,
        work,
        |done: Done| {
            let wrote = out.write_all(&done.text);
            text_pool.give(done.text);
            let Some(e) = done.fail else {
                if wrote.is_err() {
                    failed = Some(wrote);
                    return false;
                }
                return true;
            };
            failed = Some(wrote.and_then(|_| {
                out.flush()?;
                writeln!(err, "{PROG}: pmFetch: {}", e.pm_message())
            }));
            false
        },
    );
    match failed {
        None => Ok(0),
        Some(Ok(())) => Ok(1),
        Some(Err(e)) => Err(e),
    }
}

/// Where [`dump_values_on`]'s jobs come from: records fetched in order (framed,
/// and their times checked, as pmFetch does), their payloads copied out of the
/// read window into jobs of about [`JOB_BYTES`], and a large record cut into parts.
struct Source<'a, 'p> {
    a: &'a Archive,
    cur: LogCursor<'a>,
    wend: Option<Timestamp>,
    /// Whether a large record may be cut into parts.
    split: bool,
    pool: &'p Pool,
    /// Read buffers of large records done with, to read into again.
    records: &'p Pool,
    /// Whether the cursor has given its buffer away and could use one of those.
    lend: bool,
    /// The parts of a large record not yet handed out.
    parts: std::collections::VecDeque<Job>,
    /// Whether the last job (the one that ends the run) has been handed out.
    ended: bool,
}

impl Source<'_, '_> {
    fn next(&mut self) -> Option<Job> {
        if let Some(part) = self.parts.pop_front() {
            return Some(part);
        }
        if self.ended {
            return None;
        }
        let mut job = Job {
            payloads: self.pool.take(JOB_BYTES + PART_BYTES),
            ..Job::default()
        };
        loop {
            if self.lend {
                // a read buffer done with, if there is one by now, for the
                // cursor, which has given its own away
                if let Some(buf) = self.records.try_take() {
                    self.lend = false;
                    if let Some(back) = self.cur.lend_buffer(buf) {
                        self.records.give(back);
                    }
                }
            }
            match self.cur.fetch_raw() {
                Ok(Some(r)) => {
                    if self.wend.is_some_and(|w| r.stamp > w) {
                        // past the window: the end, unless the record is one that
                        // fetch would have failed on
                        job.fail = r.place.decode(self.a, r.payload).err();
                        break;
                    }
                    if r.payload.len() > PART_BYTES && self.split {
                        // kept as read, without a copy (the cursor reads on into a
                        // new buffer)
                        let place = r.place;
                        // (always there: an empty payload would fail to decode)
                        let (buf, range) = self.cur.take_payload(Vec::new()).unwrap_or_default();
                        self.lend = true;
                        Self::cut(Record { buf, range }, place, &mut self.parts);
                        // the records before it go first
                        if job.recs.is_empty() {
                            self.pool.give(std::mem::take(&mut job.payloads));
                            return self.parts.pop_front();
                        }
                        return Some(job);
                    }
                    job.payloads.extend_from_slice(r.payload);
                    job.recs.push((job.payloads.len(), r.place));
                    if job.payloads.len() >= JOB_BYTES {
                        return Some(job);
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    job.fail = Some(e);
                    break;
                }
            }
        }
        self.ended = true;
        Some(job)
    }

    /// Cuts large record `r`, read at `place`, into parts of about [`PART_BYTES`].
    fn cut(r: Record, place: RecordPlace, parts: &mut std::collections::VecDeque<Job>) {
        // checked whole by the job of its first part, as fetch checks it (a
        // damaged record ends the dump there)
        let payload = r.payload();
        let count = payload.len().div_ceil(PART_BYTES);
        let (total, starts) = place.set_starts(payload, count);
        // (a record of no sets that reads: the first part shows it)
        let starts = if starts.is_empty() {
            vec![(0, 0)]
        } else {
            starts
        };
        // a record that decodes is its value lists and blocks exactly, between
        // its two length words
        let size = payload.len() + 8;
        let r = std::sync::Arc::new(r);
        for (j, &(from, at)) in starts.iter().enumerate() {
            let to = starts.get(j + 1).map_or(total, |s| s.0);
            let part = Part {
                sets: 0..to.saturating_sub(from),
                first_slot: from,
                total,
                heading: j == 0,
                size,
            };
            parts.push_back(Job {
                part: Some((r.clone(), place, part, at)),
                ..Job::default()
            });
        }
    }
}

/// A large record's payload, in the buffer it was read into.
struct Record {
    buf: Vec<u8>,
    range: std::ops::Range<usize>,
}

impl Record {
    fn payload(&self) -> &[u8] {
        self.buf.get(self.range.clone()).unwrap_or_default()
    }
}

/// Byte buffers handed back for reuse.
#[derive(Default)]
struct Pool(std::sync::Mutex<Vec<Vec<u8>>>);

impl Pool {
    /// A buffer handed back earlier (emptied), or a new one.
    fn take(&self, room: usize) -> Vec<u8> {
        let got = self.0.lock().map(|mut p| p.pop()).unwrap_or_default();
        got.unwrap_or_else(|| Vec::with_capacity(room))
    }

    /// A buffer handed back earlier, if there is one.
    fn try_take(&self) -> Option<Vec<u8>> {
        self.0.lock().ok()?.pop()
    }

    fn give(&self, mut b: Vec<u8>) {
        b.clear();
        if let Ok(mut p) = self.0.lock() {
            p.push(b);
        }
    }
}

/// Whether a record is dumped: every record without metric arguments; with them,
/// a record holding one of them, and a `<mark>` when asked for.
fn picked(o: &Opts, wanted: &[PmId], rec: &ResultRecord<'_>) -> bool {
    wanted.is_empty()
        || if rec.is_mark() {
            o.marks
        } else {
            rec.vsets.iter().any(|vs| wanted.contains(&vs.pmid))
        }
}

/// Bytes of records the backward dump collects before it writes them (in one
/// write, straight through the output's buffer).
const OUT_BATCH: usize = 128 * 1024;

/// The output's buffer (the run shell's): a batch of records, or a job's text, is
/// larger and goes straight through (copying it into the buffer would cost as much
/// as making it).
const _: () = assert!(OUT_BATCH > cli_common::shell::OUT_BUF);

/// What the lines of one metric's values need, worked out once per metric.
struct MetricText {
    /// `    PMID (names): value ` (`<nonames>` when there is none), in the heads of
    /// its [`MetricTexts`]; without its last 7 bytes, the start of any of the
    /// metric's lines.
    head_value: Piece,
    /// Type and instance domain from the descriptor, if there is one.
    desc: Option<(i32, InDom)>,
}

/// The length of ` value ` at the end of a `head_value`.
const VALUE_WORD: usize = 7;

impl MetricText {
    /// `    PMID (names):`.
    fn head(&self) -> Piece {
        self.head_value
            .prefix(self.head_value.len().saturating_sub(VALUE_WORD))
    }

    /// Type and instance domain of a value set; without a descriptor, the
    /// reference's guess from the value format.
    fn kind(&self, valfmt: i32) -> (i32, InDom) {
        self.desc.unwrap_or(if valfmt == 0 {
            (vtype::I32, InDom::NULL)
        } else {
            (vtype::AGGREGATE, InDom::NULL)
        })
    }
}

/// Metrics' texts: those of every metric of the archive's metadata are built once
/// and shared by the threads of a dump; each thread adds those of metrics it meets
/// that the metadata does not have.
#[derive(Default)]
struct MetricTexts {
    texts: Vec<MetricText>,
    heads: Padded,
    index: std::collections::HashMap<PmId, u32, std::hash::BuildHasherDefault<PmIdHasher>>,
}

impl MetricTexts {
    /// The texts of every metric with a descriptor or a name.
    fn of_archive(a: &Archive) -> MetricTexts {
        let m = a.metadata();
        let mut t = MetricTexts::default();
        for d in m.descs() {
            t.find_or_add(a, d.pmid);
        }
        // (names of metrics without a descriptor are not in the name tree's
        // order of descriptors; a record of one is rare and built when met)
        t.heads.shrink_to_fit();
        t.texts.shrink_to_fit();
        t
    }

    fn find(&self, pmid: PmId) -> Option<u32> {
        self.index.get(&pmid).copied()
    }

    fn find_or_add(&mut self, a: &Archive, pmid: PmId) -> u32 {
        let (texts, heads) = (&mut self.texts, &mut self.heads);
        *self.index.entry(pmid).or_insert_with(|| {
            let names = names_str(a, pmid, "<nonames>");
            texts.push(MetricText {
                head_value: heads.add(|b| {
                    let _ = write!(b, "    {pmid} ({names}): value ");
                }),
                desc: a.metadata().desc(pmid).map(|d| (d.vtype, d.indom)),
            });
            texts.len() as u32 - 1
        })
    }
}

/// An instance's ` inst [N or "name"] value `, and the name in it.
struct InstText {
    piece: Piece,
    name: Option<Box<str>>,
    /// The instance domain snapshot (by address) it was last checked against.
    snap: usize,
}

/// Instance texts kept at most (their bytes), beyond which they are all dropped
/// (an archive of a busy host meets new instances all the time).
const INST_TEXT_MAX: usize = 8 << 20;

/// PMIDs are well spread already: a multiplicative hash instead of SipHash.
#[derive(Default)]
struct PmIdHasher(u64);

impl std::hash::Hasher for PmIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Each metric's text, built once (most in the shared texts), and each instance's.
/// Records of an archive mostly hold the same metrics in the same order, so the
/// metric at each place in the last record is remembered and tried before the
/// hash table.
struct MetricCache<'t> {
    shared: &'t MetricTexts,
    /// Texts of metrics that are not in the shared ones.
    own: MetricTexts,
    /// By instance domain and instance: the instance's text.
    insts: std::collections::HashMap<(u32, i32), InstText, foldhash::fast::RandomState>,
    inst_text: Padded,
    /// (PMID, text) at each place of the last record; a text of `own` has
    /// [`OWN`] set.
    slots: Vec<(PmId, u32)>,
}

/// Marks a text of a cache's own texts in its slots.
const OWN: u32 = 1 << 31;

impl<'t> MetricCache<'t> {
    fn new(shared: &'t MetricTexts) -> MetricCache<'t> {
        MetricCache {
            shared,
            own: MetricTexts::default(),
            insts: Default::default(),
            inst_text: Padded::default(),
            slots: Vec::new(),
        }
    }

    fn get(&mut self, a: &Archive, slot: usize, pmid: PmId) -> (&MetricText, &Padded) {
        let k = match self.slots.get(slot) {
            Some(&(p, k)) if p == pmid => k,
            _ => {
                let k = match self.shared.find(pmid) {
                    Some(k) => k,
                    None => self.own.find_or_add(a, pmid) | OWN,
                };
                if slot < self.slots.len() {
                    self.slots[slot] = (pmid, k);
                } else {
                    self.slots.push((pmid, k));
                }
                k
            }
        };
        let t = if k & OWN != 0 { &self.own } else { self.shared };
        (&t.texts[(k & !OWN) as usize], &t.heads)
    }

    /// Appends the text of instance `inst` of `indom` as snapshot `snap` names it
    /// (built once, checked again only when the snapshot in force changes).
    fn push_inst(
        &mut self,
        indom: InDom,
        inst: i32,
        snap: Option<&archive_format::metadata::Snapshot>,
        line: &mut Vec<u8>,
    ) {
        let snap_id = snap.map_or(0, |s| s as *const _ as usize);
        let key = (indom.0, inst);
        if let Some(t) = self.insts.get_mut(&key) {
            if t.snap == snap_id {
                self.inst_text.push_to(t.piece, line);
                return;
            }
            let name = snap.and_then(|s| s.name_of(inst));
            if t.name.as_deref() == name {
                t.snap = snap_id;
                self.inst_text.push_to(t.piece, line);
                return;
            }
        }
        if self.inst_text.len() > INST_TEXT_MAX {
            self.insts.clear();
            self.inst_text.truncate_to(None);
        }
        let name = snap.and_then(|s| s.name_of(inst));
        let piece = self.inst_text.add(|b| {
            push_inst(b, inst, name);
            b.extend_from_slice(b" value ");
        });
        self.inst_text.push_to(piece, line);
        self.insts.insert(
            key,
            InstText {
                piece,
                name: name.map(Box::from),
                snap: snap_id,
            },
        );
    }
}

/// ` inst [N or "name"]` (`???` for an instance not in the domain).
fn push_inst(line: &mut Vec<u8>, inst: i32, name: Option<&str>) {
    line.extend_from_slice(b" inst [");
    fast::push_i32(line, inst);
    match name {
        Some(n) => {
            line.extend_from_slice(b" or \"");
            line.extend_from_slice(n.as_bytes());
            line.extend_from_slice(b"\"]");
        }
        None => line.extend_from_slice(b" or ???]"),
    }
}

/// A value's text and the newline; the common numeric cases without the fmt
/// machinery.
fn push_value(line: &mut Vec<u8>, ty: i32, valfmt: i32, v: &Value<'_>) {
    use archive_format::atom::Atom;
    match (ty, v) {
        (vtype::I32, Value::Insitu(w)) => fast::push_i64_nl(line, *w as i32 as i64),
        (vtype::U32, Value::Insitu(w)) => fast::push_u64_nl(line, *w as u64),
        (vtype::U64 | vtype::I64 | vtype::DOUBLE, Value::Block { .. }) => {
            match archive_format::atom::extract(ty, v) {
                Some(Atom::U64(x)) => fast::push_u64_nl(line, x),
                Some(Atom::I64(x)) => fast::push_i64_nl(line, x),
                Some(Atom::Double(x)) => {
                    archive_format::format::push_g(line, x, 16);
                    line.push(b'\n');
                }
                _ => push_text(line, ty, valfmt, v),
            }
        }
        // the bytes as they are (what format_value's text turns back into on output)
        (vtype::STRING, Value::Block { data, .. }) => {
            let end = string_end(data);
            line.push(b'"');
            line.extend_from_slice(&data[..end]);
            line.extend_from_slice(b"\"\n");
        }
        _ => push_text(line, ty, valfmt, v),
    }
}

/// Where a string value ends: its first NUL, or its end.
fn string_end(data: &[u8]) -> usize {
    data.iter().position(|&b| b == 0).unwrap_or(data.len())
}

fn push_text(line: &mut Vec<u8>, ty: i32, valfmt: i32, v: &Value<'_>) {
    line.extend_from_slice(format_value(ty, valfmt, v).as_bytes());
    line.push(b'\n');
}

#[allow(clippy::too_many_arguments)]
fn dump_record(
    a: &Archive,
    rec: &ResultRecord<'_>,
    part: Option<Part>,
    o: &Opts,
    wanted: &[PmId],
    c: &Clock,
    cache: &mut MetricCache<'_>,
    line: &mut Vec<u8>,
) -> io::Result<()> {
    // dump_values has skipped the records with nothing wanted; a <mark> has no sets
    let vsets: Vec<&archive_format::ValueSet> = match &part {
        Some(p) => rec
            .vsets
            .get(p.sets.clone())
            .unwrap_or_default()
            .iter()
            .collect(),
        None if wanted.is_empty() => rec.vsets.iter().collect(),
        None => wanted
            .iter()
            .filter_map(|p| rec.vsets.iter().find(|vs| vs.pmid == *p))
            .collect(),
    };
    let first_slot = part.as_ref().map_or(0, |p| p.first_slot);
    if let Some(p) = &part {
        if !p.heading {
            return dump_sets(a, rec, vsets, first_slot, c, cache, line);
        }
    }
    let count = part.as_ref().map_or(vsets.len(), |p| p.total);
    // the record is appended to `line`
    writeln!(line)?;
    if o.sizes {
        let size = if let Some(p) = &part {
            p.size
        } else if wanted.is_empty() {
            rec.size(a.version())
        } else {
            record_size(a.version(), vsets.iter().copied())
        };
        writeln!(line, "[{size} bytes]")?;
    }
    let ts = c.ts(rec.stamp);
    if count == 0 {
        writeln!(line, "{ts}  <mark>")?;
        return Ok(());
    }
    writeln!(
        line,
        "{ts} {count} metric{}",
        if count == 1 { "" } else { "s" }
    )?;
    dump_sets(a, rec, vsets, first_slot, c, cache, line)
}

/// Which of a large record's value sets one call of [`dump_record`] dumps (a large
/// record is dumped a part at a time, so that its text is never held whole).
#[derive(Clone, Debug)]
struct Part {
    /// Places in the record's `vsets` (of the record as decoded for this part).
    sets: std::ops::Range<usize>,
    /// The place of the first of them in the whole record.
    first_slot: usize,
    /// The whole record's number of value sets.
    total: usize,
    /// Whether this part starts the record (and prints its heading).
    heading: bool,
    /// The whole record's size, for `-s`.
    size: usize,
}

/// The lines of value sets `vsets`, the first being set `first_slot` of `rec`.
fn dump_sets(
    a: &Archive,
    rec: &ResultRecord<'_>,
    vsets: Vec<&archive_format::ValueSet<'_>>,
    first_slot: usize,
    c: &Clock,
    cache: &mut MetricCache<'_>,
    line: &mut Vec<u8>,
) -> io::Result<()> {
    let m = a.metadata();
    for (k, vs) in vsets.into_iter().enumerate() {
        let slot = first_slot + k;
        let (mt, heads) = cache.get(a, slot, vs.pmid);
        if vs.numval <= 0 {
            heads.push_to(mt.head(), line);
            if vs.numval == 0 {
                line.extend_from_slice(b" No values returned!\n");
            } else {
                writeln!(line, " {}", pm_err_str(vs.numval))?;
            }
            continue;
        }
        let (ty, indom) = mt.kind(vs.valfmt);
        // the instance domain in force for this record, looked up once per value set
        let snap = if indom.is_null() {
            None
        } else {
            m.indom_in_force(indom, rec.stamp)
        };
        if ty == vtype::EVENT || ty == vtype::HIGHRES_EVENT {
            // the head without its closing "):"
            let open = mt.head().prefix(mt.head().len().saturating_sub(2));
            for (inst, v) in &vs.values {
                heads.push_to(open, line);
                if !indom.is_null() {
                    match snap.and_then(|s| s.name_of(*inst)) {
                        Some(n) => write!(line, "[{inst} or \"{n}\"])")?,
                        None => write!(line, "[{inst} or ???])")?,
                    }
                } else {
                    write!(line, ")")?;
                }
                write!(line, ": ")?;
                dump_event(a, v, ty == vtype::HIGHRES_EVENT, c, line)?;
            }
            continue;
        }
        let many = vs.values.len() > 1;
        // one value and no instance: `    PMID (names): value X`
        let plain = !many && indom.is_null();
        if plain {
            heads.push_to(mt.head_value, line);
        } else {
            heads.push_to(mt.head(), line);
            if many {
                line.push(b'\n');
            }
        }
        for (inst, v) in &vs.values {
            if !plain {
                if many {
                    line.extend_from_slice(b"       ");
                }
                if !indom.is_null() {
                    cache.push_inst(indom, *inst, snap, line);
                } else {
                    line.extend_from_slice(b" value ");
                }
            }
            push_value(line, ty, vs.valfmt, v);
        }
    }
    Ok(())
}

fn dump_event(
    a: &Archive,
    v: &Value<'_>,
    highres: bool,
    c: &Clock,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Value::Block { data, .. } = v else {
        return Ok(());
    };
    let Ok(recs) = decode_events(data, 0, highres) else {
        return Ok(());
    };
    if recs.is_empty() {
        writeln!(out, "No event records")?;
        return Ok(());
    }
    let nmissed: i64 = recs
        .iter()
        .filter(|r| r.flags & FLAG_MISSED != 0)
        .map(|r| r.nparams as i64)
        .sum();
    write!(out, "{}", recs.len())?;
    if nmissed > 0 {
        write!(out, " (and {nmissed} missed)")?;
    }
    writeln!(
        out,
        " event record{}",
        if recs.len() as i64 + nmissed == 1 {
            ""
        } else {
            "s"
        }
    )?;
    let m = a.metadata();
    for (k, r) in recs.iter().enumerate() {
        let ts = if highres {
            stamp(r.stamp, 9, &c.tz)
        } else {
            c.event_ts(r.stamp)
        };
        write!(out, "        --- event record [{k}] timestamp {ts}")?;
        let mut idx = 0usize;
        if r.flags != 0 {
            writeln!(out, " flags 0x{:x} ({}) ---", r.flags, flags_str(r.flags))?;
            idx += 1;
            if r.flags & FLAG_MISSED != 0 {
                writeln!(out, "        ==> {} missed event records", r.nparams)?;
                idx += 1;
            }
        }
        if idx == 0 && r.params.is_empty() {
            writeln!(out, " ---\n\t          No parameters")?;
            continue;
        }
        for p in &r.params {
            let names = m.names(p.pmid);
            if names.is_empty() {
                write!(out, "        PMID: {}:", p.pmid)?;
            } else {
                if idx == 0 {
                    writeln!(out, " ---")?;
                }
                write!(out, "        {} ({}):", p.pmid, names.join(" or "))?;
            }
            idx += 1;
            match m.desc(p.pmid) {
                None => writeln!(
                    out,
                    " pmLookupDesc: {}",
                    pm_err_str(archive_format::error::PM_ERR_PMID_LOG)
                )?,
                Some(d) => {
                    let val = p.value_as(d.vtype);
                    writeln!(out, " value {}", format_value(d.vtype, 1, &val))?;
                }
            }
        }
    }
    Ok(())
}
