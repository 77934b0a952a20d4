//! The `values` dataset's row groups, encoded column by column from the cells
//! a [`crate::rows::ValueBuffer`] holds, in the order of writing.
//!
//! The rows come as runs of one series, and a series' rows share their metric,
//! instance, instance id, PMID and mark: those columns are dictionary indices
//! and definition levels written a run at a time, with bounds taken a run at a
//! time. Only the time (an index into the buffer's times, which are the time
//! column's dictionary), the value and the text differ from row to row.

use crate::chunk::{Chunk, Zstd};
use crate::encode::{
    add_run, add_to_runs, byte_stream_split, levels, plain_bools, plain_bytes, width_of, Bound,
    Bounds, Hybrid,
};
use crate::rows::{leading_numbers, Cell, Series, NO_VALUE};
use crate::table::{Part, PAGE_ROWS};
use parquet::basic::Encoding;
use parquet::data_type::ByteArray;
use parquet::errors::{ParquetError, Result};
use parquet::schema::types::ColumnDescPtr;
use std::collections::HashMap;
use std::io;
use std::ops::Range;
use std::path::PathBuf;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the cells of a buffer refer to, owned (so that a row group is encoded
/// on another thread while the next rows come): its series, times and texts,
/// and the names as they were when it was written.
pub struct Held {
    pub series: Vec<Series>,
    pub times: Vec<i64>,
    pub texts: Vec<Box<str>>,
    /// Each name by its id (none: a null).
    pub names: Vec<Option<ByteArray>>,
}

impl Held {
    fn name(&self, id: u32) -> Option<&[u8]> {
        self.names.get(id as usize)?.as_ref().map(|b| b.data())
    }
}

/// What a row group is written as: the part's columns, their units.
#[derive(Clone)]
pub struct Columns {
    descr: Vec<ColumnDescPtr>,
    optional: Vec<bool>,
    /// What the times are divided by (nanoseconds to the file's unit).
    scale: i64,
    path: PathBuf,
}

impl Columns {
    /// `part`'s, which must be a `values` part.
    pub fn of(part: &Part) -> io::Result<Columns> {
        let c = Columns {
            descr: part.column_descrs(),
            optional: part.optional().to_vec(),
            scale: part.scale(0),
            path: part.path().to_path_buf(),
        };
        if c.descr.len() != 8 || c.optional.len() != 8 {
            let at = c.path.display();
            return Err(io::Error::other(format!("{at}: not a values part")));
        }
        Ok(c)
    }
}

/// A row group's column chunks, encoded.
pub type Encoded = Vec<Done>;

/// The row group of `cells` (in the order of writing): its column chunks, the
/// numbers on a second thread where `split` (the other columns on this one).
pub fn encode(
    cells: &[Cell],
    held: &Held,
    cols: &Columns,
    [z, z2]: &mut [Zstd; 2],
    split: bool,
) -> io::Result<Encoded> {
    let runs = series_runs(cells);
    let pages: Vec<Range<usize>> = (0..cells.len())
        .step_by(PAGE_ROWS)
        .map(|a| a..(a + PAGE_ROWS).min(cells.len()))
        .collect();
    let g = Group {
        held,
        cells,
        runs: &runs,
        pages: &pages,
    };
    let e = |x| io::Error::other(format!("{}: {x}", cols.path.display()));
    let value = Chunk::new(cols.descr[5].clone());
    let (value, out) = if split {
        std::thread::scope(|sc| {
            let value = sc.spawn(|| value_chunk(cells, &pages, value, z2));
            let rest = g.others(cols, z);
            let value = value
                .join()
                .unwrap_or_else(|_| Err(ParquetError::General("a thread failed".into())));
            (value, rest)
        })
    } else {
        let value = value_chunk(cells, &pages, value, z2);
        (value, g.others(cols, z))
    };
    let value = value.map_err(e)?;
    let mut out = out.map_err(e)?;
    out.insert(5, value);
    Ok(out)
}

/// A run of rows of one series: the series, and the rows (places in the
/// row group).
struct Run {
    s: u32,
    rows: Range<usize>,
}

/// The runs of one series in `cells`.
fn series_runs(cells: &[Cell]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if r.s == c.s => r.rows.end = i + 1,
            _ => runs.push(Run {
                s: c.s,
                rows: i..i + 1,
            }),
        }
    }
    runs
}

/// A dictionary-encoded page: `body` (its levels) and the indices `h` holds,
/// as a page of `(bytes, encoding)`; with no dictionary (a column of nulls
/// only), the levels alone, PLAIN.
fn indices(mut body: Vec<u8>, dictionary: bool, width: u8, h: Hybrid) -> (Vec<u8>, Encoding) {
    if !dictionary {
        return (body, Encoding::PLAIN);
    }
    body.push(width);
    body.extend_from_slice(&h.finish());
    (body, Encoding::RLE_DICTIONARY)
}

/// What a column holds along a series' run: a name (by its id) or the
/// instance id.
#[derive(Clone, Copy)]
enum RunKey {
    Name(fn(&Series) -> u32),
    Inst,
}

struct Group<'a> {
    held: &'a Held,
    cells: &'a [Cell],
    runs: &'a [Run],
    pages: &'a [Range<usize>],
}

/// A column chunk encoded: its bytes, and what parquet's file writer needs.
pub type Done = (bytes::Bytes, parquet::column::writer::ColumnCloseResult);

impl Group<'_> {
    /// Every column but `value`, in schema order.
    fn others(&self, cols: &Columns, z: &mut Zstd) -> Result<Vec<Done>> {
        let descr = &cols.descr;
        let by_run: [(usize, RunKey); 4] = [
            (1, RunKey::Name(|s| s.metric)),
            (2, RunKey::Name(|s| s.iname)),
            (3, RunKey::Inst),
            (4, RunKey::Name(|s| s.pmid)),
        ];
        let mut out = Vec::with_capacity(8);
        out.push(self.time(Chunk::new(descr[0].clone()), z, cols.scale)?);
        for (col, key) in by_run {
            let c = Chunk::new(descr[col].clone());
            out.push(self.by_run(c, z, key, cols.optional[col])?);
        }
        out.push(self.text(Chunk::new(descr[6].clone()), z)?);
        out.push(self.mark(Chunk::new(descr[7].clone()), z)?);
        Ok(out)
    }

    /// The runs (cut to the page) that a page's rows cover, each with its
    /// place among the group's runs.
    fn runs_in(&self, page: &Range<usize>) -> impl Iterator<Item = (usize, Run)> + '_ {
        let first = self.runs.partition_point(|r| r.rows.end <= page.start);
        let page = page.clone();
        self.runs[first..]
            .iter()
            .take_while(move |r| r.rows.start < page.end)
            .enumerate()
            .map(move |(k, r)| {
                let rows = r.rows.start.max(page.start)..r.rows.end.min(page.end);
                (first + k, Run { s: r.s, rows })
            })
    }

    fn series(&self, s: u32) -> Option<&Series> {
        self.held.series.get(s as usize)
    }

    /// `time`: indices into the buffer's times, which are its dictionary.
    fn time(&self, mut c: Chunk, z: &mut Zstd, scale: i64) -> Result<Done> {
        let times: Vec<i64> = self
            .held
            .times
            .iter()
            .map(|t| t.div_euclid(scale))
            .collect();
        let mut dict = Vec::with_capacity(times.len() * 8);
        for t in &times {
            dict.extend_from_slice(&t.to_le_bytes());
        }
        c.dictionary(z, &dict, times.len())?;
        let width = width_of(times.len().saturating_sub(1) as u64).max(1);
        // times in order (records as they mostly come): a page's bounds are
        // those of its first and last time index
        let ordered = times.is_sorted();
        let at = |k: u32| times.get(k as usize).copied().unwrap_or_default();
        // one buffer for every page, each the width and its indices (as
        // `indices` makes them), with room for a page's bits
        let mut buf = Vec::new();
        for page in self.pages {
            buf.clear();
            buf.reserve(page.len() * usize::from(width) / 8 + 64);
            buf.push(width);
            let mut h = Hybrid::after(buf, width);
            let (mut min, mut max) = (i64::MAX, i64::MIN);
            let (mut kmin, mut kmax) = (u32::MAX, 0);
            for cell in &self.cells[page.clone()] {
                let k = cell.time();
                if ordered {
                    kmin = kmin.min(k);
                    kmax = kmax.max(k);
                } else {
                    min = min.min(at(k));
                    max = max.max(at(k));
                }
                h.put(k);
            }
            if ordered && !page.is_empty() {
                (min, max) = (at(kmin), at(kmax));
            }
            let mut b = Bounds::default();
            if !page.is_empty() {
                b.add(&Bound::I64(min));
                b.add(&Bound::I64(max));
            }
            let bytes = (h.finish(), Encoding::RLE_DICTIONARY);
            c.page(z, &bytes, page.len(), b)?;
            buf = bytes.0;
        }
        c.close(z)
    }

    /// A column constant along a series' run, dictionary-encoded: the entries
    /// in the order they first appear, an index a run.
    fn by_run(&self, mut c: Chunk, z: &mut Zstd, key: RunKey, optional: bool) -> Result<Done> {
        let mut ids: FastMap<u64, u32> = FastMap::default();
        let mut entries: Vec<Bound> = Vec::new();
        let mut dict = Vec::new();
        // each run's entry (none for a null)
        let mut of_run: Vec<Option<u32>> = Vec::with_capacity(self.runs.len());
        for r in self.runs {
            let Some((s, k)) = self.series(r.s).and_then(|s| Some((s, self.key(s, key)?))) else {
                of_run.push(None);
                continue;
            };
            of_run.push(Some(*ids.entry(k).or_insert_with(|| {
                let b = self.entry(s, key);
                match &b {
                    Bound::Bytes(t) => plain_bytes(&mut dict, t),
                    other => dict.extend_from_slice(&other.plain()),
                }
                entries.push(b);
                entries.len() as u32 - 1
            })));
        }
        let dictionary = !entries.is_empty();
        if dictionary {
            c.dictionary(z, &dict, entries.len())?;
        }
        let width = width_of(entries.len().saturating_sub(1) as u64).max(1);
        for page in self.pages {
            let mut b = Bounds::default();
            let mut h = Hybrid::new(width);
            let mut defs = Vec::new();
            // (an entry counted into the bounds once where runs repeat it)
            let mut last = None;
            for (k, run) in self.runs_in(page) {
                let n = run.rows.len();
                let entry = of_run.get(k).copied().flatten();
                defs.push((entry.is_some(), n));
                match entry.and_then(|e| Some((e, entries.get(e as usize)?))) {
                    Some((e, bound)) => {
                        if last != Some(e) {
                            b.add(bound);
                            last = Some(e);
                        }
                        h.put_run(e, n);
                    }
                    None => b.nulls += n as u64,
                }
            }
            let body = if optional { levels(defs) } else { Vec::new() };
            c.page(z, &indices(body, dictionary, width, h), page.len(), b)?;
        }
        c.close(z)
    }

    /// A series' key in a run column (none: a null).
    fn key(&self, s: &Series, key: RunKey) -> Option<u64> {
        match key {
            RunKey::Name(f) => {
                let id = f(s);
                self.held.name(id).map(|_| u64::from(id))
            }
            RunKey::Inst => s.inst.map(|i| u64::from(i as u32)),
        }
    }

    /// A series' value in a run column (which has a key).
    fn entry(&self, s: &Series, key: RunKey) -> Bound {
        match key {
            RunKey::Name(f) => Bound::Bytes(self.held.name(f(s)).unwrap_or_default().to_vec()),
            RunKey::Inst => Bound::I32(s.inst.unwrap_or_default()),
        }
    }

    /// `value_text`: indices into the buffer's texts (each held once), which
    /// are its dictionary; a page's bounds are taken from each text it holds
    /// once.
    fn text(&self, mut c: Chunk, z: &mut Zstd) -> Result<Done> {
        let mut dict = Vec::new();
        for t in &self.held.texts {
            plain_bytes(&mut dict, t.as_bytes());
        }
        let dictionary = !self.held.texts.is_empty();
        if dictionary {
            c.dictionary(z, &dict, self.held.texts.len())?;
        }
        let width = width_of(self.held.texts.len().saturating_sub(1) as u64).max(1);
        // the page (counted from 1) each text was last seen in
        let mut seen = vec![0u32; self.held.texts.len()];
        for (p, page) in self.pages.iter().enumerate() {
            let (mut b, mut defs, mut h) = (Bounds::default(), Vec::new(), Hybrid::new(width));
            let mut rest = &self.cells[page.clone()];
            while let Some(cell) = rest.first() {
                // a stretch of numbers: nulls all
                let n = leading_numbers(rest);
                if n > 0 {
                    add_run(&mut defs, false, n);
                    b.nulls += n as u64;
                    rest = &rest[n..];
                    continue;
                }
                rest = &rest[1..];
                let k = self.text_of(cell);
                add_to_runs(&mut defs, k.is_some());
                let Some(k) = k else {
                    b.nulls += 1;
                    continue;
                };
                h.put(k);
                if let Some(last) = seen.get_mut(k as usize).filter(|l| **l != p as u32 + 1) {
                    *last = p as u32 + 1;
                    b.add_bytes(self.held.texts[k as usize].as_bytes());
                }
            }
            c.page(
                z,
                &indices(levels(defs), dictionary, width, h),
                page.len(),
                b,
            )?;
        }
        c.close(z)
    }

    /// A cell's text: its index among the buffer's texts.
    fn text_of(&self, cell: &Cell) -> Option<u32> {
        if cell.is_number() || cell.v == NO_VALUE {
            return None;
        }
        u32::try_from(cell.v)
            .ok()
            .filter(|&k| (k as usize) < self.held.texts.len())
    }

    /// `mark`: booleans, a run at a time.
    fn mark(&self, mut c: Chunk, z: &mut Zstd) -> Result<Done> {
        for page in self.pages {
            let mut b = Bounds::default();
            let mut runs = Vec::new();
            for (_, run) in self.runs_in(page) {
                let mark = self.series(run.s).is_some_and(|s| s.mark);
                b.add(&Bound::Bool(mark));
                runs.push((mark, run.rows.len()));
            }
            c.page(z, &(plain_bools(runs), Encoding::PLAIN), page.len(), b)?;
        }
        c.close(z)
    }
}

/// `value`: the numbers, their bytes split into streams (a page's buffers are
/// the compressor's scratch: 4 MB, fresh memory if they were made each time).
fn value_chunk(cells: &[Cell], pages: &[Range<usize>], mut c: Chunk, z: &mut Zstd) -> Result<Done> {
    let (mut v, body) = std::mem::take(&mut z.scratch);
    let mut page_bytes = (body, Encoding::BYTE_STREAM_SPLIT);
    for page in pages {
        v.clear();
        // the levels a run at a time
        let mut runs: Vec<(bool, usize)> = Vec::new();
        let mut rest = &cells[page.clone()];
        while !rest.is_empty() {
            // a stretch of numbers, then one of the rest
            let n = leading_numbers(rest);
            let m = rest[n..].iter().take_while(|c| !c.is_number()).count();
            v.extend(rest[..n].iter().map(|c| f64::from_bits(c.v)));
            add_run(&mut runs, true, n);
            add_run(&mut runs, false, m);
            rest = &rest[n + m..];
        }
        // the bounds kept as numbers, NaN aside (`min` and `max` pass it by)
        let (mut min, mut max, mut nans) = (f64::INFINITY, f64::NEG_INFINITY, 0u64);
        for &x in &v {
            min = min.min(x);
            max = max.max(x);
            nans += u64::from(x.is_nan());
        }
        let mut b = Bounds {
            nulls: (page.len() - v.len()) as u64,
            ..Bounds::default()
        };
        if min <= max {
            b.add(&Bound::F64(min));
            b.add(&Bound::F64(max));
        }
        b.nans = nans;
        let body = &mut page_bytes.0;
        body.clear();
        body.extend_from_slice(&levels(runs));
        byte_stream_split(&v, body);
        c.page(z, &page_bytes, page.len(), b)?;
    }
    z.scratch = (v, page_bytes.0);
    c.close(z)
}
