//! Rows on their way to part files: buffered compactly per date, and written
//! out series by series when the memory they may hold is full.
//!
//! A `values` row group holds each series (a metric's instance) as one run in
//! time order, series by metric and instance name: runs of one metric, one
//! instance and slowly changing values are what Parquet's dictionary and
//! run-length encodings and zstd compress best, and each row group names a
//! range of metrics in its statistics, which engines skip by. Values come from
//! the archive a record (a time) at a time, so they are held, 20 bytes each,
//! until the part's share of memory is full, and the longer that is the longer
//! the runs.

use crate::chunk::Zstd;
use crate::table;
use crate::table::{text, Col, Part};
use crate::values::{self, Columns, Encoded, Held};
use archive_format::codec::event::flags_str;
use archive_format::cores;
use parquet::data_type::ByteArray;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The name id of no name (a null).
pub const NONE: u32 = u32::MAX;

/// Finds the names of placeholders (see [`Names::placeholder`]) from their keys:
/// a name each, or none (a null).
pub type Resolver<'a> = Box<dyn FnMut(&[u64]) -> io::Result<Vec<Option<String>>> + 'a>;

/// Names interned once per archive: a metric's name and PMID, instance names.
///
/// A name may be found only later: a placeholder stands for it in the rows, and
/// the resolver gives the names of those waiting before any row is written.
#[derive(Default)]
pub struct Names<'a> {
    text: Vec<Option<ByteArray>>,
    by_text: FastMap<Box<str>, u32>,
    /// The names kept for good (see [`Names::pin`]).
    pinned: usize,
    /// Memory the names after those take, roughly.
    bytes: usize,
    /// Placeholders not yet resolved: their id and key.
    waiting: Vec<(u32, u64)>,
    resolver: Option<Resolver<'a>>,
}

/// What an interned name costs besides its bytes, at most: two copies' headers
/// and allocations, the list's entry (twice over as it doubles) and the map's
/// (whose table is between 7/16 and 7/8 full).
const NAME_OVERHEAD: usize = 160;

impl<'a> Names<'a> {
    /// Names whose placeholders `resolver` finds.
    pub fn with_resolver(resolver: Resolver<'a>) -> Self {
        Names {
            resolver: Some(resolver),
            ..Names::default()
        }
    }

    pub fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.by_text.get(s) {
            return i;
        }
        let i = self.text.len() as u32;
        self.text.push(Some(text(s)));
        self.by_text.insert(s.into(), i);
        self.bytes += 2 * s.len() + NAME_OVERHEAD;
        i
    }

    /// A name to be found later by its `key` (see [`Names::settle`]).
    pub fn placeholder(&mut self, key: u64) -> u32 {
        let i = self.text.len() as u32;
        self.text.push(None);
        self.waiting.push((i, key));
        self.bytes += NAME_OVERHEAD;
        i
    }

    /// Finds the names of the placeholders waiting (before rows holding them
    /// are written or sorted).
    pub fn settle(&mut self) -> io::Result<()> {
        if self.waiting.is_empty() {
            return Ok(());
        }
        let keys: Vec<u64> = self.waiting.iter().map(|&(_, k)| k).collect();
        let found = match self.resolver.as_mut() {
            Some(r) => r(&keys)?,
            None => Vec::new(),
        };
        let mut found = found.into_iter();
        for (i, _) in std::mem::take(&mut self.waiting) {
            let name = found.next().flatten();
            self.bytes += name.as_ref().map_or(0, String::len);
            if let Some(slot) = self.text.get_mut(i as usize) {
                *slot = name.as_deref().map(text);
            }
        }
        Ok(())
    }

    /// Keeps the names known for good: [`Names::forget`] goes back to them, and
    /// [`Names::bytes`] counts what comes after.
    pub fn pin(&mut self) {
        self.pinned = self.text.len();
        self.bytes = 0;
    }

    /// Memory the names interned since they were pinned take, roughly.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every name interned since they were pinned (once no row held
    /// names them: their ids are given again).
    pub fn forget(&mut self) {
        let keep = self.pinned;
        self.text.truncate(keep);
        self.by_text.retain(|_, i| (*i as usize) < keep);
        self.waiting.retain(|&(i, _)| (i as usize) < keep);
        self.by_text.shrink_to_fit();
        self.text.shrink_to_fit();
        self.bytes = 0;
    }

    /// The name; none (a null) for `NONE`.
    pub fn get(&self, i: u32) -> Option<ByteArray> {
        self.text.get(i as usize).cloned().flatten()
    }
    /// Every name by its id, as they are now (shared, not copied).
    pub fn snapshot(&self) -> Vec<Option<ByteArray>> {
        self.text.clone()
    }
    /// The name's bytes (empty for `NONE`, so that nulls sort first).
    pub fn str(&self, i: u32) -> &[u8] {
        self.text
            .get(i as usize)
            .and_then(Option::as_ref)
            .map_or(&[], |b| b.data())
    }
}

/// One row of `values` (its text borrowed from the record where it can be).
pub struct ValueRow<'a> {
    pub time: i64,
    pub metric: u32,
    pub pmid: u32,
    pub inst: Option<i32>,
    pub iname: u32,
    pub value: Option<f64>,
    pub text: Option<Text<'a>>,
    pub mark: bool,
}

/// A row's text: a string value's bytes as the record holds them (decoded only
/// when they are not its series' last text again: a text metric mostly repeats
/// its value), or a text made.
pub enum Text<'a> {
    Stored(&'a [u8]),
    Made(Cow<'a, str>),
}

impl<'a> Text<'a> {
    /// Whether it is `held` (a text decoded from bytes that hold no character
    /// of the range standing for raw bytes is those bytes).
    fn is(&self, held: &str) -> bool {
        match self {
            Text::Stored(b) => *b == held.as_bytes() && archive_format::text::decodes_to_itself(b),
            Text::Made(t) => **t == *held,
        }
    }

    fn decoded(self) -> Cow<'a, str> {
        match self {
            Text::Stored(b) => archive_format::text::from_bytes_cow(b),
            Text::Made(t) => t,
        }
    }
}

/// One row of `events`.
pub struct EventRow {
    pub time: i64,
    pub metric: u32,
    pub inst: Option<i32>,
    pub iname: u32,
    pub record: i32,
    pub record_time: i64,
    pub flags: u32,
    pub param: u32,
    pub param_pmid: u32,
    pub value: Option<f64>,
    pub text: Option<Box<str>>,
}

/// Rows of one dataset held for a part file until they are written.
pub trait Buffer: Default {
    type Row<'a>;
    fn push(&mut self, row: Self::Row<'_>);
    /// Pushes rows one after the other (in one loop, where the rows are
    /// made and held together).
    #[inline]
    fn push_each<'r>(&mut self, rows: impl Iterator<Item = Self::Row<'r>>) {
        for r in rows {
            self.push(r);
        }
    }
    /// Makes room for `bytes` of rows at once (growing a vector a row at a
    /// time would hold the old and the new memory at the moment it doubles).
    fn reserve(&mut self, _bytes: usize) {}
    /// The memory held by rows (bytes, roughly; what stays when they are
    /// written, such as the series known, is not counted).
    fn bytes(&self) -> usize;
    /// The rows held.
    fn rows(&self) -> usize;
    /// Writes what is held to `part` (row groups of `row_group` rows at most)
    /// and lets the memory go. With `last` (the part is finished next) the
    /// rows are in the file when it returns; otherwise they may be encoded on
    /// another thread, and are in the file after the next write.
    fn write(
        &mut self,
        part: &mut Part,
        names: &Names,
        row_group: usize,
        last: bool,
    ) -> io::Result<()>;
    /// Forgets what it keeps from one write to the next that names hold ids of
    /// (after a write, before the names are forgotten).
    fn forget_names(&mut self) {}
}

/// Rows of one dataset on their way to part files, one open part per date.
pub struct Sink<B> {
    dir: PathBuf,
    schema: String,
    prefix: String,
    /// Rows in a row group, at most.
    row_group: usize,
    /// Bytes the buffers of all open parts may hold (the largest is written out
    /// when they hold more).
    budget: usize,
    open: Vec<(String, Part, B)>,
    seq: usize,
    written: Vec<PathBuf>,
    rows: u64,
}

impl<B: Buffer> Sink<B> {
    pub fn new(
        dir: PathBuf,
        schema: String,
        prefix: String,
        row_group: usize,
        budget: usize,
    ) -> Self {
        Sink {
            dir,
            schema,
            prefix,
            row_group: row_group.max(1),
            budget,
            open: Vec::new(),
            seq: 0,
            written: Vec::new(),
            rows: 0,
        }
    }

    pub fn push(&mut self, date: &str, row: B::Row<'_>, names: &mut Names) -> io::Result<()> {
        let k = self.slot(date, names)?;
        self.push_at(k, row, names)
    }

    /// Pushes rows of one date (a record's value set): where they all fit in
    /// the row group being filled, with one look at the memory held after
    /// them, not one a row.
    pub fn push_all<'r>(
        &mut self,
        date: &str,
        rows: impl ExactSizeIterator<Item = B::Row<'r>>,
        names: &mut Names,
    ) -> io::Result<()> {
        let k = self.slot(date, names)?;
        let n = rows.len();
        let buf = &mut self.open[k].2;
        if buf.rows() + n >= self.row_group {
            for r in rows {
                self.push_at(k, r, names)?;
            }
            return Ok(());
        }
        buf.push_each(rows);
        self.rows += n as u64;
        self.bound(names)
    }

    /// The open part of `date` (opened if it is not).
    fn slot(&mut self, date: &str, names: &mut Names) -> io::Result<usize> {
        match self.open.iter().position(|(d, _, _)| d == date) {
            Some(k) => Ok(k),
            None => self.open_part(date, names),
        }
    }

    fn push_at(&mut self, k: usize, row: B::Row<'_>, names: &mut Names) -> io::Result<()> {
        let buf = &mut self.open[k].2;
        buf.push(row);
        self.rows += 1;
        if buf.rows() >= self.row_group {
            // a row group's worth: written whole (a part of one more would
            // make a short row group, which compresses worse)
            names.settle()?;
            let (_, part, buf) = &mut self.open[k];
            return buf.write(part, names, self.row_group, false);
        }
        self.bound(names)
    }

    /// Writes out the largest buffer when the buffers hold more than the
    /// budget.
    fn bound(&mut self, names: &mut Names) -> io::Result<()> {
        let mut held = 0;
        let mut most = (0, 0);
        for (k, (_, _, b)) in self.open.iter().enumerate() {
            let n = b.bytes();
            held += n;
            if n > most.1 {
                most = (k, n);
            }
        }
        if held > self.budget {
            names.settle()?;
            let (_, part, buf) = &mut self.open[most.0];
            buf.write(part, names, self.row_group, false)?;
        }
        Ok(())
    }

    /// Writes every row held, and forgets the ids of names kept for the rows
    /// to come (so that the names may be forgotten).
    pub fn flush(&mut self, names: &mut Names) -> io::Result<()> {
        names.settle()?;
        for (_, part, buf) in &mut self.open {
            if buf.bytes() > 0 {
                buf.write(part, names, self.row_group, false)?;
            }
            buf.forget_names();
        }
        Ok(())
    }

    /// Opens the part of `date`; time having moved on to it, the parts of the
    /// days before close (a record that goes back in time opens a new part).
    fn open_part(&mut self, date: &str, names: &mut Names) -> io::Result<usize> {
        names.settle()?;
        let mut keep = Vec::new();
        for (d, mut p, mut b) in std::mem::take(&mut self.open) {
            if d.as_str() < date {
                b.write(&mut p, names, self.row_group, true)?;
                if let Some(f) = p.finish()? {
                    self.written.push(f);
                }
            } else {
                keep.push((d, p, b));
            }
        }
        self.open = keep;
        let path = self
            .dir
            .join(format!("date={date}"))
            .join(format!("{}-{}.parquet", self.prefix, self.seq));
        self.seq += 1;
        let mut buf = B::default();
        buf.reserve(self.budget);
        self.open
            .push((date.to_string(), Part::create(path, &self.schema)?, buf));
        Ok(self.open.len() - 1)
    }

    /// Writes what is held and closes the parts: the files written, the rows.
    pub fn finish(mut self, names: &mut Names) -> io::Result<(Vec<PathBuf>, u64)> {
        names.settle()?;
        for (_, mut p, mut b) in std::mem::take(&mut self.open) {
            b.write(&mut p, names, self.row_group, true)?;
            if let Some(f) = p.finish()? {
                self.written.push(f);
            }
        }
        Ok((self.written, self.rows))
    }

    pub fn abandon(self) {
        for (_, p, _) in self.open {
            p.abandon();
        }
    }
}

/// Rows handed to a part at a time.
const BATCH: usize = 8192;

/// A series: what its rows share.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Series {
    pub metric: u32,
    pub pmid: u32,
    pub inst: Option<i32>,
    pub iname: u32,
    pub mark: bool,
}

/// A held value: its series, the index of its time and what it is, in 16
/// bytes (the rows written a row group at a time are as long as the memory
/// holds them, and the longer a series' run the better it compresses).
#[derive(Clone, Copy)]
pub(crate) struct Cell {
    pub s: u32,
    /// The index of the time; [`NOT_NUMBER`] set when `v` is not a number's
    /// bits but the index of a text ([`NO_VALUE`] for no value at all). A
    /// buffer never holds 2^31 times: it is written out at its budget, which
    /// is far below 2^31 cells.
    pub t: u32,
    pub v: u64,
}

pub(crate) const NOT_NUMBER: u32 = 1 << 31;
pub(crate) const NO_VALUE: u64 = u64::MAX;

impl Cell {
    pub fn time(&self) -> u32 {
        self.t & !NOT_NUMBER
    }

    /// Whether `v` is a number's bits.
    pub fn is_number(&self) -> bool {
        self.t & NOT_NUMBER == 0
    }
}

/// How many cells at the start of `cells` are numbers.
pub(crate) fn leading_numbers(cells: &[Cell]) -> usize {
    cells.iter().take_while(|c| c.is_number()).count()
}

/// Series known from one write to the next, at most (about 4 MB).
pub const SERIES_KEPT: usize = 1 << 15;

/// Memory a known series takes at most: its key, the series that follows it
/// and its last text in the lists (twice over as they double) and its key in
/// the map (whose table is between 7/16 and 7/8 full, a control byte a slot).
/// The series new since the last write are counted with the values held: where
/// processes come and go, a series may have a value or two.
const SERIES_BYTES: usize = 2 * (size_of::<Series>() + 8) + (size_of::<Series>() + 4 + 1) * 16 / 7;

/// Memory a distinct text takes besides its two copies: their headers and
/// allocations, the list's entry (twice over as it doubles) and the map's.
const TEXT_OVERHEAD: usize = 96;

/// Memory a held value is counted at: its cell, and a quarter of its copy in
/// the order of writing (the rest of that copy is counted with the row group
/// being encoded: `memory::cost`).
const CELL_BYTES: usize = size_of::<Cell>() + size_of::<Cell>() / 4;

/// `values` rows held in the order they come, each naming its series.
///
/// One vector holds them all and keeps its memory from one write to the next
/// (many small vectors, one per series, growing at their own pace leave the
/// heap in pieces that hold about twice what they hold).
#[derive(Default)]
pub struct ValueBuffer {
    ids: FastMap<Series, u32>,
    series: Vec<Series>,
    /// Series known from before the last write (not counted with the rows
    /// held: at most [`SERIES_KEPT`]).
    series_kept: usize,
    cells: Vec<Cell>,
    times: Vec<i64>,
    /// The texts held, each once (a text metric repeats its value), and
    /// their indices.
    texts: Vec<Box<str>>,
    text_ids: FastMap<Box<str>, u32>,
    text_bytes: usize,
    /// The row groups being encoded on another thread, and the compressors
    /// (theirs while they are out).
    pending: Option<Pending>,
    zstd: Option<Box<[Zstd; 2]>>,
    /// The memory of the last write's cells in the order of writing (16
    /// bytes a row, as many rows as a write holds).
    spare: Vec<Cell>,
    /// The series of the last value pushed, and for each series the one that
    /// came after it last time: records repeat their layouts, so the next
    /// value's series is most often the one that followed last time (found
    /// without a lookup in the map, whose table outgrows the caches; an
    /// instance that comes or goes is a lookup or two, once).
    last: u32,
    follows: Vec<u32>,
    /// Each series' last text, as its index in `texts` (a text metric mostly
    /// repeats its value: found again without hashing it).
    last_text: Vec<u32>,
    /// Each series' cells held (counted as they come: the sort places them
    /// without reading them all once more to count them).
    counts: Vec<usize>,
}

impl Buffer for ValueBuffer {
    type Row<'a> = ValueRow<'a>;

    #[inline]
    fn push(&mut self, r: ValueRow<'_>) {
        self.hold(r);
    }

    // (the default's loop through `push` leaves the row making and holding
    // apart: 62 M instructions more an archive of 2.7 M values)
    #[inline]
    fn push_each<'r>(&mut self, rows: impl Iterator<Item = ValueRow<'r>>) {
        for r in rows {
            self.hold(r);
        }
    }

    fn reserve(&mut self, bytes: usize) {
        let n = bytes / CELL_BYTES + 1;
        (self.cells, self.spare, self.zstd) = kept::take(n);
        // address space only: the pages are the system's until rows fill them
        // (and when there is not as much, the vector grows as it must)
        let _ = self.cells.try_reserve_exact(n);
        crate::memory::huge_pages(&self.cells);
    }

    fn rows(&self) -> usize {
        self.cells.len()
    }

    fn bytes(&self) -> usize {
        self.cells.len() * CELL_BYTES
            + self.times.len() * 8
            + self.text_bytes
            + (self.series.len() - self.series_kept) * SERIES_BYTES
    }

    fn forget_names(&mut self) {
        self.ids = FastMap::default();
        self.series = Vec::new();
        self.follows = Vec::new();
        self.last_text = Vec::new();
        self.counts = Vec::new();
        self.series_kept = 0;
    }

    fn write(
        &mut self,
        part: &mut Part,
        names: &Names,
        row_group: usize,
        last: bool,
    ) -> io::Result<()> {
        self.settle(part)?;
        let cols = Columns::of(part)?;
        // series by metric name, instance name and instance id (nulls first)
        let ranks = name_ranks(&self.series, names);
        let keys: Vec<_> = (self.series.iter())
            .map(|s| (!s.mark, ranks[&s.metric], ranks[&s.iname], s.inst))
            .collect();
        // each series in the order its values came, which is time order (a
        // record's time index grows as records come), in the memory of the
        // last write's (fresh memory would be faulted in page by page)
        let mut sorted = std::mem::take(&mut self.spare);
        series_sorted(&self.cells, &self.counts, &mut sorted, |a, b| {
            keys[a].cmp(&keys[b])
        });
        let rg = row_group.max(1);
        let held = Held {
            series: self.series.clone(),
            times: std::mem::take(&mut self.times),
            texts: std::mem::take(&mut self.texts),
            names: names.snapshot(),
        };
        self.written();
        let mut z = match self.zstd.take() {
            Some(z) => z,
            None => Box::new(zstds().map_err(|e| io::Error::other(e.to_string()))?),
        };
        let threads = cores::threads() > 1;
        if threads && !last {
            // encoded on another thread while the next rows come
            self.pending = Some(std::thread::spawn(move || {
                let out = sorted
                    .chunks(rg)
                    .map(|c| values::encode(c, &held, &cols, &mut z, false))
                    .collect();
                (z, sorted, out)
            }));
            return Ok(());
        }
        for c in sorted.chunks(rg) {
            part.append_group(values::encode(c, &held, &cols, &mut z, threads)?)?;
        }
        self.zstd = Some(z);
        self.spare = sorted;
        Ok(())
    }
}

impl ValueBuffer {
    /// Holds a row (inlined into the loop of [`Buffer::push_each`], with the
    /// making of the rows).
    #[inline(always)]
    fn hold(&mut self, r: ValueRow<'_>) {
        let key = Series {
            metric: r.metric,
            pmid: r.pmid,
            inst: r.inst,
            iname: r.iname,
            mark: r.mark,
        };
        if self.times.last() != Some(&r.time) {
            self.times.push(r.time);
        }
        let guess = self.follows.get(self.last as usize).copied();
        let s = match guess {
            Some(g) if self.series.get(g as usize) == Some(&key) => g,
            _ => {
                let s = self.series_id(key);
                if let Some(f) = self.follows.get_mut(self.last as usize) {
                    *f = s;
                }
                s
            }
        };
        self.last = s;
        if let Some(n) = self.counts.get_mut(s as usize) {
            *n += 1;
        }
        let t = (self.times.len() - 1) as u32;
        let (t, v) = match (r.value, r.text) {
            (_, Some(txt)) => (t | NOT_NUMBER, u64::from(self.text_id(s, txt))),
            (Some(v), None) => (t, v.to_bits()),
            (None, None) => (t | NOT_NUMBER, NO_VALUE),
        };
        self.cells.push(Cell { s, t, v });
    }

    /// The index of text `txt` of series `s` in the texts held (held when it
    /// is new).
    #[inline(never)]
    fn text_id(&mut self, s: u32, txt: Text<'_>) -> u32 {
        let last = self.last_text.get(s as usize).copied();
        if let Some(k) = last.filter(|&k| self.texts.get(k as usize).is_some_and(|x| txt.is(x))) {
            return k;
        }
        let txt = txt.decoded();
        let k = match self.text_ids.get(&*txt) {
            Some(&k) => k,
            None => {
                let k = self.texts.len() as u32;
                self.text_bytes += 2 * txt.len() + TEXT_OVERHEAD;
                let txt: Box<str> = txt.into();
                self.texts.push(txt.clone());
                self.text_ids.insert(txt, k);
                k
            }
        };
        if let Some(e) = self.last_text.get_mut(s as usize) {
            *e = k;
        }
        k
    }

    /// The id of a series, given to it when it is new.
    #[cold]
    #[inline(never)]
    fn series_id(&mut self, key: Series) -> u32 {
        if let Some(&s) = self.ids.get(&key) {
            return s;
        }
        let s = self.series.len() as u32;
        self.ids.insert(key, s);
        self.series.push(key);
        // (guessed as the next new series until another follows it)
        self.follows.push(s + 1);
        self.last_text.push(u32::MAX);
        self.counts.push(0);
        s
    }

    /// Puts the row groups being encoded on another thread into the part.
    fn settle(&mut self, part: &mut Part) -> io::Result<()> {
        let Some(h) = self.pending.take() else {
            return Ok(());
        };
        let (z, sorted, out) = h
            .join()
            .map_err(|_| io::Error::other("a thread encoding a row group failed"))?;
        self.zstd = Some(z);
        self.spare = sorted;
        for group in out? {
            part.append_group(group)?;
        }
        Ok(())
    }

    /// Lets the rows written go; the series stay known (the next rows are
    /// mostly theirs), unless they are many (processes come and go), and the
    /// cells' memory is kept.
    fn written(&mut self) {
        if self.series.len() > SERIES_KEPT {
            self.forget_names();
        }
        self.series_kept = self.series.len();
        self.counts.fill(0);
        self.cells.clear();
        self.times.clear();
        self.texts = Vec::new();
        self.text_ids = FastMap::default();
        self.text_bytes = 0;
    }
}

impl Drop for ValueBuffer {
    fn drop(&mut self) {
        // a row group being encoded is waited for (an export given up)
        if let Some(h) = self.pending.take() {
            if let Ok((z, sorted, _)) = h.join() {
                (self.zstd, self.spare) = (Some(z), sorted);
            }
        }
        let (cells, spare) = (
            std::mem::take(&mut self.cells),
            std::mem::take(&mut self.spare),
        );
        kept::put(cells, spare, self.zstd.take());
    }
}

/// The memory of the cells and the compressors of the last values buffer a
/// thread dropped, for its next: the next archive of a farm fills pages it has,
/// not fresh ones (about 20,000 page faults fewer an archive of 2.7 M values).
/// A buffer takes it only when it is no larger than what the buffer may hold,
/// so memory stays within the grants; [`kept::let_go`] gives it back while a
/// thread waits for a grant.
pub(crate) mod kept {
    use super::{Cell, Zstd};
    use std::cell::RefCell;

    type Kept = (Vec<Cell>, Vec<Cell>, Option<Box<[Zstd; 2]>>);

    thread_local! {
        static KEPT: RefCell<Kept> = const { RefCell::new((Vec::new(), Vec::new(), None)) };
    }

    /// What is kept (the vectors empty, when they hold no more than `n` cells
    /// each).
    pub(super) fn take(n: usize) -> Kept {
        let (cells, spare, z) = KEPT.with(|k| std::mem::take(&mut *k.borrow_mut()));
        let fits = |v: Vec<Cell>| if v.capacity() <= n { v } else { Vec::new() };
        (fits(cells), fits(spare), z)
    }

    pub(super) fn put(mut cells: Vec<Cell>, mut spare: Vec<Cell>, z: Option<Box<[Zstd; 2]>>) {
        cells.clear();
        spare.clear();
        // a thread ending drops them with its other locals
        let _ = KEPT.try_with(|k| *k.borrow_mut() = (cells, spare, z));
    }

    /// Frees the memory this thread keeps for its next values buffer.
    pub(crate) fn let_go() {
        let _ = KEPT.try_with(|k| *k.borrow_mut() = Default::default());
    }
}

/// Row groups encoded on another thread: the compressors and the sorted cells
/// back, and the groups encoded.
type Pending = std::thread::JoinHandle<(Box<[Zstd; 2]>, Vec<Cell>, io::Result<Vec<Encoded>>)>;

/// A part's pair of page compressors (one a thread).
fn zstds() -> parquet::errors::Result<[Zstd; 2]> {
    Ok([Zstd::new(table::ZSTD)?, Zstd::new(table::ZSTD)?])
}

/// The names of `series` (their metrics' and their instances') ranked in the
/// order of their texts, equal texts equal ranks: series are sorted by their
/// names' ranks, each text compared with a few others, not once for every pair
/// of series that holds it (a metric's name for every two of its instances).
fn name_ranks(series: &[Series], names: &Names) -> FastMap<u32, u32> {
    let mut ids: Vec<u32> = series.iter().flat_map(|s| [s.metric, s.iname]).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.sort_unstable_by(|&a, &b| names.str(a).cmp(names.str(b)));
    let mut ranks = FastMap::default();
    let mut rank = 0;
    for (k, &id) in ids.iter().enumerate() {
        if k > 0 && names.str(ids[k - 1]) != names.str(id) {
            rank = k as u32;
        }
        ranks.insert(id, rank);
    }
    ranks
}

/// `cells` in the order of writing, into `out`: runs of one series each, the
/// series in the order `cmp` gives and each run in the order its cells came (a
/// counting sort, `count` holding each series' cells: each cell is stored at
/// its place, and the stores do not wait for one another).
fn series_sorted(
    cells: &[Cell],
    count: &[usize],
    out: &mut Vec<Cell>,
    cmp: impl Fn(usize, usize) -> std::cmp::Ordering,
) {
    let nseries = count.len();
    let mut series: Vec<usize> = (0..nseries).filter(|&s| count[s] > 0).collect();
    series.sort_unstable_by(|&a, &b| cmp(a, b));
    // where each series' run starts, then how far it is filled; and where it ends
    let mut next = vec![0usize; nseries];
    let mut end = vec![0usize; nseries];
    let mut at = 0;
    for &s in &series {
        next[s] = at;
        at += count[s];
        end[s] = at;
    }
    out.clear();
    // exactly (a vector doubling would outgrow what is kept for the next)
    out.reserve_exact(at);
    crate::memory::huge_pages(out);
    // each cell to its place, in memory not written first (zeroing it would
    // cost as much again)
    let places = &mut out.spare_capacity_mut()[..at];
    for c in cells {
        if let Some(n) = next.get_mut(c.s as usize) {
            places[*n].write(*c);
            *n += 1;
        }
    }
    // every run filled to its end and no further: each place written once
    assert!(next == end, "each series holds the cells counted");
    set_len(out, at);
}

/// The length of `v` set to `n`, its first `n` places written.
#[allow(unsafe_code)]
fn set_len(v: &mut Vec<Cell>, n: usize) {
    // SAFETY: the caller wrote the first n places (as many as the capacity
    // reserved); a Cell is plain data.
    unsafe { v.set_len(n) }
}

/// `events` rows held in the order they come (there are few).
#[derive(Default)]
pub struct EventBuffer {
    rows: Vec<EventRow>,
    bytes: usize,
}

impl Buffer for EventBuffer {
    type Row<'a> = EventRow;

    fn push(&mut self, r: EventRow) {
        self.bytes += size_of::<EventRow>() + r.text.as_ref().map_or(0, |t| t.len());
        self.rows.push(r);
    }

    fn bytes(&self) -> usize {
        self.bytes
    }

    fn rows(&self) -> usize {
        self.rows.len()
    }

    fn write(
        &mut self,
        part: &mut Part,
        names: &Names,
        row_group: usize,
        _: bool,
    ) -> io::Result<()> {
        let rows = std::mem::take(&mut self.rows);
        self.bytes = 0;
        for batch in rows.chunks(BATCH) {
            part.write_grouped(event_cols(batch, names), row_group)?;
        }
        part.close_group()
    }
}

fn event_cols(rows: &[EventRow], names: &Names) -> Vec<Col> {
    let opt_text = |t: &Option<Box<str>>| t.as_deref().map(text);
    vec![
        Col::I64(rows.iter().map(|r| r.time).collect()),
        Col::Str(rows.iter().map(|r| names.get(r.metric)).collect()),
        Col::Str(rows.iter().map(|r| names.get(r.iname)).collect()),
        Col::I32(rows.iter().map(|r| r.inst).collect()),
        Col::I32(rows.iter().map(|r| Some(r.record)).collect()),
        Col::I64(rows.iter().map(|r| r.record_time).collect()),
        Col::I32(rows.iter().map(|r| Some(r.flags as i32)).collect()),
        Col::Str(
            rows.iter()
                .map(|r| Some(text(&flags_str(r.flags))))
                .collect(),
        ),
        Col::Str(rows.iter().map(|r| names.get(r.param)).collect()),
        Col::Str(rows.iter().map(|r| names.get(r.param_pmid)).collect()),
        Col::F64(rows.iter().map(|r| r.value).collect()),
        Col::Str(rows.iter().map(|r| opt_text(&r.text)).collect()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::VALUES;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::file::statistics::Statistics;
    use parquet::record::{Field, Row};

    use proptest::prelude::*;

    /// A row as it reads back: time, metric, instance, inst_id, pmid, value
    /// (a number's bits, or a text), mark.
    type Back = (
        i64,
        Option<String>,
        Option<String>,
        Option<i32>,
        Option<String>,
        Option<String>,
        bool,
    );

    /// A row pushed: time step, metric, instance, value, and what it is (0 a
    /// number, 1 a text, 2 NaN, 3 no value, 4 a mark).
    type In = (i64, usize, usize, u32, u8);

    const METRICS: [&str; 3] = ["b.m", "a.m", "c"];
    const INSTS: [Option<&str>; 3] = [None, Some("cpu1"), Some("cpu0")];
    const STORED: [&[u8]; 5] = [b"t0", b"t1", b"t2", b"t3", b"t4"];

    fn row_of(time: i64, &(_, m, i, v, kind): &In, names: &mut Names) -> ValueRow<'static> {
        let (inst, iname) = match INSTS[i] {
            Some(n) => (Some(i as i32), names.id(n)),
            None => (None, NONE),
        };
        let mut row = ValueRow {
            time,
            metric: names.id(METRICS[m]),
            pmid: names.id(&format!("pmid{m}")),
            inst,
            iname,
            value: None,
            text: None,
            mark: false,
        };
        match kind {
            0 => row.value = Some(f64::from(v) - 2.0),
            // texts as the records hold them, and made
            1 if v % 2 == 1 => row.text = Some(Text::Stored(STORED[v as usize])),
            1 => row.text = Some(Text::Made(format!("t{v}").into())),
            2 => row.value = Some(f64::NAN),
            3 => {}
            _ => {
                (row.metric, row.pmid, row.inst, row.iname) = (NONE, NONE, None, NONE);
                row.mark = true;
            }
        }
        row
    }

    fn expected(time: i64, r: &In) -> Back {
        let &(_, m, i, v, kind) = r;
        if kind == 4 {
            return (time, None, None, None, None, None, true);
        }
        let value = match kind {
            0 => Some((f64::from(v) - 2.0).to_bits().to_string()),
            1 => Some(format!("t{v}")),
            2 => Some(f64::NAN.to_bits().to_string()),
            _ => None,
        };
        let inst = INSTS[i].map(|_| i as i32);
        let (metric, pmid) = (Some(METRICS[m].to_string()), Some(format!("pmid{m}")));
        (
            time,
            metric,
            INSTS[i].map(String::from),
            inst,
            pmid,
            value,
            false,
        )
    }

    fn back_of(row: &Row) -> Back {
        let f: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        let s = |x: &Field| match x {
            Field::Str(s) => Some(s.clone()),
            _ => None,
        };
        let t = match f[0] {
            Field::TimestampMicros(t) => *t * 1000,
            Field::Long(t) => *t,
            other => panic!("time {other:?}"),
        };
        let inst = match f[3] {
            Field::Int(i) => Some(*i),
            _ => None,
        };
        let value = match (f[5], f[6]) {
            (Field::Double(v), Field::Null) => Some(v.to_bits().to_string()),
            (Field::Null, Field::Str(t)) => Some(t.clone()),
            (Field::Null, Field::Null) => None,
            other => panic!("value {other:?}"),
        };
        let mark = matches!(f[7], Field::Bool(true));
        (t, s(f[1]), s(f[2]), inst, s(f[4]), value, mark)
    }

    /// Each column's statistics in a row group bound its values and count
    /// its nulls.
    fn check_statistics(stats: &[&Statistics], rows: &[Back]) {
        let nulls = |f: &dyn Fn(&Back) -> bool| rows.iter().filter(|b| f(b)).count() as u64;
        let counts = [
            0,
            nulls(&|b| b.1.is_none()),
            nulls(&|b| b.2.is_none()),
            nulls(&|b| b.3.is_none()),
            nulls(&|b| b.4.is_none()),
            nulls(&|b| b.5.as_ref().is_none_or(|v| v.starts_with('t'))),
            nulls(&|b| b.5.as_ref().is_none_or(|v| !v.starts_with('t'))),
            0,
        ];
        for (k, (st, n)) in stats.iter().zip(counts).enumerate() {
            assert_eq!(st.null_count_opt(), Some(n), "column {k}'s nulls");
        }
        let times = rows.iter().map(|b| b.0);
        match stats[0] {
            Statistics::Int64(s) => {
                assert_eq!(s.min_opt().copied(), times.clone().min());
                assert_eq!(s.max_opt().copied(), times.max());
            }
            other => panic!("time's statistics {other:?}"),
        }
        let metrics = rows.iter().filter_map(|b| b.1.clone());
        match stats[1] {
            Statistics::ByteArray(s) => {
                let text = |b: Option<&ByteArray>| b.map(|b| b.as_utf8().unwrap().to_string());
                assert_eq!(text(s.min_opt()), metrics.clone().min());
                assert_eq!(text(s.max_opt()), metrics.max());
            }
            other => panic!("metric's statistics {other:?}"),
        }
        let numbers = rows.iter().filter_map(|b| {
            let v = f64::from_bits(b.5.as_ref()?.parse().ok()?);
            (!v.is_nan()).then_some(v)
        });
        match stats[5] {
            Statistics::Double(s) => {
                let least = numbers.clone().reduce(f64::min);
                assert_eq!(
                    s.min_opt().copied(),
                    least.map(|v| if v == 0.0 { -0.0 } else { v })
                );
                assert_eq!(
                    s.max_opt().copied(),
                    numbers.reduce(f64::max).map(|v| v + 0.0)
                );
            }
            other => panic!("value's statistics {other:?}"),
        }
    }

    /// Pushes `rows` through a sink of `budget` bytes and row groups of
    /// `row_group` rows, `at_once` rows at a time (one by one for 1); what the
    /// files hold, file by file in the order written (each row group's
    /// statistics checked).
    fn export(
        rows: &[In],
        budget: usize,
        row_group: usize,
        at_once: usize,
    ) -> (Vec<Back>, Vec<Back>) {
        let d = tempfile::tempdir().unwrap();
        let mut names = Names::default();
        let mut sink: Sink<ValueBuffer> = Sink::new(
            d.path().to_path_buf(),
            VALUES.to_string(),
            "part".into(),
            row_group,
            budget,
        );
        let (mut time, mut want) = (0, Vec::new());
        for chunk in rows.chunks(at_once.max(1)) {
            let mut held = Vec::new();
            for r in chunk {
                time += r.0;
                want.push(expected(time, r));
                held.push(row_of(time, r, &mut names));
            }
            if at_once == 1 {
                let row = held.pop().unwrap();
                sink.push("2020-01-01", row, &mut names).unwrap();
            } else {
                sink.push_all("2020-01-01", held.into_iter(), &mut names)
                    .unwrap();
            }
        }
        let (files, n) = sink.finish(&mut names).unwrap();
        assert_eq!(n, rows.len() as u64);
        let mut back = Vec::new();
        for f in files {
            let r = SerializedFileReader::new(std::fs::File::open(f).unwrap()).unwrap();
            for (k, g) in r.metadata().row_groups().iter().enumerate() {
                assert!(g.num_rows() as usize <= row_group);
                let group = r.get_row_group(k).unwrap();
                let rows: Vec<Back> = group
                    .get_row_iter(None)
                    .unwrap()
                    .map(|row| back_of(&row.unwrap()))
                    .collect();
                let stats: Vec<&Statistics> = g
                    .columns()
                    .iter()
                    .map(|c| c.statistics().unwrap())
                    .collect();
                check_statistics(&stats, &rows);
                back.extend(rows);
            }
        }
        (back, want)
    }

    #[test]
    fn stored_texts_are_the_texts_they_decode_to() {
        let mut b = ValueBuffer::default();
        let s = b.series_id(Series {
            metric: 1,
            pmid: 1,
            inst: None,
            iname: NONE,
            mark: false,
        });
        let raw: &[u8] = b"a\xffb";
        let k = b.text_id(s, Text::Stored(raw));
        assert_eq!(b.text_id(s, Text::Stored(raw)), k, "the same bytes again");
        let made = archive_format::text::from_bytes(raw);
        assert_eq!(
            b.text_id(s, Text::Made(made.into())),
            k,
            "what they decode to"
        );
        // a text holding a character that stands for a raw byte is not the
        // bytes it is written in: those decode to another text
        let odd = archive_format::text::from_bytes(b"\xff");
        let j = b.text_id(s, Text::Made(odd.clone().into()));
        assert_ne!(b.text_id(s, Text::Stored(odd.as_bytes())), j);
        assert_eq!(b.texts.len(), 3);
    }

    fn rows() -> impl Strategy<Value = Vec<In>> {
        prop::collection::vec(
            (
                0..3i64,
                0..3usize,
                0..3usize,
                0..5u32,
                prop_oneof![8 => Just(0u8), 1 => 1..5u8],
            ),
            0..300,
        )
    }

    #[test]
    fn names_rank_in_the_order_of_their_texts() {
        // a placeholder is found to have a name already known by another id
        let mut names = Names::with_resolver(Box::new(|keys: &[u64]| {
            Ok(keys.iter().map(|_| Some("kernel.a".to_string())).collect())
        }));
        let [b, a, x] = ["kernel.b", "kernel.a", "cpu0"].map(|t| names.id(t));
        let a2 = names.placeholder(7);
        names.settle().unwrap();
        let series = |metric, iname| Series {
            metric,
            pmid: 0,
            inst: None,
            iname,
            mark: false,
        };
        let all = [
            series(b, x),
            series(a, NONE),
            series(b, NONE),
            series(a2, x),
        ];
        let ranks = name_ranks(&all, &names);
        assert_eq!(ranks.len(), 5);
        // no name (NONE) has the empty text, first; equal texts, equal ranks
        assert_eq!(ranks[&NONE], 0);
        assert_eq!((ranks[&x], ranks[&a], ranks[&a2], ranks[&b]), (1, 2, 2, 4));
    }

    #[test]
    fn a_dropped_buffer_leaves_its_memory_to_the_next_that_may_hold_as_much() {
        let mut b = ValueBuffer::default();
        b.reserve(1000 * CELL_BYTES);
        let (cap, at) = (b.cells.capacity(), b.cells.as_ptr());
        assert!(cap > 1000, "{cap}");
        drop(b);
        // were it freed, this would have its memory
        let other: Vec<Cell> = Vec::with_capacity(cap);
        let mut again = ValueBuffer::default();
        again.reserve(1000 * CELL_BYTES);
        assert_eq!((again.cells.capacity(), again.cells.as_ptr()), (cap, at));
        assert_ne!(other.as_ptr(), at);
        drop(again);
        // a buffer that may hold less does not take it
        let mut small = ValueBuffer::default();
        small.reserve(10 * CELL_BYTES);
        assert!(small.cells.capacity() < cap);
        drop(small);
        // what is kept let go: nothing to take
        kept::let_go();
        let (cells, spare, z) = kept::take(usize::MAX);
        assert_eq!(
            (cells.capacity(), spare.capacity(), z.is_none()),
            (0, 0, true)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the budget: every row once, and a series' rows in time order.
        #[test]
        fn every_row_once_in_time_order(rows in rows(), budget in 0..4000usize, rg in 1..50usize, at_once in 1..8usize) {
            let (back, mut want) = export(&rows, budget, rg, at_once);
            let mut got = back.clone();
            want.sort();
            got.sort();
            prop_assert_eq!(got, want);
            let mut last: HashMap<(Option<String>, Option<String>), i64> = HashMap::new();
            for b in back {
                let prev = last.insert((b.1, b.2), b.0).unwrap_or(i64::MIN);
                prop_assert!(prev <= b.0, "a series went back in time");
            }
        }

        /// Held all at once, rows come out series by series: marks first, then
        /// by metric, then instance name (a singular metric's null first), each
        /// in time order.
        #[test]
        fn held_at_once_series_by_series(rows in rows()) {
            let (back, _) = export(&rows, usize::MAX, 1 << 20, 1);
            let key = |b: &Back| (!b.6, b.1.clone(), b.2.clone());
            prop_assert!(back.windows(2).all(|w| key(&w[0]) < key(&w[1]) || (key(&w[0]) == key(&w[1]) && w[0].0 <= w[1].0)));
        }
    }
}
