//! Opening an archive and walking its records.

use crate::codec::index::{decode_index, IndexEntry};
use crate::codec::label::{decode_label, Label, FEATURE_QA, VOL_INDEX, VOL_META};
use crate::codec::record::{check_frame_len, frame_at, frame_before};
use crate::codec::result::{decode_result, decode_result_for, decode_stamp, ResultRecord};
use crate::error::{
    DecodeError, DecodeErrorKind, Error, Result, PM_ERR_LABEL, PM_ERR_LOGHOST, PM_ERR_LOGOVERLAP,
    PM_ERR_NODATA,
};
use crate::metadata::{InDomRecord, MetaProfile, Metadata, ProfileBuilder};
use crate::types::Timestamp;
use crate::volume::{self, ArchiveFiles, Bytes, FileRef};
use std::path::Path;
use std::sync::OnceLock;

mod ahead;
mod damage;
mod keep;
mod loader;
mod options;
mod read;
pub use keep::{FindMetrics, KeepOnly};
use loader::Loader;
pub use options::OpenOptions;
pub use read::Records;

/// Bytes of a volume [`OpenOptions::label_only`] reads: a label (v2 132 bytes, v3
/// 808) and what follows it.
const PREFIX: usize = 1024;

struct Volume {
    /// Volume number in this (possibly multi-archive) context; index entries use it.
    num: u32,
    /// Volume number in its own archive, as its label says.
    file_num: u32,
    /// For the first volume of each archive after the first in a multi-archive
    /// context: where the previous archive ended and this one starts (libpcp puts a
    /// `<mark>` between them).
    boundary: Option<Boundary>,
    /// The format version of its archive (a multi-archive context may mix v2 and
    /// v3 archives, as libpcp's does).
    version: u32,
    fref: FileRef,
    /// Loaded on first use; `None` when the volume is unreadable or only a label
    /// (libpcp skips those when reading across volumes).
    bytes: OnceLock<Option<Bytes>>,
    /// The volumes after it were asked to be decompressed ahead when it was
    /// first read.
    ahead_asked: std::sync::atomic::AtomicBool,
}

/// An open archive: its label, metadata, temporal index and data volumes.
///
/// ```no_run
/// use archive_format::Archive;
/// let a = Archive::open("/var/lib/pcp/testsuite/archives/omnibus_v3")?;
/// println!("host {} version {}", a.label().hostname, a.label().version);
/// for d in a.metadata().descs() {
///     println!("{} {:?}", d.pmid, a.metadata().names(d.pmid));
/// }
/// for rec in a.records() {
///     let (_, rec) = rec?;
///     println!("{:?}: {} value sets", rec.stamp, rec.vsets.len());
/// }
/// # Ok::<(), archive_format::Error>(())
/// ```
pub struct Archive {
    files: ArchiveFiles,
    label: Label,
    meta: Metadata,
    meta_size: u64,
    /// The `.meta` file's bytes and where its records start, kept when the
    /// archive is opened without its instance domains (for
    /// [`Archive::instance_stream`], which would otherwise read it again).
    kept_meta: Option<(std::sync::Arc<Bytes>, u64)>,
    index: Vec<IndexEntry>,
    volumes: Vec<Volume>,
    /// The compressed volumes decompressed ahead on threads of their own while
    /// one is read.
    ahead: ahead::Ahead,
    loader: Loader,
    /// Archives removed from a multi-archive context as corrupted (PCP 7.1.4's).
    damage: damage::Removal,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("base", &self.files.base)
            .field("label", &self.label)
            .finish()
    }
}

/// The end of one archive and the start of the next in a multi-archive context.
#[derive(Debug, Clone, Copy)]
struct Boundary {
    prev_end: Timestamp,
    start: Timestamp,
}

impl Boundary {
    /// The `<mark>` seen reading forward: 1 ms after the previous archive's end
    /// (carried only past a whole second, as libpcp does).
    fn forward_mark(&self) -> Timestamp {
        let mut t = self.prev_end;
        t.nsec += 1_000_000;
        if t.nsec > 1_000_000_000 {
            t.nsec -= 1_000_000_000;
            t.sec += 1;
        }
        t
    }
    /// The `<mark>` seen reading backward: 1 ms before this archive's start.
    fn backward_mark(&self) -> Timestamp {
        let mut t = self.start;
        if t.nsec >= 1_000_000 {
            t.nsec -= 1_000_000;
        } else {
            t.nsec += 1_000_000_000 - 1_000_000;
            t.sec -= 1;
        }
        t
    }
}

/// What is next in some direction.
enum Located<'a> {
    End,
    /// A `<mark>` between archives: where it is, its time, and where to go on.
    Mark(Position, Timestamp, Position),
    Frame(Position, crate::codec::record::Frame, &'a [u8]),
}

/// See [`Archive::enter_forward`].
enum Entered {
    End,
    Mark(Position, Timestamp, Position),
    At(Position),
}

/// What [`Archive::locate_forward_in`] found: the payload is a range of the window.
enum LocatedIn {
    End,
    Mark(Position, Timestamp, Position),
    Frame(Position, std::ops::Range<usize>, Position),
}

/// The bytes of a window read at a time (see [`ReadWindow`]).
const WINDOW: u64 = 256 << 10;

/// A window onto one volume of an archive, filled by `pread`, for reading records
/// in file order without the memory map (see [`Archive::read_raw_forward_in`]).
/// One per reader; it holds 256 KB, or one record when that is larger.
#[derive(Debug, Default)]
pub struct ReadWindow {
    /// Holds the window in its first `len` bytes (what is beyond is left from a
    /// larger window earlier, so that refilling does not clear it first).
    buf: Vec<u8>,
    len: usize,
    /// The volume (list index) the buffer holds bytes of, if any.
    vol: Option<usize>,
    /// The file offset of `buf[0]`.
    start: u64,
}

impl ReadWindow {
    pub fn new() -> Self {
        Self::default()
    }
}

fn mark_record<'a>(stamp: Timestamp) -> ResultRecord<'a> {
    ResultRecord {
        stamp,
        vsets: Vec::new(),
    }
}

/// Where a record is: index into the archive's volume list, and byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub vol: usize,
    pub offset: u64,
}

/// A record as stored: where it starts, its payload (`None` for the `<mark>` between
/// the archives of a multi-archive context), and where the next one starts.
pub type RawRecord<'a> = (Position, Option<&'a [u8]>, Position);

fn check_features(label: &Label, path: &Path, opts: &OpenOptions) -> Result<()> {
    if label.version >= 3 && !opts.ignore_features && label.features & !FEATURE_QA != 0 {
        return Err(Error::decode(
            path,
            DecodeError::new(24, DecodeErrorKind::Feature(label.features)),
        ));
    }
    Ok(())
}

fn nodata(path: &Path) -> Error {
    Error::pcp(PM_ERR_NODATA, "file holds only a label").at(path, None)
}

/// Decodes a `.meta` file's records after its label (at `start`), letting the
/// mapped pages of what has been decoded go as it goes: a `.meta` of hundreds of
/// MB (an instance domain of processes written again at each change) is not held
/// whole beside what it decodes to.
fn load_metadata(
    bytes: &Bytes,
    start: u64,
    instances: bool,
) -> std::result::Result<Metadata, DecodeError> {
    let mut behind = volume::Behind::new(4 << 20);
    let meta = Metadata::load_reporting(bytes, start, instances, |done| {
        behind.passed(bytes, done);
    });
    behind.finish(bytes);
    meta
}

/// What the `.meta` of the archive `name` holds (see [`MetaProfile`]), from the
/// heads of its records, read once through (decompressed as it is read when it
/// is compressed; nothing is kept): for a caller that must know what holding an
/// archive's metadata costs before it opens it, and whether its instance
/// domains can be read as a stream ([`OpenOptions::without_instances`]).
pub fn meta_profile(name: &str) -> Result<MetaProfile> {
    meta_profile_with(name, None)
}

/// [`meta_profile`], a compressed `.meta` decompressed once into `copies`
/// when given: an archive then opened through them
/// ([`OpenOptions::decompressed`]) reads it from there, not decompressing it
/// again.
pub fn meta_profile_with(name: &str, copies: Option<&volume::Decompressed>) -> Result<MetaProfile> {
    let files = volume::find_archive(name)?;
    let meta = files
        .meta
        .as_ref()
        .ok_or_else(|| Error::pcp(crate::error::PM_ERR_LOGFILE, "no .meta"))?;
    if let Some(c) = copies.filter(|_| meta.compression.is_some()) {
        let bytes = c.load(meta)?;
        return profile_records(&mut &bytes[..]).map_err(|e| Error::io(&meta.path, &e));
    }
    let read = || -> std::io::Result<MetaProfile> {
        let f = std::fs::File::open(&meta.path)?;
        let r: Box<dyn std::io::Read> = match meta.compression {
            Some(c) => crate::compress::decoder(c, f)?,
            None => Box::new(f),
        };
        profile_records(&mut std::io::BufReader::with_capacity(1 << 16, r))
    };
    read().map_err(|e| Error::io(&meta.path, &e))
}

/// The profile of the records read from `r` (a `.meta` file from its start: the
/// label, then the records).
fn profile_records(r: &mut impl std::io::BufRead) -> std::io::Result<MetaProfile> {
    use crate::codec::meta::{indom_head, INDOM_HEAD_LEN};
    use crate::volume::read_up_to;
    let mut b = ProfileBuilder::default();
    let mut label = true;
    loop {
        let mut len = [0u8; 4];
        match read_up_to(r, &mut len)? {
            0 => return Ok(b.finish(true)),
            4 => {}
            _ => return Ok(b.finish(false)),
        }
        let len = u64::from(u32::from_be_bytes(len));
        // the smallest record: its length, a type word and its length again
        if len < 12 {
            return Ok(b.finish(false));
        }
        let mut head = [0u8; INDOM_HEAD_LEN];
        let want = usize::try_from(len - 8).map_or(INDOM_HEAD_LEN, |n| n.min(INDOM_HEAD_LEN));
        if read_up_to(r, &mut head[..want])? < want {
            return Ok(b.finish(false));
        }
        let rest = len - 4 - want as u64;
        if std::io::copy(
            &mut std::io::Read::take(&mut *r, rest),
            &mut std::io::sink(),
        )? < rest
        {
            return Ok(b.finish(false));
        }
        if std::mem::take(&mut label) {
            continue;
        }
        b.record(len, indom_head(&head[..want]).map(|(_, t, d)| (t, d)));
    }
}

/// The metadata and index of an archive as read from their files, each with its
/// outcome, and the metadata decoded (when it was read).
struct SideFiles {
    meta: Result<(Bytes, Label)>,
    decoded: Option<std::result::Result<Metadata, DecodeError>>,
    index: Option<Result<(Bytes, Label)>>,
    /// The index's entries, decoded with its own label (when it was read).
    entries: Option<std::result::Result<Vec<IndexEntry>, DecodeError>>,
}

/// The metadata and the index, checked against the first volume's label.
type Checked = (Metadata, Bytes, u64, Vec<IndexEntry>);

impl SideFiles {
    /// The metadata decoded, its bytes and its label's length, and the index:
    /// each file's label must match the first volume's, and each must hold more
    /// than a label.
    fn check(self, files: &ArchiveFiles, label: &Label, instances: bool) -> Result<Checked> {
        let label_len = label.record_len() as u64;
        // a side file's label must be the volume's, and it must hold more
        let matches = |bytes: &Bytes, other: &Label, path: &Path, what: &str| {
            let same = other.version == label.version
                && other.pid == label.pid
                && other.hostname == label.hostname;
            if !same {
                let why = format!("label of .{what} does not match the data volume");
                return Err(Error::pcp(PM_ERR_LABEL, why).at(path, Some(0)));
            }
            if bytes.len() as u64 <= label_len {
                return Err(nodata(path));
            }
            Ok(())
        };
        let meta_ref = files
            .meta
            .clone()
            .ok_or_else(|| Error::pcp(crate::error::PM_ERR_LOGFILE, "no .meta"))?;
        let (mbytes, mlabel) = self.meta?;
        matches(&mbytes, &mlabel, &meta_ref.path, "meta")?;
        let mut index = Vec::new();
        if let (Some(iref), Some(loaded)) = (&files.index, self.index) {
            let (ibytes, ilabel) = loaded?;
            matches(&ibytes, &ilabel, &iref.path, "index")?;
            // (its label is the volume's: decoded alike)
            index = match self.entries {
                Some(decoded) => decoded,
                None => decode_index(&ibytes[label_len as usize..], label_len, label.version),
            }
            .map_err(|e| Error::decode(&iref.path, e))?;
        }
        let mlabel_len = mlabel.record_len() as u64;
        let meta = match self.decoded {
            // decoded with the length of its own label, which is the volume's here
            Some(decoded) if mlabel_len == label_len => decoded,
            _ => load_metadata(&mbytes, label_len, instances),
        }
        .map_err(|e| Error::decode(&meta_ref.path, e))?;
        Ok((meta, mbytes, mlabel_len, index))
    }

    fn load(loader: &Loader, files: &volume::ArchiveFiles, instances: bool) -> SideFiles {
        let meta = match &files.meta {
            Some(m) => loader.labelled(m, VOL_META),
            None => Err(Error::pcp(crate::error::PM_ERR_LOGFILE, "no .meta")),
        };
        let decoded = meta
            .as_ref()
            .ok()
            .map(|(b, l)| load_metadata(b, l.record_len() as u64, instances));
        let index = files.index.as_ref().map(|i| loader.labelled(i, VOL_INDEX));
        let entries = index.as_ref().and_then(|loaded| {
            let (b, l) = loaded.as_ref().ok()?;
            let ll = l.record_len() as u64;
            Some(decode_index(b.get(ll as usize..)?, ll, l.version))
        });
        SideFiles {
            meta,
            decoded,
            index,
            entries,
        }
    }
}

impl Archive {
    /// Opens the archive named `name` (base name or any of its files).
    pub fn open(name: impl AsRef<str>) -> Result<Archive> {
        Self::open_with(name, OpenOptions::default())
    }

    /// Opens the archive named `name` (base name or any of its files) as `opts`
    /// say.
    pub fn open_with(name: impl AsRef<str>, opts: OpenOptions) -> Result<Archive> {
        let files = volume::find_archive(name.as_ref())?;
        let first_compressed = files
            .volumes
            .values()
            .next()
            .is_some_and(|f| f.compression.is_some());
        let loader = Loader::of(&opts, first_compressed);
        // (whatever happens, no decoding thread waits for ever to be told)
        let _told = volume::TellOnDrop(loader.keep.clone());
        let instances = !opts.without_instances;
        let volumes: Vec<Volume> = files
            .volumes
            .iter()
            .map(|(n, f)| Volume {
                num: *n,
                file_num: *n,
                boundary: None,
                version: 0,
                fref: f.clone(),
                bytes: OnceLock::new(),
                ahead_asked: Default::default(),
            })
            .collect();
        // the first data volume defines the archive. A compressed one is decompressed
        // on a thread of its own while the metadata and index are read and decoded
        // here; errors are still reported in the order of reading them one by one.
        let first = &volumes[0];
        if opts.label_only && first.fref.compression.is_some() {
            let (head, label) = loader.label_prefix(&first.fref, first.num as i32)?;
            check_features(&label, &first.fref.path, &opts)?;
            if head.len() as u64 <= label.record_len() as u64 {
                return Err(nodata(&first.fref.path));
            }
            let side = SideFiles::load(&loader, &files, instances);
            let ahead = ahead::Ahead::new(loader.clone(), &volumes);
            return Archive::assemble(files, label, volumes, side, &opts, loader, ahead);
        }
        let ahead = ahead::Ahead::new(loader.clone(), &volumes);
        // (the first volume is loaded here)
        let _ = ahead.take(0);
        let (first_loaded, side) = if first.fref.compression.is_some() && loader.threads {
            std::thread::scope(|s| {
                let h = s.spawn(|| loader.labelled(&first.fref, first.num as i32));
                // while the first volume decompresses, so do the last and the next,
                // as many as there are cores (the reader waits for the first, and
                // this thread loads the metadata for a short while only); on one
                // thread, none
                ahead.start(1, usize::from(crate::cores::threads() < 2));
                let side = SideFiles::load(&loader, &files, instances);
                if let (Some(k), Some(only)) = (&loader.keep, &opts.keep_only) {
                    k.tell(side.keep_set(only));
                }
                let first = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                (first, Some(side))
            })
        } else {
            (loader.labelled(&first.fref, first.num as i32), None)
        };
        let (vbytes, label) = first_loaded?;
        check_features(&label, &first.fref.path, &opts)?;
        let label_len = label.record_len() as u64;
        if vbytes.size() <= label_len {
            return Err(nodata(&first.fref.path));
        }
        let _ = volumes[0].bytes.set(Some(vbytes));
        let side = match side {
            Some(side) => side,
            None => SideFiles::load(&loader, &files, instances),
        };
        Archive::assemble(files, label, volumes, side, &opts, loader, ahead)
    }

    /// The archive from its checked first label, its volumes and its metadata and
    /// index as loaded.
    fn assemble(
        files: ArchiveFiles,
        label: Label,
        mut volumes: Vec<Volume>,
        side: SideFiles,
        opts: &OpenOptions,
        loader: Loader,
        ahead: ahead::Ahead,
    ) -> Result<Archive> {
        let instances = !opts.without_instances;
        let (meta, mbytes, mlabel_len, index) = side.check(&files, &label, instances)?;
        let meta_size = mbytes.len() as u64;
        let kept_meta = opts
            .without_instances
            .then(|| (std::sync::Arc::new(mbytes), mlabel_len));
        for v in &mut volumes {
            v.version = label.version;
        }
        volumes.shrink_to_fit();
        Ok(Archive {
            files,
            label,
            meta,
            meta_size,
            kept_meta,
            index,
            volumes,
            ahead,
            loader,
            damage: Default::default(),
        })
    }

    /// Opens what `pmNewContext` accepts as an archive: one archive (any of its
    /// names), a comma-separated list of archives, or a directory of archives. Several
    /// archives make one context ordered by start time, as libpcp's multi-archive
    /// contexts: they must come from one host; their metadata is merged and reading
    /// crosses from one to the next through a `<mark>`.
    pub fn open_context(spec: &str) -> Result<Archive> {
        Archive::open_context_skipping(spec, false, &mut |_, _| {})
    }

    /// [`Archive::open_context`]; with `skip_damaged`, as PCP 7.1.4's libpcp opens
    /// several archives: one that cannot be opened (a bad label, record or file,
    /// no data, an unknown record type or feature, or an error of the system) is
    /// left out, and handed to `skipped` with why; when none is left,
    /// `PM_ERR_LOGFILE`.
    pub fn open_context_skipping(
        spec: &str,
        skip_damaged: bool,
        skipped: &mut dyn FnMut(&str, &Error),
    ) -> Result<Archive> {
        Archive::open_context_with(spec, skip_damaged, OpenOptions::default(), skipped)
    }

    /// [`Archive::open_context_skipping`], one archive opened as `opts` say
    /// (several are opened as that opens them).
    pub fn open_context_with(
        spec: &str,
        skip_damaged: bool,
        opts: OpenOptions,
        skipped: &mut dyn FnMut(&str, &Error),
    ) -> Result<Archive> {
        let names = context_names(spec)?;
        match names.len() {
            0 => Archive::open_with(spec, opts),
            1 => Archive::open_with(&names[0], opts),
            _ => {
                let mut a = Archive::join(open_parts(&names, skip_damaged, skipped)?)?;
                a.damage.on = skip_damaged;
                Ok(a)
            }
        }
    }

    /// Opens several archives of one host as one context (see
    /// [`Archive::open_context`]).
    pub fn open_multi(names: &[String]) -> Result<Archive> {
        Archive::join(open_parts(names, false, &mut |_, _| {})?)
    }
}

/// Each archive of `names` opened (a name given twice, once); with `skip_damaged`,
/// those PCP 7.1.4's libpcp leaves out are handed to `skipped` instead, and none
/// left is `PM_ERR_LOGFILE`.
fn open_parts(
    names: &[String],
    skip_damaged: bool,
    skipped: &mut dyn FnMut(&str, &Error),
) -> Result<Vec<Archive>> {
    let mut good: Vec<Archive> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            continue;
        }
        match Archive::open(n) {
            Ok(a) => good.push(a),
            Err(e) if skip_damaged && skippable(&e) => {
                // libpcp compares the labels' host with the context's before it
                // reads the rest
                let host = good.first().map(|a| a.label.hostname.as_str());
                let labelled = e.pm_err() != crate::error::PM_ERR_LABEL;
                let other = labelled.then(|| label_host(n)).flatten();
                if let (Some(h), Some(l)) = (host, other) {
                    if l != h {
                        let e = Error::pcp(PM_ERR_LOGHOST, "archives differ by host");
                        return Err(e.at(Path::new(n), None));
                    }
                }
                skipped(n, &e);
            }
            Err(e) => return Err(e),
        }
    }
    if skip_damaged && good.is_empty() {
        let e = Error::pcp(
            crate::error::PM_ERR_LOGFILE,
            "all archives are corrupt/unreadable",
        );
        return Err(e);
    }
    Ok(good)
}

/// The host an archive's label names, where its metadata's label can be read.
fn label_host(name: &str) -> Option<String> {
    let files = volume::find_archive(name).ok()?;
    let bytes = volume::load(files.meta.as_ref()?).ok()?;
    crate::codec::label::decode_label(&bytes)
        .ok()
        .map(|l| l.hostname)
}

/// Whether PCP 7.1.4's libpcp leaves an archive that failed to open out of a
/// multi-archive context.
fn skippable(e: &Error) -> bool {
    use crate::error::{
        PM_ERR_FEATURE, PM_ERR_LABEL, PM_ERR_LOGFILE, PM_ERR_LOGREC, PM_ERR_NODATA, PM_ERR_RECTYPE,
    };
    // PCP's own codes start here; above, the system's errno values
    const PM_ERR_BASE: i32 = 12345;
    let code = e.pm_err();
    [
        PM_ERR_LABEL,
        PM_ERR_LOGREC,
        PM_ERR_LOGFILE,
        PM_ERR_NODATA,
        PM_ERR_RECTYPE,
        PM_ERR_FEATURE,
    ]
    .contains(&code)
        || code > -PM_ERR_BASE
}

/// The archives a context specification names: a comma-separated list, each a
/// name of an archive or a directory of archives.
fn context_names(spec: &str) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    {
        for part in spec.split(',').filter(|p| !p.is_empty()) {
            let path = Path::new(part);
            if path.is_dir() {
                let rd = std::fs::read_dir(path).map_err(|e| Error::io(path, &e))?;
                let mut bases: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .filter_map(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        let stem = crate::compress::strip_suffix(&n).map_or(n.as_str(), |(b, _)| b);
                        stem.strip_suffix(".meta")
                            .map(|b| path.join(b).to_string_lossy().into_owned())
                    })
                    .collect();
                bases.sort();
                bases.dedup();
                names.extend(bases);
            } else {
                names.push(part.to_string());
            }
        }
    }
    Ok(names)
}

impl Archive {
    /// Archives opened, joined as one context ([`Archive::open_multi`]).
    fn join(mut parts: Vec<Archive>) -> Result<Archive> {
        parts.sort_by_key(|a| a.label.start);
        let mut iter = parts.into_iter();
        let Some(mut first) = iter.next() else {
            return Err(Error::pcp(crate::error::PM_ERR_LOGFILE, "no archives"));
        };
        let mut prev_end = first.end_time().unwrap_or(first.label.start);
        // number the volumes of the context 0, 1, 2, ... across archives
        let renum: Vec<(u32, u32)> = first
            .volumes
            .iter()
            .enumerate()
            .map(|(i, v)| (v.num, i as u32))
            .collect();
        first
            .index
            .retain_mut(|e| match renum.iter().find(|(o, _)| *o as i32 == e.vol) {
                Some(&(_, n)) => {
                    e.vol = n as i32;
                    true
                }
                None => false,
            });
        for (i, v) in first.volumes.iter_mut().enumerate() {
            v.num = i as u32;
        }
        for a in iter {
            if a.label.hostname != first.label.hostname {
                return Err(
                    Error::pcp(PM_ERR_LOGHOST, "archives differ by host").at(&a.files.base, None)
                );
            }
            if a.label.start < prev_end {
                return Err(Error::pcp(PM_ERR_LOGOVERLAP, "archives overlap in time")
                    .at(&a.files.base, None));
            }
            let end = a.end_time().unwrap_or(a.label.start);
            let base = first.volumes.len() as u32;
            let renum: Vec<(u32, u32)> = a
                .volumes
                .iter()
                .enumerate()
                .map(|(i, v)| (v.num, base + i as u32))
                .collect();
            for e in a.index {
                if let Some(&(_, n)) = renum.iter().find(|(o, _)| *o as i32 == e.vol) {
                    first.index.push(IndexEntry { vol: n as i32, ..e });
                }
            }
            first.ahead.extend(&a.volumes);
            for (i, mut v) in a.volumes.into_iter().enumerate() {
                v.num = base + i as u32;
                if i == 0 {
                    v.boundary = Some(Boundary {
                        prev_end,
                        start: a.label.start,
                    });
                }
                first.volumes.push(v);
            }
            first
                .meta
                .merge(a.meta)
                .map_err(|e| Error::decode(&a.files.base, e))?;
            prev_end = end;
        }
        Ok(first)
    }

    /// Whether this context joins several archives ([`Archive::open_multi`]).
    pub fn is_multi(&self) -> bool {
        self.volumes.iter().any(|v| v.boundary.is_some())
    }

    /// The label of the first data volume.
    pub fn label(&self) -> &Label {
        &self.label
    }
    /// Uses `pmns` for every name lookup in place of the archive's own names, as
    /// libpcp does after `pmLoadASCIINameSpace` (pmdumplog's `-n`).
    pub fn set_pmns(&mut self, pmns: crate::pmns::Pmns) {
        self.meta.pmns = pmns;
    }

    pub fn metadata(&self) -> &Metadata {
        &self.meta
    }
    /// Temporal index entries (empty without an index).
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }
    pub fn files(&self) -> &ArchiveFiles {
        &self.files
    }
    /// The `.meta` file read again (decompressed), its label, and where it is.
    fn reread_meta(&self) -> Result<(Bytes, Label, &FileRef)> {
        let meta_ref = self
            .files
            .meta
            .as_ref()
            .ok_or_else(|| Error::pcp(crate::error::PM_ERR_LOGFILE, "no .meta"))?;
        let (bytes, label) = self.loader.labelled(meta_ref, VOL_META)?;
        Ok((bytes, label, meta_ref))
    }

    /// Every `.meta` record after the label, in file order, as written (delta
    /// instance domains stay deltas). Reads the file again; for tools that copy
    /// metadata (pmlogextract) rather than look it up.
    pub fn meta_records(&self) -> Result<Vec<crate::codec::meta::MetaRecord>> {
        let (bytes, label, meta_ref) = self.reread_meta()?;
        let mut off = label.record_len() as u64;
        let mut out = Vec::new();
        loop {
            let frame = frame_at(&bytes, off).map_err(|e| Error::decode(&meta_ref.path, e))?;
            let Some(frame) = frame else { break };
            let rec = crate::codec::meta::decode_meta(frame.payload(&bytes), frame.payload_start())
                .map_err(|e| Error::decode(&meta_ref.path, e))?;
            out.push(rec);
            off = frame.end();
        }
        Ok(out)
    }

    /// The instance-domain records of the `.meta` file, in file order, as
    /// written (deltas stay deltas; for `pmdumplog -I`). Reads the file again:
    /// the metadata held in memory keeps only the instance sets they make.
    pub fn indom_records(&self) -> Result<Vec<InDomRecord>> {
        let (bytes, label, meta_ref) = self.reread_meta()?;
        let mut out = Vec::new();
        crate::metadata::each_record(&bytes, label.record_len() as u64, |_, rec| {
            if let crate::codec::meta::MetaRecord::InDom {
                kind,
                stamp,
                indom,
                instances,
            } = rec
            {
                out.push(InDomRecord {
                    kind,
                    stamp,
                    indom,
                    instances,
                });
            }
            Ok(())
        })
        .map_err(|e| Error::decode(&meta_ref.path, e))?;
        Ok(out)
    }

    /// Whether the metadata holds the instance domains' history (the archive was
    /// not opened [`OpenOptions::without_instances`]).
    pub fn instances_held(&self) -> bool {
        self.kept_meta.is_none()
    }

    /// The instance domains of the archive's `.meta` as a stream, to be applied
    /// as time goes forward (for an archive opened
    /// [`OpenOptions::without_instances`]; in a multi-archive context, the first
    /// archive's). Each stream reads the file from its start; the file is read
    /// again only when the archive was opened with its instance domains.
    pub fn instance_stream(&self) -> Result<crate::instances::InDomStream> {
        let (bytes, start, meta_ref) = match (&self.kept_meta, &self.files.meta) {
            (Some((b, start)), Some(meta_ref)) => (std::sync::Arc::clone(b), *start, meta_ref),
            _ => {
                let (bytes, label, meta_ref) = self.reread_meta()?;
                let start = label.record_len() as u64;
                (std::sync::Arc::new(bytes), start, meta_ref)
            }
        };
        let path = meta_ref.path.clone();
        Ok(crate::instances::InDomStream::new(bytes, start, path))
    }

    /// A position at or before the first record whose time is `>= t`, from the
    /// temporal index (the archive's start when the index does not help).
    pub fn position_before(&self, t: Timestamp) -> Position {
        let mut best = None;
        for e in &self.index {
            if e.stamp >= t {
                break;
            }
            if let Some(v) = self.index_volume(e) {
                best = Some((v, e.off_data as u64));
            }
        }
        match best {
            Some((vol, off)) => self.index_place(vol, off),
            None => self.start(),
        }
    }

    /// Size of the (decompressed) `.meta` file.
    pub fn meta_size(&self) -> u64 {
        self.meta_size
    }
    pub fn version(&self) -> u32 {
        self.label.version
    }
    pub(crate) fn label_len(&self) -> u64 {
        self.label.record_len() as u64
    }
    /// The format version of volume `vol` (of its archive, in a multi-archive
    /// context that mixes versions).
    pub(crate) fn vol_version(&self, vol: usize) -> u32 {
        self.volumes
            .get(vol)
            .map_or(self.label.version, |v| v.version)
    }
    /// Where volume `vol`'s first record starts (after its label).
    pub(crate) fn vol_label_len(&self, vol: usize) -> u64 {
        Label::len_for(self.vol_version(vol))
    }
    /// Volume numbers present, ascending.
    pub fn volume_numbers(&self) -> Vec<u32> {
        self.volumes.iter().map(|v| v.num).collect()
    }

    /// Bytes of volume `i` (list index), or `None` if it is unusable (libpcp could
    /// not switch to it: bad label, or nothing after it).
    /// A volume read while it decodes ([`OpenOptions::while_decoding`]) has its
    /// size at once and its bytes as they come (see [`Bytes::read_at`]); the whole
    /// slice waits for them all.
    pub(crate) fn vol_bytes(&self, i: usize) -> Option<&Bytes> {
        let v = self.volumes.get(i)?;
        // the next volumes start decompressing before this one is had (the
        // first volume too, which opening the archive loaded)
        use std::sync::atomic::Ordering::Relaxed;
        if !v.ahead_asked.load(Relaxed) && !v.ahead_asked.swap(true, Relaxed) {
            self.start_prefetch(i + 1);
        }
        v.bytes
            .get_or_init(|| {
                let loaded = self
                    .ahead
                    .take(i)
                    .unwrap_or_else(|| self.loader.checked(&v.fref, v.file_num as i32, false));
                let (b, l) = loaded.ok()?;
                if l.version != v.version || b.size() <= Label::len_for(v.version) {
                    return None;
                }
                Some(b)
            })
            .as_ref()
    }

    /// The size of volume `i` (list index), or `None` if it is unusable (see
    /// [`Archive::vol_bytes`]); a volume still decoding is not waited for.
    pub(crate) fn vol_size(&self, i: usize) -> Option<u64> {
        self.vol_bytes(i).map(Bytes::size)
    }

    /// Whether volume `i`'s label says it is the volume its file name says
    /// (libpcp will not change to one whose label says otherwise).
    pub(crate) fn vol_label_matches(&self, i: usize) -> bool {
        let Some(v) = self.volumes.get(i) else {
            return false;
        };
        self.vol_bytes(i)
            .and_then(|b| b.head(PREFIX).ok())
            .and_then(|b| decode_label(&b).ok())
            .is_some_and(|l| l.vol == v.file_num as i32)
    }

    /// Copies bytes of volume `i` (list index) at `off` into `dst`, by `pread` from
    /// the file rather than through the map (see [`crate::logfetch`]).
    pub(crate) fn vol_read_at(&self, i: usize, off: u64, dst: &mut [u8]) -> std::io::Result<()> {
        match self.volumes.get(i).and_then(|v| v.bytes.get()?.as_ref()) {
            Some(b) => b.read_at(off, dst),
            None => Err(std::io::ErrorKind::NotFound.into()),
        }
    }

    /// The file holding volume `vol` (list index) with the same offsets as the
    /// records read from it, when it is a file (large volumes, decompressed copies):
    /// for copying records file to file (see
    /// [`crate::writer::ArchiveWriter::write_result_from`]).
    pub fn volume_file(&self, vol: usize) -> Option<&std::fs::File> {
        let v = self.volumes.get(vol)?;
        v.bytes.get()?.as_ref()?.file()
    }

    pub(crate) fn volume_count(&self) -> usize {
        self.volumes.len()
    }
    pub(crate) fn volume_number(&self, i: usize) -> u32 {
        self.volumes[i].num
    }

    pub(crate) fn vol_path(&self, i: usize) -> &Path {
        &self.volumes[i].fref.path
    }
}
