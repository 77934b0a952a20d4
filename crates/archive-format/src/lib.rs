//! Read Performance Co-Pilot (PCP) archives, versions 2 and 3.
//!
//! Layers, from the bottom up:
//! - [`codec`]: pure decoders and encoders of every record kind (labels, `.meta`
//!   records, temporal index entries, pmResult data records, event arrays). No I/O.
//! - [`volume`] and [`compress`]: finding an archive's files and getting their bytes
//!   (memory-mapped, or decompressed into an unlinked temporary file).
//! - [`Archive`]: an open archive: label, [`Metadata`], temporal index, and records
//!   forward and backward across volumes.
//! - [`instances`]: instance domains read as a stream as time goes forward, for
//!   readers that need the set in force rather than the domains' history.
//! - [`format`]: PCP's text forms of values and timestamps.
//!
//! ```no_run
//! use archive_format::Archive;
//! let a = Archive::open("/var/lib/pcp/testsuite/archives/omnibus_v3")?;
//! let m = a.metadata();
//! for d in m.descs() {
//!     println!("{} ({}) type {}", d.pmid, m.names(d.pmid).join(" or "), d.vtype);
//! }
//! if let Some(&indom) = m.indoms().first() {
//!     let snap = m.indom_at(indom, a.label().start);
//!     println!("{indom}: {:?}", snap.map(|s| &s.instances));
//! }
//! for rec in a.records_rev().take(3) {
//!     let (_, rec) = rec?;
//!     println!("{:?} {} metrics", rec.stamp, rec.vsets.len());
//! }
//! # Ok::<(), archive_format::Error>(())
//! ```

pub mod archive;
pub mod atom;
pub mod codec;
pub mod compress;
mod copier;
pub mod error;
mod errtab;
pub mod format;
pub mod hashorder;
pub mod instances;
pub mod lives;
pub mod logfetch;
mod lzw;
pub mod metadata;
pub mod pmns;
pub mod replay;
pub mod text;
pub mod types;
pub mod volume;
pub mod writer;

pub use archive::{Archive, OpenOptions, Position, ReadWindow, Records};
pub use codec::index::IndexEntry;
pub use codec::label::Label;
pub use codec::result::{ResultRecord, Value, ValueSet};
pub use error::{pm_err_str, DecodeError, Error, Result};
pub use metadata::Metadata;
pub use types::{Desc, InDom, PmId, Timestamp, Units};
