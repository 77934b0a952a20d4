//! The three datasets' schemas, and Parquet files written a row group at a time.
//!
//! Rows are buffered per part file, sorted by metric, instance and time when a row
//! group is full (runs of one metric compress well and every row group covers a
//! short stretch of time, which is what engines prune by), and written with zstd.

use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int32Type, Int64Type,
};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::Type;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// A Parquet file being written: to a hidden name, renamed into place by
/// [`Part::finish`] (an interrupted run leaves no half file under a real name).
pub struct Part {
    tmp: PathBuf,
    path: PathBuf,
    optional: Vec<bool>,
    w: SerializedFileWriter<File>,
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
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(3).map_err(|e| perr(&path, e))?,
            ))
            .set_created_by(format!("pcp2parquet {}", env!("CARGO_PKG_VERSION")))
            .build();
        let file = File::create(&tmp)?;
        let w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| perr(&path, e))?;
        Ok(Part {
            tmp,
            path,
            optional,
            w,
            rows: 0,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes one row group (the columns in schema order, of equal lengths).
    pub fn write(&mut self, cols: &[Col]) -> io::Result<()> {
        let n = cols.first().map_or(0, Col::len);
        if n == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let e = |x| perr(&path, x);
        let mut rg = self.w.next_row_group().map_err(e)?;
        let mut i = 0;
        while let Some(mut cw) = rg.next_column().map_err(e)? {
            let (Some(col), Some(&opt)) = (cols.get(i), self.optional.get(i)) else {
                return Err(io::Error::other("columns do not match the schema"));
            };
            match col {
                Col::I64(v) => {
                    cw.typed::<Int64Type>()
                        .write_batch(v, None, None)
                        .map_err(e)?;
                }
                Col::Bool(v) => {
                    cw.typed::<BoolType>()
                        .write_batch(v, None, None)
                        .map_err(e)?;
                }
                Col::I32(v) => write_opt::<Int32Type>(&mut cw, v, opt).map_err(e)?,
                Col::F64(v) => write_opt::<DoubleType>(&mut cw, v, opt).map_err(e)?,
                Col::Str(v) => write_opt::<ByteArrayType>(&mut cw, v, opt).map_err(e)?,
            }
            cw.close().map_err(e)?;
            i += 1;
        }
        rg.close().map_err(e)?;
        self.rows += n;
        Ok(())
    }

    /// Closes the file and gives it its name; a file without rows is removed.
    pub fn finish(self) -> io::Result<Option<PathBuf>> {
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

/// Writes a column that may hold nulls: the present values and, for an optional
/// column, the definition levels (a required one takes a default for a null).
fn write_opt<T: DataType>(
    cw: &mut SerializedColumnWriter<'_>,
    v: &[Option<T::T>],
    optional: bool,
) -> parquet::errors::Result<()> {
    let w = cw.typed::<T>();
    if !optional {
        let vals: Vec<T::T> = v.iter().map(|x| x.clone().unwrap_or_default()).collect();
        w.write_batch(&vals, None, None)?;
        return Ok(());
    }
    let vals: Vec<T::T> = v.iter().flatten().cloned().collect();
    let defs: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
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
        p.write(&cols).unwrap();
        p.write(&cols).unwrap();
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
    fn an_empty_part_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = Part::create(d.path().join("p.parquet"), METRICS).unwrap();
        assert_eq!(p.finish().unwrap(), None);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
