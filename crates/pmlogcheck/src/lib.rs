//! pmlogcheck: checks the files of a PCP archive for damage, with PCP 6.0.3's
//! passes, messages and exit status (pass 0: each file's records and label; pass 1:
//! the temporal index; pass 2: metric descriptors; pass 3: the values), and beyond
//! PCP: `--repair` (cut damaged files back to their last whole record and mend the
//! index) and `--json` (the findings as one JSON document).
//!
//! [`run`] takes the arguments and both output streams, so tests run it in-process.

mod fanout;
pub mod framer;
pub mod pass0;
pub mod pass1;
pub mod pass2;
pub mod pass3;
pub mod pcp7;
pub mod repair;
mod streamed;

mod opts;

/// The command line: options, usage, man page and completions come from it.
pub use opts::TOOL;

use archive_format::compress;
use archive_format::logfetch::LogCursor;
use archive_format::volume::{Decompressed, FileRef};
use archive_format::{Archive, InDom, OpenOptions, PmId, Timestamp};
use cli_common::clock;
use cli_common::timefmt::{ctime, local_tm};
use cli_common::TimeZone;
use fanout::Go;
use pass0::{Kind, Status};
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const PROG: &str = "pmlogcheck";

/// Runs pmlogcheck; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&opts::TOOL, args, out, err, opts::parse, |o, out, err| {
        if o.not_interactive {
            writeln!(err, "Error: not interactive so repair not allowed")?;
            writeln!(err, "       ... consider -R for non-interactive repair")?;
            return Ok(1);
        }
        let mut report = Report::new(o.json);
        let code = match check_each(&o, out, err, &mut report) {
            Err(e) if o.json && !cli_common::exit::is_broken_pipe(&e) => {
                let _ = writeln!(err, "{PROG}: {e}");
                1
            }
            status => status?,
        };
        if o.json {
            report.write_json(out, code)?;
        }
        Ok(code)
    })
}

/// Where findings go: straight to stderr as PCP prints them, or collected for
/// `--json`.
pub struct Report {
    json: bool,
    pub findings: Vec<Finding>,
    /// PCP 7 stops everything (a compressed file it was to repair).
    abort: bool,
}

/// One finding, for `--json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// `pass0` to `pass3`, or `repair` for what `--repair` did.
    pub stage: &'static str,
    pub message: String,
}

impl Report {
    fn new(json: bool) -> Report {
        Report {
            json,
            findings: Vec::new(),
            abort: false,
        }
    }

    /// A finding of `stage` (one or more lines).
    fn line(&mut self, err: &mut dyn Write, stage: &'static str, text: &str) -> io::Result<()> {
        if self.json {
            self.findings.push(Finding {
                stage,
                message: text.to_string(),
            });
            Ok(())
        } else {
            writeln!(err, "{text}")
        }
    }

    /// Progress text (`-v`), not a finding.
    fn verbose(&mut self, err: &mut dyn Write, text: &str) -> io::Result<()> {
        if self.json {
            Ok(())
        } else {
            write!(err, "{text}")
        }
    }

    fn write_json(&self, out: &mut dyn Write, status: i32) -> io::Result<()> {
        let doc = serde_json::json!({
            "status": status,
            "findings": self.findings,
        });
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }
}

/// The archive's files as pmlogcheck finds them: in directory order, those whose
/// name (less any compression suffix) is the base name, `.meta`, `.index` or a
/// dot and a digit.
fn components(
    dir: &Path,
    base: &str,
    pcp7: bool,
) -> io::Result<Vec<(String, Kind, Option<compress::Compression>)>> {
    let mut out = found_components(dir, base)?;
    if pcp7 {
        // PCP 7 sorts them (a stable sort of the directory's order)
        out.sort_by_key(|(name, _, _)| {
            pcp7::ordinal(compress::strip_suffix(name).map_or(name.as_str(), |(p, _)| p))
        });
    }
    Ok(out)
}

/// The archive's files in directory order.
fn found_components(
    dir: &Path,
    base: &str,
) -> io::Result<Vec<(String, Kind, Option<compress::Compression>)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(base) else {
            continue;
        };
        if !rest.starts_with('.') {
            continue;
        }
        let (plain, comp) = match compress::strip_suffix(&name) {
            Some((p, c)) => (p.to_string(), Some(c)),
            None => (name.clone(), None),
        };
        let Some(suffix) = plain.strip_prefix(base).and_then(|s| s.strip_prefix('.')) else {
            continue;
        };
        let kind = match suffix {
            "meta" => Kind::Meta,
            "index" => Kind::Index,
            s if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => Kind::Data,
            _ => continue,
        };
        out.push((name, kind, comp));
    }
    Ok(out)
}

/// Base name and directory as pmlogcheck derives them from its argument.
fn split_name(arg: &str) -> (String, String) {
    let p = Path::new(arg);
    let mut base = p
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| arg.to_string());
    if let Some(dot) = base.rfind('.') {
        let digit = base[dot + 1..].starts_with(|c: char| c.is_ascii_digit());
        if !digit || Path::new(arg).exists() {
            base = strip_archive_suffix(&base);
        }
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    };
    (dir, base)
}

/// `__pmLogBaseName`: the name less a compression suffix and then `.meta`, `.index`
/// or `.N`; unchanged when there is no such suffix.
fn strip_archive_suffix(name: &str) -> String {
    let plain = compress::strip_suffix(name).map_or(name, |(p, _)| p);
    if let Some(b) = plain
        .strip_suffix(".meta")
        .or_else(|| plain.strip_suffix(".index"))
    {
        return b.to_string();
    }
    if let Some(dot) = plain.rfind('.') {
        let d = &plain[dot + 1..];
        if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) {
            return plain[..dot].to_string();
        }
    }
    name.to_string()
}

/// Which files were found and in what state (pmlogcheck's three states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Missing,
    Ok,
    Bad,
}

/// Time of day to the millisecond, with the date around it over long windows.
struct Stamps {
    tz: TimeZone,
    dated: bool,
}

impl Stamps {
    /// `HH:MM:SS.nnnnnnnnn`, as PCP 7's pass 2 prints a metadata record's time.
    fn fmt_nsec(&self, t: Timestamp) -> String {
        let tm = local_tm(t.sec, &self.tz);
        format!(
            "{:02}:{:02}:{:02}.{:09}",
            tm.hour, tm.minute, tm.second, t.nsec
        )
    }

    fn fmt(&self, t: Timestamp) -> String {
        let tm = local_tm(t.sec, &self.tz);
        let hms = format!(
            "{:02}:{:02}:{:02}.{:03}",
            tm.hour,
            tm.minute,
            tm.second,
            t.nsec / 1_000_000
        );
        if self.dated {
            let c = ctime(t.sec, &self.tz);
            format!("{} {hms} {}", &c[..10], &c[20..])
        } else {
            hms
        }
    }
}

struct ArchiveLookup<'a> {
    a: &'a Archive,
    origin: Timestamp,
}

impl pass3::Lookup for ArchiveLookup<'_> {
    fn desc(&self, pmid: PmId) -> Option<archive_format::Desc> {
        self.a.metadata().desc(pmid).copied()
    }
    fn metric(&self, pmid: PmId) -> String {
        let n = self.a.metadata().names(pmid);
        if n.is_empty() {
            pmid.to_string()
        } else {
            n.join(" or ")
        }
    }
    fn inst_name(&self, indom: InDom, inst: i32) -> Option<String> {
        if indom.is_null() {
            return None;
        }
        // the instance domain in force at the context's time first, then every
        // other, newest first
        let m = self.a.metadata();
        let all = m.snapshots(indom);
        let first = m.indom_in_force(indom, self.origin);
        first
            .into_iter()
            .chain(all.iter().rev())
            .find_map(|s| s.instances.iter().find(|(i, _)| *i == inst))
            .map(|(_, n)| n.to_string())
    }
}

/// The names an archive's messages use: as given, its directory and base name, and
/// the archive as the messages name it.
struct Names {
    arg: String,
    dir: String,
    base: String,
    archname: String,
}

impl Names {
    fn of(arg: &str) -> Names {
        let (dir, base) = split_name(arg);
        let mut n = Names {
            arg: arg.to_string(),
            dir,
            base,
            archname: String::new(),
        };
        n.archname = n.shown(&n.base);
        n
    }

    /// A file of the archive as the messages name it.
    fn shown(&self, name: &str) -> String {
        if self.dir == "." {
            name.to_string()
        } else {
            format!("{}/{name}", self.dir)
        }
    }
}

/// What pass 0 found of each kind of file.
struct Pass0 {
    index: State,
    meta: State,
    log: State,
    fatal: bool,
    /// The metadata or every data volume is missing (fatal even for PCP 7's `-f`).
    missing: bool,
    /// The start in the labels, for pass 1.
    golden_start: Option<Timestamp>,
    /// Each file's size, by its name less any compression suffix.
    sizes: HashMap<String, i64>,
    /// Files whose records end in damage, and where their last whole record ends.
    damaged: Vec<(PathBuf, Kind, u64)>,
    /// The metadata file, as the messages name it, for PCP 7's pass 2.
    meta_file: Option<(String, FileRef)>,
    /// A file was cut (PCP 7's `-r` or `-R`).
    truncated: bool,
}

/// What PCP 7 carries from one archive of its command line to the next: the
/// files' states (index, metadata, data volumes) and whether times are dated.
#[derive(Debug, Clone, Copy)]
struct Carry {
    states: [State; 3],
    dated: bool,
}

/// The archive, or with PCP 7's options each archive named (each base name once,
/// in turn, the files' states carried from one to the next as PCP 7's are);
/// returns the exit status.
fn check_each(
    o: &opts::Opts,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<i32> {
    let mut carry = Carry {
        states: [State::Missing; 3],
        dated: false,
    };
    if !o.pcp7() {
        return check(o, &mut carry, out, err, rep);
    }
    let (mut status, mut done) = (0, Vec::new());
    for arg in &o.archives {
        let base = Names::of(arg).base;
        if done.contains(&base) {
            if o.verbose > 0 {
                rep.verbose(err, &format!("{arg}: skip, already checked this archive\n"))?;
            }
            continue;
        }
        let one = opts::Opts {
            archive: Some(arg.clone()),
            ..o.clone()
        };
        if check(&one, &mut carry, out, err, rep)? != 0 {
            status = 1;
        }
        if rep.abort {
            return Ok(1);
        }
        done.push(base);
    }
    Ok(status)
}

/// The passes in PCP's order: pass 0 over every file, then (unless `--repair` takes
/// over, or pass 0 found the archive unreadable) passes 1 to 3 over the archive.
/// `carry`: what the archives before it left (PCP 7's).
fn check(
    o: &opts::Opts,
    carry: &mut Carry,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<i32> {
    let names = Names::of(o.archive.as_deref().unwrap_or_default());
    if o.verbose > 0 {
        let msg = format!("Scanning for components of archive \"{}\"\n", names.arg);
        rep.verbose(err, &msg)?;
    }
    let files = components(Path::new(&names.dir), &names.base, o.pcp7()).unwrap_or_default();
    if files.is_empty() {
        writeln!(err, "{PROG}: no PCP archive files match \"{}\"", names.arg)?;
        return Ok(1);
    }
    if let Some(status) = streamed::check(o, &names, &files, carry, out, err)? {
        return Ok(status);
    }
    // pass 0 reads every file whole and pass 3 the archive: compressed files are
    // decompressed once
    let cache = Decompressed::new();
    // while pass 0 reads one compressed file, the next ones are decompressed on
    // the other cores (the first is the pass's own)
    let _prefetch = cache.prefetch(
        files
            .iter()
            .filter(|(_, _, comp)| comp.is_some())
            .skip(1)
            .map(|(name, _, comp)| FileRef {
                path: Path::new(&names.dir).join(name),
                compression: *comp,
            })
            .collect(),
    );
    let opts = |cache: &Decompressed| OpenOptions {
        decompressed: Some(cache.clone()),
        ..OpenOptions::default()
    };
    std::thread::scope(|s| {
        // the archive is opened (its metadata read) on a thread of its own while
        // pass 0 goes through the files, unless pass 0 may change them; it is
        // used unless pass 0 cut a file (below)
        let early = (!o.repair && o.truncate.is_none())
            .then(|| s.spawn(|| Archive::open_with(&names.arg, opts(&cache))));
        let p0 = pass0_files(o, &names, &files, &cache, carry.states, out, err, rep)?;
        carry.states = [p0.index, p0.meta, p0.log];
        if rep.abort {
            return Ok(1);
        }
        if o.repair {
            return repair::repair(o, &names.archname, &p0.damaged, out, err, rep);
        }
        if p0.fatal && (!o.full || p0.missing) {
            if o.verbose > 0 {
                rep.verbose(err, "Due to earlier errors, cannot continue ... bye\n")?;
            }
            return Ok(1);
        }
        let Ok(pmns) = cli_common::pmns::load_option(PROG, o.namespace.as_deref(), err)? else {
            return Ok(1);
        };
        // a file cut in pass 0 is read again as it is now
        let (cache, opened) = if p0.truncated {
            let cache = Decompressed::new();
            let opened = Archive::open_with(&names.arg, opts(&cache));
            (cache, opened)
        } else {
            let opened = match early {
                Some(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                None => Archive::open_with(&names.arg, opts(&cache)),
            };
            (cache.clone(), opened)
        };
        let mut a = match opened {
            Ok(a) => a,
            Err(e) => return cannot_open(o, &names, &e, err, rep),
        };
        if let Some(p) = pmns {
            a.set_pmns(p);
        }
        check_archive(o, &names, &a, (&p0, &cache, carry), out, err, rep)
    })
}

/// The archive could not be opened after pass 0: checking ends, with status 1.
fn cannot_open(
    o: &opts::Opts,
    names: &Names,
    e: &archive_format::Error,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<i32> {
    let mut why = e.pm_message();
    if o.pcp7() {
        why = archive_format::error::in_pcp7_words(&why);
    }
    let msg = format!(
        "{PROG}: cannot open archive \"{}\": {why}\nChecking abandoned.",
        names.arg,
    );
    rep.line(err, "pass0", &msg)?;
    Ok(1)
}

/// Pass 0: each file's label and records, in directory order (PCP 7's order and
/// words with its options). `states`: the files' states before the pass.
#[allow(clippy::too_many_arguments)]
fn pass0_files(
    o: &opts::Opts,
    names: &Names,
    files: &[(String, Kind, Option<compress::Compression>)],
    cache: &Decompressed,
    states: [State; 3],
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<Pass0> {
    let mut p0 = Pass0::new(states);
    for (name, kind, comp) in files {
        let fname = names.shown(name);
        let fr = FileRef {
            path: Path::new(&names.dir).join(name),
            compression: *comp,
        };
        let openable = std::fs::File::open(&fr.path).is_ok();
        if o.truncate.is_some() && comp.is_some() && openable {
            writeln!(err, "Error: {fname}: compressed file, repair not allowed")?;
            rep.abort = true;
            return Ok(p0);
        }
        let r = scan_file(&fname, name, &fr, *kind, cache, &mut p0.sizes, err, rep)?;
        if o.verbose > 0 {
            rep.verbose(err, &format!("{fname}: start pass0 ... "))?;
        }
        if o.pcp7() {
            if let Some(size) = pcp7::pass0_lines(o, &fname, &r, out, err, rep)? {
                let plain = compress::strip_suffix(name).map_or(name.as_str(), |(p, _)| p);
                p0.sizes.insert(plain.to_string(), size as i64);
                p0.truncated = true;
            }
        } else {
            pass0_lines(o, &r, err, rep)?;
        }
        if let Some((_, start)) = r.label {
            p0.golden_start = Some(start);
        }
        if *kind == Kind::Meta {
            p0.meta_file = Some((fname.clone(), fr.clone()));
        }
        if r.framing == Status::Fatal {
            p0.damaged.push((fr.path.clone(), *kind, r.last_good));
        }
        p0.note(*kind, r.framing == Status::Ok);
        p0.fatal |= r.status == Status::Fatal;
        if o.verbose > 0 && r.records > 0 && r.status != Status::Fatal {
            rep.verbose(err, &format!("found {} records\n", r.records))?;
        }
    }
    let (dir, base) = (&names.dir, &names.base);
    if p0.meta == State::Missing {
        rep.line(
            err,
            "pass0",
            &format!("{dir}/{base}.meta: missing metadata file"),
        )?;
        p0.missing = true;
    }
    if p0.log == State::Missing {
        let msg = format!("{dir}/{base}.0 (or similar): missing log file ");
        rep.line(err, "pass0", &msg)?;
        p0.missing = true;
    }
    p0.fatal |= p0.missing;
    Ok(p0)
}

/// Pass 0's findings of one file as 6.0.3 prints them: with `-v` the progress
/// line stays open until a framing finding needs a line.
fn pass0_lines(
    o: &opts::Opts,
    r: &pass0::Report,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<()> {
    let mut open = o.verbose > 0;
    for l in &r.lines {
        if open && l.breaks {
            rep.verbose(err, "\n")?;
            open = false;
        }
        rep.line(err, "pass0", &l.text)?;
    }
    Ok(())
}

impl Pass0 {
    /// Nothing found yet, the files' states as `states` (index, metadata, data
    /// volumes) say.
    fn new(states: [State; 3]) -> Pass0 {
        Pass0 {
            index: states[0],
            meta: states[1],
            log: states[2],
            fatal: false,
            missing: false,
            golden_start: None,
            sizes: HashMap::new(),
            damaged: Vec::new(),
            meta_file: None,
            truncated: false,
        }
    }

    /// A file of `kind` was framed whole (`ok`) or not: the index and the metadata
    /// are as their file is, the data volumes bad once one is.
    fn note(&mut self, kind: Kind, ok: bool) {
        let state = if ok { State::Ok } else { State::Bad };
        match kind {
            Kind::Index => self.index = state,
            Kind::Meta => self.meta = state,
            Kind::Data if self.log == State::Missing => self.log = state,
            Kind::Data if !ok => self.log = State::Bad,
            Kind::Data => {}
        }
    }
}

/// Pass 0 of one file (a file that cannot be read is fatal).
#[allow(clippy::too_many_arguments)]
fn scan_file(
    fname: &str,
    name: &str,
    fr: &FileRef,
    kind: Kind,
    cache: &Decompressed,
    sizes: &mut HashMap<String, i64>,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<pass0::Report> {
    match cache.load(fr) {
        Ok(bytes) => {
            let plain = compress::strip_suffix(name).map_or(name, |(p, _)| p);
            sizes.insert(plain.to_string(), bytes.len() as i64);
            // the pages of a mapped file go as the scan passes them, so that
            // memory stays bounded whatever the file's size
            Ok(pass0::scan_with(fname, &bytes, kind, &mut |at| {
                bytes.release(0, at)
            }))
        }
        Err(e) => {
            let why = e.detail().to_string();
            rep.line(err, "pass0", &format!("{fname}: cannot open file: {why}"))?;
            Ok(pass0::Report {
                lines: Vec::new(),
                records: 0,
                framing: Status::Fatal,
                status: Status::Fatal,
                last_good: 0,
                label: None,
            })
        }
    }
}

/// Passes 1 to 3 over the open archive, in the window of `-S`/`-T`.
fn check_archive(
    o: &opts::Opts,
    names: &Names,
    a: &Archive,
    (p0, cache, carry): (&Pass0, &Decompressed, &mut Carry),
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<i32> {
    let label = a.label().clone();
    if o.pcp7() {
        // pmGetContextOptions, which names the first archive of the command line
        let first = o.archives.first().map_or("", |s| s.as_str());
        let words = |m: &str| archive_format::error::in_pcp7_words(m);
        clock::archive_end_worded(PROG, a, first, &words, out, err)?;
    }
    // (the notes go to stdout, as PCP's: not into a JSON document there)
    let (tz, note) = o.clock.zone_for(&label);
    if let Some(n) = note.filter(|_| !o.json) {
        write!(out, "{n}")?;
    }
    let bounds = clock::bounds(&label, a.end_time().ok());
    let (wstart, wend) = match o.clock.window(bounds, &tz) {
        Ok(w) => w,
        Err(msg) => {
            writeln!(err, "{PROG}: {msg}")?;
            return Ok(1);
        }
    };
    if o.label {
        rep.verbose(err, &label_text(&label, wend, &tz))?;
    }
    // (PCP 7 dates the times of every archive after one that needed it)
    carry.dated = long_window(wstart, wend) || (o.pcp7() && carry.dated);
    let stamps = Stamps {
        tz,
        dated: carry.dated,
    };
    let nsec = |t: Timestamp| stamps.fmt_nsec(t);
    let index_bad = pass1_and_2(o, names, a, (p0, cache), &nsec, out, err, rep)?;
    if o.metadata_only {
        return Ok(0);
    }
    if o.verbose > 0 {
        rep.verbose(err, &format!("{}: start pass3\n", names.archname))?;
    }
    // pmSetMode(PM_MODE_FORW, start): positioned by the index unless it is bad,
    // and read from there record by record
    let mut cur = pass3_cursor(a, index_bad || p0.index == State::Bad, wstart);
    let mut latest = None;
    let window = (wstart, wend);
    pass3_records(
        o,
        names,
        a,
        (&mut cur, window, &mut latest),
        &stamps,
        err,
        rep,
    )
}

/// Pass 3's cursor: `pmSetMode(PM_MODE_FORW, wstart)`, positioned by the index
/// unless it is bad.
fn pass3_cursor(a: &Archive, index_bad: bool, wstart: Timestamp) -> LogCursor<'_> {
    let mut cur = LogCursor::new(a);
    if index_bad {
        cur.ignore_index();
    }
    cur.set_mode(archive_format::logfetch::Direction::Forward, wstart);
    cur
}

/// Whether a window is longer than a day (its times are then printed with their
/// dates).
fn long_window(wstart: Timestamp, wend: Timestamp) -> bool {
    wend.sec - wstart.sec - i64::from(wend.nsec < wstart.nsec) > 86400
}

/// `-l`: the label as pmlogcheck prints it, with the end of the window.
fn label_text(label: &archive_format::Label, wend: Timestamp, tz: &TimeZone) -> String {
    let ms = Stamps {
        tz: tz.clone(),
        dated: false,
    };
    let c = ctime(label.start.sec, tz);
    let mut text = format!(
        "Log Label (Log Format Version {})\nPerformance metrics from host {}\n  commencing {} {} {}\n",
        label.version,
        label.hostname,
        &c[..10],
        ms.fmt(label.start),
        &c[20..]
    );
    if wend.sec >= i32::MAX as i64 {
        text.push_str("  ending     UNKNOWN\n");
    } else {
        let c = ctime(wend.sec, tz);
        let end = format!("  ending     {} {} {}\n", &c[..10], ms.fmt(wend), &c[20..]);
        text.push_str(&end);
    }
    text
}

/// Pass 1 (the temporal index) and pass 2 (the descriptors, and with PCP 7's
/// options the metadata's times); whether the index is bad.
#[allow(clippy::too_many_arguments)]
fn pass1_and_2(
    o: &opts::Opts,
    names: &Names,
    a: &Archive,
    (p0, cache): (&Pass0, &Decompressed),
    nsec: &dyn Fn(Timestamp) -> String,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<bool> {
    let (archname, base) = (&names.archname, &names.base);
    if o.verbose > 0 {
        let msg = format!("{archname}: start pass1 (check temporal index)\n");
        rep.verbose(err, &msg)?;
    }
    let vol_size = |v: i32| p0.sizes.get(&format!("{base}.{v}")).copied();
    let ctx = pass1::Context {
        archname,
        label_size: if a.label().version >= 3 { 808 } else { 132 },
        meta_size: p0.sizes.get(&format!("{base}.meta")).copied(),
        vol_size: &vol_size,
        golden_start: p0.golden_start,
        pcp7: o.pcp7(),
    };
    let index_bad = if o.pcp7() {
        pcp7::index(o, &ctx, a, out, err, rep)?
    } else {
        let (lines, bad) = pass1::check(&ctx, a.index());
        for l in &lines {
            rep.line(err, "pass1", l)?;
        }
        bad
    };
    descriptors(o, a, archname, err, rep)?;
    if o.pcp7() {
        pcp7::meta_stamps(o, names, a, (p0, cache), nsec, out, err, rep)?;
    }
    Ok(index_bad)
}

/// Pass 2's check of each metric descriptor (PCP 7's with its options).
fn descriptors(
    o: &opts::Opts,
    a: &Archive,
    archname: &str,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<()> {
    if o.verbose > 0 {
        rep.verbose(err, &format!("{archname}: start pass2\n"))?;
    }
    let mut lines = Vec::new();
    for d in a.metadata().descs_hash_order() {
        let name = a.metadata().names(d.pmid).first().map(|s| s.as_str());
        pass2::check(archname, d, name, o.pcp7(), &mut lines);
    }
    for l in &lines {
        rep.line(err, "pass2", l)?;
    }
    Ok(())
}

/// Pass 3: the records of the window in turn, each value against the last;
/// `latest` is left with the latest time read.
fn pass3_records(
    o: &opts::Opts,
    names: &Names,
    a: &Archive,
    (cur, (wstart, wend), latest): (
        &mut LogCursor,
        (Timestamp, Timestamp),
        &mut Option<Timestamp>,
    ),
    stamps: &Stamps,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<i32> {
    let fmt = |t: Timestamp| stamps.fmt(t);
    let look = ArchiveLookup { a, origin: wstart };
    let checker = || {
        let mut c = pass3::Checker::default();
        c.nowrap = o.nowrap;
        c.by_instance = o.pcp7();
        c.difference = o.pcp7() && o.verbose > 0;
        c
    };
    // the volume messages name: the context's, which reading on into later
    // volumes does not change (PCP 6.0.3 names volume 0 for records of volume 3)
    let prefix = format!("{}.{}", names.archname, cur.volume().unwrap_or(0));
    let setup = fanout::Setup {
        prefix: &prefix,
        look: &look,
        stamp: &fmt,
        checker: &checker,
    };
    // (a volume read as it decodes has a core decoding it: one checker fewer,
    // which also spares the copies of the records the other checkers need)
    let threads = archive_format::cores::threads().saturating_sub(usize::from(a.decoding()));
    std::thread::scope(|scope| {
        let mut fan = fanout::Fanout::start(scope, threads, &setup);
        let mut emit = |l: &str| {
            if o.pcp7() {
                rep.line(err, "pass3", &archive_format::error::in_pcp7_words(l))
            } else {
                rep.line(err, "pass3", l)
            }
        };
        let mut counts = Tally::default();
        let (failed, go) =
            records_checked(o, a, cur, (wstart, wend), &mut fan, &mut emit, &mut counts)?;
        *latest = counts.latest;
        let go = match go {
            Go::On => fan.finish(&mut emit)?,
            go => go,
        };
        let mut status = 0;
        if let Some(msg) = failed {
            rep.line(err, "pass3", &msg)?;
            // PCP 7's status is its last pass's
            status = i32::from(o.pcp7());
        }
        if go == Go::GiveUp {
            return Ok(1);
        }
        let (results, marks) = (counts.results, counts.marks);
        if o.verbose > 0 && results > 0 {
            rep.verbose(err, &format!("Processed {results} pmResult records\n"))?;
        }
        if o.verbose > 0 && marks > 0 {
            rep.verbose(err, &format!("Processed {marks} <mark> records\n"))?;
        }
        Ok(status)
    })
}

/// What pass 3 read: records, `<mark>`s, and the latest time.
#[derive(Default)]
struct Tally {
    results: usize,
    marks: usize,
    latest: Option<Timestamp>,
}

/// Pass 3's reading: each record from the start of the window to the first past
/// its end checked through `fan`, counted in `counts`. The
/// message of a failed read, if one failed, and whether a checker gave up.
fn records_checked(
    o: &opts::Opts,
    a: &Archive,
    cur: &mut LogCursor,
    (wstart, wend): (Timestamp, Timestamp),
    fan: &mut fanout::Fanout,
    emit: &mut dyn FnMut(&str) -> io::Result<()>,
    counts: &mut Tally,
) -> io::Result<(Option<String>, Go)> {
    let setup = fan.setup();
    // the first record is checked against -S's start when one was given
    let mut last = o.clock.start.is_some().then_some(wstart);
    loop {
        let rr = match cur.read_next_raw() {
            Ok(Some(r)) => r,
            Ok(None) => return Ok((None, Go::On)),
            Err(e) => {
                let after = (setup.stamp)(last.unwrap_or(Timestamp::new(0, 0)));
                let mut why = e.pm_message();
                if o.pcp7() {
                    why = archive_format::error::in_pcp7_words(&why);
                }
                return Ok((
                    Some(format!("[after {after}]: pmFetch: error: {why}")),
                    Go::On,
                ));
            }
        };
        counts.results += 1;
        let stamp = rr.stamp;
        counts.latest = counts.latest.max(Some(stamp));
        fan.time_lines(stamp_findings(
            setup.prefix,
            stamp,
            a.label().start,
            last,
            setup.stamp,
        ));
        last = Some(stamp);
        if stamp > wend {
            return Ok((None, Go::On));
        }
        counts.marks += usize::from(rr.sets.is_empty());
        if fan.record((stamp, &rr.sets), (rr.payload, rr.version), emit)? == Go::GiveUp {
            return Ok((None, Go::GiveUp));
        }
    }
}

/// What pass 3 says of a record's time: before the label's, or before the last
/// record's.
fn stamp_findings(
    prefix: &str,
    stamp: Timestamp,
    start: Timestamp,
    last: Option<Timestamp>,
    fmt: &dyn Fn(Timestamp) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    if stamp < start {
        out.push(format!(
            "{prefix}:[{}]: timestamp before label timestamp: {}",
            fmt(stamp),
            fmt(start)
        ));
    }
    if let Some(l) = last.filter(|l| stamp < *l) {
        out.push(format!(
            "{prefix}:[{}]: timestamp went backwards, prior timestamp: {}",
            fmt(stamp),
            fmt(l)
        ));
    }
    out
}
