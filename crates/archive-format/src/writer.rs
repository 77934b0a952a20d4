//! Writing archives, v3 by default and v2 on request, laid out as libpcp's pmlogger
//! writes them:
//!
//! - the three label records (`.index`, `.meta`, `.0`) are written when the first data
//!   record is, with that record's time as the archive's start; metadata written
//!   before it waits in memory;
//! - instance domains: v2 always a full `TYPE_INDOM_V2` record; v3 nothing when the set
//!   did not change, a `TYPE_INDOM_DELTA` when adds + deletes <= the new size and no
//!   instance was renamed, else a full `TYPE_INDOM`;
//! - temporal index entries where pmlogger puts them: for the first record of each
//!   volume, after an instance domain was written, and once a volume has grown by
//!   100 000 bytes since the last entry; each entry holds the metadata and data
//!   offsets *before* the record it announces;
//! - every record is written whole with one `write` (metadata before the data that
//!   refers to it), so a reader following a live archive never sees a partial record
//!   or a value without its descriptor; volumes are fsync'd when closed, and when
//!   switched on a helper thread, so the next record does not wait for the disk
//!   (unless [`FlushPolicy::NoSync`]);
//! - v2 volumes switch before a record would pass 2^31 - 1 bytes.
//!
//! The files are created exclusively: an existing archive is never overwritten.

use crate::codec::index::{encode_index_entry, IndexEntry};
use crate::codec::label::{encode_label, Label, VOL_INDEX, VOL_META};
use crate::codec::meta::{encode_meta, InDomKind, Instance, LabelSet, MetaRecord};
use crate::codec::record::encode_frame;
use crate::codec::result::{encode_result, OwnedValueSet};
use crate::copier::{Copier, CopyError, Job};
use crate::error::{Error, Result};
use crate::types::{Desc, InDom, PmId, Timestamp};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod delta;
mod out;
mod salvage;

use out::{write_all_gathered, Out, Shared};
pub use out::{Part, Push};

/// How much a data volume grows between temporal index entries.
const INDEX_EVERY: u64 = 100_000;
/// Data written between two starts of writeback.
const WRITEBACK_EVERY: u64 = 16 << 20;
/// Buffer size of a buffered writer.
const BUFFER: usize = 64 << 10;
/// v2 volumes hold 32-bit offsets.
const V2_VOLUME_LIMIT: u64 = (1 << 31) - 1;

/// When the writer flushes to the operating system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlushPolicy {
    /// Every record goes to the kernel as it is written (files are unbuffered).
    #[default]
    EveryRecord,
    /// Also fsync the data volume after every result.
    SyncEveryResult,
    /// Never fsync: writeback is left to the kernel, as the reference's pmlogextract
    /// leaves it (its output is renamed into place, so a failure of the process never
    /// leaves a partial archive; a crash of the machine soon after may).
    NoSync,
}

/// What an archive's labels say.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    /// 2 or 3.
    pub version: u32,
    pub hostname: String,
    pub timezone: String,
    /// v3 only.
    pub zoneinfo: String,
    pub pid: i32,
    /// The label's feature bits (v3 only).
    pub features: u32,
    pub flush: FlushPolicy,
    /// Temporal index entries where pmlogger puts them (`true`), or only those the
    /// caller writes with [`ArchiveWriter::put_index_at`] (`false`, pmlogextract).
    pub auto_index: bool,
    /// Buffer writes (`true`) for archives nobody reads while they are written
    /// (pmlogextract's temporary output); by default every record goes to the
    /// kernel whole as it is written, for readers following a live archive.
    pub buffered: bool,
    /// PCP 7's libpcp: no temporal index entry for the time of the last one (PCP
    /// 6.0.3's writes it; PCP 7's pmlogger stamps its prologue with the first
    /// sample's time, and the entry for that sample is dropped).
    pub one_index_per_time: bool,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            version: 3,
            hostname: "localhost".into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
            pid: std::process::id() as i32,
            features: 0,
            flush: FlushPolicy::EveryRecord,
            auto_index: true,
            buffered: false,
            one_index_per_time: false,
        }
    }
}

/// Writes one archive.
pub struct ArchiveWriter {
    base: PathBuf,
    opts: WriterOptions,
    start: Option<Timestamp>,
    meta: BufWriter<Out>,
    index: BufWriter<Out>,
    data: BufWriter<Out>,
    /// Where the records go instead of files (see [`ArchiveWriter::push`]).
    remote: Option<Shared>,
    vol: u32,
    meta_off: u64,
    data_off: u64,
    /// How far into the data volume writeback has been started.
    kicked: u64,
    /// Data offset at which the next index entry becomes due.
    next_index_at: u64,
    /// A temporal index entry is due with the next result (new volume, new indom).
    index_due: bool,
    /// Metadata written before the first result.
    pending_meta: Vec<Vec<u8>>,
    descs: HashMap<PmId, Desc>,
    indoms: HashMap<InDom, Vec<(i32, String)>>,
    total_bytes: u64,
    /// The metadata offset when the current fetch began (see `begin_fetch`).
    fetch_meta_off: Option<u64>,
    /// Records copied from another file, not yet in the data volume (see
    /// [`ArchiveWriter::write_result_from`]).
    run: Option<CopyRun>,
    /// Sources of copies, duplicated file handles by the caller's source id.
    sources: HashMap<u64, Arc<File>>,
    /// Does the file-to-file copies of long runs beside this thread.
    copier: Copier,
    /// The current data volume's handle as the copier writes through it.
    data_shared: Option<Arc<File>>,
    /// [`COPY_PIECE`] (smaller in tests).
    copy_piece: u64,
    /// [`COPY_ALIGN`] (smaller in tests).
    copy_align: u64,
    /// The time of the last temporal index entry written.
    last_index: Option<Timestamp>,
}

/// Consecutive records of one source file that go to the data volume as one
/// kernel-side copy (`copy_file_range`, by the [`Copier`]'s thread); while the run
/// is short its bytes are held here instead, and written as usual (a file-to-file
/// copy does not pay for a few records).
struct CopyRun {
    source: u64,
    off: u64,
    len: u64,
    /// Where the run starts in the data volume.
    dst: u64,
    bytes: Option<Vec<u8>>,
}

/// Runs at least this long are copied file to file.
const COPY_RUN_MIN: u64 = 256 << 10;
/// A run copied file to file is handed over in pieces of this size, so that the
/// copying goes on while the next records are read.
const COPY_PIECE: u64 = 8 << 20;
/// Where a piece ends in the data volume: a multiple of this. The kernel copies a
/// range that starts at such a place in the file in large page-cache folios, and
/// one that starts a few pages past it page by page: 8 MiB pieces cut at record
/// ends copy at two thirds of the speed (ext4, Linux 6.18).
const COPY_ALIGN: u64 = 2 << 20;
/// `-EIO`, for copies that come up short.
const ERR_IO: i32 = -5;

fn create_new(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(path, &e))
}

impl ArchiveWriter {
    /// Creates `base.index`, `base.meta` and `base.0`; fails if any exists.
    pub fn create(base: impl AsRef<Path>, opts: WriterOptions) -> Result<ArchiveWriter> {
        let base = base.as_ref().to_path_buf();
        let name = |ext: &str| PathBuf::from(format!("{}.{ext}", base.display()));
        for ext in ["index", "meta", "0"] {
            if name(ext).exists() {
                let e = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
                return Err(Error::io(&name(ext), &e));
            }
        }
        let index = create_new(&name("index"))?;
        let meta = match create_new(&name("meta")) {
            Ok(f) => f,
            Err(e) => {
                let _ = std::fs::remove_file(name("index"));
                return Err(e);
            }
        };
        let data = match create_new(&name("0")) {
            Ok(f) => f,
            Err(e) => {
                let _ = std::fs::remove_file(name("index"));
                let _ = std::fs::remove_file(name("meta"));
                return Err(e);
            }
        };
        let cap = if opts.buffered { BUFFER } else { 0 };
        let outs = [Out::File(index), Out::File(meta), Out::File(data)];
        Ok(ArchiveWriter::with_outputs(base, opts, cap, outs, None))
    }

    /// A writer whose records go to `push` instead of files, as PCP 7's pmlogger
    /// pushes a recording to pmproxy: the label once, then each record of each file
    /// as it is written. `name` names the archive in errors (the receiver's URL).
    pub fn push(name: &str, opts: WriterOptions, push: Box<dyn Push>) -> ArchiveWriter {
        let shared: Shared = std::sync::Arc::new(std::sync::Mutex::new(push));
        let outs = [
            Out::Remote(Part::Index, shared.clone()),
            Out::Remote(Part::Meta, shared.clone()),
            Out::Remote(Part::Volume(0), shared.clone()),
        ];
        let opts = WriterOptions {
            buffered: false,
            ..opts
        };
        ArchiveWriter::with_outputs(PathBuf::from(name), opts, 0, outs, Some(shared))
    }

    /// A writer on its three outputs: index, meta, data volume 0.
    fn with_outputs(
        base: PathBuf,
        opts: WriterOptions,
        cap: usize,
        outs: [Out; 3],
        remote: Option<Shared>,
    ) -> ArchiveWriter {
        let [index, meta, data] = outs;
        ArchiveWriter {
            base,
            start: None,
            meta: BufWriter::with_capacity(cap, meta),
            index: BufWriter::with_capacity(cap, index),
            data: BufWriter::with_capacity(cap, data),
            remote,
            opts,
            vol: 0,
            meta_off: 0,
            data_off: 0,
            kicked: 0,
            next_index_at: 0,
            index_due: true,
            pending_meta: Vec::new(),
            descs: HashMap::new(),
            indoms: HashMap::new(),
            total_bytes: 0,
            fetch_meta_off: None,
            run: None,
            sources: HashMap::new(),
            copier: Copier::default(),
            data_shared: None,
            copy_piece: COPY_PIECE,
            copy_align: COPY_ALIGN,
            last_index: None,
        }
    }

    pub fn version(&self) -> u32 {
        self.opts.version
    }
    /// The archive's start (its first record's time), once something is written.
    pub fn start(&self) -> Option<Timestamp> {
        self.start
    }

    /// Writes out what is buffered (and waits for the copies under way).
    pub fn flush(&mut self) -> Result<()> {
        self.finish_copies()?;
        for (f, ext) in [
            (&mut self.data, self.vol.to_string()),
            (&mut self.meta, "meta".into()),
            (&mut self.index, "index".into()),
        ] {
            f.flush()
                .map_err(|e| Error::io(Path::new(&format!("{}.{ext}", self.base.display())), &e))?;
        }
        Ok(())
    }

    /// The current data volume.
    pub fn volume(&self) -> u32 {
        self.vol
    }
    /// Bytes written to all data volumes.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
    pub fn base(&self) -> &Path {
        &self.base
    }
    /// The label's time zone; can change until the first result is written.
    pub fn set_timezone(&mut self, tz: &str, zoneinfo: &str) {
        if self.start.is_none() {
            self.opts.timezone = tz.into();
            self.opts.zoneinfo = zoneinfo.into();
        }
    }

    fn label(&self, vol: i32, start: Timestamp) -> Label {
        let v3 = self.opts.version >= 3;
        Label {
            version: self.opts.version,
            pid: self.opts.pid,
            start: if v3 {
                start
            } else {
                Timestamp::new(start.sec, start.nsec / 1000 * 1000)
            },
            vol,
            features: if v3 { self.opts.features } else { 0 },
            hostname: self.opts.hostname.clone(),
            timezone: self.opts.timezone.clone(),
            zoneinfo: if v3 {
                self.opts.zoneinfo.clone()
            } else {
                String::new()
            },
        }
    }

    fn data_path(&self) -> PathBuf {
        data_path_of(&self.base, self.vol)
    }

    fn start_if_needed(&mut self, stamp: Timestamp) -> Result<()> {
        if self.start.is_some() {
            return Ok(());
        }
        self.start = Some(stamp);
        let li = encode_label(&self.label(VOL_INDEX, stamp));
        let lm = encode_label(&self.label(VOL_META, stamp));
        let ld = encode_label(&self.label(0, stamp));
        let index_path = PathBuf::from(format!("{}.index", self.base.display()));
        let meta_path = PathBuf::from(format!("{}.meta", self.base.display()));
        if let Some(remote) = &self.remote {
            // the receiver writes the three labels from the index's
            let mut push = remote.lock().map_err(|_| poisoned(&index_path))?;
            push.label(&li).map_err(|e| Error::io(&index_path, &e))?;
        } else {
            write_all(&mut self.index, &li, &index_path)?;
            write_all(&mut self.meta, &lm, &meta_path)?;
            let dp = self.data_path();
            write_all(&mut self.data, &ld, &dp)?;
        }
        self.meta_off = lm.len() as u64;
        // an index entry for the first record points before the metadata written
        // with it, as pmlogger's does
        self.fetch_meta_off.get_or_insert(self.meta_off);
        self.data_off = ld.len() as u64;
        self.total_bytes = self.data_off;
        self.next_index_at = self.data_off + INDEX_EVERY;
        for rec in std::mem::take(&mut self.pending_meta) {
            write_all(&mut self.meta, &rec, &meta_path)?;
            self.meta_off += rec.len() as u64;
        }
        Ok(())
    }

    fn put_meta(&mut self, r: &MetaRecord) -> Result<()> {
        let rec = encode_frame(&encode_meta(r));
        if self.start.is_none() {
            self.pending_meta.push(rec);
            return Ok(());
        }
        let meta_path = PathBuf::from(format!("{}.meta", self.base.display()));
        write_all(&mut self.meta, &rec, &meta_path)?;
        self.meta_off += rec.len() as u64;
        Ok(())
    }

    /// Starts the archive at `stamp` (its labels written) if nothing was written
    /// yet; a volume switched to before the first record then has that start.
    pub fn begin(&mut self, stamp: Timestamp) -> Result<()> {
        self.start_if_needed(stamp)
    }

    /// Turns the temporal index entries written where pmlogger writes them on or
    /// off (off for a record the logger writes itself, as its epilogue).
    pub fn set_auto_index(&mut self, on: bool) {
        self.opts.auto_index = on;
    }

    /// Marks the start of one fetch's worth of records (its metadata, then its
    /// result): an index entry written with the result points at the metadata offset
    /// from here, as pmlogger's entries do.
    pub fn begin_fetch(&mut self) {
        self.fetch_meta_off = if self.start.is_some() {
            Some(self.meta_off)
        } else {
            None
        };
    }

    /// Whether a descriptor for `pmid` was written.
    pub fn has_desc(&self, pmid: PmId) -> bool {
        self.descs.contains_key(&pmid)
    }

    /// Writes a descriptor with its names (once per metric).
    pub fn put_desc(&mut self, desc: Desc, names: &[String]) -> Result<()> {
        if self.descs.contains_key(&desc.pmid) {
            return Ok(());
        }
        self.descs.insert(desc.pmid, desc);
        self.put_meta(&MetaRecord::Desc {
            desc,
            names: names.to_vec(),
        })
    }

    /// Writes a descriptor with its names as given, whether or not the metric
    /// has one already (a rewrite copies its input's records).
    pub fn put_desc_record(&mut self, desc: Desc, names: &[String]) -> Result<()> {
        self.descs.insert(desc.pmid, desc);
        self.put_meta(&MetaRecord::Desc {
            desc,
            names: names.to_vec(),
        })
    }

    /// Writes an instance domain as of `stamp` if it changed: instances `(id, name)`.
    /// An empty set is not written. Returns whether a record was written.
    pub fn put_indom(
        &mut self,
        stamp: Timestamp,
        indom: InDom,
        instances: &[(i32, String)],
    ) -> Result<bool> {
        let old = self.indoms.get(&indom);
        // the usual case, checked without copying: sorted by id and unchanged
        if instances.windows(2).all(|p| p[0].0 < p[1].0)
            && old.is_some_and(|o| o.as_slice() == instances)
        {
            return Ok(false);
        }
        let mut new: Vec<(i32, String)> = instances.to_vec();
        new.sort_by_key(|(i, _)| *i);
        new.dedup_by_key(|(i, _)| *i);
        // unchanged, or empty (pmlogger only looks at instance domains of value sets
        // that have values)
        if old == Some(&new) || new.is_empty() {
            return Ok(false);
        }
        let v3 = self.opts.version >= 3;
        let full = |v: &[(i32, String)]| -> Vec<Instance> {
            v.iter()
                .map(|(i, n)| Instance {
                    inst: *i,
                    name: Some(n.clone()),
                })
                .collect()
        };
        let (kind, list) =
            match (v3, old) {
                (false, _) => (InDomKind::V2, full(&new)),
                (true, None) => (InDomKind::Full, full(&new)),
                (true, Some(old)) => {
                    let old_map: HashMap<i32, &String> = old.iter().map(|(i, n)| (*i, n)).collect();
                    let new_map: HashMap<i32, &String> = new.iter().map(|(i, n)| (*i, n)).collect();
                    let renamed = new
                        .iter()
                        .any(|(i, n)| old_map.get(i).is_some_and(|o| *o != n));
                    let mut delta: Vec<Instance> = new
                        .iter()
                        .filter(|(i, _)| !old_map.contains_key(i))
                        .map(|(i, n)| Instance {
                            inst: *i,
                            name: Some(n.clone()),
                        })
                        .collect();
                    delta.extend(old.iter().filter(|(i, _)| !new_map.contains_key(i)).map(
                        |(i, _)| Instance {
                            inst: *i,
                            name: None,
                        },
                    ));
                    delta.sort_by_key(|x| x.inst);
                    if !renamed && delta.len() <= new.len() {
                        (InDomKind::Delta, delta)
                    } else {
                        (InDomKind::Full, full(&new))
                    }
                }
            };
        let stamp = if v3 {
            stamp
        } else {
            Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
        };
        self.put_meta(&MetaRecord::InDom {
            kind,
            stamp,
            indom,
            instances: list,
        })?;
        self.indoms.insert(indom, new);
        self.index_due = true;
        Ok(true)
    }

    /// Writes a label-set record (`ltype` is a `PM_LABEL_*` type).
    pub fn put_labels(
        &mut self,
        stamp: Timestamp,
        ltype: u32,
        ident: u32,
        sets: Vec<LabelSet>,
    ) -> Result<()> {
        let v3 = self.opts.version >= 3;
        self.put_meta(&MetaRecord::Label {
            v3,
            stamp: if v3 {
                stamp
            } else {
                Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
            },
            ltype,
            ident,
            sets,
        })
    }

    /// Writes help text (`ttype` combines `PM_TEXT_*` bits).
    pub fn put_text(&mut self, ttype: u32, ident: u32, text: &str) -> Result<()> {
        self.put_meta(&MetaRecord::Text {
            ttype,
            ident,
            text: text.into(),
        })
    }

    /// Writes a result. Descriptors (and instance domains) for its metrics should be
    /// written first.
    pub fn put_result(&mut self, stamp: Timestamp, vsets: &[OwnedValueSet]) -> Result<()> {
        self.write_result(stamp, vsets).map(|_| ())
    }

    /// Writes a result and returns the data-volume offset it starts at.
    pub fn write_result<S: crate::codec::result::SetView>(
        &mut self,
        stamp: Timestamp,
        vsets: &[S],
    ) -> Result<u64> {
        let stamp = if self.opts.version >= 3 {
            stamp
        } else {
            Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
        };
        let payload = encode_result(stamp, vsets, self.opts.version);
        self.write_result_payload(stamp, &payload)
    }

    /// Writes a result already encoded for this archive's version (a payload as
    /// [`crate::codec::result::encode_result`] makes it, e.g. copied from another
    /// archive after [`crate::codec::result::scan_canonical`]); `stamp` must be its
    /// time. Returns the data-volume offset it starts at.
    pub fn write_result_payload(&mut self, stamp: Timestamp, payload: &[u8]) -> Result<u64> {
        self.write_result_from(stamp, payload, None)
    }

    /// Like [`ArchiveWriter::write_result_payload`], for a record that is stored
    /// exactly so (length, payload, length) in `source`'s file at its offset:
    /// `(id, file, offset)`, the id naming the file for the caller (e.g. an input
    /// and volume number). Consecutive records of one source are then copied file to
    /// file by the kernel (`copy_file_range`) instead of through this process; the
    /// output is the same.
    pub fn write_result_from(
        &mut self,
        stamp: Timestamp,
        payload: &[u8],
        source: Option<(u64, &File, u64)>,
    ) -> Result<u64> {
        self.start_if_needed(stamp)?;
        let len = (payload.len() + 8) as u32;
        if self.opts.version < 3 && self.data_off + len as u64 > V2_VOLUME_LIMIT {
            self.new_volume()?;
        }
        if self.opts.auto_index && (self.index_due || self.data_off > self.next_index_at) {
            self.put_index(stamp)?;
        }
        let at = self.data_off;
        let head = len.to_be_bytes();
        match source {
            Some((id, file, off)) if self.opts.buffered => {
                let extends = self
                    .run
                    .as_ref()
                    .is_some_and(|r| r.source == id && r.off + r.len == off);
                if !extends {
                    self.finish_run()?;
                    self.run = Some(CopyRun {
                        source: id,
                        off,
                        len: 0,
                        dst: at,
                        bytes: Some(Vec::new()),
                    });
                }
                let (mut long, mut piece) = (false, false);
                if let Some(r) = self.run.as_mut() {
                    r.len += len as u64;
                    if let Some(b) = r.bytes.as_mut() {
                        b.extend_from_slice(&head);
                        b.extend_from_slice(payload);
                        b.extend_from_slice(&head);
                    }
                    long = r.bytes.is_some() && r.len >= COPY_RUN_MIN;
                    piece = r.bytes.is_none() && r.len >= self.copy_piece;
                }
                if long {
                    // long enough: from here on the kernel copies it
                    if let std::collections::hash_map::Entry::Vacant(e) = self.sources.entry(id) {
                        let dup = file.try_clone().map_err(data_err(&self.base, self.vol))?;
                        e.insert(Arc::new(dup));
                    }
                    if let Some(r) = self.run.as_mut() {
                        r.bytes = None;
                    }
                }
                if piece {
                    self.hand_over_piece()?;
                }
            }
            _ => {
                self.finish_run()?;
                let err = data_err(&self.base, self.vol);
                if self.opts.buffered {
                    self.data.write_all(&head).map_err(err)?;
                    self.data.write_all(payload).map_err(err)?;
                    self.data.write_all(&head).map_err(err)?;
                } else {
                    // unbuffered: the whole record in one write, gathered from
                    // its three pieces (the payload is not copied)
                    self.data.flush().map_err(err)?;
                    write_all_gathered(self.data.get_mut(), &[&head, payload, &head])
                        .map_err(err)?;
                }
            }
        }
        self.data_off += len as u64;
        self.total_bytes += len as u64;
        self.fetch_meta_off = None;
        if self.opts.flush != FlushPolicy::NoSync && self.data_off >= self.kicked + WRITEBACK_EVERY
        {
            self.start_writeback()?;
        }
        if self.opts.flush == FlushPolicy::SyncEveryResult {
            self.finish_copies()?;
            let dp = self.data_path();
            self.data.flush().map_err(|e| Error::io(&dp, &e))?;
            if let Some(f) = self.data.get_ref().file() {
                f.sync_data().map_err(|e| Error::io(&dp, &e))?;
            }
        }
        Ok(at)
    }

    /// Hands the pending run over to the copier up to an aligned place in the data
    /// volume ([`COPY_ALIGN`]), and goes on with the rest of it as the pending run.
    fn hand_over_piece(&mut self) -> Result<()> {
        let next = self.run.as_mut().map(|r| {
            let end = r.dst + r.len;
            let cut = end / self.copy_align * self.copy_align;
            let cut = if cut > r.dst { cut } else { end };
            r.len = cut - r.dst;
            CopyRun {
                source: r.source,
                off: r.off + r.len,
                len: end - cut,
                dst: cut,
                bytes: None,
            }
        });
        self.finish_run()?;
        self.run = next;
        Ok(())
    }

    /// Puts the pending run of copied records into the data volume: a short one's
    /// bytes through the buffer, a long one by the copier, at its place (the data
    /// volume's position moves past it, for the records after it).
    fn finish_run(&mut self) -> Result<()> {
        let Some(run) = self.run.take() else {
            return Ok(());
        };
        if let Some(b) = run.bytes {
            return self
                .data
                .write_all(&b)
                .map_err(data_err(&self.base, self.vol));
        }
        if run.len == 0 {
            return Ok(());
        }
        let dp = self.data_path();
        let Some(src) = self.sources.get(&run.source) else {
            return Err(Error::pcp(ERR_IO, "copy source went away").at(&dp, None));
        };
        let src = src.clone();
        // the buffer goes out first: it ends where the run starts
        self.data
            .seek(SeekFrom::Start(run.dst + run.len))
            .map_err(|e| Error::io(&dp, &e))?;
        let dst = match &self.data_shared {
            Some(f) => f.clone(),
            None => {
                let unsupported = std::io::ErrorKind::Unsupported.into();
                let dup = self
                    .data
                    .get_ref()
                    .file()
                    .map_or(Err(unsupported), File::try_clone);
                let f = Arc::new(dup.map_err(|e| Error::io(&dp, &e))?);
                self.data_shared = Some(f.clone());
                f
            }
        };
        let job = Job {
            src,
            src_off: run.off,
            dst,
            dst_off: run.dst,
            len: run.len,
        };
        self.copier.submit(job).map_err(|e| copy_err(&dp, e))
    }

    /// Puts the pending run into the data volume and waits for the copier's copies
    /// into it.
    fn finish_copies(&mut self) -> Result<()> {
        self.finish_run()?;
        let dp = self.data_path();
        self.copier.drain().map_err(|e| copy_err(&dp, e))
    }

    /// Writes a mark record and returns the offset it starts at.
    pub fn write_mark(&mut self, stamp: Timestamp) -> Result<u64> {
        self.write_result::<OwnedValueSet>(stamp, &[])
    }

    /// The size of the current data volume so far.
    pub fn data_offset(&self) -> u64 {
        if self.start.is_none() {
            self.label_len()
        } else {
            self.data_off
        }
    }

    /// The size of `.meta` so far (its label's size before anything is written).
    pub fn meta_offset(&self) -> u64 {
        if self.start.is_none() {
            self.label_len()
        } else {
            self.meta_off
        }
    }

    /// The size of a label record of this archive's version.
    pub fn label_len(&self) -> u64 {
        // fixed by the version (host and zone fields are fixed-size)
        use crate::codec::label::{LABEL_V2_LEN, LABEL_V3_LEN};
        if self.opts.version >= 3 {
            LABEL_V3_LEN as u64
        } else {
            LABEL_V2_LEN as u64
        }
    }

    /// Writes a temporal index entry with the given offsets (of the current volume).
    pub fn put_index_at(&mut self, stamp: Timestamp, meta_off: u64, data_off: u64) -> Result<()> {
        self.start_if_needed(stamp)?;
        let v3 = self.opts.version >= 3;
        let stamp = if v3 {
            stamp
        } else {
            Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
        };
        let e = IndexEntry {
            stamp,
            raw_nsec: stamp.nsec as i64,
            vol: self.vol as i32,
            off_meta: meta_off as i64,
            off_data: data_off as i64,
        };
        self.write_index(&e)
    }

    /// Writes one temporal index entry (unless [`WriterOptions::one_index_per_time`]
    /// drops it).
    fn write_index(&mut self, e: &IndexEntry) -> Result<()> {
        if self.opts.one_index_per_time && self.last_index == Some(e.stamp) {
            return Ok(());
        }
        self.last_index = Some(e.stamp);
        let bytes = encode_index_entry(e, self.opts.version);
        let ip = PathBuf::from(format!("{}.index", self.base.display()));
        write_all(&mut self.index, &bytes, &ip)
    }

    /// Writes an instance-domain record exactly as given (full, delta or v2 form),
    /// remembering the resulting instance set.
    pub fn put_indom_record(
        &mut self,
        kind: InDomKind,
        stamp: Timestamp,
        indom: InDom,
        instances: Vec<Instance>,
    ) -> Result<()> {
        let set: Vec<(i32, String)> = match kind {
            InDomKind::Delta => {
                let mut cur = self.indoms.get(&indom).cloned().unwrap_or_default();
                for i in &instances {
                    cur.retain(|(id, _)| *id != i.inst);
                    if let Some(n) = &i.name {
                        cur.push((i.inst, n.clone()));
                    }
                }
                cur.sort_by_key(|(i, _)| *i);
                cur
            }
            _ => {
                let mut v: Vec<(i32, String)> = instances
                    .iter()
                    .map(|i| (i.inst, i.name.clone().unwrap_or_default()))
                    .collect();
                v.sort_by_key(|(i, _)| *i);
                v
            }
        };
        self.indoms.insert(indom, set);
        let stamp = if self.opts.version >= 3 {
            stamp
        } else {
            Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
        };
        self.put_meta(&MetaRecord::InDom {
            kind,
            stamp,
            indom,
            instances,
        })
    }

    /// Writes a `<mark>` record (a gap in the recording).
    pub fn put_mark(&mut self, stamp: Timestamp) -> Result<()> {
        self.put_result(stamp, &[])
    }

    /// Writes a temporal index entry at `stamp` for the current offsets.
    pub fn put_index(&mut self, stamp: Timestamp) -> Result<()> {
        self.start_if_needed(stamp)?;
        let e = IndexEntry {
            stamp,
            raw_nsec: stamp.nsec as i64,
            vol: self.vol as i32,
            off_meta: self.fetch_meta_off.unwrap_or(self.meta_off) as i64,
            off_data: self.data_off as i64,
        };
        self.write_index(&e)?;
        self.index_due = false;
        self.next_index_at = self.data_off + INDEX_EVERY;
        Ok(())
    }

    /// Hands what the data volume holds beyond the last such call to the kernel's
    /// writeback now (`posix_fadvise(DONTNEED)` starts it without waiting), so that
    /// the `fsync` at the end has little left to wait for on large outputs.
    fn start_writeback(&mut self) -> Result<()> {
        self.finish_run()?;
        let dp = self.data_path();
        self.data.flush().map_err(|e| Error::io(&dp, &e))?;
        let len = std::num::NonZeroU64::new(self.data_off.saturating_sub(self.kicked));
        // advice only: a kernel that ignores it costs nothing but the wait later
        if let Some(f) = self.data.get_ref().file() {
            let _ = rustix::fs::fadvise(f, self.kicked, len, rustix::fs::Advice::DontNeed);
        }
        self.kicked = self.data_off;
        Ok(())
    }

    /// Starts the next data volume; its first record gets an index entry.
    pub fn new_volume(&mut self) -> Result<u32> {
        self.new_volume_at(self.vol + 1)
    }

    /// Starts data volume `vol` (a later number than the current one's: volume
    /// numbers may skip, as an input archive's do).
    pub fn new_volume_at(&mut self, vol: u32) -> Result<u32> {
        let start = self.start.unwrap_or(Timestamp::new(0, 0));
        self.start_if_needed(start)?;
        self.finish_copies()?;
        let dp = self.data_path();
        self.data.flush().map_err(|e| Error::io(&dp, &e))?;
        self.data_shared = None;
        self.vol = vol.max(self.vol + 1);
        let np = self.data_path();
        let cap = self.data.capacity();
        let l = encode_label(&self.label(self.vol as i32, start));
        let f = match &self.remote {
            // the receiver labels a volume when its first record comes
            Some(remote) => BufWriter::new(Out::Remote(Part::Volume(self.vol), remote.clone())),
            None => {
                let mut f = BufWriter::with_capacity(cap, Out::File(create_new(&np)?));
                write_all(&mut f, &l, &np)?;
                f
            }
        };
        let old = std::mem::replace(&mut self.data, f);
        // the finished volume is made durable off the caller's thread: a slow
        // disk must not delay the next record (pmlogger's samples)
        if self.opts.flush != FlushPolicy::NoSync {
            if let Ok(Out::File(file)) = old.into_inner() {
                std::thread::spawn(move || {
                    let _ = file.sync_all();
                });
            }
        }
        self.data_off = l.len() as u64;
        self.kicked = 0;
        self.total_bytes += self.data_off;
        self.index_due = true;
        Ok(self.vol)
    }

    /// Flushes everything to stable storage and closes the files.
    pub fn close(mut self) -> Result<()> {
        if self.start.is_none() {
            // nothing was logged: labels still go out, dated now
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            self.start_if_needed(Timestamp::new(now.as_secs() as i64, now.subsec_nanos()))?;
        }
        self.finish_copies()?;
        for (f, ext) in [
            (&mut self.data, format!("{}", self.vol)),
            (&mut self.meta, "meta".into()),
            (&mut self.index, "index".into()),
        ] {
            let path = PathBuf::from(format!("{}.{ext}", self.base.display()));
            f.flush().map_err(|e| Error::io(&path, &e))?;
            if let Some(file) = f
                .get_ref()
                .file()
                .filter(|_| self.opts.flush != FlushPolicy::NoSync)
            {
                file.sync_all().map_err(|e| Error::io(&path, &e))?;
            }
        }
        Ok(())
    }
}

/// The name of data volume `vol` of the archive `base`.
fn data_path_of(base: &Path, vol: u32) -> PathBuf {
    PathBuf::from(format!("{}.{vol}", base.display()))
}

/// An I/O error on data volume `vol` of `base`; the name is made only when an
/// error happens (the per-record write path uses this).
fn data_err(base: &Path, vol: u32) -> impl Fn(std::io::Error) -> Error + Copy + '_ {
    move |e| Error::io(&data_path_of(base, vol), &e)
}

fn copy_err(path: &Path, e: CopyError) -> Error {
    Error::io(path, &e.error).at(path, Some(e.dst_off))
}

fn poisoned(path: &Path) -> Error {
    Error::io(path, &std::io::Error::other("push receiver poisoned"))
}

fn write_all(f: &mut impl Write, bytes: &[u8], path: &Path) -> Result<()> {
    f.write_all(bytes).map_err(|e| Error::io(path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::Archive;
    use crate::codec::result::OwnedValueSet;
    use crate::types::{sem, vtype, Units};

    const P: PmId = PmId(0x0400_0001);

    /// A file that takes at most `max` bytes per call, gathered or not.
    struct Trickle {
        got: Vec<u8>,
        max: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let n = b.len().min(self.max);
            self.got.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            let mut left = self.max;
            for b in bufs {
                let n = b.len().min(left);
                self.got.extend_from_slice(&b[..n]);
                left -= n;
            }
            Ok(self.max - left)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A writer whose disk filled up: salvage leaves whole records, an index
    /// with its label and only entries inside what is left; the archive opens.
    #[test]
    fn salvage_leaves_a_readable_archive() {
        let dir = tempfile::tempdir().expect("tempdir");
        for lose_index in [false, true] {
            let base = dir.path().join(format!("a{lose_index}"));
            let name = base.to_string_lossy().into_owned();
            let mut o = opts(true);
            o.auto_index = false;
            let mut w = ArchiveWriter::create(&name, o).expect("create");
            w.put_desc(desc(), &["a.b".into()]).expect("desc");
            for k in 0..20u32 {
                let stamp = Timestamp::new(100 + k as i64, 0);
                w.begin_fetch();
                w.put_index(stamp).expect("index");
                w.put_result(stamp, &[OwnedValueSet::insitu(P, vec![(-1, k)])])
                    .expect("result");
            }
            w.data.flush().expect("flush");
            w.meta.flush().expect("flush");
            w.index.flush().expect("flush");
            // the disk "fills": the last record is cut in the middle, and (the
            // second time) the index never got out at all
            let data = w.data.get_ref().file().expect("file");
            let len = data.metadata().expect("len").len();
            data.set_len(len - 5).expect("cut");
            if lose_index {
                w.index
                    .get_ref()
                    .file()
                    .expect("file")
                    .set_len(0)
                    .expect("cut");
            }
            w.salvage().expect("salvage");
            let a = Archive::open(&name).expect("opens");
            let mut n = 0;
            for r in a.records() {
                r.expect("record");
                n += 1;
            }
            assert_eq!(n, 19, "lose_index {lose_index}");
            let index = std::fs::read(format!("{name}.index")).expect("index");
            // its label, then (when it was there) the 19 entries of whole records
            let label = u32::from_be_bytes([index[0], index[1], index[2], index[3]]) as usize;
            let entries = if lose_index { 1 } else { 19 };
            assert_eq!(index.len(), label + entries * 32, "lose_index {lose_index}");
        }
    }

    #[test]
    fn gathered_writes_survive_short_writes() {
        let parts: [&[u8]; 3] = [b"head", b"", b"a longer payload"];
        for max in 1..8 {
            let mut t = Trickle {
                got: Vec::new(),
                max,
            };
            write_all_gathered(&mut t, &parts).unwrap();
            assert_eq!(t.got, b"heada longer payload", "max {max}");
        }
        let mut t = Trickle {
            got: Vec::new(),
            max: 3,
        };
        write_all_gathered(&mut t, &[b"", b""]).unwrap();
        assert!(t.got.is_empty());
    }

    fn opts(buffered: bool) -> WriterOptions {
        WriterOptions {
            version: 3,
            hostname: "h".into(),
            timezone: "UTC".into(),
            auto_index: true,
            buffered,
            ..Default::default()
        }
    }

    fn desc() -> Desc {
        Desc {
            pmid: P,
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::INSTANT,
            units: Units(0),
        }
    }

    /// Records copied file to file (long runs by `copy_file_range` on the copier's
    /// thread, in pieces, short ones and records without a source through the
    /// buffer) give the same data volume as writing them.
    #[test]
    fn copied_records_equal_written_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = dir.path().join("src").to_string_lossy().into_owned();
        let mut w = ArchiveWriter::create(&src, opts(true)).expect("create");
        w.put_desc(desc(), &["a.b".into()]).expect("desc");
        // enough records for several runs past COPY_RUN_MIN
        let n = 40_000u32;
        for k in 0..n {
            let vs = OwnedValueSet::insitu(P, vec![(-1, k)]);
            w.write_result(Timestamp::new(1_000 + k as i64, 0), &[vs])
                .expect("result");
        }
        w.close().expect("close");

        let a = Archive::open(&src).expect("open source");
        let file = a
            .volume_file(0)
            .expect("a large volume is mapped from its file");
        let dst = dir.path().join("dst").to_string_lossy().into_owned();
        let mut copy = opts(true);
        // the source's index entries were made as it was written; none here
        copy.auto_index = false;
        let mut w = ArchiveWriter::create(&dst, copy).expect("create copy");
        // several pieces per run, in flight while later records are buffered
        w.copy_piece = 100_000;
        w.copy_align = 4096;
        w.put_desc(desc(), &["a.b".into()]).expect("desc");
        let mut pos = a.start();
        let mut k = 0u32;
        while let Some((at, Some(payload), next)) = a.read_raw_forward(pos).expect("read") {
            let stamp = Timestamp::new(1_000 + k as i64, 0);
            // every 9973rd record without its source, breaking the run (runs of
            // about 350 KB, past COPY_RUN_MIN; the last one short)
            let source = (!k.is_multiple_of(9973)).then_some((7, file, at.offset));
            w.write_result_from(stamp, payload, source).expect("copy");
            pos = next;
            k += 1;
        }
        assert_eq!(k, n);
        w.close().expect("close copy");
        let want = std::fs::read(format!("{src}.0")).expect("source data");
        let got = std::fs::read(format!("{dst}.0")).expect("copied data");
        let lab = a.label_len() as usize;
        assert_eq!(got.len(), want.len());
        assert!(got[lab..] == want[lab..], "records differ");
    }
}
