//! How an archive is opened: [`OpenOptions`] for [`Archive::open_with`].

use super::KeepOnly;
use crate::volume;
// for the documentation's links
#[cfg(doc)]
use {
    super::{meta_profile_with, Archive},
    crate::metadata::Metadata,
};

/// Options for [`Archive::open_with`].
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Accept unknown feature bits in a v3 label (pmdumplog retries this way after
    /// warning).
    pub ignore_features: bool,
    /// Do not keep the instance domains: [`Metadata::snapshots`] and the other
    /// lookups by instance domain find nothing, and a reader going forward takes
    /// them from [`Archive::instance_stream`]. The memory of a `.meta` that
    /// writes a domain of processes again at each change is then what one set of
    /// each domain holds, not its history.
    pub without_instances: bool,
    /// Load compressed files through these decompressed copies (shared with the
    /// caller, who may have loaded the same files through them already, as
    /// [`meta_profile_with`] does); volumes read while they decode
    /// ([`OpenOptions::while_decoding`]) are not copied.
    pub decompressed: Option<volume::Decompressed>,
    /// Start no thread. By default a compressed archive's first volume is
    /// decompressed on a thread of its own while the metadata is read, and the
    /// next compressed volume while one is read.
    pub single_threaded: bool,
    /// Decompress no compressed volume ahead of the reader (not the last, for the
    /// archive's end, nor the next ones while one is read): each is decompressed
    /// when first read. For a reader of one point of the archive (pminfo's values
    /// at its start), which would otherwise share its cores with decodes it never
    /// reads. The first volume still decompresses beside the metadata.
    pub no_read_ahead: bool,
    /// Read only the label of a compressed first volume at open (libpcp
    /// decompresses the whole volume then): for a reader that streams the volumes
    /// itself ([`crate::stream`]). The volume is decompressed when first read
    /// through the archive.
    pub label_only: bool,
    /// Read a compressed volume while it is being decoded (on a thread of its own,
    /// or on [`OpenOptions::decoding_threads`] for an xz volume of many blocks), when
    /// its container declares the decoded size (xz; zstd, when its writer recorded
    /// the size): a reader going through it from its start waits only for the bytes
    /// it reads, not for the whole volume ([`Archive::decoding`] says whether one
    /// is). Where a decoding fails part way, what was read of that volume is not what
    /// libpcp reads (it could not use the volume at all): check
    /// [`Archive::decoded_whole`] before trusting it. With [`OpenOptions::decompressed`],
    /// the metadata and index come through those copies and the volumes are read as
    /// they decode.
    pub while_decoding: bool,
    /// The threads an xz volume of several blocks read while it decodes may take;
    /// `None`: every thread the job has ([`crate::cores::threads`]). A reader busy on
    /// another core with work of its own leaves that core to it.
    pub decoding_threads: Option<usize>,
    /// Keep only the value sets of the metrics this names once the metadata is
    /// read (`None` from it: all). Each compressed volume is then cut down to them
    /// as it decodes ([`crate::codec::strip`]) and held so, in memory, instead of
    /// being decoded whole into a temporary file: its records hold only those
    /// metrics' sets (one that held none of them, one empty set of another
    /// metric), so the reader must ask for no other metric's values. For one
    /// archive whose first volume is compressed, with threads; a volume that is
    /// not all sound records is loaded whole, as without it.
    pub keep_only: Option<KeepOnly>,
    /// Read each compressed data volume once, front to back, as it decodes, its
    /// decoded bytes passing through memory (no temporary file) and shown, piece by
    /// piece, to the observer made for it: for a reader that goes through the
    /// records from the start, once. No volume is decompressed ahead. A read out of
    /// that order fails; [`Archive::finish_streams`] says whether one did. Takes
    /// precedence over [`OpenOptions::while_decoding`] and `keep_only`.
    pub streamed: Option<volume::Observe>,
}
