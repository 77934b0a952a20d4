//! Read, replay and write Performance Co-Pilot (PCP) archives, versions 2 and 3,
//! without libpcp.
//!
//! Layers, from the bottom up:
//! - [`codec`]: pure decoders and encoders of every record kind (labels, `.meta`
//!   records, temporal index entries, pmResult data records, event arrays); no I/O.
//!   [`types`] holds the data model they share ([`PmId`], [`InDom`], [`Desc`],
//!   [`Units`], [`Timestamp`]), with PCP's PDUs too (the `pdu` crate builds on
//!   them), and [`pmids`] the well-known metrics; [`error`] the errors, which name
//!   the file, the byte offset and what was wrong.
//! - [`volume`] and [`compress`]: finding an archive's files and getting their bytes
//!   (memory-mapped, or decompressed into an unlinked temporary file, kept for a
//!   second reading when the caller passes [`volume::Decompressed`] in
//!   [`OpenOptions`]). Threads decompress ahead unless
//!   [`OpenOptions::single_threaded`]; with [`OpenOptions::while_decoding`] a
//!   volume is read while it decodes (its size from what the xz or zstd container
//!   declares, [`compress::sized`]). With the `serde` feature the data model is
//!   `serde::Serialize`.
//! - [`metadata`] and [`pmns`]: the loaded `.meta` (descriptors, names, instance
//!   domains, labels, help text) and namespaces; [`instances`] reads the instance
//!   domains as a stream in time order instead.
//! - [`Archive`] ([`archive`]): an open archive, or several as one context: label,
//!   metadata, temporal index, records forward and backward across volumes.
//! - [`logfetch`]: libpcp's file position under `pmSetMode`/`pmFetchArchive`,
//!   damage included.
//! - [`replay`]: `pmSetMode`/`pmFetch` (forward, backward, interpolated), with
//!   [`lives`] (when each instance lives: libpcp's time calipers).
//! - [`metric`]: a metric by name and its samples as typed values, the short way in.
//! - [`atom`] and [`format`]: values as their type, and PCP's text forms of them.
//! - [`writer`]: [`writer::ArchiveWriter`], archives laid out as pmlogger writes them.
//!
//! Reading: the label, and each record's time and size.
//!
//! ```
//! use archive_format::Archive;
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/archives/sample_v3");
//! let archive = Archive::open(path)?;
//! assert_eq!(archive.label().version, 3);
//! for record in archive.records().take(3) {
//!     let (_, record) = record?;
//!     println!("{:?}: {} metrics", record.stamp, record.vsets.len());
//! }
//! # Ok::<(), archive_format::Error>(())
//! ```
//!
//! Interpolating: a metric by name, sampled every 100 ms as `pmval -t 0.1` would.
//!
//! ```
//! use archive_format::{replay::Delta, Archive};
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/archives/sample_v3");
//! let archive = Archive::open(path)?;
//! let colour = archive.metric("sample.colour").expect("recorded");
//! for sample in colour.samples(None, Delta::from_millis(100)).take(3) {
//!     let sample = sample?;
//!     for (inst, value) in sample.f64s() {
//!         let name = colour.instance_name(inst, sample.stamp);
//!         println!("{:?} {name:?} {value}", sample.stamp);
//!     }
//! }
//! # Ok::<(), archive_format::Error>(())
//! ```
//!
//! Writing: one metric, two samples, read back.
//!
//! ```
//! use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
//! use archive_format::types::{sem, vtype};
//! use archive_format::writer::{ArchiveWriter, WriterOptions};
//! use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
//!
//! let dir = tempfile::tempdir().expect("a temporary directory");
//! let base = dir.path().join("example");
//! let mut w = ArchiveWriter::create(&base, WriterOptions::default())?;
//! let pmid = PmId::new(245, 0, 1);
//! let desc = Desc { pmid, vtype: vtype::U32, indom: InDom::NULL, sem: sem::INSTANT, units: Units(0) };
//! w.put_desc(desc, &["example.answer".to_string()])?;
//! for (sec, v) in [(1_700_000_000, 41), (1_700_000_001, 42)] {
//!     let set = OwnedValueSet { pmid, numval: 1, valfmt: VAL_INSITU, values: vec![(-1, OwnedValue::Insitu(v))] };
//!     w.put_result(Timestamp::new(sec, 0), &[set])?;
//! }
//! w.close()?;
//! let archive = Archive::open(base.to_string_lossy())?;
//! assert_eq!(archive.records().count(), 2);
//! assert!(archive.metric("example.answer").is_some());
//! # Ok::<(), archive_format::Error>(())
//! ```
pub mod archive;
pub mod atom;
pub mod codec;
pub mod compress;
mod copier;
pub mod cores;
pub mod derive;
pub mod error;
mod errtab;
pub mod format;
pub mod hashorder;
pub mod instances;
pub mod labels;
pub mod lives;
pub mod logfetch;
mod lzw;
pub mod metadata;
pub mod metric;
pub mod pmids;
pub mod pmns;
pub mod replay;
pub mod stream;
pub mod text;
pub mod types;
pub mod unitstr;
pub mod volume;
pub mod writer;
#[cfg(feature = "xz")]
mod xzblocks;
#[cfg(feature = "xz")]
mod xzmt;

pub use archive::{Archive, KeepOnly, OpenOptions, Position, ReadWindow, Records};
pub use codec::index::IndexEntry;
pub use codec::label::Label;
pub use codec::result::{ResultRecord, Value, ValueSet};
pub use error::{pm_err_str, DecodeError, Error, Result};
pub use metadata::Metadata;
pub use metric::{Metric, Sample, Samples};
pub use types::{Desc, InDom, PmId, Timestamp, Units};
