//! Reading the records of one archive the way libpcp's archive context reads them
//! under `pmSetMode(PM_MODE_FORW | PM_MODE_BACK)` and `pmFetchArchive`.
//!
//! [`Archive::records`] walks well-formed archives. Damaged ones are where the
//! reference's answers depend on *how* it reads: libpcp keeps one file position per
//! context, seeks with the temporal index (and trusts it: an index entry pointing
//! into the middle of a record makes the next read fail), fine-tunes by reading in
//! the opposite direction, skips records whose time runs against the direction of
//! travel, and leaves the position where a failed read left it. [`LogCursor`] models
//! that position and those moves, so that `pmdumplog` gives the reference's records
//! and errors on damaged archives as well.
//!
//! Only single archives are modelled (pmdumplog refuses multi-archive contexts).

use crate::archive::Archive;
use crate::codec::result::{
    decode_result, decode_result_for, decode_stamp, raw_result_into, RawValueSet, ResultRecord,
};
use crate::error::{Error, Result, PM_ERR_LOGFILE, PM_ERR_LOGREC};
use crate::types::{PmId, Timestamp};
use std::ops::Range;

/// Direction of travel, as `PM_MODE_FORW` / `PM_MODE_BACK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

impl Direction {
    /// Whether a record `d` seconds after the origin lies behind, against the
    /// direction of travel.
    fn behind(self, d: f64) -> bool {
        match self {
            Direction::Forward => d < 0.0,
            Direction::Backward => d > 0.0,
        }
    }

    fn opposite(self) -> Direction {
        match self {
            Direction::Forward => Direction::Backward,
            Direction::Backward => Direction::Forward,
        }
    }
}

/// Outcome of one low-level read.
enum Step {
    /// A whole, framed record; its payload is in the read window.
    Record(Span),
    /// End (or start) of the archive: `PM_ERR_EOL`.
    End,
    Bad(Error),
}

/// Where a record's payload is: its file offset and its bytes in the window.
#[derive(Debug, Clone)]
struct Span {
    data_at: u64,
    range: Range<usize>,
}

/// A record as [`LogCursor::fetch_raw`] hands it out: its time and payload (in the
/// cursor's read window, valid until the next read), and where it was read.
#[derive(Debug, Clone, Copy)]
pub struct RawFetched<'w> {
    pub stamp: Timestamp,
    pub payload: &'w [u8],
    pub place: RecordPlace,
}

/// The size of stdio's reads of a plain volume (the file system's block).
const STDIO_BLOCK: u64 = 4096;

/// A record as [`LogCursor::read_next_payload`] hands it out (valid until the
/// next read).
#[derive(Debug)]
pub struct ReadRecord<'w> {
    /// The number of the volume it is in.
    pub volume: u32,
    pub record: ResultRecord<'w>,
    pub payload: &'w [u8],
    /// The format version of its volume.
    pub version: u32,
}

/// A record as [`LogCursor::read_next_raw`] hands it out (valid until the next
/// read): its value sets read in place. No value sets means a `<mark>`.
#[derive(Debug)]
pub struct RawRecord<'w> {
    /// The number of the volume it is in.
    pub volume: u32,
    pub stamp: Timestamp,
    pub sets: Vec<RawValueSet<'w>>,
    pub payload: &'w [u8],
    /// The format version of its volume.
    pub version: u32,
}

/// Where a fetched record's payload was read: what decoding it (and naming the
/// place of a decoding error) needs once the payload has been copied elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordPlace {
    vol: Option<usize>,
    data_at: u64,
    version: u32,
}

impl RecordPlace {
    /// Decodes `payload`, the bytes of the record fetched here, as
    /// [`LogCursor::fetch`] would have: its errors name the volume and offset.
    pub fn decode<'p>(&self, a: &Archive, payload: &'p [u8]) -> Result<ResultRecord<'p>> {
        decode_result(payload, self.data_at, self.version).map_err(|e| decode_error(a, self.vol, e))
    }

    /// [`RecordPlace::decode`] keeping only the value sets of the metrics `keep`
    /// accepts, with how many sets the record holds (see
    /// [`crate::codec::result::decode_result_kept`]).
    pub fn decode_kept<'p>(
        &self,
        a: &Archive,
        payload: &'p [u8],
        keep: impl Fn(PmId) -> bool,
    ) -> Result<(ResultRecord<'p>, usize)> {
        crate::codec::result::decode_result_kept(payload, self.data_at, self.version, keep)
            .map_err(|e| decode_error(a, self.vol, e))
    }

    /// Checks `payload` as [`RecordPlace::decode`] would (the same errors) without
    /// collecting its values; its number of value sets.
    pub fn check(&self, a: &Archive, payload: &[u8]) -> Result<usize> {
        crate::codec::result::decode_result_for(payload, self.data_at, self.version, |_| false)
            .map(|r| r.vsets.len())
            .map_err(|e| decode_error(a, self.vol, e))
    }

    /// `payload`'s number of value sets and where they start when cut into `parts`
    /// runs (see [`crate::codec::result::value_set_starts`]).
    pub fn set_starts(&self, payload: &[u8], parts: usize) -> (usize, Vec<(usize, usize)>) {
        crate::codec::result::value_set_starts(payload, self.version, parts)
    }

    /// `count` value sets of a record [`RecordPlace::check`] found sound, from the
    /// one at `start` (see [`crate::codec::result::decode_result_part`]).
    pub fn decode_part<'p>(
        &self,
        a: &Archive,
        payload: &'p [u8],
        start: (usize, usize),
        count: usize,
    ) -> Result<ResultRecord<'p>> {
        crate::codec::result::decode_result_part(payload, self.data_at, self.version, start, count)
            .map_err(|e| decode_error(a, self.vol, e))
    }
}

/// Bytes of one volume read into memory. Records are read through this window
/// (`pread` in chunks), not through the volume's memory map: a long sequential read
/// then holds one chunk, whatever size of page-cache folio a fault on the map would
/// bring into the process.
#[derive(Default)]
struct Window {
    vol: Option<usize>,
    start: u64,
    buf: Vec<u8>,
}

/// How much a window read brings in at least.
const CHUNK: usize = 128 * 1024;

/// A file position in an archive's data volumes: `vol` is an index into the
/// archive's volume list, `off` may lie past the end of the file (a seek there
/// succeeds; the next read finds the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    vol: Option<usize>,
    off: u64,
}

/// Replays an archive record by record as libpcp does in `PM_MODE_FORW` or
/// `PM_MODE_BACK`; see the module documentation.
///
/// ```no_run
/// use archive_format::{Archive, logfetch::{Direction, LogCursor}};
/// let a = Archive::open("/var/lib/pcp/testsuite/archives/ok-foo")?;
/// let end = a.end_time()?;
/// let mut c = LogCursor::new(&a);
/// c.set_mode(Direction::Backward, end);
/// while let Some(rec) = c.fetch()? {
///     println!("{:?} {} metrics", rec.stamp, rec.vsets.len());
/// }
/// # Ok::<(), archive_format::Error>(())
/// ```
pub struct LogCursor<'a> {
    a: &'a Archive,
    /// The file position now.
    cur: Pos,
    /// Where the last successful fetch (or positioning) left off; each fetch starts
    /// from here.
    saved: Pos,
    /// Whether reads may go on from `saved` without positioning again.
    serial: bool,
    origin: Timestamp,
    dir: Direction,
    win: Window,
    /// Where the payload of the record [`LogCursor::fetch_raw`] handed out last is
    /// in the window, while it is there.
    last_raw: Option<Range<usize>>,
    /// Position as if there were no temporal index (pmlogcheck's answer to a bad one).
    no_index: bool,
    /// Where the last read started (a failed read that goes back leaves it there).
    read_start: u64,
}

impl<'a> LogCursor<'a> {
    /// A cursor as a new archive context has it: at the first record of the first
    /// usable volume, forward, origin at the archive's start.
    pub fn new(a: &'a Archive) -> LogCursor<'a> {
        let first = (0..a.volume_count()).find(|&i| a.vol_bytes(i).is_some());
        let start = Pos {
            vol: first,
            off: first.map_or(a.label_len(), |v| a.vol_label_len(v)),
        };
        LogCursor {
            a,
            cur: start,
            saved: start,
            serial: false,
            origin: a.label().start,
            dir: Direction::Forward,
            win: Window::default(),
            last_raw: None,
            no_index: false,
            read_start: 0,
        }
    }

    /// From now on position as if the archive had no temporal index (what
    /// pmlogcheck does once it has found the index bad).
    pub fn ignore_index(&mut self) {
        self.no_index = true;
    }

    /// `pmSetMode(dir, origin)`: positions by the temporal index. A positioning
    /// failure is not reported here (libpcp ignores it too); the next
    /// [`LogCursor::fetch`] meets it again.
    pub fn set_mode(&mut self, dir: Direction, origin: Timestamp) {
        self.dir = dir;
        self.origin = origin;
        let _ = self.set_time();
    }

    /// Where `pmSetMode(dir, origin)` leaves the archive's read position, and
    /// whether reads may go on from there without positioning again (libpcp's
    /// `ac_serial`); `None` when no volume can be used.
    pub(crate) fn index_position(
        a: &'a Archive,
        dir: Direction,
        origin: Timestamp,
    ) -> Option<(crate::archive::Position, bool)> {
        let mut c = LogCursor::new(a);
        c.set_mode(dir, origin);
        let vol = c.saved.vol?;
        let pos = crate::archive::Position {
            vol,
            offset: c.saved.off,
        };
        Some((pos, c.serial))
    }

    /// `pmFetchArchive`: the next record in the direction of travel whose time is
    /// not against that direction, `None` at the end (`PM_ERR_EOL`). The origin moves
    /// to the record's time.
    pub fn fetch(&mut self) -> Result<Option<ResultRecord<'_>>> {
        let Some(span) = self.next_fetchable()? else {
            return Ok(None);
        };
        let (a, vol, version) = (self.a, self.cur.vol, self.version());
        match decode_result(&self.win.buf[span.range], span.data_at, version) {
            Ok(r) => {
                self.origin = r.stamp;
                self.saved = self.cur;
                Ok(Some(r))
            }
            Err(e) => Err(decode_error(a, vol, e)),
        }
    }

    /// [`LogCursor::fetch`] without decoding the record's value sets: the record
    /// fetch would return, as its time and payload, to be decoded by
    /// [`RecordPlace::decode`] (later, or on another thread, from a copy of the
    /// payload). A record whose value sets do not decode is handed out here where
    /// `fetch` would fail; its decoding then gives `fetch`'s error.
    pub fn fetch_raw(&mut self) -> Result<Option<RawFetched<'_>>> {
        let Some(span) = self.next_fetchable()? else {
            return Ok(None);
        };
        let place = RecordPlace {
            vol: self.cur.vol,
            data_at: span.data_at,
            version: self.version(),
        };
        let payload = &self.win.buf[span.range.clone()];
        match decode_stamp(payload, span.data_at, place.version) {
            Ok(stamp) => {
                self.origin = stamp;
                self.saved = self.cur;
                self.last_raw = Some(span.range);
                Ok(Some(RawFetched {
                    stamp,
                    payload,
                    place,
                }))
            }
            // fetch's error, whatever part of the record it is found in
            Err(e) => Err(match place.decode(self.a, payload) {
                Err(full) => full,
                Ok(_) => decode_error(self.a, place.vol, e),
            }),
        }
    }

    /// The read buffer holding the payload of the record [`LogCursor::fetch_raw`]
    /// handed out last, and where the payload is in it: taken, not copied, for a
    /// caller that keeps a large record (which is read into a buffer of its own)
    /// while the cursor reads on into `spare` (a buffer taken earlier and done
    /// with, say, so that the same few buffers go round). `None` once the cursor
    /// has been asked for anything since.
    pub fn take_payload(&mut self, spare: Vec<u8>) -> Option<(Vec<u8>, Range<usize>)> {
        let range = self.last_raw.take()?;
        self.win.vol = None;
        Some((std::mem::replace(&mut self.win.buf, spare), range))
    }

    /// Gives the cursor `buf` to read into when it has no buffer of its own (it
    /// has given it away to [`LogCursor::take_payload`] for an empty spare);
    /// else hands `buf` back.
    pub fn lend_buffer(&mut self, buf: Vec<u8>) -> Option<Vec<u8>> {
        if self.win.buf.capacity() > 0 {
            return Some(buf);
        }
        self.win.vol = None;
        self.win.buf = buf;
        self.win.buf.clear();
        None
    }

    /// The framed record fetch hands out next (records against the direction of
    /// travel skipped, as libpcp skips them), its payload in the window.
    fn next_fetchable(&mut self) -> Result<Option<Span>> {
        self.last_raw = None;
        // re-establish the position of the last fetch
        let saved = self.saved;
        match saved.vol {
            Some(v) if self.change_vol(v) => self.cur.off = saved.off,
            _ => return Err(self.error(PM_ERR_LOGFILE, "no usable data volume", None)),
        }
        loop {
            if !self.serial {
                self.set_time()?;
                self.saved = self.cur;
                // fine-tune: back up against the direction of travel until past the
                // origin
                while let Some(stamp) = self.read_valid(self.dir.opposite()) {
                    let d = stamp.sub_f64(self.origin);
                    if self.dir.behind(d) || d == 0.0 {
                        break;
                    }
                    self.saved = self.cur;
                }
                self.serial = true;
            }
            let span = match self.read(self.dir) {
                Step::Record(span) => span,
                Step::End => return Ok(None),
                Step::Bad(e) => return Err(e),
            };
            let version = self.version();
            let payload = &self.win.buf[span.range.clone()];
            let behind = match decode_stamp(payload, span.data_at, version) {
                Ok(t) => self.dir.behind(t.sub_f64(self.origin)),
                Err(_) => false,
            };
            if !behind {
                return Ok(Some(span));
            }
            // skipped, but a record that does not decode is an error still
            if let Err(e) = decode_result(payload, span.data_at, version) {
                return Err(self.decode_error(e));
            }
        }
    }

    /// `__pmLogRead(.., PM_MODE_FORW, .., PMLOGREAD_NEXT)`: the next record from the
    /// file position as it stands, with no positioning by time and no skipping,
    /// going on into later volumes; `None` at the end. With the record comes the
    /// number of the volume it is in. `pmlogcheck` reads this way.
    pub fn read_next(&mut self) -> Result<Option<(u32, ResultRecord<'_>)>> {
        Ok(self.read_next_payload()?.map(|r| (r.volume, r.record)))
    }

    /// [`LogCursor::read_next`], with the record's payload as read and the
    /// format version it is in (for a caller that copies records it does not
    /// change, after [`crate::codec::result::scan_canonical`]).
    pub fn read_next_payload(&mut self) -> Result<Option<ReadRecord<'_>>> {
        self.read_next_for(|_| true)
    }

    /// [`LogCursor::read_next_payload`], with the values of only the metrics
    /// `keep` takes (the others' value sets are there without values; see
    /// [`crate::codec::result::decode_result_for`]): the same records and errors.
    pub fn read_next_for(&mut self, keep: impl Fn(PmId) -> bool) -> Result<Option<ReadRecord<'_>>> {
        let Some((volume, version, span)) = self.read_next_span()? else {
            return Ok(None);
        };
        let (a, vol) = (self.a, self.cur.vol);
        let payload = &self.win.buf[span.range];
        decode_result_for(payload, span.data_at, version, keep)
            .map(|record| {
                Some(ReadRecord {
                    volume,
                    record,
                    payload,
                    version,
                })
            })
            .map_err(|e| decode_error(a, vol, e))
    }

    /// The next record from the file position forward (see
    /// [`LogCursor::read_next`]): its volume's number and format version, and
    /// where its payload is; `None` at the end.
    fn read_next_span(&mut self) -> Result<Option<(u32, u32, Span)>> {
        match self.read(Direction::Forward) {
            Step::Record(span) => {
                let num = self.cur.vol.map_or(0, |v| self.a.volume_number(v));
                Ok(Some((num, self.version(), span)))
            }
            Step::End => Ok(None),
            Step::Bad(e) => Err(e),
        }
    }

    /// [`LogCursor::read_next_payload`] with the record's value sets read in place
    /// (see [`crate::codec::result::raw_result_into`]), not decoded: the same
    /// records and errors.
    pub fn read_next_raw(&mut self) -> Result<Option<RawRecord<'_>>> {
        let Some((volume, version, span)) = self.read_next_span()? else {
            return Ok(None);
        };
        let (a, vol) = (self.a, self.cur.vol);
        let payload = &self.win.buf[span.range];
        let mut sets = Vec::new();
        raw_result_into(payload, span.data_at, version, &mut sets)
            .map(|stamp| {
                Some(RawRecord {
                    volume,
                    stamp,
                    sets,
                    payload,
                    version,
                })
            })
            .map_err(|e| decode_error(a, vol, e))
    }

    /// The format version of the volume the file position is in.
    fn version(&self) -> u32 {
        self.cur
            .vol
            .map_or(self.a.version(), |v| self.a.vol_version(v))
    }

    /// What libpcp's tools report as the place of a failed read
    /// (`__pmLseek(fp, 0, SEEK_CUR)` on the current volume, and its
    /// `__pmFstat` size): an xz volume's lseek answers 0 and its size is the
    /// decompressed one; a plain volume is read through stdio in 4 KB blocks,
    /// so the system's position is the end of the block the read reached (or
    /// the end of the file), unless the failed read sought back to its start.
    pub fn reported_position(&self) -> Option<(u64, u64)> {
        let v = self.cur.vol?;
        let size = self.size(v);
        if self.a.vol_path(v).extension().is_some_and(|e| e == "xz") {
            return Some((0, size));
        }
        let off = self.cur.off;
        let here = match off == self.read_start {
            true => off,
            false => off.next_multiple_of(STDIO_BLOCK).min(size),
        };
        Some((here, size))
    }

    /// The number of the volume the file position is in (`ac_vol`).
    pub fn volume(&self) -> Option<u32> {
        self.cur.vol.map(|v| self.a.volume_number(v))
    }

    /// A read that also decodes the record (so that a record that does not decode
    /// fails the read): its time, or `None` when the read failed or found the end.
    fn read_valid(&mut self, dir: Direction) -> Option<Timestamp> {
        let Step::Record(span) = self.read(dir) else {
            return None;
        };
        decode_result(&self.win.buf[span.range], span.data_at, self.version())
            .ok()
            .map(|r| r.stamp)
    }

    fn decode_error(&self, e: crate::error::DecodeError) -> Error {
        decode_error(self.a, self.cur.vol, e)
    }

    /// Makes `len` bytes of volume `v` at `off` (which the caller has checked lie
    /// in the volume) present in the window; their place there. The window is read
    /// ahead in the direction of travel.
    fn window(&mut self, v: usize, off: u64, len: usize, dir: Direction) -> Result<Range<usize>> {
        let w = &mut self.win;
        let have =
            w.vol == Some(v) && off >= w.start && off + len as u64 <= w.start + w.buf.len() as u64;
        if !have {
            self.last_raw = None;
            let size = self.a.vol_size(v).unwrap_or(0);
            let want = len.max(CHUNK) as u64;
            let (start, end) = match dir {
                Direction::Forward => (off, size.min(off + want)),
                Direction::Backward => {
                    let end = off + len as u64;
                    (end.saturating_sub(want), end)
                }
            };
            // going forward from inside the window (a record longer than what is
            // left of it, whose length word was read with the chunk before), the
            // bytes it holds move to its front and only the rest is read
            let kept = match (dir, w.vol == Some(v)) {
                (Direction::Forward, true) if off >= w.start => {
                    let from = ((off - w.start) as usize).min(w.buf.len());
                    w.buf.copy_within(from.., 0);
                    w.buf.len() - from
                }
                _ => 0,
            };
            w.vol = None;
            // (a window of the same size as the last is not cleared first: the
            // read fills it)
            let n = (end - start) as usize;
            if w.buf.len() < n {
                w.buf.resize(n, 0);
            }
            w.buf.truncate(n);
            let kept = kept.min(n);
            if let Err(e) = self
                .a
                .vol_read_at(v, start + kept as u64, &mut w.buf[kept..])
            {
                w.buf.clear();
                return Err(Error::io(self.a.vol_path(v), &e));
            }
            w.vol = Some(v);
            w.start = start;
        }
        let at = (off - w.start) as usize;
        Ok(at..at + len)
    }

    /// Going forward, makes the whole record from `p` to its trailer at `t`
    /// present in the window at once (the chunk read with its length word may end
    /// before its trailer, and the trailer's would start there).
    fn whole_record(&mut self, v: usize, p: u64, t: u64, dir: Direction) -> Result<()> {
        if dir == Direction::Forward {
            self.window(v, p, (t + 4 - p) as usize, dir)?;
        }
        Ok(())
    }

    fn word(&mut self, v: usize, off: u64, dir: Direction) -> Result<i32> {
        let r = self.window(v, off, 4, dir)?;
        let b = &self.win.buf[r];
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn error(&self, code: i32, what: &str, off: Option<u64>) -> Error {
        let e = Error::pcp(code, what);
        match self.cur.vol {
            Some(v) => e.at(self.a.vol_path(v), off),
            None => e,
        }
    }

    fn size(&self, v: usize) -> u64 {
        self.a.vol_size(v).unwrap_or(0)
    }

    /// Makes volume `v` current; a volume that is not current already starts at its
    /// first record. `false` when it is missing or unusable (the current one stays).
    fn change_vol(&mut self, v: usize) -> bool {
        if self.cur.vol == Some(v) {
            return true;
        }
        if self.a.vol_bytes(v).is_none() {
            return false;
        }
        self.cur = Pos {
            vol: Some(v),
            off: self.a.vol_label_len(v),
        };
        true
    }

    fn change_vol_num(&mut self, num: i32) -> bool {
        match (0..self.a.volume_count()).find(|&i| self.a.volume_number(i) as i32 == num) {
            Some(i) => self.change_vol(i),
            None => false,
        }
    }

    /// The volume reading goes on in after volume `v`, as libpcp changes
    /// volume: the next whose label says it is that volume (one that says
    /// otherwise is passed over), except volume 1 of an archive of volumes 0
    /// and 1, which is read on whatever its label says: libpcp's record of the
    /// volumes it has checked leaves that entry as malloc left it (not 0, on
    /// glibc), and it then takes the volume as checked.
    fn next_volume(&self, v: usize) -> Option<usize> {
        let a = self.a;
        let last = a.volume_count().checked_sub(1)?;
        (v + 1..=last).find(|&w| {
            if a.vol_bytes(w).is_none() {
                return false;
            }
            let unchecked = w == last && a.volume_number(w) == 1 && a.volume_number(v) == 0;
            unchecked || a.vol_label_matches(w)
        })
    }

    /// A seek: to a negative offset it fails and the position stays.
    fn seek(&mut self, off: i64) {
        if off >= 0 {
            self.cur.off = off as u64;
        }
    }

    /// One record read in `dir` from the current position, moving the position as
    /// libpcp's record reader does, on success and on every kind of failure.
    fn read(&mut self, dir: Direction) -> Step {
        let a = self.a;
        let Some(mut v) = self.cur.vol else {
            return Step::End;
        };
        // where this read started (backward: the end of the record wanted); failed
        // reads at the end of a volume go back there
        let mut offset = self.cur.off;
        self.read_start = offset;
        if dir == Direction::Backward {
            loop {
                if offset <= a.vol_label_len(v) {
                    // before this volume's first record: the end of an earlier one
                    match (0..v).rev().find(|&w| a.vol_bytes(w).is_some()) {
                        Some(w) => {
                            self.change_vol(w);
                            v = w;
                            offset = self.size(w);
                            self.cur.off = offset;
                        }
                        None => return Step::End,
                    }
                } else {
                    self.cur.off = offset - 4;
                    break;
                }
            }
        }
        loop {
            let Some(size) = a.vol_size(v) else {
                return Step::End;
            };
            let p = self.cur.off;
            if p >= size || size - p < 4 {
                // the end of this volume: go on in a later one
                self.cur.off = offset;
                match self.next_volume(v) {
                    Some(w) => {
                        self.change_vol(w);
                        v = w;
                        continue;
                    }
                    None => return Step::End,
                }
            }
            let head = match self.word(v, p, dir) {
                Ok(h) => h,
                Err(e) => return Step::Bad(e),
            };
            self.cur.off = p + 4;
            let rlen = head as i64 - 8;
            if rlen < 0 || (dir == Direction::Backward && rlen > offset as i64) {
                return Step::Bad(self.error(
                    PM_ERR_LOGREC,
                    "illegal record length (truncated volume?)",
                    Some(p),
                ));
            }
            if dir == Direction::Backward {
                self.seek(self.cur.off as i64 - 4 - rlen);
            }
            let data_at = self.cur.off;
            if data_at > size || size - data_at < rlen as u64 {
                self.cur.off = offset;
                return Step::Bad(self.error(PM_ERR_LOGREC, "record body is cut short", Some(p)));
            }
            self.cur.off = data_at + rlen as u64;
            if dir == Direction::Backward {
                self.seek(self.cur.off as i64 - rlen - 4);
            }
            let t = self.cur.off;
            if t > size || size - t < 4 {
                self.cur.off = offset;
                return Step::Bad(self.error(PM_ERR_LOGREC, "record trailer is missing", Some(t)));
            }
            let trail = match self
                .whole_record(v, p, t, dir)
                .and_then(|_| self.word(v, t, dir))
            {
                Ok(w) => w,
                Err(e) => return Step::Bad(e),
            };
            self.cur.off = t + 4;
            if trail != head {
                return Step::Bad(self.error(
                    PM_ERR_LOGREC,
                    "record trailer does not match its header",
                    Some(t),
                ));
            }
            if dir == Direction::Backward {
                self.cur.off -= 4;
            }
            return match self.window(v, data_at, rlen as usize, dir) {
                Ok(range) => Step::Record(Span { data_at, range }),
                Err(e) => Step::Bad(e),
            };
        }
    }

    /// Gross positioning by the temporal index (or at either end without one), as
    /// libpcp's `__pmLogSetTime`: sets the position and whether fetches may read on
    /// serially from it.
    fn set_time(&mut self) -> Result<()> {
        let a = self.a;
        let ti = if self.no_index { &[] } else { a.index() };
        let nvol = a.volume_count();
        if nvol == 0 {
            return Err(self.error(PM_ERR_LOGFILE, "no data volume", None));
        }
        let (minvol, maxvol) = self.vol_range();
        let dir = self.dir;
        if ti.is_empty() {
            let found = match dir {
                Direction::Forward => (0..nvol).find(|&i| self.change_vol(i)),
                Direction::Backward => (0..nvol).rev().find(|&i| self.change_vol(i)),
            };
            let Some(v) = found else {
                self.cur.vol = None;
                return Err(self.error(PM_ERR_LOGFILE, "no usable data volume", None));
            };
            self.cur.off = match dir {
                Direction::Forward => a.vol_label_len(v),
                Direction::Backward => self.size(v),
            };
            self.saved = self.cur;
            return Ok(());
        }
        // The last volume's size bounds its index offsets (a truncated volume); libpcp
        // takes it from the file open at the time once that volume has been looked at.
        let cur_size = self.cur.vol.map(|v| self.size(v)).unwrap_or(0);
        let numti = ti.len();
        let mut j = numti;
        let mut toobig = false;
        let mut exact = false;
        for (i, e) in ti.iter().enumerate() {
            let tivol = e.vol as i64;
            if tivol < minvol {
                continue;
            }
            if tivol == maxvol && e.off_data > cur_size as i64 {
                j = i;
                toobig = true;
                break;
            }
            let t_hi = e.stamp.sub_f64(self.origin);
            if t_hi >= 0.0 {
                j = i;
                exact = t_hi == 0.0;
                break;
            }
        }
        // which entry, the direction to look for a usable volume from it, and
        // whether fetches may then read on serially
        let between = !exact && j >= 1 && j < numti;
        let (entry, look, serial) = if exact {
            (j, dir, dir == Direction::Forward)
        } else if j < 1 {
            (0, Direction::Forward, true)
        } else if j == numti {
            (numti - 1, Direction::Backward, dir == Direction::Forward)
        } else {
            // between two index points: the nearer one, unless the later is bogus
            let t_hi = ti[j].stamp.sub_f64(self.origin);
            let t_lo = self.origin.sub_f64(ti[j - 1].stamp);
            if t_hi <= t_lo && !toobig {
                (j, dir, dir == Direction::Backward)
            } else {
                (j - 1, dir, dir == Direction::Forward)
            }
        };
        // (libpcp marks the context serial before it looks for the volume)
        self.serial = true;
        let Some(chosen) = self.vol_skip(look, entry) else {
            return Err(self.error(PM_ERR_LOGFILE, "no volume for the index entry", None));
        };
        self.serial = serial;
        self.seek(ti[chosen].off_data);
        if between && serial && dir == Direction::Forward {
            // index offsets are record ends: back up one record
            let _ = self.read(Direction::Backward);
        }
        self.saved = self.cur;
        Ok(())
    }

    /// The lowest and highest volume numbers present (there is at least one).
    fn vol_range(&self) -> (i64, i64) {
        let n = self.a.volume_count();
        (
            self.a.volume_number(0) as i64,
            self.a.volume_number(n.saturating_sub(1)) as i64,
        )
    }

    /// Makes the volume of index entry `j` current, or, when that volume cannot be
    /// used, the volume of the nearest entry in `dir` that can; that entry.
    fn vol_skip(&mut self, dir: Direction, mut j: usize) -> Option<usize> {
        let ti = self.a.index();
        let (minvol, maxvol) = self.vol_range();
        let mut vol = ti[j].vol;
        while minvol <= vol as i64 && vol as i64 <= maxvol {
            if self.change_vol_num(vol) {
                return Some(j);
            }
            match dir {
                Direction::Forward => {
                    j = (j + 1..ti.len()).find(|&k| ti[k].vol != vol)?;
                }
                Direction::Backward => {
                    j = (0..j).rev().find(|&k| ti[k].vol != vol)?;
                }
            }
            vol = ti[j].vol;
        }
        None
    }
}

/// A record that does not decode, as the error of the read that met it.
fn decode_error(a: &Archive, vol: Option<usize>, e: crate::error::DecodeError) -> Error {
    let err = Error::pcp(PM_ERR_LOGREC, e.to_string());
    match vol {
        Some(v) => err.at(a.vol_path(v), Some(e.offset)),
        None => err,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::result::OwnedValueSet;
    use crate::error::PM_ERR_LOGREC;
    use crate::types::{sem, vtype, Desc, InDom, PmId, Units};
    use crate::writer::{ArchiveWriter, WriterOptions};

    const P: PmId = PmId(0x0400_0001);

    /// Writes a v2 archive with one 32-bit value per record at the given seconds;
    /// `index` picks, per record, whether an index entry precedes it (with its time
    /// and pointing at its start, as pmlogger's do; the first record always has one). Returns the directory, base name and each record's
    /// start offset.
    fn archive(secs: &[i64], index: &[bool]) -> (tempfile::TempDir, String, Vec<u64>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("a").to_string_lossy().into_owned();
        let mut w = ArchiveWriter::create(
            &base,
            WriterOptions {
                version: 2,
                hostname: "h".into(),
                timezone: "UTC".into(),
                auto_index: false,
                ..Default::default()
            },
        )
        .expect("create");
        let desc = Desc {
            pmid: P,
            vtype: vtype::I32,
            indom: InDom::NULL,
            sem: sem::INSTANT,
            units: Units(0),
        };
        w.put_desc(desc, &["a.b".into()]).expect("desc");
        let mut starts = Vec::new();
        for (k, &s) in secs.iter().enumerate() {
            let t = Timestamp::new(s, 0);
            let vs = OwnedValueSet::insitu(P, vec![(-1, k as u32 * 1000 + 7)]);
            if k == 0 || index.get(k) == Some(&true) {
                let (m, d) = (w.meta_offset(), w.data_offset());
                w.put_index_at(t, m, d).expect("index");
            }
            starts.push(w.write_result(t, &[vs]).expect("result"));
        }
        w.close().expect("close");
        (dir, base, starts)
    }

    fn stamps(c: &mut LogCursor<'_>) -> Result<Vec<i64>> {
        let mut v = Vec::new();
        while let Some(r) = c.fetch()? {
            v.push(r.stamp.sec);
        }
        Ok(v)
    }

    #[test]
    fn a_failed_read_is_reported_where_libpcps_stdio_leaves_the_file() {
        let secs: Vec<i64> = (100..400).collect();
        let (_d, base, starts) = archive(&secs, &[]);
        let vol = format!("{base}.0");
        let mut bytes = std::fs::read(&vol).expect("reads");
        let size = bytes.len() as u64;
        // record 150's trailer no longer matches its header: libpcp read the
        // whole record through a 4 KB stdio buffer and does not seek back
        let s151 = starts[151] as usize;
        bytes[s151 - 1] ^= 0x40;
        std::fs::write(&vol, &bytes).expect("writes");
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        let mut n = 0;
        while c.read_next().is_ok_and(|r| r.is_some()) {
            n += 1;
        }
        assert_eq!(n, 150);
        let want = (s151 as u64).next_multiple_of(4096).min(size);
        assert_eq!(c.reported_position(), Some((want, size)));
        // cut in the middle of record 10: the read seeks back to its start
        bytes.truncate(starts[10] as usize + 12);
        std::fs::write(&vol, &bytes).expect("writes");
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        while c.read_next().is_ok_and(|r| r.is_some()) {}
        assert_eq!(
            c.reported_position(),
            Some((starts[10], bytes.len() as u64))
        );
    }

    #[test]
    fn forward_and_backward_visit_every_record() {
        let (_d, base, _) = archive(
            &[100, 101, 102, 103, 104],
            &[true, false, true, false, true],
        );
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        assert_eq!(
            stamps(&mut c).expect("forward"),
            vec![100, 101, 102, 103, 104]
        );
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Backward, a.end_time().expect("end"));
        assert_eq!(
            stamps(&mut c).expect("backward"),
            vec![104, 103, 102, 101, 100]
        );
    }

    /// Records shorter and longer than a window's chunk, in turn (a long one's
    /// length word is read with the chunk before it, the rest of it after), come
    /// back whole both ways, also when the cursor's buffer is taken from it.
    #[test]
    fn records_longer_than_a_chunk_are_read_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("a").to_string_lossy().into_owned();
        let opts = WriterOptions {
            version: 2,
            hostname: "h".into(),
            timezone: "UTC".into(),
            ..Default::default()
        };
        let mut w = ArchiveWriter::create(&base, opts).expect("create");
        let desc = Desc {
            pmid: P,
            vtype: vtype::U32,
            indom: InDom(0x0400_0001),
            sem: sem::INSTANT,
            units: Units(0),
        };
        w.put_desc(desc, &["a.b".into()]).expect("desc");
        // instances per record (8 bytes each): from a few bytes to 2.5 chunks
        let counts = [1usize, 40_000, 3, 17_000, 16_380, 5, 33_000, 2];
        for (k, &n) in counts.iter().enumerate() {
            let vals = (0..n).map(|i| (i as i32, (k * 7 + i) as u32)).collect();
            let vs = OwnedValueSet::insitu(P, vals);
            w.write_result(Timestamp::new(100 + k as i64, 0), &[vs])
                .expect("result");
        }
        w.close().expect("close");
        let a = Archive::open(&base).expect("open");
        let check = |k: usize, r: &ResultRecord<'_>| {
            assert_eq!(r.stamp.sec, 100 + k as i64);
            let vs = &r.vsets[0];
            assert_eq!(vs.numval as usize, counts[k]);
            let want = (k * 7 + counts[k] - 1) as u32;
            let last = (
                counts[k] as i32 - 1,
                crate::codec::result::Value::Insitu(want),
            );
            assert_eq!(vs.values.last(), Some(&last));
        };
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        for k in 0..counts.len() {
            if k % 2 == 0 {
                check(k, &c.fetch().expect("forward").expect("a record"));
                continue;
            }
            // the payload handed out raw, its buffer taken and lent back
            let raw = c.fetch_raw().expect("forward").expect("a record");
            let place = raw.place;
            let (buf, range) = c.take_payload(Vec::new()).expect("the payload");
            check(k, &place.decode(&a, &buf[range]).expect("decodes"));
            assert!(c.lend_buffer(buf).is_none());
        }
        assert!(c.fetch().expect("the end").is_none());
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Backward, a.end_time().expect("end"));
        for k in (0..counts.len()).rev() {
            check(k, &c.fetch().expect("backward").expect("a record"));
        }
    }

    #[test]
    fn positioning_by_the_index_starts_at_the_origin() {
        let (_d, base, _) = archive(&[100, 101, 102, 103, 104], &[true, true, true, true, true]);
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, Timestamp::new(102, 500_000_000));
        assert_eq!(stamps(&mut c).expect("forward"), vec![103, 104]);
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Backward, Timestamp::new(102, 0));
        assert_eq!(stamps(&mut c).expect("backward"), vec![102, 101, 100]);
    }

    #[test]
    fn records_against_the_direction_of_travel_are_skipped() {
        let (_d, base, _) = archive(&[100, 101, 99, 102], &[]);
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        assert_eq!(stamps(&mut c).expect("forward"), vec![100, 101, 102]);
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Backward, Timestamp::new(102, 0));
        assert_eq!(stamps(&mut c).expect("backward"), vec![102, 99]);
    }

    /// A copy of volume 0 (its label saying 0) placed as volume `n`, with one
    /// record made later than every other (so that reading it shows).
    fn copy_volume(base: &str, n: u32) {
        let mut v0 = std::fs::read(format!("{base}.0")).expect("volume 0");
        let first = crate::codec::label::Label::len_for(2) as usize;
        // the first record's seconds word, after its length word
        v0[first + 4..first + 8].copy_from_slice(&500i32.to_be_bytes());
        std::fs::write(format!("{base}.{n}"), v0).expect("copy");
    }

    #[test]
    fn a_volume_whose_label_says_otherwise_is_passed_over_except_a_last_volume_1() {
        // volume 1 alone after 0: libpcp reads on in it whatever its label says
        let (_d, base, _) = archive(&[100, 101], &[]);
        copy_volume(&base, 1);
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        assert_eq!(stamps(&mut c).expect("forward"), vec![100, 101, 500]);
        // volumes 1 and 2 both copies, or 2 alone: neither is changed to
        for copies in [&[1, 2][..], &[2]] {
            let (_d, base, _) = archive(&[100, 101], &[]);
            for &n in copies {
                copy_volume(&base, n);
            }
            let a = Archive::open(&base).expect("open");
            let mut c = LogCursor::new(&a);
            c.set_mode(Direction::Forward, a.label().start);
            assert_eq!(
                stamps(&mut c).expect("forward"),
                vec![100, 101],
                "{copies:?}"
            );
        }
    }

    #[test]
    fn an_index_entry_inside_a_record_is_trusted_and_fails() {
        // as in PCP's pcp-mpstat3: the last index entry points 20 bytes into the
        // last record; reading backwards from the end starts there
        let (_d, base, starts) = archive(&[100, 101, 102], &[true, false, false]);
        let mut idx = std::fs::read(format!("{base}.index")).expect("index");
        let last = starts[2] + 20;
        for w in [102i32, 0, 0, 0, last as i32] {
            idx.extend_from_slice(&w.to_be_bytes());
        }
        std::fs::write(format!("{base}.index"), idx).expect("write index");
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Backward, Timestamp::new(102, 0));
        let e = stamps(&mut c).expect_err("garbage at the index offset");
        assert_eq!(e.pm_err(), PM_ERR_LOGREC);
        // forward reading from the start does not use that entry
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        assert_eq!(stamps(&mut c).expect("forward"), vec![100, 101, 102]);
    }

    #[test]
    fn raw_fetches_hand_out_what_fetch_decodes_and_fail_alike() {
        let (_d, base, starts) = archive(&[100, 101, 99, 102, 103], &[]);
        // record 3's value set count made impossible: fetch fails there
        let data = format!("{base}.0");
        let mut bytes = std::fs::read(&data).expect("data");
        let at = starts[3] as usize + 4 + 8;
        bytes[at..at + 4].copy_from_slice(&0x7fff_0000u32.to_be_bytes());
        std::fs::write(&data, &bytes).expect("write");
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        let mut r = LogCursor::new(&a);
        r.set_mode(Direction::Forward, a.label().start);
        // 100, 101, then 99 is skipped (behind), then the damaged record
        for want in [100, 101] {
            let raw = r.fetch_raw().expect("raw").expect("record");
            let payload = raw.payload.to_vec();
            let f = c.fetch().expect("fetch").expect("record");
            assert_eq!((raw.stamp.sec, f.stamp.sec), (want, want));
            assert_eq!(raw.place.decode(&a, &payload).expect("decode"), f);
        }
        let fe = c.fetch().expect_err("damaged");
        let raw = r.fetch_raw().expect("framed").expect("record");
        assert_eq!(raw.stamp.sec, 102);
        let payload = raw.payload.to_vec();
        let re = raw.place.decode(&a, &payload).expect_err("damaged");
        assert_eq!(re.to_string(), fe.to_string());
        assert!(re.to_string().contains(&format!("{}", at)), "{re}");
    }

    #[test]
    fn a_raw_payload_taken_is_the_one_handed_out_and_reading_goes_on() {
        let (_d, base, _) = archive(&[100, 101, 102, 103], &[]);
        let a = Archive::open(&base).expect("open");
        let mut r = LogCursor::new(&a);
        r.set_mode(Direction::Forward, a.label().start);
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        assert!(
            r.take_payload(Vec::new()).is_none(),
            "nothing handed out yet"
        );
        for (k, want) in [100, 101, 102, 103].into_iter().enumerate() {
            let raw = r.fetch_raw().expect("raw").expect("record");
            let (copy, place) = (raw.payload.to_vec(), raw.place);
            assert_eq!(raw.stamp.sec, want);
            if k == 0 {
                // an empty spare, and the buffer taken lent back to read into
                let (buf, range) = r.take_payload(Vec::new()).expect("taken");
                assert_eq!(&buf[range], &copy[..]);
                assert!(r.take_payload(Vec::new()).is_none(), "taken once");
                assert_eq!(r.lend_buffer(buf), None, "lent");
                assert_eq!(r.lend_buffer(vec![1]), Some(vec![1]), "has one");
            }
            if k == 2 {
                // a spare holding old bytes
                let (buf, range) = r.take_payload(vec![0xee; 7]).expect("taken");
                assert_eq!(&buf[range], &copy[..]);
            }
            let f = c.fetch().expect("fetch").expect("record");
            assert_eq!(place.decode(&a, &copy).expect("decode"), f);
        }
        assert!(r.fetch_raw().expect("end").is_none());
        assert!(r.take_payload(Vec::new()).is_none(), "nothing at the end");
    }

    #[test]
    fn a_truncated_last_record_ends_forward_reading_with_an_error() {
        let (_d, base, starts) = archive(&[100, 101, 102], &[]);
        let data = format!("{base}.0");
        let bytes = std::fs::read(&data).expect("data");
        std::fs::write(&data, &bytes[..starts[2] as usize + 10]).expect("truncate");
        let a = Archive::open(&base).expect("open");
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        assert_eq!(c.fetch().expect("first").map(|r| r.stamp.sec), Some(100));
        assert_eq!(c.fetch().expect("second").map(|r| r.stamp.sec), Some(101));
        assert_eq!(c.fetch().expect_err("cut short").pm_err(), PM_ERR_LOGREC);
    }
}
