//! Finding the files of an archive and getting at their bytes.
//!
//! An archive `B` is `B.meta`, optionally `B.index`, and data volumes `B.0`, `B.1`, ...,
//! each possibly compressed (see [`crate::compress`]). The name given by a user may be
//! the base name, any member file (`B.0`, `B.meta.xz`), or the base name with a trailing
//! dot, as libpcp accepts.

mod growing;
mod kept;
mod stream;

pub(crate) use kept::{load_cut, Keep, KeepSet, TellOnDrop};
pub use stream::{Observe, Observer};

use crate::compress::{self, Compression};
use crate::error::{Error, Result, ENOENT, PM_ERR_LOGFILE};
use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// One file of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    pub path: PathBuf,
    pub compression: Option<Compression>,
}

/// The files that make up an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveFiles {
    /// Base name (directory included), e.g. `/tmp/foo` for `/tmp/foo.meta`.
    pub base: PathBuf,
    pub meta: Option<FileRef>,
    pub index: Option<FileRef>,
    pub volumes: BTreeMap<u32, FileRef>,
}

/// What role a file name plays for which base name.
fn classify(name: &str) -> Option<(&str, Role)> {
    if let Some(b) = name.strip_suffix(".meta") {
        return Some((b, Role::Meta));
    }
    if let Some(b) = name.strip_suffix(".index") {
        return Some((b, Role::Index));
    }
    let dot = name.rfind('.')?;
    let digits = &name[dot + 1..];
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        if let Ok(n) = digits.parse::<u32>() {
            return Some((&name[..dot], Role::Volume(n)));
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Meta,
    Index,
    Volume(u32),
}

fn exists_maybe_compressed(p: &str) -> bool {
    Path::new(p).is_file()
        || compress::SUFFIXES
            .iter()
            .any(|(s, _)| Path::new(&format!("{p}{s}")).is_file())
}

/// The base name of an archive named by `name` (any of the forms libpcp accepts).
pub fn base_name(name: &str) -> String {
    let mut n = name.to_string();
    if exists_maybe_compressed(&n) {
        if let Some((b, _)) = compress::strip_suffix(&n) {
            n = b.to_string();
        }
        if let Some((b, _)) = classify(&n) {
            n = b.to_string();
        }
    } else if let Some(b) = n.strip_suffix('.') {
        n = b.to_string();
    }
    n
}

/// Finds the files of the archive named `name`.
pub fn find_archive(name: &str) -> Result<ArchiveFiles> {
    let base = base_name(name);
    let bpath = PathBuf::from(&base);
    let (dir, stem) = match (bpath.parent(), bpath.file_name()) {
        (Some(d), Some(f)) => {
            let d = if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            };
            (d.to_path_buf(), f.to_string_lossy().into_owned())
        }
        _ => return Err(Error::pcp(ENOENT, format!("no archive named {name}"))),
    };
    let mut files = ArchiveFiles {
        base: bpath.clone(),
        meta: None,
        index: None,
        volumes: BTreeMap::new(),
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, &e))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // uncompressed files win over compressed ones with the same role
    names.sort_by_key(|n| compress::strip_suffix(n).is_some());
    let mut any = false;
    for fname in names {
        let (plain, comp) = match compress::strip_suffix(&fname) {
            Some((b, c)) => (b.to_string(), Some(c)),
            None => (fname.clone(), None),
        };
        let Some((b, role)) = classify(&plain) else {
            continue;
        };
        if b != stem {
            continue;
        }
        let fr = FileRef {
            path: dir.join(&fname),
            compression: comp,
        };
        if !fr.path.is_file() {
            continue;
        }
        any = true;
        match role {
            Role::Meta => {
                files.meta.get_or_insert(fr);
            }
            Role::Index => {
                files.index.get_or_insert(fr);
            }
            Role::Volume(n) => {
                files.volumes.entry(n).or_insert(fr);
            }
        }
    }
    if files.meta.is_none() || files.volumes.is_empty() {
        return Err(if any {
            Error::pcp(
                PM_ERR_LOGFILE,
                format!("{base}: no .meta file or no data volume"),
            )
        } else {
            Error::pcp(ENOENT, format!("{base}: no archive files found"))
        });
    }
    Ok(files)
}

/// The bytes of one archive file: a read-only memory map of an uncompressed file, or
/// a map of the decompressed copy in an unlinked temporary file.
pub struct Bytes {
    inner: Inner,
}

enum Inner {
    /// The map and the file it maps (kept open so that records can be copied from
    /// it file to file, see [`Bytes::file`]).
    Map(memmap2::Mmap, File),
    Vec(Vec<u8>),
    /// A compressed file's bytes while they are being decoded (see
    /// [`growing`]): the whole waits for the end of the decoding, a read of
    /// some for those.
    Growing(std::sync::Arc<growing::Growing>),
    /// A compressed volume cut down to some metrics as it decoded (see [`kept`]).
    Cut(kept::Cut),
    /// A compressed volume read front to back as it decodes (see [`stream`]): its
    /// bytes are read with [`Bytes::read_at`] only.
    Stream(std::sync::Arc<stream::Stream>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Map(m, _) => m,
            Inner::Vec(v) => v,
            Inner::Growing(g) => g.bytes(),
            Inner::Cut(c) => &c.bytes,
            Inner::Stream(s) => {
                // (nothing of a stream is had whole: the reader is told, at its end)
                s.miss();
                &[]
            }
        }
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        match &self.inner {
            Inner::Growing(g) => g.stop(),
            Inner::Stream(s) => s.stop(),
            _ => {}
        }
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bytes({} bytes)", self.len())
    }
}

impl Bytes {
    /// The file these bytes are mapped from (the decompressed copy for a compressed
    /// file), offsets alike; `None` for small files read into memory.
    pub fn file(&self) -> Option<&File> {
        match &self.inner {
            Inner::Map(_, f) => Some(f),
            Inner::Vec(_) | Inner::Cut(_) | Inner::Stream(_) => None,
            Inner::Growing(g) => Some(g.file()),
        }
    }

    /// How many bytes there are (or will be, while a compressed file is being
    /// decoded: the size it declares), without waiting for them.
    pub fn size(&self) -> u64 {
        match &self.inner {
            Inner::Growing(g) => g.len(),
            Inner::Stream(s) => s.len(),
            _ => self.len() as u64,
        }
    }

    /// Whether all the bytes are there: `false` for a compressed file read while it
    /// decoded whose decoding then failed (waits for the end of the decoding).
    pub fn whole(&self) -> bool {
        match &self.inner {
            Inner::Growing(g) => g.whole(),
            _ => true,
        }
    }

    /// Whether these are a compressed file's bytes read while it decodes.
    pub fn decoding(&self) -> bool {
        matches!(self.inner, Inner::Growing(_) | Inner::Stream(_))
    }

    /// The first `n` bytes (fewer when there are fewer), waiting only for those
    /// (copied out of a file still decoding, borrowed otherwise).
    pub fn head(&self, n: usize) -> io::Result<std::borrow::Cow<'_, [u8]>> {
        let n = (n as u64).min(self.size()) as usize;
        if !self.decoding() {
            return Ok(std::borrow::Cow::Borrowed(&self[..n]));
        }
        let mut h = vec![0; n];
        self.read_at(0, &mut h)?;
        Ok(std::borrow::Cow::Owned(h))
    }

    /// Copies the bytes at `off` into `dst`: `pread` from the file when mapped (the
    /// map's pages are not touched), a copy otherwise.
    pub fn read_at(&self, off: u64, dst: &mut [u8]) -> io::Result<()> {
        match &self.inner {
            Inner::Map(_, f) => std::os::unix::fs::FileExt::read_exact_at(f, dst, off),
            Inner::Growing(g) => g.read_at(off, dst),
            Inner::Stream(s) => s.read_at(off, dst),
            Inner::Vec(_) | Inner::Cut(_) => {
                let v: &[u8] = self;
                let src = usize::try_from(off)
                    .ok()
                    .and_then(|o| v.get(o..o.checked_add(dst.len())?))
                    .ok_or(io::ErrorKind::UnexpectedEof)?;
                dst.copy_from_slice(src);
                Ok(())
            }
        }
    }

    /// Where a record that starts at `off` of the whole volume starts in these
    /// bytes: elsewhere only in a volume cut down to some metrics
    /// ([`crate::OpenOptions::keep_only`]).
    pub fn place_of(&self, off: u64) -> u64 {
        match &self.inner {
            Inner::Cut(c) => c.place_of(off),
            _ => off,
        }
    }

    /// For a volume read as it decodes ([`load_streamed`]): the reader is done;
    /// the decoding is let run to its end and waited for. Whether it decoded whole
    /// and every read of it was served (`true` for other bytes).
    pub fn finish_stream(&self) -> bool {
        match &self.inner {
            Inner::Stream(s) => s.finish(),
            _ => true,
        }
    }

    pub fn from_vec(v: Vec<u8>) -> Self {
        Bytes {
            inner: Inner::Vec(v),
        }
    }

    /// Tells the kernel the mapped pages of `start..end` are not needed for now, so
    /// a long sequential read does not keep the whole file resident. The bytes stay
    /// readable (they are read back from the file on the next access). The range
    /// goes out to whole 64 KB blocks from the one holding `start`, so that readers
    /// releasing as they go (each from where it last stopped) leave no block behind.
    pub fn release(&self, start: usize, end: usize) {
        let m = match &self.inner {
            Inner::Map(m, _) => m,
            Inner::Growing(g) => match g.mapped() {
                Some(m) => m,
                None => return,
            },
            Inner::Vec(_) | Inner::Cut(_) | Inner::Stream(_) => return,
        };
        let span = release_span(start, end, m.len());
        if !span.is_empty() {
            let _ = dont_need(m, span.start, span.len());
        }
    }
}

/// Lets a map's pages go behind a reader going forward, `step` bytes at a time
/// (and the rest when it is done), so that reading a file through does not keep
/// it resident.
#[derive(Debug)]
pub(crate) struct Behind {
    done: u64,
    step: u64,
}

impl Behind {
    pub(crate) fn new(step: u64) -> Behind {
        Behind { done: 0, step }
    }
    /// The reader is past `at`.
    pub(crate) fn passed(&mut self, b: &Bytes, at: u64) {
        if at >= self.done + self.step {
            b.release(self.done as usize, at as usize);
            self.done = at;
        }
    }
    /// The reader is done with `b`.
    pub(crate) fn finish(&mut self, b: &Bytes) {
        b.release(self.done as usize, b.len());
        self.done = b.len() as u64;
    }
}

/// Reads from `r` until `buf` is full or the input ends: how many bytes.
pub(crate) fn read_up_to(r: &mut impl io::Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Decodes `file` (compressed as `c`, declaring `len` bytes) `step` bytes at a
/// time, handing each piece to `put` with its offset, until the end or until
/// `cancel` is set; an error where it decodes to another size than `len`. `put`
/// gives back the buffer to decode the next piece into (the same, or another).
pub(crate) fn decode_declared(
    (c, file, len): (compress::Compression, File, u64),
    step: usize,
    cancel: &std::sync::atomic::AtomicBool,
    put: &mut dyn FnMut(u64, Vec<u8>) -> io::Result<Vec<u8>>,
) -> io::Result<()> {
    let input = io::BufReader::with_capacity(256 * 1024, file);
    let mut dec = xz_on_every_core(c, input)?;
    let mut buf = vec![0u8; step];
    let mut n = 0u64;
    loop {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(io::Error::other("no reader is left"));
        }
        buf.resize(step, 0);
        let got = read_up_to(&mut dec, &mut buf)?;
        if got == 0 {
            break;
        }
        if n + got as u64 > len {
            return Err(io::Error::other("decodes to more than the file declares"));
        }
        buf.truncate(got);
        buf = put(n, buf)?;
        n += got as u64;
    }
    if n < len {
        return Err(io::Error::other("decodes to less than the file declares"));
    }
    Ok(())
}

/// The error of a read of bytes that a decoding ending as `end` did not give:
/// its failure, or the end of the file.
pub(crate) fn not_decoded(end: Option<&Result<(), String>>) -> io::Error {
    match end {
        Some(Err(why)) => io::Error::other(format!("cannot decompress: {why}")),
        _ => io::ErrorKind::UnexpectedEof.into(),
    }
}

/// The whole 64 KB blocks (a multiple of every page size in use) that
/// [`Bytes::release`] of `start..end` lets go in a map of `len` bytes: from the
/// block holding `start`, to the last block that ends by `end`.
fn release_span(start: usize, end: usize, len: usize) -> std::ops::Range<usize> {
    const ALIGN: usize = 64 * 1024;
    let start = start / ALIGN * ALIGN;
    let end = end.min(len) / ALIGN * ALIGN;
    start..end.max(start)
}

#[allow(unsafe_code)]
fn dont_need(m: &memmap2::Mmap, offset: usize, len: usize) -> io::Result<()> {
    // SAFETY: the map is a read-only mapping of a file we never write through it;
    // after MADV_DONTNEED the kernel refills the pages from the file on the next
    // access, so every slice borrowed from the map keeps its contents.
    unsafe { m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len) }
}

#[allow(unsafe_code)]
fn map_file(f: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. Archive files are
    // append-only (pmlogger never rewrites bytes that were written, except the
    // labels, which are read separately); a file truncated under us could raise
    // SIGBUS, which is the same exposure every mmap-based reader accepts.
    unsafe { memmap2::Mmap::map(f) }
}

/// Files smaller than this are read rather than mapped.
const MAP_THRESHOLD: u64 = 64 * 1024;

/// Decompressed copies of compressed files, for a reader that reads the same
/// files more than once (pmlogcheck reads each file whole, then the archive): a
/// compressed file loaded through it is decompressed once, into an unlinked
/// temporary file (not memory), which is mapped again when the same unchanged
/// file (by name, size and modification time) is loaded again. Clones share the
/// copies; they go with the last clone. An archive opened with one
/// ([`crate::OpenOptions::decompressed`]) loads its files through it.
#[derive(Clone, Default)]
pub struct Decompressed(std::sync::Arc<Shared>);

#[derive(Default)]
struct Shared {
    kept: std::sync::Mutex<Kept>,
    /// Signalled when a pending decompression ends.
    done: std::sync::Condvar,
}

/// The copies by file, and the files being decompressed now (by
/// [`Decompressed::prefetch`] or another caller of [`Decompressed::load`]).
#[derive(Default)]
struct Kept {
    files: std::collections::HashMap<KeptKey, File>,
    pending: std::collections::HashSet<KeptKey>,
}
type KeptKey = (PathBuf, u64, Option<std::time::SystemTime>);

fn kept_key(fr: &FileRef, file: &File) -> Option<KeptKey> {
    let md = file.metadata().ok()?;
    Some((fr.path.clone(), md.len(), md.modified().ok()))
}

impl std::fmt::Debug for Decompressed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.lock().files.len();
        f.debug_struct("Decompressed").field("files", &n).finish()
    }
}

impl Decompressed {
    pub fn new() -> Decompressed {
        Decompressed::default()
    }

    /// The copies (a panic while they were held leaves them usable).
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Decompresses `files` on threads of their own, as many as the job has cores
    /// ([`crate::cores::threads`]), taking them in order: while the caller reads
    /// one file, the next ones are being decompressed. A file the caller reaches
    /// first is left to it; one it reaches while a thread is at it, it waits for.
    /// Errors are left for the caller's own [`Decompressed::load`] to meet. The
    /// handle's thread ends when every file is done.
    pub fn prefetch(&self, files: Vec<FileRef>) -> Option<std::thread::JoinHandle<()>> {
        let files: Vec<FileRef> = files
            .into_iter()
            .filter(|f| f.compression.is_some())
            .collect();
        if files.is_empty() {
            return None;
        }
        let me = self.clone();
        let workers = crate::cores::threads().clamp(1, files.len());
        std::thread::Builder::new()
            .name("decompress".into())
            .spawn(move || {
                let next = std::sync::atomic::AtomicUsize::new(0);
                std::thread::scope(|s| {
                    for _ in 0..workers {
                        s.spawn(|| {
                            use std::sync::atomic::Ordering::Relaxed;
                            while let Some(fr) = files.get(next.fetch_add(1, Relaxed)) {
                                me.decompress_ahead(fr);
                            }
                        });
                    }
                });
            })
            .ok()
    }

    /// One file of [`Decompressed::prefetch`]: decompressed and kept, unless it
    /// is kept already or being decompressed.
    fn decompress_ahead(&self, fr: &FileRef) {
        let Ok(file) = File::open(&fr.path) else {
            return;
        };
        let Some(key) = kept_key(fr, &file) else {
            return;
        };
        let mut k = self.lock();
        if k.files.contains_key(&key) || !k.pending.insert(key.clone()) {
            return;
        }
        drop(k);
        let got = load_uncached(fr, &file);
        self.finish(key, got.ok().as_ref());
    }

    /// The end of a pending decompression: its copy kept (when there is one).
    fn finish(&self, key: KeptKey, bytes: Option<&Bytes>) {
        let mut k = self.lock();
        k.pending.remove(&key);
        if let Some(f) = bytes
            .and_then(|b| b.file())
            .and_then(|f| f.try_clone().ok())
        {
            k.files.insert(key, f);
        }
        drop(k);
        self.0.done.notify_all();
    }

    /// Opens `fr` and returns its (decompressed) bytes, decompressed once.
    pub fn load(&self, fr: &FileRef) -> Result<Bytes> {
        let file = File::open(&fr.path).map_err(|e| Error::io(&fr.path, &e))?;
        if fr.compression.is_none() {
            return load_uncached(fr, &file);
        }
        let Some(key) = kept_key(fr, &file) else {
            return load_uncached(fr, &file);
        };
        let mut k = self.lock();
        loop {
            if let Some(f) = k.files.get(&key) {
                let f = f.try_clone().map_err(|e| Error::io(&fr.path, &e))?;
                drop(k);
                if f.metadata().map(|m| m.len()).unwrap_or(0) == 0 {
                    return Ok(Bytes::from_vec(Vec::new()));
                }
                let m = map_file(&f).map_err(|e| Error::io(&fr.path, &e))?;
                return Ok(Bytes {
                    inner: Inner::Map(m, f),
                });
            }
            if k.pending.insert(key.clone()) {
                break;
            }
            // another thread is decompressing it: wait for its copy (or its
            // failure, after which this one tries and meets the error itself)
            k = self.0.done.wait(k).unwrap_or_else(|e| e.into_inner());
        }
        drop(k);
        let bytes = load_uncached(fr, &file);
        self.finish(key, bytes.as_ref().ok());
        bytes
    }
}

/// Opens `fr` and returns its (decompressed) bytes.
pub fn load(fr: &FileRef) -> Result<Bytes> {
    let file = File::open(&fr.path).map_err(|e| Error::io(&fr.path, &e))?;
    load_uncached(fr, &file)
}

/// Opens `fr` and returns its bytes: a compressed file's while they are being
/// decoded, when it declares their size, on a thread of their own (an xz file
/// of several blocks: on `threads`, `None` for every thread the job has); see
/// [`Bytes::whole`] for a decoding that fails part way; otherwise as [`load`].
pub fn load_while_decoding(fr: &FileRef, threads: Option<usize>) -> Result<Bytes> {
    let file = File::open(&fr.path).map_err(|e| Error::io(&fr.path, &e))?;
    let threads = threads.unwrap_or_else(crate::cores::threads);
    match fr
        .compression
        .and_then(|c| growing::start_for(c, &file, threads))
    {
        Some(g) => Ok(Bytes {
            inner: Inner::Growing(g),
        }),
        None => load_uncached(fr, &file),
    }
}

/// Opens `fr` and returns its bytes to be read once, front to back, while they
/// decode on a thread of their own, each piece shown to `observe` as it is
/// decoded (see [`Bytes::finish_stream`]): when `fr` is compressed and declares
/// its decoded size; otherwise as [`load`].
pub fn load_streamed(fr: &FileRef, observe: Observer) -> Result<Bytes> {
    let file = File::open(&fr.path).map_err(|e| Error::io(&fr.path, &e))?;
    match fr
        .compression
        .and_then(|c| stream::start_for(c, &file, observe))
    {
        Some(s) => Ok(Bytes {
            inner: Inner::Stream(s),
        }),
        None => load_uncached(fr, &file),
    }
}

/// [`load`], through `cache` when there is one.
pub fn load_with(fr: &FileRef, cache: Option<&Decompressed>) -> Result<Bytes> {
    match cache {
        Some(c) => c.load(fr),
        None => load(fr),
    }
}

/// A decoder of `c`; an `.xz` file's blocks decoded on every core the job has
/// ([`crate::cores::threads`]).
fn xz_on_every_core<'a, R: io::BufRead + 'a>(
    c: compress::Compression,
    input: R,
) -> io::Result<Box<dyn io::Read + 'a>> {
    #[cfg(feature = "xz")]
    if c == compress::Compression::Xz && crate::cores::threads() > 1 {
        return Ok(Box::new(crate::xzmt::XzMt::new(
            input,
            crate::cores::threads(),
        )?));
    }
    compress::buffered_decoder(c, input)
}

/// An `.xz` file of several blocks decoded on the job's threads into a
/// temporary file ([`crate::xzblocks`]); `None` where it is not such a file or
/// fails to decode that way (the caller decodes it again on one decoder, whose
/// error is the one to tell).
#[cfg(feature = "xz")]
fn xz_by_blocks(c: compress::Compression, file: &File) -> Option<Bytes> {
    if c != compress::Compression::Xz {
        return None;
    }
    let tmp = tempfile::tempfile().ok()?;
    let put = |at: u64, b: &[u8]| std::os::unix::fs::FileExt::write_all_at(&tmp, b, at);
    if !compress::xz_by_blocks(file, &put).ok()? {
        return None;
    }
    if tmp.metadata().ok()?.len() == 0 {
        return Some(Bytes::from_vec(Vec::new()));
    }
    let m = map_file(&tmp).ok()?;
    Some(Bytes {
        inner: Inner::Map(m, tmp),
    })
}

fn load_uncached(fr: &FileRef, file: &File) -> Result<Bytes> {
    let file = file.try_clone().map_err(|e| Error::io(&fr.path, &e))?;
    match fr.compression {
        None => {
            let len = file.metadata().map_err(|e| Error::io(&fr.path, &e))?.len();
            if len < MAP_THRESHOLD {
                let mut v = Vec::with_capacity(len as usize);
                io::Read::read_to_end(&mut &file, &mut v).map_err(|e| Error::io(&fr.path, &e))?;
                Ok(Bytes::from_vec(v))
            } else {
                let m = map_file(&file).map_err(|e| Error::io(&fr.path, &e))?;
                Ok(Bytes {
                    inner: Inner::Map(m, file),
                })
            }
        }
        Some(c) => {
            let logrec = |e: io::Error| {
                Error::pcp(
                    crate::error::PM_ERR_LOGREC,
                    format!("cannot decompress: {e}"),
                )
                .at(&fr.path, None)
            };
            #[cfg(feature = "xz")]
            if let Some(bytes) = xz_by_blocks(c, &file) {
                return Ok(bytes);
            }
            let input = io::BufReader::with_capacity(256 * 1024, file);
            let mut dec = xz_on_every_core(c, input).map_err(logrec)?;
            let mut tmp =
                tempfile::tempfile().map_err(|e| Error::io(Path::new("temporary file"), &e))?;
            // large writes: a volume decompresses to hundreds of MB
            let mut buf = vec![0u8; 1 << 20];
            let mut n = 0u64;
            loop {
                let got = read_up_to(&mut dec, &mut buf).map_err(logrec)?;
                if got == 0 {
                    break;
                }
                io::Write::write_all(&mut tmp, &buf[..got])
                    .map_err(|e| Error::io(Path::new("temporary file"), &e))?;
                n += got as u64;
            }
            if n == 0 {
                return Ok(Bytes::from_vec(Vec::new()));
            }
            let m = map_file(&tmp).map_err(|e| Error::io(&fr.path, &e))?;
            Ok(Bytes {
                inner: Inner::Map(m, tmp),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A reader that lets pages go as it goes, each time from where it
        /// stopped (at no block boundary), leaves no block behind: the spans let
        /// go cover every whole block before its last stop.
        #[test]
        fn releasing_as_one_goes_leaves_no_block_behind(
            steps in proptest::collection::vec(1usize..300_000, 1..40),
            extra in 0usize..200_000,
        ) {
            let stops: Vec<usize> = steps
                .iter()
                .scan(0, |at, s| {
                    *at += s;
                    Some(*at)
                })
                .collect();
            let len = stops.last().copied().unwrap_or(0) + extra;
            let mut from = 0;
            let mut covered = 0;
            for &to in &stops {
                let span = release_span(from, to, len);
                proptest::prop_assert!(span.end <= to && span.start <= from);
                // each span starts no later than the last one ended
                proptest::prop_assert!(span.is_empty() || span.start <= covered);
                covered = covered.max(span.end);
                from = to;
            }
            proptest::prop_assert_eq!(covered, from / (64 * 1024) * (64 * 1024));
        }
    }

    #[cfg(feature = "gzip")]
    #[test]
    fn kept_decompressed_copies_follow_the_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.0.gz");
        let fr = FileRef {
            path: p.clone(),
            compression: Some(Compression::Gzip),
        };
        let gz = |data: &[u8]| crate::compress::compress(Compression::Gzip, data).unwrap();
        let c = Decompressed::new();
        std::fs::write(&p, gz(b"first contents")).unwrap();
        assert_eq!(&*c.load(&fr).unwrap(), b"first contents");
        assert_eq!(c.lock().files.len(), 1);
        assert_eq!(&*c.clone().load(&fr).unwrap(), b"first contents");
        assert_eq!(c.lock().files.len(), 1, "loaded again from the copy");
        // the file changes (another size): decompressed afresh
        std::fs::write(&p, gz(b"second, longer contents")).unwrap();
        assert_eq!(&*c.load(&fr).unwrap(), b"second, longer contents");
        assert_eq!(c.lock().files.len(), 2);
        // without a cache nothing is kept anywhere
        assert_eq!(&*load_with(&fr, None).unwrap(), b"second, longer contents");
        assert_eq!(c.lock().files.len(), 2);
    }

    #[cfg(feature = "gzip")]
    #[test]
    fn prefetched_files_are_the_files() {
        let d = tempfile::tempdir().unwrap();
        let gz = |data: &[u8]| crate::compress::compress(Compression::Gzip, data).unwrap();
        let frs: Vec<FileRef> = (0..4)
            .map(|i| {
                let p = d.path().join(format!("a.{i}.gz"));
                std::fs::write(
                    &p,
                    gz(format!("volume {i} ").repeat(1000 * i + 1).as_bytes()),
                )
                .unwrap();
                FileRef {
                    path: p,
                    compression: Some(Compression::Gzip),
                }
            })
            .collect();
        // a file that does not decompress: the caller's load meets the error
        let bad = d.path().join("a.4.gz");
        std::fs::write(&bad, b"not gzip at all").unwrap();
        let bad = FileRef {
            path: bad,
            compression: Some(Compression::Gzip),
        };
        let c = Decompressed::new();
        let mut all = frs.clone();
        all.push(bad.clone());
        let t = c.prefetch(all[1..].to_vec()).expect("a thread");
        for (i, fr) in frs.iter().enumerate() {
            let want = format!("volume {i} ").repeat(1000 * i + 1);
            assert_eq!(&*c.load(fr).unwrap(), want.as_bytes());
        }
        assert!(c.load(&bad).is_err());
        t.join().unwrap();
        // all kept: loaded again without decompressing (the same bytes)
        assert_eq!(c.lock().files.len(), 4);
        assert_eq!(
            &*c.load(&frs[3]).unwrap(),
            "volume 3 ".repeat(3001).as_bytes()
        );
        let plain: Vec<FileRef> = frs
            .iter()
            .map(|f| FileRef {
                compression: None,
                ..f.clone()
            })
            .collect();
        assert!(
            c.prefetch(plain).is_none(),
            "nothing to decompress: no thread"
        );
    }

    #[test]
    fn classifies_member_files() {
        assert_eq!(classify("foo.meta"), Some(("foo", Role::Meta)));
        assert_eq!(classify("foo.12"), Some(("foo", Role::Volume(12))));
        assert_eq!(
            classify("20180416.10.00.3"),
            Some(("20180416.10.00", Role::Volume(3)))
        );
        assert_eq!(classify("foo.config"), None);
    }

    #[test]
    fn finds_archives_by_any_name() {
        let d = tempfile::tempdir().unwrap();
        for f in ["a.meta", "a.index", "a.0", "a.1.xz", "ab.0", "a.config"] {
            std::fs::write(d.path().join(f), b"x").unwrap();
        }
        let base = d.path().join("a").to_string_lossy().into_owned();
        for name in [
            base.clone(),
            format!("{base}.meta"),
            format!("{base}.1"),
            format!("{base}."),
        ] {
            let f = find_archive(&name).unwrap();
            assert_eq!(f.base, d.path().join("a"), "{name}");
            assert_eq!(f.volumes.len(), 2);
            assert_eq!(f.volumes[&1].compression, Some(Compression::Xz));
        }
        let missing = d.path().join("zz").to_string_lossy().into_owned();
        assert_eq!(find_archive(&missing).unwrap_err().pm_err(), ENOENT);
        let partial = d.path().join("ab").to_string_lossy().into_owned();
        assert_eq!(find_archive(&partial).unwrap_err().pm_err(), PM_ERR_LOGFILE);
    }
}
