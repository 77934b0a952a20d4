//! Column chunks built from pages we encode ourselves ([`crate::encode`]):
//! each page compressed with zstd and framed by parquet's page writer, and the
//! chunk's metadata, statistics and page indexes made as parquet's own column
//! writer makes them, so that its file writer appends the chunk as one of its own.

use crate::encode::{truncate_max, truncate_min, Bound, Bounds};
use bytes::Bytes;
use parquet::basic::{Compression, Encoding, Type as PhysicalType, ZstdLevel};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::data_type::ByteArray;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ColumnChunkMetaData, ColumnIndexBuilder, OffsetIndexBuilder};
use parquet::file::statistics::{Statistics, ValueStatistics};
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

/// How long a text bound may be in statistics and page indexes (parquet's
/// default: longer ones are cut, and a greatest bound rounded up).
const BOUND_LEN: usize = 64;

/// A zstd context shared by the pages of a part (made once, reused), and the
/// room its pages are compressed into (a page's bound is megabytes, fresh
/// memory each time; what it compresses to is much less, copied out).
pub struct Zstd {
    level: i32,
    c: zstd::bulk::Compressor<'static>,
    out: Vec<u8>,
    /// The numbers of a page and its bytes, built by whoever uses this
    /// compressor (kept, as `out` is, from one page to the next).
    pub scratch: (Vec<f64>, Vec<u8>),
}

impl Zstd {
    pub fn new(level: i32) -> Result<Zstd> {
        let c = zstd::bulk::Compressor::new(level).map_err(|e| ParquetError::External(e.into()))?;
        Ok(Zstd {
            level,
            c,
            out: Vec::new(),
            scratch: Default::default(),
        })
    }

    fn compress(&mut self, b: &[u8]) -> Result<Bytes> {
        self.out.clear();
        self.out.reserve(zstd::zstd_safe::compress_bound(b.len()));
        self.c
            .compress_to_buffer(b, &mut self.out)
            .map_err(|e| ParquetError::External(e.into()))?;
        Ok(Bytes::copy_from_slice(&self.out))
    }

    fn codec(&self) -> Result<Compression> {
        Ok(Compression::ZSTD(ZstdLevel::try_new(self.level)?))
    }
}

/// One column chunk of a row group, its pages written to memory as they come.
pub struct Chunk {
    descr: ColumnDescPtr,
    sink: TrackedWrite<Vec<u8>>,
    dictionary_at: Option<i64>,
    data_at: Option<i64>,
    values: i64,
    rows: u64,
    compressed: i64,
    uncompressed: i64,
    encodings: Vec<Encoding>,
    bounds: Bounds,
    offsets: OffsetIndexBuilder,
    index: ColumnIndexBuilder,
}

impl Chunk {
    pub fn new(descr: ColumnDescPtr) -> Chunk {
        let index = ColumnIndexBuilder::new(descr.physical_type());
        Chunk {
            descr,
            sink: TrackedWrite::new(Vec::new()),
            dictionary_at: None,
            data_at: None,
            values: 0,
            rows: 0,
            compressed: 0,
            uncompressed: 0,
            encodings: vec![Encoding::RLE],
            bounds: Bounds::default(),
            offsets: OffsetIndexBuilder::new(),
            index,
        }
    }

    /// The dictionary page: `n` values, PLAIN (before any data page).
    pub fn dictionary(&mut self, z: &mut Zstd, plain: &[u8], n: usize) -> Result<()> {
        let page = Page::DictionaryPage {
            buf: z.compress(plain)?,
            num_values: n as u32,
            encoding: Encoding::PLAIN,
            is_sorted: false,
        };
        self.dictionary_at = Some(self.sink.bytes_written() as i64);
        self.write(CompressedPage::new(page, plain.len()), Encoding::PLAIN)?;
        Ok(())
    }

    /// A data page (v1) of `rows` rows: its levels and values in `body`,
    /// encoded as `encoding`; `bounds` its statistics.
    pub fn page(
        &mut self,
        z: &mut Zstd,
        (body, encoding): &(Vec<u8>, Encoding),
        rows: usize,
        bounds: Bounds,
    ) -> Result<()> {
        let encoding = *encoding;
        let page = Page::DataPage {
            buf: z.compress(body)?,
            num_values: rows as u32,
            encoding,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        };
        let at = self.sink.bytes_written() as i64;
        self.data_at.get_or_insert(at);
        let size = self.write(CompressedPage::new(page, body.len()), encoding)?;
        self.offsets.append_row_count(rows as i64);
        self.offsets.append_offset_and_size(at, size as i32);
        self.values += rows as i64;
        self.rows += rows as u64;
        self.index_page(&bounds, rows);
        self.bounds.merge(&bounds);
        Ok(())
    }

    fn write(&mut self, page: CompressedPage, encoding: Encoding) -> Result<usize> {
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
        let spec = SerializedPageWriter::new(&mut self.sink).write_page(page)?;
        self.compressed += spec.compressed_size as i64;
        self.uncompressed += spec.uncompressed_size as i64;
        Ok(spec.compressed_size)
    }

    /// The page's entry in the column index (which is left out, as parquet
    /// leaves it, when a page holding values has no bounds: all NaN).
    fn index_page(&mut self, b: &Bounds, rows: usize) {
        let nans = (self.descr.physical_type() == PhysicalType::DOUBLE).then_some(b.nans as i64);
        match (&b.min, &b.max) {
            (Some(min), Some(max)) => {
                let (min, _) = self.cut(min, truncate_min);
                let (max, _) = self.cut(max, truncate_max);
                self.index.append(false, min, max, b.nulls as i64, nans);
            }
            _ if b.nulls as usize == rows => {
                self.index
                    .append(true, Vec::new(), Vec::new(), b.nulls as i64, nans)
            }
            _ => self.index.to_invalid(),
        }
    }

    /// A bound as stored: a text's cut to [`BOUND_LEN`] by `cut`.
    fn cut(&self, b: &Bound, cut: fn(&[u8], usize) -> (Vec<u8>, bool)) -> (Vec<u8>, bool) {
        match b {
            Bound::Bytes(t) => cut(t, BOUND_LEN),
            _ => (b.plain(), true),
        }
    }

    /// The chunk's bytes (its first page at offset 0) and what parquet's file
    /// writer needs to append it.
    pub fn close(self, z: &Zstd) -> Result<(Bytes, ColumnCloseResult)> {
        let stats = self.statistics()?;
        let mut encodings = self.encodings;
        encodings.sort_by_key(|e| *e as i32);
        let metadata = ColumnChunkMetaData::builder(self.descr.clone())
            .set_compression(z.codec()?)
            .set_encodings(encodings)
            .set_total_compressed_size(self.compressed)
            .set_total_uncompressed_size(self.uncompressed)
            .set_num_values(self.values)
            .set_data_page_offset(self.data_at.unwrap_or(0))
            .set_dictionary_page_offset(self.dictionary_at)
            .set_statistics(stats)
            .build()?;
        let column_index = if self.index.valid() {
            Some(self.index.build()?)
        } else {
            None
        };
        let bytes = Bytes::from(self.sink.into_inner()?);
        let close = ColumnCloseResult {
            bytes_written: bytes.len() as u64,
            rows_written: self.rows,
            metadata,
            bloom_filter: None,
            column_index,
            offset_index: Some(self.offsets.build()),
        };
        Ok((bytes, close))
    }

    /// The chunk's statistics, as parquet's column writer gives them.
    fn statistics(&self) -> Result<Statistics> {
        let b = &self.bounds;
        let nulls = Some(b.nulls);
        let signed = self.descr.sort_order().is_signed();
        let stats = match (&b.min, &b.max) {
            (Some(Bound::Bytes(min)), Some(Bound::Bytes(max))) => {
                let (min, min_exact) = truncate_min(min, BOUND_LEN);
                let (max, max_exact) = truncate_max(max, BOUND_LEN);
                let (min, max) = (ByteArray::from(min), ByteArray::from(max));
                ValueStatistics::new(Some(min), Some(max), None, nulls, false)
                    .with_min_is_exact(min_exact)
                    .with_max_is_exact(max_exact)
                    .with_backwards_compatible_min_max(signed)
                    .into()
            }
            (min, max) => self.typed_statistics(min.as_ref(), max.as_ref(), signed)?,
        };
        Ok(stats)
    }

    fn typed_statistics(
        &self,
        min: Option<&Bound>,
        max: Option<&Bound>,
        signed: bool,
    ) -> Result<Statistics> {
        let nulls = Some(self.bounds.nulls);
        let nans = Some(self.bounds.nans);
        macro_rules! typed {
            ($v:ident) => {{
                let pick = |b: Option<&Bound>| match b {
                    Some(Bound::$v(x)) => Some(x.clone()),
                    _ => None,
                };
                ValueStatistics::new(pick(min), pick(max), None, nulls, false)
                    .with_backwards_compatible_min_max(signed)
            }};
        }
        Ok(match self.descr.physical_type() {
            PhysicalType::BOOLEAN => typed!(Bool).into(),
            PhysicalType::INT32 => typed!(I32).into(),
            PhysicalType::INT64 => typed!(I64).into(),
            PhysicalType::DOUBLE => typed!(F64).with_nan_count(nans).into(),
            PhysicalType::BYTE_ARRAY => {
                ValueStatistics::<ByteArray>::new(None, None, None, nulls, false).into()
            }
            t => return Err(ParquetError::General(format!("no statistics for {t}"))),
        })
    }
}
