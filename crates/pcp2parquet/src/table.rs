//! The three datasets' schemas, and Parquet files written a row group at a time.
//!
//! A part file encodes its row group a batch of rows at a time, compressed with
//! zstd in memory, and appends it to the file when it is full; or appends a row
//! group whose column chunks were encoded elsewhere (the `values` dataset's,
//! by `crate::values`).

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, LogicalType, TimeUnit as TimeUnitType, ZstdLevel};
use parquet::column::page::{CompressedPage, PageWriteSpec, PageWriter};
use parquet::column::writer::{
    get_column_writer, ColumnCloseResult, ColumnWriter, ColumnWriterImpl,
};
use parquet::data_type::{ByteArray, DataType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::Type;
use parquet::schema::types::{ColumnDescPtr, ColumnPath};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// `values`: one row per recorded (or interpolated) value, and one per `<mark>`.
pub const VALUES: &str = "message values {
  required int64 time (TIMESTAMP(NANOS,true));
  optional binary metric (STRING);
  optional binary instance (STRING);
  optional int32 inst_id;
  optional binary pmid (STRING);
  optional double value;
  optional binary value_text (STRING);
  required boolean mark;
}";

/// `events`: one row per parameter of each event record (one with no parameter
/// for a record that has none).
pub const EVENTS: &str = "message events {
  required int64 time (TIMESTAMP(NANOS,true));
  required binary metric (STRING);
  optional binary instance (STRING);
  optional int32 inst_id;
  required int32 record;
  required int64 record_time (TIMESTAMP(NANOS,true));
  required int32 flags;
  optional binary flags_text (STRING);
  optional binary param (STRING);
  optional binary param_pmid (STRING);
  optional double value;
  optional binary value_text (STRING);
}";

/// `metrics`: one row per metric name of an archive.
pub const METRICS: &str = "message metrics {
  required binary archive (STRING);
  required binary pmid (STRING);
  required binary metric (STRING);
  required binary type (STRING);
  required binary semantics (STRING);
  optional binary units (STRING);
  optional binary indom (STRING);
  optional binary help_oneline (STRING);
  optional binary help_text (STRING);
  optional binary labels (STRING);
}";

/// The unit of the timestamp columns (`time`, `record_time`). Rows carry
/// nanoseconds; a file in microseconds gets them divided, rounded down.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TimeUnit {
    /// `TIMESTAMP(NANOS,true)`: every digit a v3 archive holds.
    #[default]
    Nanos,
    /// `TIMESTAMP(MICROS,true)`: what a v2 archive holds, and what Spark without
    /// its nanosecond settings, and other readers without such types, read.
    Micros,
}

impl TimeUnit {
    /// `schema` with its timestamps in this unit.
    pub fn schema(self, schema: &str) -> String {
        match self {
            TimeUnit::Nanos => schema.to_string(),
            TimeUnit::Micros => schema.replace("TIMESTAMP(NANOS,true)", "TIMESTAMP(MICROS,true)"),
        }
    }
}

/// One column's values for a row group.
#[derive(Debug, Clone, PartialEq)]
pub enum Col {
    I64(Vec<i64>),
    I32(Vec<Option<i32>>),
    F64(Vec<Option<f64>>),
    Str(Vec<Option<ByteArray>>),
    Bool(Vec<bool>),
}

impl Col {
    fn len(&self) -> usize {
        match self {
            Col::I64(v) => v.len(),
            Col::I32(v) => v.len(),
            Col::F64(v) => v.len(),
            Col::Str(v) => v.len(),
            Col::Bool(v) => v.len(),
        }
    }
}

/// A text as a Parquet string (shared, not copied, when cloned).
pub fn text(s: &str) -> ByteArray {
    ByteArray::from(s.as_bytes().to_vec())
}

fn perr(path: &Path, e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(format!("{}: {e}", path.display()))
}

/// A page writer keeping a column chunk's pages in memory (compressed), so that
/// a row group is encoded a batch of rows at a time, every column at once, and
/// appended to the file when it is complete (parquet's own file writer takes a
/// row group a whole column after another).
struct MemPages {
    sink: TrackedWrite<Shared>,
}

/// The bytes of one column chunk, shared between its page writer and the part.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut v = self.0.lock().map_err(|_| io::Error::other("poisoned"))?;
        v.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl PageWriter for MemPages {
    fn write_page(&mut self, page: CompressedPage) -> parquet::errors::Result<PageWriteSpec> {
        SerializedPageWriter::new(&mut self.sink).write_page(page)
    }
    fn close(&mut self) -> parquet::errors::Result<()> {
        io::Write::flush(&mut self.sink)?;
        Ok(())
    }
}

/// A row group being encoded: one column writer per column of the schema.
struct Open {
    cols: Vec<(ColumnWriter<'static>, Shared)>,
    rows: usize,
}

/// A Parquet file being written: to a hidden name, renamed into place by
/// [`Part::finish`] (an interrupted run leaves no half file under a real name).
///
/// A row group is encoded as its rows come, a batch at a time and compressed in
/// memory, and appended to the file by [`Part::close_group`].
pub struct Part {
    tmp: PathBuf,
    path: PathBuf,
    optional: Vec<bool>,
    /// What each column's values (nanoseconds, for a timestamp) are divided by.
    scale: Vec<i64>,
    w: SerializedFileWriter<File>,
    group: Option<Open>,
    rows: usize,
}

impl Part {
    pub fn create(path: PathBuf, schema: &str) -> io::Result<Part> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp"));
        let schema =
            parquet::schema::parser::parse_message_type(schema).map_err(|e| perr(&path, e))?;
        let optional = schema
            .get_fields()
            .iter()
            .map(|f| f.get_basic_info().repetition() == parquet::basic::Repetition::OPTIONAL)
            .collect();
        let scale = schema
            .get_fields()
            .iter()
            .map(|f| match f.get_basic_info().logical_type_ref() {
                Some(LogicalType::Timestamp(t)) => match t.unit {
                    TimeUnitType::MILLIS => 1_000_000,
                    TimeUnitType::MICROS => 1_000,
                    TimeUnitType::NANOS => 1,
                },
                _ => 1,
            })
            .collect();
        // numbers: their bytes split into streams (the exponents of a series
        // line up for zstd), without a dictionary (most are counters, each new)
        let value = ColumnPath::from("value");
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(ZSTD).map_err(|e| perr(&path, e))?,
            ))
            .set_data_page_size_limit(PAGE)
            .set_dictionary_page_size_limit(PAGE)
            .set_data_page_row_count_limit(PAGE_ROWS)
            .set_column_dictionary_enabled(value.clone(), false)
            .set_column_encoding(value, Encoding::BYTE_STREAM_SPLIT)
            .set_created_by(format!("pcp2parquet {}", env!("CARGO_PKG_VERSION")))
            .build();
        let file = File::create(&tmp)?;
        let w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| perr(&path, e))?;
        Ok(Part {
            tmp,
            path,
            optional,
            scale,
            w,
            group: None,
            rows: 0,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The file's name once finished.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What column `i`'s values (nanoseconds, for a timestamp) are divided by.
    pub fn scale(&self, i: usize) -> i64 {
        self.scale.get(i).copied().unwrap_or(1)
    }

    /// Whether each column may hold nulls.
    pub fn optional(&self) -> &[bool] {
        &self.optional
    }

    /// The columns' descriptors, in schema order.
    pub fn column_descrs(&self) -> Vec<ColumnDescPtr> {
        let d = self.w.schema_descr();
        (0..d.num_columns()).map(|i| d.column(i)).collect()
    }

    /// Appends a row group of column chunks encoded by us (`crate::chunk`),
    /// every column's, in schema order (after the group being encoded, if any).
    pub fn append_group(&mut self, chunks: Vec<(Bytes, ColumnCloseResult)>) -> io::Result<()> {
        self.close_group()?;
        let path = self.path.clone();
        let e = |x| perr(&path, x);
        let rows = chunks.first().map_or(0, |(_, c)| c.rows_written as usize);
        let mut rg = self.w.next_row_group().map_err(e)?;
        for (bytes, close) in chunks {
            rg.append_column(&bytes, close).map_err(e)?;
        }
        rg.close().map_err(e)?;
        self.rows += rows;
        Ok(())
    }

    /// Adds rows as [`Part::write`] does, and appends the row group to the file
    /// once it holds `row_group` rows or more.
    pub fn write_grouped(&mut self, cols: Vec<Col>, row_group: usize) -> io::Result<()> {
        self.write(cols)?;
        if self.group.as_ref().is_some_and(|o| o.rows >= row_group) {
            self.close_group()?;
        }
        Ok(())
    }

    /// Adds rows (the columns in schema order, of equal lengths) to the row
    /// group being encoded; their values are moved into the encoders, not copied.
    pub fn write(&mut self, cols: Vec<Col>) -> io::Result<()> {
        let n = cols.first().map_or(0, Col::len);
        if n == 0 {
            return Ok(());
        }
        if cols.len() != self.optional.len() {
            return Err(io::Error::other("columns do not match the schema"));
        }
        let path = self.path.clone();
        let e = |x| perr(&path, x);
        if self.group.is_none() {
            let descr = self.w.schema_descr();
            let props = self.w.properties();
            let cols = (0..self.optional.len())
                .map(|i| {
                    let shared = Shared::default();
                    let pages = MemPages {
                        sink: TrackedWrite::new(shared.clone()),
                    };
                    let w = get_column_writer(descr.column(i), props.clone(), Box::new(pages));
                    (w, shared)
                })
                .collect();
            self.group = Some(Open { cols, rows: 0 });
        }
        let Some(open) = self.group.as_mut() else {
            return Err(io::Error::other("no row group"));
        };
        let each = cols.into_iter().zip(&self.optional).zip(&self.scale);
        for ((cw, _), ((col, &opt), &scale)) in open.cols.iter_mut().zip(each) {
            match (cw, col) {
                (ColumnWriter::Int64ColumnWriter(w), Col::I64(v)) if scale != 1 => {
                    let v: Vec<i64> = v.iter().map(|x| x.div_euclid(scale)).collect();
                    w.write_batch(&v, None, None).map_err(e)?;
                }
                (ColumnWriter::Int64ColumnWriter(w), Col::I64(v)) => {
                    w.write_batch(&v, None, None).map_err(e)?;
                }
                (ColumnWriter::BoolColumnWriter(w), Col::Bool(v)) => {
                    w.write_batch(&v, None, None).map_err(e)?;
                }
                (ColumnWriter::Int32ColumnWriter(w), Col::I32(v)) => {
                    write_opt(w, v, opt).map_err(e)?;
                }
                (ColumnWriter::DoubleColumnWriter(w), Col::F64(v)) => {
                    write_opt(w, v, opt).map_err(e)?;
                }
                (ColumnWriter::ByteArrayColumnWriter(w), Col::Str(v)) => {
                    write_opt(w, v, opt).map_err(e)?;
                }
                _ => return Err(io::Error::other("columns do not match the schema")),
            }
        }
        open.rows += n;
        self.rows += n;
        Ok(())
    }

    /// Appends the row group being encoded to the file (if it has rows).
    pub fn close_group(&mut self) -> io::Result<()> {
        let Some(open) = self.group.take() else {
            return Ok(());
        };
        let path = self.path.clone();
        let e = |x| perr(&path, x);
        let mut rg = self.w.next_row_group().map_err(e)?;
        for (cw, shared) in open.cols {
            let close = cw.close().map_err(e)?;
            let bytes = Bytes::from(shared.take());
            rg.append_column(&bytes, close).map_err(e)?;
        }
        rg.close().map_err(e)?;
        Ok(())
    }

    /// Closes the file and gives it its name; a file without rows is removed.
    pub fn finish(mut self) -> io::Result<Option<PathBuf>> {
        self.close_group()?;
        let path = self.path.clone();
        self.w.close().map_err(|e| perr(&path, e))?;
        if self.rows == 0 {
            std::fs::remove_file(&self.tmp)?;
            return Ok(None);
        }
        std::fs::rename(&self.tmp, &self.path)?;
        Ok(Some(self.path))
    }

    /// Drops the file (a failed export).
    pub fn abandon(self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// The most a column's page (and dictionary) holds before it is compressed.
const PAGE: usize = 2 << 20;
/// zstd's level: 6 makes files a tenth smaller than 3 for a tenth more CPU
/// (higher levels gain little more and take more memory).
pub(crate) const ZSTD: i32 = 6;
/// Rows in a page, at most: long pages let zstd find the repeats of one series
/// in the next (262,144 rows and 2 MB pages make 20180416.10.00's export 8%
/// smaller than half that), but a dictionary-encoded column keeps 8 bytes a
/// row of its page until the page is written.
pub(crate) const PAGE_ROWS: usize = 1 << 18;

/// Writes a column that may hold nulls: the present values and, for an optional
/// column, the definition levels (a required one takes a default for a null).
fn write_opt<T: DataType>(
    w: &mut ColumnWriterImpl<'_, T>,
    v: Vec<Option<T::T>>,
    optional: bool,
) -> parquet::errors::Result<()> {
    if !optional {
        let vals: Vec<T::T> = v.into_iter().map(Option::unwrap_or_default).collect();
        w.write_batch(&vals, None, None)?;
        return Ok(());
    }
    let defs: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
    let vals: Vec<T::T> = v.into_iter().flatten().collect();
    w.write_batch(&vals, Some(&defs), None)?;
    Ok(())
}

/// The schema's column names, in order.
pub fn columns(schema: &str) -> Vec<String> {
    parquet::schema::parser::parse_message_type(schema)
        .map(|t: Type| {
            t.get_fields()
                .iter()
                .map(|f| f.name().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    #[test]
    fn schemas_parse() {
        assert_eq!(columns(VALUES).len(), 8);
        assert_eq!(columns(EVENTS).len(), 12);
        assert_eq!(columns(METRICS).len(), 10);
    }

    #[test]
    fn a_part_reads_back() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("x/p.parquet");
        let mut p = Part::create(path.clone(), VALUES).unwrap();
        let cols = vec![
            Col::I64(vec![1, 2, 3]),
            Col::Str(vec![Some(text("m")), None, Some(text("m"))]),
            Col::Str(vec![None, None, Some(text("cpu0"))]),
            Col::I32(vec![None, None, Some(0)]),
            Col::Str(vec![Some(text("1.2.3")), None, Some(text("1.2.3"))]),
            Col::F64(vec![Some(1.5), None, None]),
            Col::Str(vec![None, None, Some(text("hello"))]),
            Col::Bool(vec![false, true, false]),
        ];
        p.write(cols.clone()).unwrap();
        p.close_group().unwrap();
        p.write(cols).unwrap();
        assert_eq!(p.finish().unwrap(), Some(path.clone()));
        let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(r.metadata().file_metadata().num_rows(), 6);
        assert_eq!(r.metadata().num_row_groups(), 2);
        let rows: Vec<String> = r
            .get_row_iter(None)
            .unwrap()
            .map(|row| row.unwrap().to_string())
            .collect();
        assert!(rows[1].contains("metric: null"), "{}", rows[1]);
        assert!(rows[1].contains("mark: true"), "{}", rows[1]);
        assert!(rows[2].contains("value_text: \"hello\""), "{}", rows[2]);
        assert!(rows[0].contains("value: 1.5"), "{}", rows[0]);
        // no hidden file left
        assert_eq!(std::fs::read_dir(d.path().join("x")).unwrap().count(), 1);
    }

    #[test]
    fn times_in_microseconds_are_rounded_down() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("p.parquet");
        let schema = TimeUnit::Micros.schema(EVENTS);
        assert_eq!(schema.matches("TIMESTAMP(MICROS,true)").count(), 2);
        let mut p = Part::create(path.clone(), &schema).unwrap();
        let times = vec![1_999, -1, 3_000_000_001];
        let none = || Col::Str(vec![None, None, None]);
        let cols = vec![
            Col::I64(times.clone()),
            Col::Str(vec![Some(text("m")); 3]),
            none(),
            Col::I32(vec![None; 3]),
            Col::I32(vec![Some(0); 3]),
            Col::I64(times.iter().map(|t| t + 1_000).collect()),
            Col::I32(vec![Some(1); 3]),
            none(),
            none(),
            none(),
            Col::F64(vec![None; 3]),
            none(),
        ];
        p.write(cols).unwrap();
        p.finish().unwrap();
        let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        let got: Vec<(String, String)> = r
            .get_row_iter(None)
            .unwrap()
            .map(|row| {
                let row = row.unwrap();
                let col = |n: &str| {
                    let (_, f) = row.get_column_iter().find(|(k, _)| *k == n).unwrap();
                    f.to_string()
                };
                (col("time"), col("record_time"))
            })
            .collect();
        let want: Vec<(String, String)> = [(1, 2), (-1, 0), (3_000_000, 3_000_001)]
            .iter()
            .map(|&(t, rt)| {
                let show = |us: i64| parquet::record::Field::TimestampMicros(us).to_string();
                (show(t), show(rt))
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_empty_part_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = Part::create(d.path().join("p.parquet"), METRICS).unwrap();
        assert_eq!(p.finish().unwrap(), None);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
