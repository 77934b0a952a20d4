//! The records of one archive in file order, read while its volumes are being
//! decompressed: a thread reads (and decompresses) the volume files in turn into
//! bounded chunks, and [`RecordStream::next_record`] frames and decodes records from
//! them. Nothing is written to a temporary file and nothing waits for a whole
//! volume, so a reader that goes through an archive once from its start runs
//! alongside the decompression instead of after it.
//!
//! The stream is strict: any record that does not frame or decode, a partial
//! record at the end of a volume, or a volume the archive context could not use,
//! is an error. It does not position by the temporal index as libpcp does; it
//! checks the index against the records instead ([`RecordStream::faithful`]), so
//! that a caller that must answer as libpcp on damaged archives reads through
//! [`crate::logfetch::LogCursor`] where the stream finds a fault.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};

use crate::archive::Archive;
use crate::codec::index::IndexEntry;
use crate::codec::label::Label;
use crate::codec::result::{decode_result, ResultRecord};
use crate::error::{Error, Result, PM_ERR_LOGREC};
use crate::types::Timestamp;

/// Bytes the reading thread hands over at a time.
const CHUNK: usize = 1 << 20;
/// Chunks in flight between the threads (what the stream holds beyond one record).
const IN_FLIGHT: usize = 8;

/// What the reading thread sends.
enum Piece {
    Bytes(Vec<u8>),
    /// The end of the volume being read.
    VolumeEnd,
    Failed(Error),
}

/// A record as the stream gives it: where it starts in which volume, and the
/// record itself (borrowed from the stream until the next call).
pub struct Streamed<'s> {
    pub vol: u32,
    /// The offset of its length word in the (decompressed) volume.
    pub at: u64,
    pub rec: ResultRecord<'s>,
}

pub struct RecordStream {
    rx: Receiver<Piece>,
    /// Chunks handed back to the reading thread to fill again.
    spent: std::sync::mpsc::Sender<Vec<u8>>,
    /// Volume numbers and paths, in order (for errors).
    vols: Vec<(u32, PathBuf)>,
    /// Which of `vols` is being read; `None` before the first.
    cur: Option<usize>,
    version: u32,
    buf: Vec<u8>,
    /// Where unread bytes start in `buf`.
    pos: usize,
    /// The volume offset of `buf[0]`.
    base: u64,
    /// Whether the volume's label has been passed.
    labelled: bool,
    ended: bool,
    check: IndexCheck,
}

impl RecordStream {
    /// Starts reading `a`'s data volumes (a single archive's; see
    /// [`Archive::is_multi`]) on a thread of its own. `None` where a volume the
    /// files hold is one the archive context left out (the stream would differ
    /// from libpcp's reading).
    pub fn open(a: &Archive) -> Option<RecordStream> {
        let files: Vec<(u32, PathBuf, Option<crate::compress::Compression>)> = a
            .files()
            .volumes
            .iter()
            .map(|(n, f)| (*n, f.path.clone(), f.compression))
            .collect();
        let nums: Vec<u32> = files.iter().map(|f| f.0).collect();
        if a.is_multi() || nums != a.volume_numbers() {
            return None;
        }
        let (tx, rx) = sync_channel(IN_FLIGHT);
        let (spent, back) = std::sync::mpsc::channel();
        let list = files.clone();
        std::thread::Builder::new()
            .name("stream".into())
            .spawn(move || {
                for (_, path, c) in list {
                    if !send_volume(&tx, &back, &path, c) {
                        return;
                    }
                }
            })
            .ok()?;
        Some(RecordStream {
            rx,
            spent,
            vols: files.into_iter().map(|(n, p, _)| (n, p)).collect(),
            cur: None,
            version: a.version(),
            buf: Vec::with_capacity(2 * CHUNK),
            pos: 0,
            base: 0,
            labelled: false,
            ended: false,
            check: IndexCheck::new(a.index()),
        })
    }

    /// Whether a forward read through libpcp (positioned by the temporal index)
    /// gives the records this stream has given from the archive's start, up to
    /// the last, for any start time up to `until`: the records' times never went
    /// back, and every index entry up to there names a record of its time (or the
    /// end of a volume).
    pub fn faithful(&self, until: Timestamp) -> bool {
        self.check.holds(until)
    }

    fn path(&self) -> PathBuf {
        self.cur
            .and_then(|i| self.vols.get(i))
            .map(|v| v.1.clone())
            .unwrap_or_default()
    }

    fn bad(&self, at: u64, what: &str) -> Error {
        Error::pcp(PM_ERR_LOGREC, what.to_string()).at(&self.path(), Some(at))
    }

    /// Makes `n` unread bytes available from `pos`: `Ok(false)` at the end of the
    /// volume (with fewer there).
    fn fill(&mut self, n: usize) -> Result<bool> {
        while self.buf.len() - self.pos < n {
            if self.ended {
                return Ok(false);
            }
            match self.rx.recv() {
                Ok(Piece::Bytes(b)) => {
                    if self.pos > 0 {
                        self.buf.drain(..self.pos);
                        self.base += self.pos as u64;
                        self.pos = 0;
                    }
                    self.buf.extend_from_slice(&b);
                    let _ = self.spent.send(b);
                }
                Ok(Piece::VolumeEnd) | Err(_) => {
                    self.ended = true;
                }
                Ok(Piece::Failed(e)) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Moves to the next volume: `Ok(false)` after the last.
    fn next_volume(&mut self) -> Result<bool> {
        let next = self.cur.map_or(0, |i| i + 1);
        if next >= self.vols.len() {
            return Ok(false);
        }
        if let Some(i) = self.cur {
            self.check
                .volume_end(self.vols[i].0, self.base + self.buf.len() as u64);
        }
        self.cur = Some(next);
        self.buf.clear();
        (self.pos, self.base) = (0, 0);
        (self.labelled, self.ended) = (false, false);
        Ok(true)
    }

    /// The next record, `None` after the last volume's last.
    pub fn next_record(&mut self) -> Result<Option<Streamed<'_>>> {
        loop {
            if self.cur.is_none() && !self.next_volume()? {
                return Ok(None);
            }
            if !self.fill(4)? {
                if self.buf.len() > self.pos {
                    return Err(self.bad(self.base + self.pos as u64, "partial record"));
                }
                if !self.next_volume()? {
                    return Ok(None);
                }
                continue;
            }
            let at = self.base + self.pos as u64;
            let w = &self.buf[self.pos..self.pos + 4];
            let len = u32::from_be_bytes([w[0], w[1], w[2], w[3]]) as usize;
            if len < 12 || !self.fill(len)? {
                return Err(self.bad(at, "bad record length"));
            }
            let rec = &self.buf[self.pos..self.pos + len];
            let tail = &rec[len - 4..];
            if u32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]) as usize != len {
                return Err(self.bad(at, "record trailer differs from its header"));
            }
            self.pos += len;
            if !self.labelled {
                if len as u64 != Label::len_for(self.version) {
                    return Err(self.bad(at, "volume label of another version"));
                }
                self.labelled = true;
                continue;
            }
            let vol = self.cur.map_or(0, |i| self.vols[i].0);
            let path = self.path();
            let start = self.pos - len;
            let payload = &self.buf[start + 4..start + len - 4];
            let rec = decode_result(payload, at + 4, self.version)
                .map_err(|e| Error::decode(&path, e))?;
            self.check.record(vol, at, rec.stamp);
            return Ok(Some(Streamed { vol, at, rec }));
        }
    }
}

/// Reads one volume file into chunks sent down `tx`; `false` once the stream
/// is gone or the file failed.
fn send_volume(
    tx: &std::sync::mpsc::SyncSender<Piece>,
    back: &Receiver<Vec<u8>>,
    path: &std::path::Path,
    c: Option<crate::compress::Compression>,
) -> bool {
    let opened = File::open(path).and_then(|f| match c {
        Some(c) => crate::compress::decoder(c, f),
        None => Ok(Box::new(f) as Box<dyn Read>),
    });
    let mut r = match opened {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Piece::Failed(Error::io(path, &e)));
            return false;
        }
    };
    loop {
        // a chunk the stream is done with (filled before: not zeroed again), else
        // a new one
        let mut chunk = back.try_recv().unwrap_or_default();
        chunk.resize(CHUNK, 0);
        let mut n = 0;
        while n < CHUNK {
            match r.read(&mut chunk[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Piece::Failed(Error::io(path, &e)));
                    return false;
                }
            }
        }
        chunk.truncate(n);
        if n > 0 && tx.send(Piece::Bytes(chunk)).is_err() {
            return false;
        }
        if n < CHUNK {
            return tx.send(Piece::VolumeEnd).is_ok();
        }
    }
}

/// The temporal index checked against the records a [`RecordStream`] reads.
struct IndexCheck {
    /// (volume, offset, time) of each entry, by volume and offset; those from
    /// `next` on not passed yet.
    entries: Vec<(u32, u64, Timestamp)>,
    next: usize,
    last: Option<Timestamp>,
    ok: bool,
}

impl IndexCheck {
    fn new(index: &[IndexEntry]) -> IndexCheck {
        let mut entries: Vec<(u32, u64, Timestamp)> = Vec::with_capacity(index.len());
        let mut ok = true;
        for e in index {
            if e.vol < 0 || e.off_data < 0 {
                ok = false;
                continue;
            }
            entries.push((e.vol as u32, e.off_data as u64, e.stamp));
        }
        entries.sort_by_key(|e| (e.0, e.1));
        IndexCheck {
            entries,
            next: 0,
            last: None,
            ok,
        }
    }

    /// A record read at `at` in volume `vol`: entries up to it must name it.
    fn record(&mut self, vol: u32, at: u64, stamp: Timestamp) {
        if self.last.is_some_and(|t| stamp < t) {
            self.ok = false;
        }
        self.last = Some(stamp);
        while let Some(&(v, off, t)) = self.entries.get(self.next) {
            if (v, off) > (vol, at) {
                break;
            }
            if (v, off) != (vol, at) || t != stamp {
                self.ok = false;
            }
            self.next += 1;
        }
    }

    /// Volume `vol` ended at `len`: entries up to its end must be at its end.
    fn volume_end(&mut self, vol: u32, len: u64) {
        while let Some(&(v, off, _)) = self.entries.get(self.next) {
            if v > vol {
                break;
            }
            if (v, off) != (vol, len) {
                self.ok = false;
            }
            self.next += 1;
        }
    }

    /// Whether the index held for what was read, with nothing left unread that
    /// positioning up to `until` could use.
    fn holds(&self, until: Timestamp) -> bool {
        self.ok
            && self.entries[self.next..]
                .iter()
                .all(|e| e.2 > until && Some(e.2) >= self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::OpenOptions;
    use crate::logfetch::{Direction, LogCursor};

    fn testdata(rel: &str) -> String {
        format!("{}/../../testdata/{rel}", env!("CARGO_MANIFEST_DIR"))
    }

    /// (time, number of value sets) of every record the cursor fetches forward.
    fn by_cursor(a: &Archive) -> Vec<(Timestamp, usize)> {
        let mut c = LogCursor::new(a);
        c.set_mode(Direction::Forward, a.label().start);
        let mut out = Vec::new();
        while let Some(r) = c.fetch().expect("a clean archive") {
            out.push((r.stamp, r.vsets.len()));
        }
        out
    }

    #[test]
    fn the_records_libpcp_fetches_plain_and_compressed() {
        for rel in [
            "archives/sample_v3",
            "archives/marks",
            "compressed/sample_v2",
        ] {
            let opts = OpenOptions {
                label_only: true,
                ..OpenOptions::default()
            };
            let a = Archive::open_with(testdata(rel), opts).expect("opens");
            let mut s = RecordStream::open(&a).expect("a single archive");
            let mut got = Vec::new();
            while let Some(r) = s.next_record().expect("a clean archive") {
                got.push((r.rec.stamp, r.rec.vsets.len()));
            }
            assert!(s.faithful(a.label().start), "{rel}: its index holds");
            assert!(!got.is_empty());
            assert_eq!(got, by_cursor(&a), "{rel}");
        }
    }

    #[test]
    fn a_cut_volume_is_an_error_and_a_wrong_index_is_seen() {
        let dir = tempfile::tempdir().expect("a directory");
        let src = testdata("archives/sample_v2");
        for ext in ["meta", "index", "0"] {
            let to = dir.path().join(format!("a.{ext}"));
            std::fs::copy(format!("{src}.{ext}"), &to).expect("copied");
        }
        let base = dir.path().join("a").to_string_lossy().into_owned();
        // the index's offsets moved by 4 bytes: no longer record starts
        let mut index = std::fs::read(format!("{base}.index")).expect("read");
        let first_entry = Label::len_for(2) as usize + 4;
        let off = first_entry + 12;
        let v = u32::from_be_bytes(index[off..off + 4].try_into().expect("4 bytes")) + 4;
        index[off..off + 4].copy_from_slice(&v.to_be_bytes());
        std::fs::write(format!("{base}.index"), &index).expect("written");
        let a = Archive::open(&base).expect("opens");
        let mut s = RecordStream::open(&a).expect("a single archive");
        while s.next_record().expect("the records are whole").is_some() {}
        assert!(!s.faithful(a.label().start));
        // the volume cut in the middle of its last record
        let vol = format!("{base}.0");
        let len = std::fs::metadata(&vol).expect("there").len();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&vol)
            .expect("opens");
        f.set_len(len - 6).expect("cut");
        let a = Archive::open(&base).expect("opens");
        let mut s = RecordStream::open(&a).expect("a single archive");
        let e = loop {
            match s.next_record() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("a cut record must be an error"),
                Err(e) => break e,
            }
        };
        assert!(e.to_string().contains("a.0"), "{e}");
    }
}
