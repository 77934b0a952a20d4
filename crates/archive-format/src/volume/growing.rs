//! A compressed file's decoded bytes, readable while they are still being
//! decoded: a thread decodes the file into an unlinked temporary file of the size
//! the container declares ([`crate::compress::sized`]), and a reader of bytes
//! already there reads them at once, one of bytes further on waits for them. A
//! reader going through a volume from its start then runs alongside its decoding
//! instead of after it.
//!
//! Decoding can still fail part way (a damaged file, or one that decodes to
//! another size than it declares): the bytes after the fault cannot be read, and
//! [`Growing::whole`] says so. A reader that must answer as a whole decoding
//! would (where the volume is unusable from the start) checks it before it lets
//! anything it read go out.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::compress::Compression;

/// Decoded bytes at a time between two looks for readers.
const STEP: usize = 256 * 1024;

pub(crate) struct Growing {
    /// What the file declares it decodes to (the temporary file's size).
    len: u64,
    tmp: File,
    progress: Mutex<Progress>,
    more: Condvar,
    /// The temporary file mapped, once it is whole (for readers of the whole).
    map: OnceLock<Option<memmap2::Mmap>>,
    /// Set when the reader is gone: the decoding stops.
    cancel: AtomicBool,
    /// The threads an xz file of several blocks decodes on.
    #[cfg_attr(not(feature = "xz"), allow(dead_code))]
    threads: usize,
}

/// The end of the decoding told to the readers, also when the decoding thread
/// unwinds (they would otherwise wait for ever).
struct Ending<'g>(&'g Growing);

impl Ending<'_> {
    fn with(self, end: Result<(), String>) {
        self.0.lock().end = Some(end);
    }
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.0
            .lock()
            .end
            .get_or_insert_with(|| Err("the decoding thread failed".into()));
        self.0.more.notify_all();
    }
}

#[derive(Clone, Debug, Default)]
struct Progress {
    /// Bytes decoded and written, from the start.
    written: u64,
    /// How the decoding ended, once it has.
    end: Option<Result<(), String>>,
}

impl Growing {
    /// Starts decoding `file` (compressed as `c`, declaring `len` bytes) on a
    /// thread of its own.
    pub(crate) fn start(
        c: Compression,
        file: File,
        len: u64,
        threads: usize,
    ) -> io::Result<Arc<Growing>> {
        let tmp = tempfile::tempfile()?;
        tmp.set_len(len)?;
        let g = Arc::new(Growing {
            len,
            tmp,
            progress: Mutex::default(),
            more: Condvar::new(),
            map: OnceLock::new(),
            cancel: AtomicBool::new(false),
            threads,
        });
        let me = g.clone();
        std::thread::Builder::new()
            .name("decompress".into())
            .spawn(move || {
                let ending = Ending(&me);
                let end = me.decode(c, file);
                ending.with(end.map_err(|e| e.to_string()));
            })?;
        Ok(g)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The decoding thread's work: the file decoded into the temporary file,
    /// readers told as it goes.
    fn decode(&self, c: Compression, file: File) -> io::Result<()> {
        #[cfg(feature = "xz")]
        if let Some(by_blocks) = self.decode_by_blocks(c, &file) {
            return by_blocks;
        }
        super::decode_declared((c, file, self.len), STEP, &self.cancel, &mut |at, b| {
            self.tmp.write_all_at(&b, at)?;
            self.told(at + b.len() as u64);
            Ok(b)
        })
    }

    /// An `.xz` file of several blocks decoded on the threads it was given
    /// ([`crate::xzblocks`]); `None` where it is not such a file, or
    /// has failed that way (it is then decoded again on one decoder, whose
    /// failure is the one told).
    #[cfg(feature = "xz")]
    fn decode_by_blocks(&self, c: Compression, file: &File) -> Option<io::Result<()>> {
        let threads = self.threads;
        let blocks = crate::xzblocks::worth_it(c, file, threads)?;
        let front = Mutex::new(crate::xzblocks::Front::new(&blocks));
        let put = |i: usize, at: u64, b: &[u8]| {
            self.tmp.write_all_at(b, at)?;
            let mut front = front.lock().unwrap_or_else(|e| e.into_inner());
            self.told(front.advance(i, at + b.len() as u64));
            Ok(())
        };
        let r = crate::xzblocks::decode(file, &blocks, threads, STEP, &self.cancel, &put);
        (r.is_ok() || self.cancel.load(Relaxed)).then_some(r)
    }

    /// The bytes from the start to `whole` are decoded: readers are told.
    fn told(&self, whole: u64) {
        let mut p = self.lock();
        p.written = p.written.max(whole);
        drop(p);
        self.more.notify_all();
    }

    /// Waits until `need` bytes are decoded or the decoding has ended.
    fn wait_for(&self, need: u64) -> Progress {
        let mut p = self.lock();
        while p.written < need && p.end.is_none() {
            p = self.more.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        p.clone()
    }

    /// The size the file declares.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Copies the decoded bytes at `off` into `dst`, once they are decoded.
    pub(crate) fn read_at(&self, off: u64, dst: &mut [u8]) -> io::Result<()> {
        let need = off
            .checked_add(dst.len() as u64)
            .ok_or(io::ErrorKind::UnexpectedEof)?;
        let p = self.wait_for(need);
        if p.written >= need {
            return self.tmp.read_exact_at(dst, off);
        }
        Err(super::not_decoded(p.end.as_ref()))
    }

    /// Whether the whole file decoded to the size it declares (waits for the end
    /// of the decoding).
    pub(crate) fn whole(&self) -> bool {
        matches!(self.wait_for(u64::MAX).end, Some(Ok(())))
    }

    /// The decoded bytes, once the decoding has ended (after a failure, the bytes
    /// after it are zeros).
    pub(crate) fn bytes(&self) -> &[u8] {
        self.wait_for(u64::MAX);
        let map = self
            .map
            .get_or_init(|| super::map_file(&self.tmp).ok().filter(|_| self.len > 0));
        map.as_deref().unwrap_or_default()
    }

    /// The temporary file, once the decoding has ended.
    pub(crate) fn file(&self) -> &File {
        self.wait_for(u64::MAX);
        &self.tmp
    }

    /// The map of the whole, when it has been made.
    pub(crate) fn mapped(&self) -> Option<&memmap2::Mmap> {
        self.map.get()?.as_ref()
    }

    /// The reader is gone: the decoding stops at its next step.
    pub(crate) fn stop(&self) {
        self.cancel.store(true, Relaxed);
    }
}

/// `file`'s decoded bytes while they decode, when its container declares their
/// size (zstd; xz, whose blocks, where it has several, decode on `threads`,
/// each found by its stream's index: [`Growing::decode_by_blocks`]); `None`
/// otherwise, and when no thread can be started.
pub(crate) fn start_for(c: Compression, file: &File, threads: usize) -> Option<Arc<Growing>> {
    let size = crate::compress::sized::declared_size(c, file)?;
    if size == 0 {
        return None;
    }
    Growing::start(c, file.try_clone().ok()?, size, threads).ok()
}

#[cfg(all(test, feature = "xz"))]
mod tests {
    use super::*;
    use std::io::Write;

    /// `data` xz-compressed into a file, and the file decoding as declaring
    /// `len` bytes.
    fn growing(data: &[u8], len: u64) -> Arc<Growing> {
        let z = crate::compress::compress(Compression::Xz, data).expect("xz");
        let mut f = tempfile::tempfile().expect("temporary file");
        f.write_all(&z).expect("write");
        io::Seek::rewind(&mut f).expect("rewind");
        Growing::start(Compression::Xz, f, len, 2).expect("start")
    }

    fn data() -> Vec<u8> {
        (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn reads_wait_for_their_bytes_and_get_them() {
        let d = data();
        let g = growing(&d, d.len() as u64);
        assert_eq!(g.len(), d.len() as u64);
        // the end first (it waits for all), then the start
        let mut tail = [0u8; 100];
        g.read_at(d.len() as u64 - 100, &mut tail).expect("tail");
        assert_eq!(&tail[..], &d[d.len() - 100..]);
        let mut head = [0u8; 100];
        g.read_at(0, &mut head).expect("head");
        assert_eq!(&head[..], &d[..100]);
        assert!(g.whole());
        assert_eq!(g.bytes(), &d[..]);
        let err = g.read_at(d.len() as u64 - 10, &mut [0u8; 20]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_file_that_decodes_to_another_size_is_not_whole() {
        let d = data();
        // declared longer: what decodes is there, what does not is an error
        let g = growing(&d, d.len() as u64 + 1000);
        let mut b = [0u8; 10];
        g.read_at(5, &mut b).expect("decoded bytes");
        assert_eq!(&b[..], &d[5..15]);
        let err = g.read_at(d.len() as u64 + 10, &mut b).unwrap_err();
        assert!(
            err.to_string().contains("less than the file declares"),
            "{err}"
        );
        assert!(!g.whole());
        // declared shorter
        let g = growing(&d, d.len() as u64 / 2);
        assert!(!g.whole());
        let err = g
            .read_at(d.len() as u64 / 2 - 4, &mut [0u8; 8])
            .unwrap_err();
        assert!(
            err.to_string().contains("more than the file declares"),
            "{err}"
        );
    }

    #[test]
    fn a_decoding_stopped_ends_for_its_readers() {
        let d: Vec<u8> = (0..40_000_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let g = growing(&d, d.len() as u64);
        g.stop();
        // the decoding ends at its next step: no reader waits for ever
        assert!(!g.whole());
        let err = g.read_at(d.len() as u64 - 8, &mut [0u8; 8]).unwrap_err();
        assert!(err.to_string().contains("no reader is left"), "{err}");
    }
}
