//! The text report, section by section, in PCP 6.0.3's order and format.

use crate::fast::{self, Padded, Piece};
use crate::opts::Opts;
use archive_format::codec::event::{decode_events, flags_str, FLAG_MISSED};
use archive_format::codec::meta::{label_type, text_type, InDomKind};
use archive_format::codec::result::record_size;
use archive_format::derive::config::Registry;
use archive_format::derive::context::Context;
use archive_format::error::{PM_ERR_FEATURE, PM_ERR_NONLEAF};
use archive_format::format::format_value;
use archive_format::logfetch::{Direction, LogCursor, RecordPlace};
use archive_format::pmns::Lookup;
use archive_format::types::vtype;
use archive_format::{
    pm_err_str, Archive, InDom, OpenOptions, PmId, ResultRecord, Timestamp, Value,
};
use cli_common::clock;
use cli_common::timefmt::{ctime, stamp};
use cli_common::TimeZone;
use std::io::{self, Write};

mod placed;
mod spool;
mod texts;
mod values;
use texts::*;
use values::*;

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

/// Opens archive `name` (retrying without the check of its feature bits, after
/// PCP's warning, where they are unknown; at once with `ignore_features`);
/// `streamed`: its volumes read while they decode. The archive and whether its
/// feature bits were ignored, or the exit status.
fn open(
    prog: &str,
    name: &str,
    streamed: bool,
    ignore_features: bool,
    err: &mut dyn Write,
) -> io::Result<Result<(Archive, bool), i32>> {
    let opts = |ignore_features| OpenOptions {
        ignore_features,
        while_decoding: streamed,
        ..OpenOptions::default()
    };
    let mut ignored = ignore_features;
    let opened = match Archive::open_with(name, opts(ignored)) {
        Err(e) if e.pm_err() == PM_ERR_FEATURE && !ignored => {
            writeln!(
                err,
                "{prog}: Warning: unsupported feature bits, other errors may follow ..."
            )?;
            ignored = true;
            Archive::open_with(name, opts(true))
        }
        other => other,
    };
    match opened {
        Ok(a) => Ok(Ok((a, ignored))),
        Err(e) => {
            writeln!(
                err,
                "{prog}: Cannot open archive \"{name}\": {}",
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

/// The report on `out`, with names and strings byte for byte as the archive
/// holds them (see [`archive_format::text`]).
pub fn dump(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let out = &mut archive_format::text::RawBytes(out);
    let prog = o.prog;
    let name = o.archive.clone().unwrap_or_default();
    if name.contains(',') || std::path::Path::new(&name).is_dir() {
        writeln!(err, "{prog}: Multiple archives are not supported")?;
        return Ok(1);
    }
    let Ok(pmns) = cli_common::pmns::load_option(prog, o.namespace.as_deref(), err)? else {
        return Ok(1);
    };
    let streamed = spool::applies(o, &name);
    let (mut a, ignored) = match open(prog, &name, streamed, false, err)? {
        Ok(a) => a,
        Err(c) => return Ok(c),
    };
    if let Some(p) = &pmns {
        a.set_pmns(p.clone());
    }

    // the names of every context: the archive's, the global derived metrics and
    // libpcp's anonymous ones (which no record holds)
    let var = cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp");
    let registry = Registry::global(&var, err);
    let ctx = Context::new(a.metadata(), &registry);
    let Some(wanted) = wanted(prog, &o.names, &ctx, err)? else {
        return Ok(1);
    };
    drop(ctx);
    if streamed && a.decoding() {
        // (the spool restores the raw bytes itself, as its text is made)
        let done = match cli_common::placed::stdout(&mut out.0)? {
            Some(p) => placed::dump(&a, o, &name, &wanted, p, &mut out.0, err)?,
            None => spool::dump(&a, o, &name, &wanted, &mut out.0, err)?,
        };
        if let Some(code) = done {
            return Ok(code);
        }
        // a volume failed to decode part way (or the head did not fit the room
        // left for it): nothing was written, or it was taken back; all again,
        // each volume decoded before it is read, as libpcp reads them
        drop(a);
        a = match open(prog, &name, false, ignored, err)? {
            Ok((a, _)) => a,
            Err(c) => return Ok(c),
        };
        if let Some(p) = pmns {
            a.set_pmns(p);
        }
    }
    let (clock, wstart, wend) = match head(&a, o, &name, out, err)? {
        Ok(h) => h,
        Err(code) => return Ok(code),
    };
    if o.metrics {
        return dump_values(&a, o, &wanted, wstart, wend, &clock, out, err);
    }
    Ok(0)
}

/// The clock values are printed by: the zone `-z`/`-Z` choose (and PCP's note
/// of it) and the label's precision.
fn clock_of(a: &Archive, o: &Opts) -> (Clock, Option<String>) {
    let label = a.label();
    let (tz, note) = o.clock.zone_for(label);
    let clock = Clock {
        tz,
        digits: if label.version >= 3 { 9 } else { 6 },
        x: o.x,
        start: label.start,
    };
    (clock, note)
}

/// Everything the report prints before the values: the archive's end found (and
/// libpcp's warning where it cannot be), the zone's note, the label, metadata and
/// index sections asked for. The clock and the `-S`/`-T` window for the values,
/// or the exit status.
fn head(
    a: &Archive,
    o: &Opts,
    name: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Result<(Clock, Timestamp, Timestamp), i32>> {
    let made = head_start(a, o, name, out, err)?;
    if let Ok((clock, _, _)) = &made {
        head_sections(a, o, clock, out)?;
    }
    Ok(made)
}

/// The start of [`head`]: the archive's end found (and libpcp's warning where it
/// cannot be), the zone's note, the window and the label.
fn head_start(
    a: &Archive,
    o: &Opts,
    name: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Result<(Clock, Timestamp, Timestamp), i32>> {
    let end = cli_common::clock::archive_end(o.prog, a, name, out, err)?;
    head_ended(a, o, end, out, err)
}

/// [`head_start`] once the archive's end is found.
fn head_ended(
    a: &Archive,
    o: &Opts,
    end: Option<Timestamp>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Result<(Clock, Timestamp, Timestamp), i32>> {
    let prog = o.prog;
    let (clock, note) = clock_of(a, o);
    if let Some(n) = note {
        write!(out, "{n}")?;
    }
    let bounds = clock::bounds(a.label(), end);
    let (wstart, wend) = match o.clock.window(bounds, &clock.tz) {
        Ok(w) => w,
        Err(msg) => {
            writeln!(err, "{prog}: {msg}")?;
            return Ok(Err(1));
        }
    };
    if o.label {
        dump_label(a, end, o.verbose_label, &clock, out)?;
    }
    Ok(Ok((clock, wstart, wend)))
}

/// The rest of [`head`]: the metadata and index sections asked for, which do
/// not need the archive's end.
fn head_sections(a: &Archive, o: &Opts, clock: &Clock, out: &mut dyn Write) -> io::Result<()> {
    if o.descs {
        dump_descs(a, out)?;
    }
    if o.labelsets {
        dump_labelsets(a, clock, out)?;
    }
    if o.help {
        dump_help(a, out)?;
    }
    if o.ondisk {
        dump_ondisk(a, clock, out)?;
    }
    if o.insts {
        dump_insts(a, clock, out)?;
    }
    if o.index {
        dump_index(a, clock, out)?;
    }
    Ok(())
}

/// The metrics named on the command line (each a leaf or a subtree), empty for
/// all; `None` when none of them is known.
fn wanted(
    prog: &str,
    names: &[String],
    ctx: &Context,
    err: &mut dyn Write,
) -> io::Result<Option<Vec<PmId>>> {
    let mut wanted: Vec<PmId> = Vec::new();
    for n in names {
        // pmLookupName: the archive's name, else a derived metric's; a subtree of
        // the archive's namespace is traversed with the derived names in it
        match ctx.meta.pmns.lookup(n) {
            Lookup::Leaf(p) => wanted.push(p),
            Lookup::NonLeaf => {
                let leaves = ctx.traverse(n).unwrap_or_default();
                if leaves.is_empty() {
                    let e = pm_err_str(PM_ERR_NONLEAF);
                    writeln!(err, "{prog}: pmTraversePMNS({n}): {e}")?;
                }
                wanted.extend(leaves.iter().filter_map(|l| ctx.lookup(l)));
            }
            Lookup::Unknown if ctx.derived_index(n).is_some() => wanted.extend(ctx.lookup(n)),
            Lookup::Unknown => {
                let e = pm_err_str(archive_format::error::PM_ERR_NAME);
                writeln!(err, "{prog}: pmLookupName({n}): {e}")?;
            }
        }
    }
    if !names.is_empty() && wanted.is_empty() {
        writeln!(err, "No metric names can be translated, dump abandoned")?;
        return Ok(None);
    }
    Ok(Some(wanted))
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
                        let flags = archive_format::labels::flag_string(l.flags);
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
