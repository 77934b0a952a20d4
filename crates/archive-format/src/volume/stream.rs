//! A compressed volume read once, front to back, while a thread decodes it: the
//! decoded bytes are held in memory a piece at a time, at most [`CAP`] bytes of
//! them (no temporary file), and a caller's observer sees every byte as it is
//! decoded. For a reader that goes through the volume from its start (pmlogcheck's
//! pass over the records, fed from the same decoding as its look at each file's
//! framing; pmlogpush sending the file).
//!
//! The pieces held are those from `low` on, `low` following the reader: a read at
//! an offset lets go of what lies more than [`BEHIND`] bytes before it. A read of
//! bytes already let go, or of more than is held, fails and is remembered
//! ([`Stream::finish`] says so): the caller then reads the volume another way. A
//! read far ahead moves `low` up to it, and the decoder decodes on to there. Each
//! piece is decoded into a buffer of its own and handed over whole (not copied);
//! the buffers let go are decoded into again.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};

use crate::compress::Compression;

/// What a stream's decoder shows each piece of the decoded bytes to, in order.
pub type Observer = Box<dyn FnMut(&[u8]) + Send>;

/// Makes the observer of each volume streamed ([`crate::OpenOptions::streamed`]).
#[derive(Clone)]
pub struct Observe(pub Arc<dyn Fn(&super::FileRef) -> Observer + Send + Sync>);

impl std::fmt::Debug for Observe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observe")
    }
}

/// The bytes held after `low`, at most (and one piece more).
const CAP: u64 = 8 << 20;
/// What a read keeps before it (for a reader that steps back a little).
const BEHIND: u64 = 2 << 20;
/// Bytes decoded at a time: a piece.
const STEP: usize = 256 * 1024;

pub(crate) struct Stream {
    /// What the file declares it decodes to.
    len: u64,
    progress: Mutex<Progress>,
    /// Signalled when bytes are decoded, the decoding ends, or `low` moves.
    moved: Condvar,
    /// Set when the reader is gone: the decoding stops.
    cancel: AtomicBool,
}

/// A decoded piece: where it starts in the volume, and its bytes.
type Piece = (u64, Arc<Vec<u8>>);

#[derive(Debug, Default)]
struct Progress {
    /// Bytes decoded, from the start.
    written: u64,
    /// The first offset still held (or to be: it can be ahead of `written`).
    low: u64,
    /// The pieces held, in order, the last ending at `written`.
    pieces: VecDeque<Piece>,
    /// Pieces let go, whose buffers the decoder fills again once no read holds
    /// them.
    spare: Vec<Arc<Vec<u8>>>,
    /// A read was refused.
    missed: bool,
    /// How the decoding ended, once it has.
    end: Option<Result<(), String>>,
}

impl Progress {
    /// Lets go of the pieces that end by `low`.
    fn let_go(&mut self) {
        while let Some((at, b)) = self.pieces.front() {
            if at + b.len() as u64 > self.low {
                break;
            }
            if let Some((_, b)) = self.pieces.pop_front() {
                self.spare.push(b);
            }
        }
    }

    /// A buffer for the next piece: a spare one no read holds, else a new one.
    fn buffer(&mut self) -> Vec<u8> {
        while let Some(b) = self.spare.pop() {
            if let Ok(v) = Arc::try_unwrap(b) {
                return v;
            }
        }
        Vec::with_capacity(STEP)
    }
}

/// The end of the decoding told to the reader, also when the thread unwinds.
struct Ending<'s>(&'s Stream);

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.0
            .lock()
            .end
            .get_or_insert_with(|| Err("the decoding thread failed".into()));
        self.0.moved.notify_all();
    }
}

impl Stream {
    /// Starts decoding `file` (compressed as `c`, declaring `len` bytes) on a
    /// thread of its own, showing the bytes to `observe`.
    pub(crate) fn start(
        c: Compression,
        file: File,
        len: u64,
        observe: Observer,
    ) -> io::Result<Arc<Stream>> {
        let s = Arc::new(Stream {
            len,
            progress: Mutex::default(),
            moved: Condvar::new(),
            cancel: AtomicBool::new(false),
        });
        let me = s.clone();
        std::thread::Builder::new()
            .name("decompress".into())
            .spawn(move || {
                let ending = Ending(&me);
                let end = me.decode(c, file, observe).map_err(|e| e.to_string());
                me.lock().end = Some(end);
                drop(ending);
            })?;
        Ok(s)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cap(&self) -> u64 {
        CAP.min(self.len)
    }

    /// The decoding thread's work: each piece shown to the observer, then held
    /// once the reader has let go of enough before it.
    fn decode(&self, c: Compression, file: File, mut observe: Observer) -> io::Result<()> {
        super::decode_declared((c, file, self.len), STEP, &self.cancel, &mut |at, b| {
            observe(&b);
            Ok(self.put(at, b))
        })
    }

    /// Holds the piece decoded at `at` once there is room for it (a reader
    /// waiting for its start makes room for it; a piece the reader has let go of
    /// already is not held); the buffer to decode the next piece into.
    fn put(&self, at: u64, piece: Vec<u8>) -> Vec<u8> {
        let end = at + piece.len() as u64;
        let mut p = self.lock();
        while at >= p.low.saturating_add(self.cap()) && !self.cancel.load(Relaxed) {
            p = self.moved.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        p.written = end;
        let next = if end > p.low && !self.cancel.load(Relaxed) {
            p.pieces.push_back((at, Arc::new(piece)));
            p.buffer()
        } else {
            piece
        };
        drop(p);
        self.moved.notify_all();
        next
    }

    /// The size the file declares.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Copies the decoded bytes at `off` into `dst`, once they are decoded; lets go
    /// of what lies more than [`BEHIND`] before them.
    pub(crate) fn read_at(&self, off: u64, dst: &mut [u8]) -> io::Result<()> {
        let need = off
            .checked_add(dst.len() as u64)
            .ok_or(io::ErrorKind::UnexpectedEof)?;
        let mut p = self.lock();
        if off < p.low || need - off > self.cap() {
            p.missed = true;
            return Err(io::Error::other("a streamed volume read out of its order"));
        }
        let low = off
            .saturating_sub(BEHIND)
            .max(need.saturating_sub(self.cap()));
        if low > p.low {
            p.low = low;
            p.let_go();
            self.moved.notify_all();
        }
        while p.written < need && p.end.is_none() {
            p = self.moved.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        if p.written < need {
            return Err(super::not_decoded(p.end.as_ref()));
        }
        let held: Vec<Piece> = (p.pieces.iter())
            .filter(|(at, b)| *at < need && at + b.len() as u64 > off)
            .cloned()
            .collect();
        drop(p);
        copy_out(&held, off, dst);
        Ok(())
    }

    /// The reader is done: the decoding goes on to the end (for the observer) and
    /// is waited for. Whether the file decoded whole to the size it declares and
    /// every read was served.
    pub(crate) fn finish(&self) -> bool {
        let mut p = self.lock();
        p.low = u64::MAX;
        p.let_go();
        p.spare.clear();
        self.moved.notify_all();
        while p.end.is_none() {
            p = self.moved.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        matches!(p.end, Some(Ok(()))) && !p.missed
    }

    /// A read that cannot be served (a whole slice of the volume was asked for).
    pub(crate) fn miss(&self) {
        self.lock().missed = true;
    }

    /// The reader is gone: the decoding stops at its next step.
    pub(crate) fn stop(&self) {
        self.cancel.store(true, Relaxed);
        let _p = self.lock();
        self.moved.notify_all();
    }
}

/// Copies the bytes at offset `at` of the volume into `dst` from `pieces`, which
/// cover them in order.
fn copy_out(pieces: &[Piece], at: u64, dst: &mut [u8]) {
    let mut done = 0;
    for (start, b) in pieces {
        let from = (at + done as u64 - start) as usize;
        let n = (dst.len() - done).min(b.len() - from);
        dst[done..done + n].copy_from_slice(&b[from..from + n]);
        done += n;
    }
}

/// `file`'s decoded bytes read as they decode, shown to `observe`, when its
/// container declares their size; `None` otherwise and when no thread can be
/// started.
pub(crate) fn start_for(c: Compression, file: &File, observe: Observer) -> Option<Arc<Stream>> {
    let size = crate::compress::sized::declared_size(c, file)?;
    if size == 0 {
        return None;
    }
    Stream::start(c, file.try_clone().ok()?, size, observe).ok()
}

#[cfg(all(test, feature = "xz"))]
mod tests {
    use super::*;
    use std::io::Write;

    /// `data` xz-compressed into a file, streamed declaring `len` bytes, and
    /// what its observer saw.
    fn streamed(data: &[u8], len: u64) -> (Arc<Stream>, Arc<Mutex<Vec<u8>>>) {
        let z = crate::compress::compress(Compression::Xz, data).expect("xz");
        let mut f = tempfile::tempfile().expect("temporary file");
        f.write_all(&z).expect("write");
        io::Seek::rewind(&mut f).expect("rewind");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = seen.clone();
        let observe: Observer = Box::new(move |b| s2.lock().expect("seen").extend_from_slice(b));
        (
            Stream::start(Compression::Xz, f, len, observe).expect("start"),
            seen,
        )
    }

    fn data(n: u32) -> Vec<u8> {
        (0..n)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect()
    }

    #[test]
    fn a_reader_going_forward_reads_every_byte_and_the_observer_sees_them() {
        let d = data(12_000_000);
        let (s, seen) = streamed(&d, d.len() as u64);
        let mut off = 0usize;
        let mut buf = vec![0u8; 100_003];
        while off < d.len() {
            let n = buf.len().min(d.len() - off);
            s.read_at(off as u64, &mut buf[..n]).expect("read");
            assert_eq!(&buf[..n], &d[off..off + n]);
            // a step back within what is kept
            if off > 1000 {
                let mut back = [0u8; 10];
                s.read_at(off as u64 - 1000, &mut back).expect("back");
                assert_eq!(&back[..], &d[off - 1000..off - 990]);
            }
            off += n;
        }
        assert!(s.finish());
        assert_eq!(*seen.lock().expect("seen"), d);
    }

    #[test]
    fn a_read_of_most_of_the_ring_is_served() {
        // (the decoder's step that would end past the room the read makes is
        // put in parts)
        let d = data(12_000_000);
        let (s, _) = streamed(&d, d.len() as u64);
        let (off, n) = (3_000_001usize, CAP as usize - BEHIND as usize + 3);
        let mut buf = vec![0u8; n];
        s.read_at(off as u64, &mut buf).expect("read");
        assert!(buf == d[off..off + n]);
        assert!(s.finish());
    }

    #[test]
    fn a_read_behind_what_is_kept_fails_and_is_remembered() {
        let d = data(12_000_000);
        let (s, seen) = streamed(&d, d.len() as u64);
        // the end first: the decoding goes on to it, letting the start go
        let mut tail = [0u8; 8];
        s.read_at(d.len() as u64 - 8, &mut tail).expect("tail");
        assert_eq!(&tail[..], &d[d.len() - 8..]);
        assert!(s.read_at(0, &mut [0u8; 4]).is_err());
        assert!(!s.finish());
        // the observer saw it all the same
        assert_eq!(seen.lock().expect("seen").len(), d.len());
    }

    #[test]
    fn a_file_that_decodes_to_another_size_does_not_finish_whole() {
        let d = data(3_000_000);
        let (s, _) = streamed(&d, d.len() as u64 + 10);
        let err = s.read_at(d.len() as u64, &mut [0u8; 4]).unwrap_err();
        assert!(err.to_string().contains("less than"), "{err}");
        assert!(!s.finish());
        let (s, _) = streamed(&d, d.len() as u64 - 10);
        assert!(!s.finish());
    }

    #[test]
    fn a_stream_stopped_ends_for_its_reader() {
        let d = data(12_000_000);
        let (s, _) = streamed(&d, d.len() as u64);
        s.stop();
        assert!(!s.finish());
    }
}
