//! One archive's export: its descriptors to `metrics`, its values to `values` and
//! its event records to `events`, each partitioned by host and UTC date.

use crate::memory::Memory;
use crate::rows::{EventBuffer, EventRow, Names, Sink, Text, ValueBuffer, ValueRow, NONE};
use crate::state::{ArchiveState, Resume};
use crate::table::{self, text, TimeUnit};
use archive_format::atom::{extract, Atom};
use archive_format::codec::event::{decode_events, FLAG_MISSED};
use archive_format::codec::result::{decode_result, Value, VAL_INSITU};
use archive_format::instances::InDomStream;
use archive_format::replay::{Delta, FetchedSet, Mode, Replay};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, InDom, PmId, Position, ReadWindow, Timestamp};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

mod instances;
use instances::{names_for, InstCache, Missing, MissingKey, SetNames};

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What shapes the rows.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub outdir: PathBuf,
    /// `-S` and `-T` as PCP's tools take them (absolute times in UTC).
    pub start: Option<String>,
    pub finish: Option<String>,
    /// Metric names or subtrees; empty for all.
    pub metrics: Vec<String>,
    /// `-t`: interpolated samples this far apart (nanoseconds).
    pub interval: Option<i128>,
    /// Rows per row group, at most.
    pub row_group: usize,
    /// Bytes the run may hold, roughly (0: [`crate::memory::LIMIT`]).
    pub memory: usize,
    /// The timestamps' unit.
    pub time_unit: TimeUnit,
}

impl Options {
    /// The options that decide which rows exist (kept in the state).
    pub fn fingerprint(&self) -> String {
        let mut f = format!(
            "start={:?} finish={:?} metrics={:?} interval={:?}",
            self.start, self.finish, self.metrics, self.interval
        );
        // (said only when not the default: states written before it stay valid)
        if self.time_unit != TimeUnit::default() {
            f += &format!(" time_unit={:?}", self.time_unit);
        }
        f
    }
}

/// The outcome of one archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub state: ArchiveState,
    /// Rows written by this run (values, events).
    pub rows: (u64, u64),
    pub unchanged: bool,
    /// A record that could not be read ended the export early (a live archive's
    /// torn tail, or damage): said on stderr, the rest is exported next time.
    pub warning: Option<String>,
}

/// A metric as rows name it.
#[derive(Clone, Copy)]
struct Metric {
    desc: Desc,
    name: u32,
    pmid: u32,
}

fn ns(t: Timestamp) -> i64 {
    t.as_nanos().clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// The UTC date of a time, formatted once per day.
#[derive(Default)]
struct Dates {
    day: Option<i64>,
    text: String,
}

impl Dates {
    fn of(&mut self, t_ns: i64) -> &str {
        let day = t_ns.div_euclid(86_400_000_000_000);
        if self.day != Some(day) {
            self.day = Some(day);
            self.text = jiff::Timestamp::from_second(day * 86400)
                .map(|t| t.strftime("%Y-%m-%d").to_string())
                .unwrap_or_else(|_| "invalid".into());
        }
        &self.text
    }
}

/// A name usable as a directory (no separators, no `=`).
pub fn path_safe(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| match c {
            '/' | '\\' | '=' | '\0' => '_',
            c => c,
        })
        .collect();
    if t.is_empty() || t == "." || t == ".." {
        format!("_{t}")
    } else {
        t
    }
}

/// A short stable digest of a path (FNV-1a), so that archives of one name in two
/// directories of one host do not share part files.
fn digest(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", h as u32)
}

/// The metrics `specs` select (names, or subtrees by prefix); all when empty.
fn selected(a: &Archive, specs: &[String]) -> Vec<PmId> {
    let m = a.metadata();
    m.descs()
        .iter()
        .map(|d| d.pmid)
        .filter(|&p| {
            specs.is_empty()
                || m.names(p).iter().any(|n| {
                    specs.iter().any(|s| {
                        n == s
                            || (n.starts_with(s.as_str())
                                && n.as_bytes().get(s.len()) == Some(&b'.'))
                    })
                })
        })
        .collect()
}

/// The values an archive asks to hold, from the sizes of its data volumes.
fn wanted(files: &std::collections::BTreeMap<String, u64>) -> usize {
    let (mut plain, mut packed) = (0u64, 0u64);
    for (name, &len) in files {
        if crate::discover::volume_base(name).is_none() {
            continue;
        }
        match archive_format::compress::strip_suffix(name) {
            Some(_) => packed += len,
            None => plain += len,
        }
    }
    crate::memory::wanted(plain, packed)
}

/// Exports the part of the archive at `base` that `prev` (the last run's state
/// of it) has not. The raw values of a whole archive are read while its
/// compressed volumes decode, when the job has more than one thread (on a
/// thread of their own, where they decode on one:
/// [`archive_format::OpenOptions::while_decoding`]); where a volume then
/// fails to decode part way, or a record was later than the archive's end (which
/// is known only once its last volume is decoded), that export is given up and
/// the archive exported again as it is read otherwise.
pub fn export(
    base: &Path,
    o: &Options,
    prev: Option<&ArchiveState>,
    mem: &Memory,
) -> io::Result<Outcome> {
    let whole = o.interval.is_none() && o.start.is_none() && o.finish.is_none();
    if whole && archive_format::cores::threads() > 1 {
        if let Some(out) = export_as(base, o, prev, mem, true)? {
            return Ok(out);
        }
    }
    export_as(base, o, prev, mem, false)?.ok_or_else(|| io::Error::other("the export was given up"))
}

/// [`export`], reading the volumes while they decode or not: `None` where an
/// export read while decoding is given up (nothing of it is left).
fn export_as(
    base: &Path,
    o: &Options,
    prev: Option<&ArchiveState>,
    mem: &Memory,
    while_decoding: bool,
) -> io::Result<Option<Outcome>> {
    let files = crate::state::file_sizes(base);
    let name = base.to_string_lossy().into_owned();
    let (grant, a, stream) = open_in_memory(&name, &files, mem, while_decoding)?;
    let label = a.label().clone();
    let host = path_safe(&label.hostname);
    let start = (label.start.sec, label.start.nsec);
    // the same archive as last time, unchanged: nothing to do
    let prev = prev.filter(|p| p.start == start && p.host == host);
    if let Some(p) = prev.filter(|p| p.files == files) {
        return Ok(Some(Outcome {
            state: p.clone(),
            rows: (0, 0),
            unchanged: true,
            warning: None,
        }));
    }
    let stem = base
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let key = format!("{}-{}", path_safe(&stem), digest(&name));
    let mut outputs: Vec<String> = prev.map(|p| p.outputs.clone()).unwrap_or_default();
    let rel = |p: &Path| {
        p.strip_prefix(&o.outdir)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    let hostdir = |ds: &str| o.outdir.join(ds).join(format!("host={host}"));
    let mpath = hostdir("metrics").join(format!("{key}.parquet"));
    // (the whole archive: its end is not waited for)
    let decoding = a.decoding();
    let (wstart, wend) = if decoding {
        (label.start, Timestamp::new(i64::MAX, 0))
    } else {
        utc_window(&a, o)?
    };
    let pmids = selected(&a, &o.metrics);
    let derived = crate::derived::select(&a, &o.metrics);
    // (written once the export is kept, when it reads while decoding)
    let write_metrics = |derived: &[crate::derived::Chosen], outputs: &mut Vec<String>| {
        let written = crate::metrics::write(&a, mpath.clone(), &text(&name), derived)?;
        push_new(outputs, rel(&written));
        io::Result::Ok(())
    };
    if !decoding {
        write_metrics(&derived, &mut outputs)?;
    }
    let (mut values, mut events) = sinks(o, &hostdir, &key, prev, grant.budget);
    let mut ex = Exporter::new(&a, stream, &pmids, derived)?;
    let run = match o.interval {
        None => ex.raw(prev, wstart, wend, &mut values, &mut events),
        Some(step) => ex.interp(prev, (wstart, wend), step, &pmids, &mut values, &mut events),
    };
    if decoding {
        if run.is_ok() && !read_as_libpcp(&a, ex.latest) {
            values.abandon();
            events.abandon();
            return Ok(None);
        }
        write_metrics(&ex.derived, &mut outputs)?;
    }
    let (resume, warning) = match run {
        Ok(r) => r,
        Err(e) => {
            values.abandon();
            events.abandon();
            return Err(e);
        }
    };
    let (vfiles, vrows) = values.finish(&mut ex.names)?;
    let (efiles, erows) = events.finish(&mut ex.names)?;
    for f in vfiles.iter().chain(&efiles) {
        push_new(&mut outputs, rel(f));
    }
    let before = prev.map_or((0, 0), |p| p.rows);
    Ok(Some(Outcome {
        state: ArchiveState {
            host,
            start,
            files,
            resume,
            outputs,
            rows: (before.0 + vrows, before.1 + erows),
        },
        rows: (vrows, erows),
        unchanged: false,
        warning,
    }))
}

/// Where a raw export starts reading: where the last run (`prev`) stopped, or
/// at the start of the window.
fn raw_start(
    a: &Archive,
    vols: &[u32],
    prev: Option<&ArchiveState>,
    wstart: Timestamp,
) -> Position {
    match prev.and_then(|p| p.resume.clone()) {
        Some(Resume::Raw { volume, offset }) => match vols.iter().position(|&v| v == volume) {
            Some(vol) => Position { vol, offset },
            None => a.start(),
        },
        _ if wstart > a.label().start => a.position_before(wstart),
        _ => a.start(),
    }
}

/// Whether the records read while the volumes decoded are those libpcp reads:
/// the volumes decoded whole, and no record read (the last, `latest`) was later
/// than the archive's end (where an export stops).
fn read_as_libpcp(a: &Archive, latest: Option<Timestamp>) -> bool {
    a.decoded_whole()
        && a.end_time()
            .is_ok_and(|end| latest.is_none_or(|l| l <= end))
}

/// The values' and the events' sinks of this run, their files named by the
/// archive's key and where the run starts.
fn sinks(
    o: &Options,
    hostdir: &dyn Fn(&str) -> PathBuf,
    key: &str,
    prev: Option<&ArchiveState>,
    budget: usize,
) -> (Sink<ValueBuffer>, Sink<EventBuffer>) {
    let from = match prev.and_then(|p| p.resume.clone()) {
        Some(Resume::Raw { volume, offset }) => format!("v{volume}o{offset}"),
        Some(Resume::Interp { next_ns }) => format!("t{next_ns}"),
        None => "start".into(),
    };
    let prefix = format!("part-{key}-{from}");
    let rg = if o.row_group == 0 {
        1 << 20
    } else {
        o.row_group
    };
    let unit = o.time_unit;
    let values = Sink::new(
        hostdir("values"),
        unit.schema(table::VALUES),
        prefix.clone(),
        rg,
        budget,
    );
    let events = Sink::new(
        hostdir("events"),
        unit.schema(table::EVENTS),
        prefix,
        rg,
        budget / 8,
    );
    (values, events)
}

fn push_new(outputs: &mut Vec<String>, path: String) {
    if !outputs.contains(&path) {
        outputs.push(path);
    }
}

/// The archive opened once its share of memory is granted (beside archives being
/// exported it waits until it fits, before its metadata is loaded; alone, it
/// always fits), and whether its instance domains are taken as a stream: when they
/// come in time order, one set of each is held, not their history (interpolation
/// holds when each instance lives, not its names, and a large domain's lives in a
/// temporary file).
fn open_in_memory<'m>(
    name: &str,
    files: &std::collections::BTreeMap<String, u64>,
    mem: &'m Memory,
    while_decoding: bool,
) -> io::Result<(crate::memory::Grant<'m>, Archive, bool)> {
    // (a compressed .meta decompressed once: the archive reads it from there)
    let copies = archive_format::volume::Decompressed::new();
    let profile = archive_format::archive::meta_profile_with(name, Some(&copies)).ok();
    let stream = profile.is_some_and(|p| p.streamable());
    let held = profile.map_or(0, |p| if stream { p.streamed_bytes() } else { p.bytes });
    let _opening = mem.opening();
    let want = wanted(files);
    let grant = match mem.try_grant(held, want) {
        Some(g) => g,
        None => {
            // waiting: what this thread keeps is not in any grant
            crate::rows::kept::let_go();
            mem.grant(held, want)
        }
    };
    let opts = archive_format::OpenOptions {
        without_instances: stream,
        while_decoding,
        // the row groups are encoded on a core of their own while rows are read
        decoding_threads: Some(archive_format::cores::threads().saturating_sub(1)),
        decompressed: Some(copies),
        ..Default::default()
    };
    let a = Archive::open_with(name, opts).map_err(|e| io::Error::other(e.to_string()))?;
    Ok((grant, a, stream))
}

/// `-S`/`-T` inside the archive, absolute times read as UTC.
fn utc_window(a: &Archive, o: &Options) -> io::Result<(Timestamp, Timestamp)> {
    let label = a.label();
    let bounds = cli_common::window::Bounds {
        start: label.start,
        end: a.end_time().unwrap_or(label.start),
    };
    let utc = jiff::tz::TimeZone::UTC;
    cli_common::window::parse_window(o.start.as_deref(), o.finish.as_deref(), bounds, &utc).map_err(
        |spec| {
            let msg = format!("invalid time window: {spec}");
            io::Error::new(io::ErrorKind::InvalidInput, msg)
        },
    )
}

/// The exported metrics that have a descriptor, and the derived ones, by PMID,
/// their names interned.
fn metrics_of(
    a: &Archive,
    pmids: &[PmId],
    derived: &[crate::derived::Chosen],
    names: &mut Names,
) -> FastMap<PmId, Metric> {
    let mut metrics: FastMap<PmId, Metric> = FastMap::default();
    for &p in pmids {
        let Some(desc) = a.metadata().desc(p).copied() else {
            continue;
        };
        let n = a
            .metadata()
            .names(p)
            .first()
            .cloned()
            .unwrap_or_else(|| p.to_string());
        let m = Metric {
            desc,
            name: names.id(&n),
            pmid: names.id(&p.to_string()),
        };
        metrics.insert(p, m);
    }
    for c in derived {
        let m = Metric {
            desc: c.bound.desc,
            name: names.id(&c.name),
            pmid: names.id(&c.pmid().to_string()),
        };
        metrics.insert(c.pmid(), m);
    }
    metrics
}

struct Exporter<'a> {
    a: &'a Archive,
    names: Names<'a>,
    metrics: FastMap<PmId, Metric>,
    dates: Dates,
    /// Instance names by instance domain, for the snapshot in force.
    insts: FastMap<InDom, InstCache>,
    /// The instance domains as a stream, when they are not held whole.
    stream: Option<InDomStream>,
    /// Instance names by instance domain, for the stream's set in force: the
    /// set's number of changes, and the names.
    live: FastMap<InDom, (u64, FastMap<i32, u32>)>,
    /// Instances the stream's set in force does not name, waiting for their
    /// names (a placeholder's key is its place here).
    missing: Missing,
    placeholders: FastMap<MissingKey, u32>,
    /// The derived metrics `-m` named, computed from the same fetches.
    derived: Vec<crate::derived::Chosen>,
    /// The instance names of the value set in hand (kept for its memory).
    inames: Vec<u32>,
    /// Each metric's last value set's instance names.
    set_names: FastMap<PmId, SetNames>,
    /// The time of the last record `raw` read.
    latest: Option<Timestamp>,
}

/// Names held for rows beyond this many bytes (instance names of an archive
/// whose processes come and go): the rows held are written, and the names
/// forgotten. Every name is a row's, so a row group written so holds 25,000
/// rows at least (a name costs 160 bytes and more).
pub const NAMES_HELD: usize = 4 << 20;

impl<'a> Exporter<'a> {
    /// An exporter of `a`'s metrics `pmids` and the `derived` ones; `stream`:
    /// whether its instance domains are read as a stream.
    fn new(
        a: &'a Archive,
        stream: bool,
        pmids: &[PmId],
        derived: Vec<crate::derived::Chosen>,
    ) -> io::Result<Exporter<'a>> {
        // instance names the stream does not give at their time are found
        // later, as the whole metadata would give them (see `missing_names`)
        let missing: Missing = Default::default();
        let mut names = names_for(a, stream, &missing);
        let metrics = metrics_of(a, pmids, &derived, &mut names);
        // the names of metrics and PMIDs are kept for good (the metadata's share)
        names.pin();
        let instances = (stream.then(|| a.instance_stream()).transpose())
            .map_err(|e| io::Error::other(e.to_string()))?;
        Ok(Exporter {
            a,
            names,
            metrics,
            dates: Dates::default(),
            insts: FastMap::default(),
            stream: instances,
            live: FastMap::default(),
            missing,
            placeholders: FastMap::default(),
            derived,
            inames: Vec::new(),
            set_names: FastMap::default(),
            latest: None,
        })
    }

    /// Keeps the names held within [`NAMES_HELD`]: beyond it, writes the rows
    /// held, and forgets the names of instances (and what named them).
    fn bound_names(
        &mut self,
        values: &mut Sink<ValueBuffer>,
        events: &mut Sink<EventBuffer>,
    ) -> io::Result<()> {
        if self.names.bytes() <= NAMES_HELD {
            return Ok(());
        }
        values.flush(&mut self.names)?;
        events.flush(&mut self.names)?;
        self.names.forget();
        self.insts.clear();
        self.live.clear();
        self.placeholders.clear();
        self.set_names.clear();
        crate::memory::give_back();
        Ok(())
    }

    fn raw(
        &mut self,
        prev: Option<&ArchiveState>,
        wstart: Timestamp,
        wend: Timestamp,
        values: &mut Sink<ValueBuffer>,
        events: &mut Sink<EventBuffer>,
    ) -> io::Result<(Option<Resume>, Option<String>)> {
        let a = self.a;
        let vols = a.volume_numbers();
        let mut pos = raw_start(a, &vols, prev, wstart);
        let mut warning = None;
        // the last record's time: one earlier is skipped, as libpcp's forward
        // fetch skips it (an archive holding two runs whose times overlap)
        let mut last: Option<Timestamp> = None;
        // records are read through a window, not from a map of the volume (a
        // volume read while it decodes is whole only once decoded; one way for
        // both, as fast as the map where the volume is whole); so no page of
        // the volume is held, and none is let go as reading goes on
        let mut window = ReadWindow::default();
        loop {
            let (at, rec, next) = match a.read_sets_forward_in(pos, &mut window) {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => {
                    warning = Some(e.to_string());
                    break;
                }
            };
            if rec.stamp > wend {
                break;
            }
            pos = next;
            if last.is_some_and(|l| rec.stamp < l) {
                continue;
            }
            last = Some(rec.stamp);
            self.advance_stream(rec.stamp)?;
            if rec.stamp < wstart {
                continue;
            }
            self.bound_names(values, events)?;
            let t = ns(rec.stamp);
            if rec.sets.is_empty() {
                let row = ValueRow {
                    time: t,
                    metric: NONE,
                    pmid: NONE,
                    inst: None,
                    iname: NONE,
                    value: None,
                    text: None,
                    mark: true,
                };
                let date = self.dates.of(t);
                values.push(date, row, &mut self.names)?;
                continue;
            }
            let mut inames = std::mem::take(&mut self.inames);
            for vs in &rec.sets {
                let Some(&m) = self.metrics.get(&vs.pmid) else {
                    continue;
                };
                self.inst_names(m.desc.indom, vs, rec.stamp, &mut inames);
                let indom = !m.desc.indom.is_null();
                if !matches!(m.desc.vtype, vtype::EVENT | vtype::HIGHRES_EVENT) {
                    let rows = SetRows {
                        values: vs.checked_values(),
                        inames: inames.iter(),
                        t,
                        m: &m,
                        indom,
                    };
                    values.push_all(self.dates.of(t), rows, &mut self.names)?;
                    continue;
                }
                for ((inst, v), &iname) in vs.checked_values().zip(&inames) {
                    let inst = indom.then_some(inst);
                    let n = self.events(&m, inst, iname, t, vs.valfmt, &v, events)?;
                    self.push_value(values, t, &m, (inst, iname), (Some(n as f64), None))?;
                }
            }
            self.inames = inames;
            if !self.derived.is_empty() {
                // (the record as a whole, for the derived metrics' expressions)
                let whole = decode_result(rec.payload, at.offset + 4, rec.version)
                    .map_err(|e| io::Error::other(e.to_string()))?;
                self.derived_at_record(&whole, values)?;
            }
        }
        self.latest = last;
        let resume = vols.get(pos.vol).map(|&volume| Resume::Raw {
            volume,
            offset: pos.offset,
        });
        Ok((resume, warning))
    }

    /// An event array's records as `events` rows; their number.
    #[allow(clippy::too_many_arguments)]
    fn events(
        &mut self,
        m: &Metric,
        inst: Option<i32>,
        iname: u32,
        t: i64,
        valfmt: i32,
        v: &Value<'_>,
        out: &mut Sink<EventBuffer>,
    ) -> io::Result<usize> {
        let Value::Block { data, .. } = v else {
            return Ok(0);
        };
        if valfmt == VAL_INSITU {
            return Ok(0);
        }
        let Ok(recs) = decode_events(data, 0, m.desc.vtype == vtype::HIGHRES_EVENT) else {
            return Ok(0);
        };
        let date = self.dates.of(t).to_string();
        for (k, r) in recs.iter().enumerate() {
            let base = EventRow {
                time: t,
                metric: m.name,
                inst,
                iname,
                record: k as i32,
                record_time: ns(r.stamp),
                flags: r.flags,
                param: NONE,
                param_pmid: NONE,
                // a record standing for missed ones: their number
                value: (r.flags & FLAG_MISSED != 0).then_some(f64::from(r.nparams)),
                text: None,
            };
            if r.params.is_empty() {
                out.push(&date, base, &mut self.names)?;
                continue;
            }
            for p in &r.params {
                let md = self.a.metadata();
                let ty = md.desc(p.pmid).map_or(i32::from(p.vtype), |d| d.vtype);
                let pname = md
                    .names(p.pmid)
                    .first()
                    .cloned()
                    .unwrap_or_else(|| p.pmid.to_string());
                let pv = Value::Block {
                    vtype: p.vtype,
                    data: p.data,
                };
                let (value, txt) = convert(ty, &pv);
                let row = EventRow {
                    param: self.names.id(&pname),
                    param_pmid: self.names.id(&p.pmid.to_string()),
                    value,
                    text: txt.map(Into::into),
                    ..base
                };
                out.push(&date, row, &mut self.names)?;
            }
        }
        Ok(recs.len())
    }

    fn interp(
        &mut self,
        prev: Option<&ArchiveState>,
        (wstart, wend): (Timestamp, Timestamp),
        step: i128,
        pmids: &[PmId],
        values: &mut Sink<ValueBuffer>,
        events: &mut Sink<EventBuffer>,
    ) -> io::Result<(Option<Resume>, Option<String>)> {
        let a = self.a;
        let mut pmids: Vec<PmId> = pmids
            .iter()
            .copied()
            .filter(|p| {
                self.metrics
                    .get(p)
                    .is_some_and(|m| !matches!(m.desc.vtype, vtype::EVENT | vtype::HIGHRES_EVENT))
            })
            .collect();
        // the derived metrics' operands are fetched with them
        for c in &self.derived {
            for p in c.operands() {
                if !pmids.contains(p) {
                    pmids.push(*p);
                }
            }
        }
        let mut t0 = wstart;
        if let Some(Resume::Interp { next_ns }) = prev.and_then(|p| p.resume.clone()) {
            // the sample before the next one, so that counters have a rate at once
            t0 = Timestamp::from_nanos(i128::from(next_ns) - step).max(wstart);
        }
        let resumed = prev.is_some_and(|p| p.resume.is_some()) && t0 > wstart;
        let mut r = Replay::new(a);
        r.set_mode(Mode::Interp, Some(t0), Delta::from_nanos(step));
        let mut rates = Rates::default();
        let mut next = t0;
        let mut first = true;
        let mut warning = None;
        while next <= wend {
            let res = match r.fetch(&pmids) {
                Ok(res) => res,
                Err(e) => {
                    if e.pm_err() != archive_format::error::PM_ERR_EOL {
                        warning = Some(e.to_string());
                    }
                    break;
                }
            };
            next = Timestamp::from_nanos(res.stamp.as_nanos() + step);
            self.advance_stream(res.stamp)?;
            self.bound_names(values, events)?;
            let t = ns(res.stamp);
            let skip = first && resumed;
            first = false;
            let derived: Vec<FetchedSet> = (0..self.derived.len())
                .map(|k| self.derived[k].at_sample(&res, a))
                .collect();
            for set in res.sets.iter().chain(&derived) {
                if set.numval <= 0 {
                    continue;
                }
                let Some(&m) = self.metrics.get(&set.pmid) else {
                    continue;
                };
                for (inst, v) in &set.values {
                    let v = v.as_value();
                    let (mut value, txt) = convert(m.desc.vtype, &v);
                    if m.desc.sem == sem::COUNTER {
                        let scale = m.desc.units.time_rate_scale();
                        value = rates.rate((set.pmid, *inst), value, res.stamp, scale);
                        if value.is_none() {
                            continue;
                        }
                    }
                    if skip {
                        continue;
                    }
                    let gone = || r.gone(set.pmid, *inst);
                    let iname = self.inst_name(m.desc.indom, *inst, res.stamp, gone);
                    let inst = (!m.desc.indom.is_null()).then_some(*inst);
                    self.push_value(values, t, &m, (inst, iname), (value, txt))?;
                }
            }
            rates.roll();
        }
        Ok((Some(Resume::Interp { next_ns: ns(next) }), warning))
    }
}

impl Exporter<'_> {
    /// The derived metrics' values a forward fetch gives at this record (raw
    /// export), as rows.
    fn derived_at_record(
        &mut self,
        rec: &archive_format::ResultRecord<'_>,
        values: &mut Sink<ValueBuffer>,
    ) -> io::Result<()> {
        let t = ns(rec.stamp);
        for k in 0..self.derived.len() {
            let Some(set) = self.derived[k].at_record(rec, self.a) else {
                continue;
            };
            let Some(&m) = self.metrics.get(&set.pmid) else {
                continue;
            };
            for (inst, v) in &set.values {
                let iname = self.inst_name(m.desc.indom, *inst, rec.stamp, || false);
                let inst = (!m.desc.indom.is_null()).then_some(*inst);
                let value = convert(m.desc.vtype, &v.as_value());
                self.push_value(values, t, &m, (inst, iname), value)?;
            }
        }
        Ok(())
    }

    /// A value's row (number or text), into its day's part of the table.
    fn push_value(
        &mut self,
        values: &mut Sink<ValueBuffer>,
        time: i64,
        m: &Metric,
        (inst, iname): (Option<i32>, u32),
        (value, text): (Option<f64>, Option<Cow<'_, str>>),
    ) -> io::Result<()> {
        let row = value_row(time, m, (inst, iname), (value, text.map(Text::Made)));
        let date = self.dates.of(time);
        values.push(date, row, &mut self.names)
    }
}

/// A raw value set's rows, made one at a time as they are held (inlined into
/// the loop that holds them, not handed through memory).
struct SetRows<'a, 'm> {
    values: archive_format::codec::result::CheckedValues<'a>,
    inames: std::slice::Iter<'m, u32>,
    t: i64,
    m: &'m Metric,
    indom: bool,
}

impl<'a> Iterator for SetRows<'a, '_> {
    type Item = ValueRow<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<ValueRow<'a>> {
        let (inst, v) = self.values.next()?;
        let &iname = self.inames.next()?;
        let inst = self.indom.then_some(inst);
        let value = convert_stored(self.m.desc.vtype, &v);
        Some(value_row(self.t, self.m, (inst, iname), value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.values.len().min(self.inames.len());
        (n, Some(n))
    }
}

impl ExactSizeIterator for SetRows<'_, '_> {}

/// A value's row (number or text).
fn value_row<'a>(
    time: i64,
    m: &Metric,
    (inst, iname): (Option<i32>, u32),
    (value, text): (Option<f64>, Option<Text<'a>>),
) -> ValueRow<'a> {
    ValueRow {
        time,
        metric: m.name,
        pmid: m.pmid,
        inst,
        iname,
        value,
        text,
        mark: false,
    }
}

/// Counters' rates as pmval gives them: the change since the last sample, per
/// second (time counters scaled to a utilisation), so a rate needs the value of
/// the sample before.
#[derive(Default)]
struct Rates {
    /// The last fetch's counter values and their times.
    last: FastMap<(PmId, i32), (f64, Timestamp)>,
    /// This fetch's.
    now: FastMap<(PmId, i32), (f64, Timestamp)>,
}

impl Rates {
    /// The rate of the counter `key`, now `value` at `stamp`; `scale` is its
    /// units' time-rate scale.
    fn rate(
        &mut self,
        key: (PmId, i32),
        value: Option<f64>,
        stamp: Timestamp,
        scale: f64,
    ) -> Option<f64> {
        let x = value?;
        self.now.insert(key, (x, stamp));
        let &(y, at) = self.last.get(&key)?;
        let dt = stamp.sub_f64(at) * scale;
        (dt > 0.0).then(|| (x - y) / dt)
    }

    /// The fetch is over: its values become the last.
    fn roll(&mut self) {
        std::mem::swap(&mut self.last, &mut self.now);
        self.now.clear();
    }
}

/// [`convert`] for the raw export: a string value's bytes as the record holds
/// them (decoded only where they are not the series' last text again).
#[inline(always)]
fn convert_stored<'a>(ty: i32, v: &Value<'a>) -> (Option<f64>, Option<Text<'a>>) {
    if ty == vtype::STRING {
        return (None, archive_format::atom::text_bytes(v).map(Text::Stored));
    }
    let (value, text) = convert(ty, v);
    (value, text.map(Text::Made))
}

/// A value as the `value` (numbers) and `value_text` (strings; aggregates as hex)
/// columns hold it.
/// A text is borrowed from the value where it can be (most are, and most repeat
/// a text the rows held already have).
///
/// The numbers most values are read in line
/// ([`extract_number`](archive_format::atom::extract_number)), the other
/// types through [`extract`].
#[inline(always)]
fn convert<'a>(ty: i32, v: &Value<'a>) -> (Option<f64>, Option<Cow<'a, str>>) {
    match archive_format::atom::extract_number(ty, v) {
        Some(x) => (Some(x), None),
        None => convert_other(ty, v),
    }
}

/// [`convert`] of the types it does not read itself.
#[inline(never)]
fn convert_other<'a>(ty: i32, v: &Value<'a>) -> (Option<f64>, Option<Cow<'a, str>>) {
    if ty == vtype::STRING {
        return (None, archive_format::atom::extract_text(v));
    }
    match extract(ty, v) {
        Some(Atom::Bytes(b)) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            (None, Some(Cow::Owned(hex)))
        }
        Some(a) => (a.as_f64(), None),
        None => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_days() {
        let mut d = Dates::default();
        assert_eq!(d.of(0), "1970-01-01");
        assert_eq!(d.of(86_399_999_999_999), "1970-01-01");
        assert_eq!(d.of(86_400_000_000_000), "1970-01-02");
        assert_eq!(d.of(-1), "1969-12-31");
        // 2024-02-29 12:00 UTC
        assert_eq!(d.of(1_709_208_000_000_000_000), "2024-02-29");
    }

    #[test]
    fn an_archive_asks_for_what_its_volumes_hold() {
        use crate::memory::{LEAST, MOST};
        let files = |v: &[(&str, u64)]| -> std::collections::BTreeMap<String, u64> {
            v.iter().map(|(n, l)| (n.to_string(), *l)).collect()
        };
        // the .meta and .index are not values; 20 bytes a value, 8 bytes of volume
        let f = files(&[("a.meta", 1 << 30), ("a.index", 1 << 30), ("a.0", 8 << 20)]);
        assert_eq!(wanted(&f), 20 << 20);
        // a compressed volume at ten times its size; several volumes add up
        let f = files(&[
            ("a.0.xz", 1 << 19),
            ("a.1", 1 << 19),
            ("a.meta.xz", 1 << 30),
        ]);
        assert_eq!(wanted(&f), (11 << 19) * 5 / 2);
        assert_eq!(wanted(&files(&[("a.0", 10)])), LEAST);
        assert_eq!(wanted(&files(&[("a.0.bz2", 1 << 30)])), MOST);
    }

    #[test]
    fn names_as_directories() {
        assert_eq!(path_safe("web01.example.com"), "web01.example.com");
        assert_eq!(path_safe("a/b=c"), "a_b_c");
        assert_eq!(path_safe(""), "_");
        assert_eq!(path_safe(".."), "_..");
    }

    #[test]
    fn values_by_type() {
        assert_eq!(
            convert(vtype::I32, &Value::Insitu(u32::MAX)),
            (Some(-1.0), None)
        );
        let s = b"hello\0";
        assert_eq!(
            convert(vtype::STRING, &Value::Block { vtype: 6, data: s }),
            (None, Some("hello".into()))
        );
        assert_eq!(
            convert(
                vtype::AGGREGATE,
                &Value::Block {
                    vtype: 7,
                    data: &[1, 0xab]
                }
            ),
            (None, Some("01ab".into()))
        );
        assert_eq!(convert(vtype::U64, &Value::Insitu(1)), (None, None));
    }

    #[test]
    fn time_counters_scale_as_pmval() {
        use archive_format::Units;
        let d = |units: Units| Desc {
            pmid: PmId::new(1, 0, 0),
            vtype: vtype::U64,
            indom: InDom::NULL,
            sem: sem::COUNTER,
            units,
        };
        assert_eq!(d(Units(0)).units.time_rate_scale(), 1.0);
        // millisec: a rate of ms per second, scaled to seconds per second
        let ms = Units(0).with_time(1, 2);
        assert_eq!(d(ms).units.time_rate_scale(), 1000.0);
    }
}
