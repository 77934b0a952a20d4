//! The values section: records read as pmFetch reads them and their values
//! formatted, on as many threads as there are cores (whichever is free formats
//! the next job; the main thread writes the jobs' text in order).

use super::*;

#[allow(clippy::too_many_arguments)]
pub(super) fn dump_values(
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
    let windowed = o.clock.windowed();
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
        let fetched = match cur.fetch_raw() {
            Ok(Some(f)) => decoded(a, &f.place, f.payload, wanted),
            Ok(None) => return out.write_all(&line).map(|_| 0),
            Err(e) => Err(e),
        };
        let (rec, sets) = match fetched {
            Ok(f) => f,
            Err(e) => {
                out.write_all(&line)?;
                out.flush()?;
                writeln!(err, "{}: pmFetch: {}", o.prog, e.pm_message())?;
                return Ok(1);
            }
        };
        if !picked(o, wanted, &rec, sets) {
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
pub(super) const PART_SETS: usize = 64;

/// Whether records may be dumped a part at a time: not with metric arguments (a
/// part would not know which sets of the whole the heading counts).
pub(super) fn splits(wanted: &[PmId]) -> bool {
    wanted.is_empty()
}

/// Payload bytes of the records of one job of [`dump_values_on`] (about 4 times as
/// many bytes of text).
pub(super) const JOB_BYTES: usize = 32 * 1024;

/// Room a text buffer starts with: a job's text, mostly.
pub(super) const TEXT_ROOM: usize = 5 * JOB_BYTES;

/// Records fetched in order, their payloads copied out of the read window; or a
/// part of one large record.
#[derive(Default)]
pub(super) struct Job {
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
pub(super) const PART_BYTES: usize = 32 * 1024;

/// Jobs made and not yet written, beyond one per thread: enough that a thread
/// seldom waits for the writer.
pub(super) const SPARE_JOBS: usize = 2;

/// A job's text, and the error that ends the run after it.
pub(super) struct Done {
    text: Vec<u8>,
    fail: Option<archive_format::Error>,
}

/// [`dump_values`] forward on `threads` threads (this one among them): whichever
/// is free fetches the next records (framing them and checking their times, as
/// pmFetch does) into a job and decodes and formats it, and this one writes the
/// jobs' text in order. The output is the same byte for byte as one thread's, a
/// fetch or decoding error included.
#[allow(clippy::too_many_arguments)]
pub(super) fn dump_values_on(
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
    let fmt = Formatter {
        a,
        o,
        wanted,
        c,
        payload_pool,
        record_pool,
    };
    let work = |cache: &mut MetricCache<'_>, job: Job| {
        let mut text = text_pool.take(TEXT_ROOM);
        let fail = fmt.job(cache, job, &mut text);
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
                writeln!(err, "{}: pmFetch: {}", o.prog, e.pm_message())
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

/// What [`dump_values_on`]'s threads need to format a job.
struct Formatter<'a, 'p> {
    a: &'a Archive,
    o: &'a Opts,
    wanted: &'a [PmId],
    c: &'a Clock,
    payload_pool: &'p Pool,
    record_pool: &'p Pool,
}

impl Formatter<'_, '_> {
    /// Decodes and formats a job into `text`, giving its buffers back; the
    /// error that ends the run after it.
    fn job(
        &self,
        cache: &mut MetricCache<'_>,
        job: Job,
        text: &mut Vec<u8>,
    ) -> Option<archive_format::Error> {
        let (a, o, wanted, c) = (self.a, self.o, self.wanted, self.c);
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
                    let _ = dump_record(a, &rec, Some(part), o, wanted, c, cache, text);
                }
                Err(e) => fail = Some(e),
            }
            // the last part done gives the read buffer back
            if let Ok(r) = std::sync::Arc::try_unwrap(record) {
                self.record_pool.give(r.buf);
            }
            return fail;
        }
        let mut from = 0;
        for &(end, place) in &job.recs {
            let (rec, sets) = match decoded(a, &place, &job.payloads[from..end], wanted) {
                Ok(r) => r,
                Err(e) => {
                    fail = Some(e);
                    break;
                }
            };
            from = end;
            if picked(o, wanted, &rec, sets) {
                // writing to a Vec does not fail
                let _ = dump_record(a, &rec, None, o, wanted, c, cache, text);
            }
        }
        self.payload_pool.give(job.payloads);
        fail
    }
}

/// Where [`dump_values_on`]'s jobs come from: records fetched in order (framed,
/// and their times checked, as pmFetch does), their payloads copied out of the
/// read window into jobs of about [`JOB_BYTES`], and a large record cut into parts.
pub(super) struct Source<'a, 'p> {
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
    pub(super) fn next(&mut self) -> Option<Job> {
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
    pub(super) fn cut(r: Record, place: RecordPlace, parts: &mut std::collections::VecDeque<Job>) {
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
pub(super) struct Record {
    buf: Vec<u8>,
    range: std::ops::Range<usize>,
}

impl Record {
    pub(super) fn payload(&self) -> &[u8] {
        self.buf.get(self.range.clone()).unwrap_or_default()
    }
}

/// Byte buffers handed back for reuse.
#[derive(Default)]
pub(super) struct Pool(std::sync::Mutex<Vec<Vec<u8>>>);

impl Pool {
    /// A buffer handed back earlier (emptied), or a new one.
    pub(super) fn take(&self, room: usize) -> Vec<u8> {
        let got = self.0.lock().map(|mut p| p.pop()).unwrap_or_default();
        got.unwrap_or_else(|| Vec::with_capacity(room))
    }

    /// A buffer handed back earlier, if there is one.
    pub(super) fn try_take(&self) -> Option<Vec<u8>> {
        self.0.lock().ok()?.pop()
    }

    pub(super) fn give(&self, mut b: Vec<u8>) {
        b.clear();
        if let Ok(mut p) = self.0.lock() {
            p.push(b);
        }
    }
}

/// A record as the dump decodes it: whole without metric arguments, with only
/// the wanted metrics' sets with them; and how many sets it holds.
fn decoded<'p>(
    a: &Archive,
    place: &RecordPlace,
    payload: &'p [u8],
    wanted: &[PmId],
) -> archive_format::Result<(ResultRecord<'p>, usize)> {
    if wanted.is_empty() {
        let rec = place.decode(a, payload)?;
        let sets = rec.vsets.len();
        return Ok((rec, sets));
    }
    place.decode_kept(a, payload, |p| wanted.contains(&p))
}

/// Whether a record is dumped: every one without metric arguments; with them, a
/// `<mark>` with `-m`, and a record holding a wanted metric. `rec` holds the sets
/// of the wanted metrics, of the `sets` the record holds.
pub(super) fn picked(o: &Opts, wanted: &[PmId], rec: &ResultRecord<'_>, sets: usize) -> bool {
    wanted.is_empty()
        || if sets == 0 {
            o.marks
        } else {
            rec.vsets.iter().any(|vs| wanted.contains(&vs.pmid))
        }
}

/// Bytes of records the backward dump collects before it writes them (in one
/// write, straight through the output's buffer).
pub(super) const OUT_BATCH: usize = 128 * 1024;

/// The output's buffer (the run shell's): a batch of records, or a job's text, is
/// larger and goes straight through (copying it into the buffer would cost as much
/// as making it).
const _: () = assert!(OUT_BATCH > cli_common::shell::OUT_BUF);

/// A value's text and the newline; the common numeric cases without the fmt
/// machinery.
pub(super) fn push_value(line: &mut Vec<u8>, ty: i32, valfmt: i32, v: &Value<'_>) {
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
pub(super) fn string_end(data: &[u8]) -> usize {
    data.iter().position(|&b| b == 0).unwrap_or(data.len())
}

pub(super) fn push_text(line: &mut Vec<u8>, ty: i32, valfmt: i32, v: &Value<'_>) {
    line.extend_from_slice(format_value(ty, valfmt, v).as_bytes());
    line.push(b'\n');
}

#[allow(clippy::too_many_arguments)]
pub(super) fn dump_record(
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
pub(super) struct Part {
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
pub(super) fn dump_sets(
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
        if !indom.is_null() {
            cache.enter_set(indom, snap);
        }
        for (j, (inst, v)) in vs.values.iter().enumerate() {
            if !plain {
                if many {
                    line.extend_from_slice(b"       ");
                }
                if !indom.is_null() {
                    cache.push_inst_at(j, indom, *inst, snap, line);
                } else {
                    line.extend_from_slice(b" value ");
                }
            }
            push_value(line, ty, vs.valfmt, v);
        }
    }
    Ok(())
}

pub(super) fn dump_event(
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
