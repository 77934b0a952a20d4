//! A compressed volume decoded for a reader that asks only for some metrics: each
//! record is written again with only those metrics' value sets
//! ([`crate::codec::strip`]) as it decodes, and the volume is held in memory in
//! that form. Nothing of its decoded size goes to a temporary file or stays in
//! memory, and the records are checked and cut on the decoding thread, beside the
//! reader.
//!
//! The metrics are known only once the metadata is read, which happens while the
//! first volumes decode: what decodes before is held (up to [`WAIT_BEYOND`] bytes),
//! then cut. A volume that is not all sound records (a record that does not decode,
//! bytes after the last record, a decoding that fails) is not cut: the caller loads
//! it whole, as before, and meets its faults as a reader of it always does. So is
//! one where the temporal index points between records.

use super::{xz_on_every_core, Bytes, FileRef, Inner};
use crate::codec::label::decode_label;
use crate::codec::record::frame_at;
use crate::codec::strip::strip_record;
use crate::types::PmId;
use std::io;
use std::sync::{Arc, Condvar, Mutex};

/// Decoded bytes read at a time.
const STEP: usize = 1 << 20;

/// Bytes decoded ahead of knowing what to keep, at most.
const WAIT_BEYOND: usize = 2 << 20;

/// A record longer than this is not cut (the volume is loaded whole): a length
/// word that says more is likely damage, and is not read into memory.
const LONGEST: usize = 64 << 20;

/// What a cut volume keeps: the metrics' PMIDs, and the temporal index's
/// (volume number, offset) entries, which must fall where records start.
#[derive(Debug, Default)]
pub(crate) struct KeepSet {
    pub(crate) pmids: Vec<PmId>,
    pub(crate) index: Vec<(i32, u64)>,
}

/// The [`KeepSet`], told once by the opening of the archive (`None`: nothing is
/// cut), and waited for by the decoding threads.
#[derive(Debug, Default)]
pub(crate) struct Keep {
    told: Mutex<Option<Option<Arc<KeepSet>>>>,
    cv: Condvar,
}

impl Keep {
    /// Tells what to keep; only the first telling counts.
    pub(crate) fn tell(&self, set: Option<KeepSet>) {
        let mut t = self.told.lock().unwrap_or_else(|e| e.into_inner());
        if t.is_none() {
            *t = Some(set.map(Arc::new));
            self.cv.notify_all();
        }
    }

    /// What to keep, when told; with `wait`, waits to be told.
    fn get(&self, wait: bool) -> Option<Option<Arc<KeepSet>>> {
        let mut t = self.told.lock().unwrap_or_else(|e| e.into_inner());
        while wait && t.is_none() {
            t = self.cv.wait(t).unwrap_or_else(|e| e.into_inner());
        }
        t.clone()
    }
}

/// Tells [`Keep`] that nothing is cut when it is dropped untold (an archive whose
/// opening failed): no decoding thread waits for ever.
pub(crate) struct TellOnDrop(pub(crate) Option<Arc<Keep>>);

impl Drop for TellOnDrop {
    fn drop(&mut self) {
        if let Some(k) = &self.0 {
            k.tell(None);
        }
    }
}

/// A volume cut down to some metrics: its bytes, and where each of its records
/// started in the whole volume and starts here (ascending both).
pub(crate) struct Cut {
    pub(crate) bytes: Vec<u8>,
    starts: Vec<(u64, u64)>,
    /// The whole volume's size.
    whole: u64,
}

impl Cut {
    /// Where the record at `off` of the whole volume starts here (the label's end
    /// and the volume's end are where they are in this one); `off` itself for any
    /// other offset.
    pub(crate) fn place_of(&self, off: u64) -> u64 {
        if off == self.whole {
            return self.bytes.len() as u64;
        }
        match self.starts.binary_search_by_key(&off, |s| s.0) {
            Ok(i) => self.starts[i].1,
            Err(_) => off,
        }
    }
}

/// Volume `vol` of `fr` (compressed) decoded and cut down to what `keep` is told,
/// or `None` where it is not cut (see the module's notes).
pub(crate) fn load_cut(fr: &FileRef, vol: i32, keep: &Keep) -> Option<Bytes> {
    let c = fr.compression?;
    let file = std::fs::File::open(&fr.path).ok()?;
    let input = io::BufReader::with_capacity(256 * 1024, file);
    let cut = cut(xz_on_every_core(c, input).ok()?, vol, keep)?;
    Some(Bytes {
        inner: Inner::Cut(cut),
    })
}

/// Volume `vol`, as `dec` decodes it, cut down to what `keep` is told.
fn cut(dec: Box<dyn io::Read + '_>, vol: i32, keep: &Keep) -> Option<Cut> {
    let mut src = Source::new(dec);
    // the label, as it is
    let label_len = src.frame()?;
    let label = decode_label(src.ahead(label_len)).ok()?;
    let mut cut = Cut {
        bytes: src.ahead(label_len).to_vec(),
        starts: Vec::new(),
        whole: 0,
    };
    src.at += label_len;
    let set = loop {
        match keep.get(src.eof || src.filled >= WAIT_BEYOND) {
            Some(set) => break set?,
            None => {
                src.more();
            }
        }
    };
    let kept = |p: PmId| set.pmids.binary_search(&p).is_ok();
    while let Some(len) = src.next_frame()? {
        let start = src.base + src.at as u64;
        let frame = src.ahead(len);
        let payload = &frame[4..len - 4];
        cut.starts.push((start, cut.bytes.len() as u64));
        strip_record(payload, start + 4, label.version, &kept, &mut cut.bytes).ok()?;
        src.at += len;
    }
    cut.whole = src.base + src.at as u64;
    let label_end = label_len as u64;
    let between = set.index.iter().any(|&(v, off)| {
        v == vol
            && off != label_end
            && off != cut.whole
            && cut.starts.binary_search_by_key(&off, |s| s.0).is_err()
    });
    if between {
        return None;
    }
    cut.bytes.shrink_to_fit();
    Some(cut)
}

/// The decoded bytes of a volume, read a step at a time: `buf[at..filled]` is
/// what is not yet taken, `base` the volume offset of `buf[0]`.
struct Source<'a> {
    dec: Box<dyn io::Read + 'a>,
    buf: Vec<u8>,
    filled: usize,
    at: usize,
    base: u64,
    eof: bool,
    /// The decoding failed.
    failed: bool,
}

impl Source<'_> {
    fn new(dec: Box<dyn io::Read + '_>) -> Source<'_> {
        Source {
            dec,
            buf: Vec::new(),
            filled: 0,
            at: 0,
            base: 0,
            eof: false,
            failed: false,
        }
    }

    /// Reads some more (dropping what was taken first); `None` when nothing more
    /// came: the end of the input, or a decoding that failed.
    fn more(&mut self) -> Option<()> {
        if self.eof {
            return None;
        }
        if self.at >= STEP {
            self.buf.copy_within(self.at..self.filled, 0);
            self.filled -= self.at;
            self.base += self.at as u64;
            self.at = 0;
            // (what was held while waiting to be told what to keep goes)
            if self.buf.len() > 4 * STEP && self.filled < STEP {
                self.buf.truncate(2 * STEP);
                self.buf.shrink_to_fit();
            }
        }
        if self.buf.len() - self.filled < STEP / 2 {
            self.buf.resize(self.filled + STEP, 0);
        }
        loop {
            match self.dec.read(&mut self.buf[self.filled..]) {
                Ok(0) => self.eof = true,
                Ok(got) => self.filled += got,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => (self.eof, self.failed) = (true, true),
            }
            return (!self.eof).then_some(());
        }
    }

    /// Whether `n` bytes are there not yet taken, reading more as needed.
    fn has(&mut self, n: usize) -> bool {
        while self.filled - self.at < n {
            if self.more().is_none() {
                return false;
            }
        }
        true
    }

    /// The next `n` bytes not yet taken (which [`Source::has`] found).
    fn ahead(&self, n: usize) -> &[u8] {
        &self.buf[self.at..self.at + n]
    }

    /// The length of the sound frame that starts here, read in whole; `None`
    /// where there is none (or one longer than [`LONGEST`]).
    fn frame(&mut self) -> Option<usize> {
        if !self.has(4) {
            return None;
        }
        let head = self.ahead(4);
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if len > LONGEST || !self.has(len) {
            return None;
        }
        match frame_at(self.ahead(len), 0) {
            Ok(Some(f)) if f.len as usize == len => Some(len),
            _ => None,
        }
    }

    /// [`Source::frame`] of the next record: `Some(None)` at the end of a volume
    /// that decoded whole, `None` where what follows is not a sound frame.
    fn next_frame(&mut self) -> Option<Option<usize>> {
        if !self.has(1) {
            return (!self.failed).then_some(None);
        }
        self.frame().map(Some)
    }
}

#[cfg(all(test, feature = "xz"))]
mod tests {
    use super::*;
    use crate::codec::label::{encode_label, Label};
    use crate::codec::record::encode_frame;
    use crate::codec::result::{decode_result, encode_result, OwnedValueSet};
    use crate::compress::{compress, Compression};
    use crate::types::Timestamp;
    use std::path::Path;

    const A: PmId = PmId(7);
    const B: PmId = PmId(8);

    /// A volume 0 of `n` records (metric A in every other one, B in each), and
    /// where each record starts.
    fn volume(n: u32) -> (Vec<u8>, Vec<u64>) {
        let label = Label {
            version: 2,
            pid: 1,
            start: Timestamp::new(1_000, 0),
            vol: 0,
            features: 0,
            hostname: "h".into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
        };
        let mut v = encode_label(&label);
        let mut starts = Vec::new();
        for k in 0..n {
            let mut sets = vec![OwnedValueSet::insitu(B, vec![(1, k), (2, k * 3)])];
            if k % 2 == 0 {
                sets.insert(0, OwnedValueSet::insitu(A, vec![(-1, k)]));
            }
            starts.push(v.len() as u64);
            let body = encode_result(Timestamp::new(1_000 + k as i64, 0), &sets, 2);
            v.extend(encode_frame(&body));
        }
        (v, starts)
    }

    fn xz_file(dir: &Path, bytes: &[u8]) -> FileRef {
        let path = dir.join("a.0.xz");
        std::fs::write(&path, compress(Compression::Xz, bytes).expect("xz")).expect("write");
        FileRef {
            path,
            compression: Some(Compression::Xz),
        }
    }

    fn told(index: Vec<(i32, u64)>) -> Keep {
        let k = Keep::default();
        k.tell(Some(KeepSet {
            pmids: vec![A],
            index,
        }));
        k
    }

    /// Each record of a volume, its time and the metrics of its value sets.
    fn records(b: &[u8]) -> Vec<(i64, Vec<PmId>)> {
        let mut at = 132;
        let mut out = Vec::new();
        while let Ok(Some(f)) = frame_at(b, at) {
            let r = decode_result(f.payload(b), f.payload_start(), 2).expect("record");
            out.push((r.stamp.sec, r.vsets.iter().map(|s| s.pmid).collect()));
            at = f.end();
        }
        out
    }

    #[test]
    fn a_cut_volume_keeps_every_record_with_only_the_metrics_asked_for() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (v, starts) = volume(50);
        let fr = xz_file(dir.path(), &v);
        let index = vec![(0, 132), (0, starts[20]), (0, v.len() as u64), (1, 5)];
        let b = load_cut(&fr, 0, &told(index)).expect("cut");
        assert!(b.len() < v.len(), "{} of {}", b.len(), v.len());
        assert_eq!(&b[..132], &v[..132], "the label as it was");
        let got = records(&b);
        assert_eq!(got.len(), 50);
        for (k, (sec, pmids)) in got.iter().enumerate() {
            assert_eq!(*sec, 1_000 + k as i64);
            // a record without A holds one empty set of its first metric
            let want = if k % 2 == 0 { A } else { B };
            assert_eq!(pmids, &vec![want], "record {k}");
        }
        // the index's offsets, where the records are now
        assert_eq!(b.place_of(132), 132);
        assert_eq!(b.place_of(v.len() as u64), b.len() as u64);
        let twenty = b.place_of(starts[20]);
        let f = frame_at(&b, twenty).expect("frame").expect("a record");
        let r = decode_result(f.payload(&b), f.payload_start(), 2).expect("record");
        assert_eq!(r.stamp.sec, 1_020);
    }

    #[test]
    fn a_volume_that_is_not_all_sound_records_is_not_cut() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (v, starts) = volume(20);
        assert!(load_cut(&xz_file(dir.path(), &v), 0, &told(vec![])).is_some());
        // the index pointing inside a record
        let inside = told(vec![(0, starts[5] + 4)]);
        assert!(load_cut(&xz_file(dir.path(), &v), 0, &inside).is_none());
        // a record that does not decode: more metrics than it holds
        let mut bad = v.clone();
        let at = starts[7] as usize + 4 + 8;
        bad[at..at + 4].copy_from_slice(&1000i32.to_be_bytes());
        assert!(load_cut(&xz_file(dir.path(), &bad), 0, &told(vec![])).is_none());
        // bytes after the last record
        let mut tail = v.clone();
        tail.extend_from_slice(&[0, 0]);
        assert!(load_cut(&xz_file(dir.path(), &tail), 0, &told(vec![])).is_none());
        // the last record cut short
        let short = &v[..v.len() - 3];
        assert!(load_cut(&xz_file(dir.path(), short), 0, &told(vec![])).is_none());
        // a decoding that fails part way
        let z = compress(Compression::Xz, &v).expect("xz");
        let fr = xz_file(dir.path(), &v);
        std::fs::write(&fr.path, &z[..z.len() / 2]).expect("write");
        assert!(load_cut(&fr, 0, &told(vec![])).is_none());
        // told to keep nothing in particular
        let none = Keep::default();
        none.tell(None);
        assert!(load_cut(&xz_file(dir.path(), &v), 0, &none).is_none());
    }

    /// Gives its bytes, then an error.
    struct Failing(io::Cursor<Vec<u8>>);

    impl io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("corrupt")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn a_decoding_that_fails_after_a_whole_record_is_not_cut() {
        let (v, starts) = volume(10);
        let whole = io::Cursor::new(v.clone());
        assert!(cut(Box::new(whole), 0, &told(vec![])).is_some());
        let part = v[..starts[6] as usize].to_vec();
        let failing = Failing(io::Cursor::new(part));
        assert!(cut(Box::new(failing), 0, &told(vec![])).is_none());
    }

    #[test]
    fn a_decoding_waits_to_be_told_and_an_untold_one_ends() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (v, _) = volume(30);
        let fr = xz_file(dir.path(), &v);
        let keep = Arc::new(Keep::default());
        let k = keep.clone();
        let h = std::thread::spawn(move || load_cut(&fr, 0, &k).map(|b| b.len()));
        keep.tell(Some(KeepSet {
            pmids: vec![A],
            index: vec![],
        }));
        assert!(h.join().expect("thread").is_some());
        // dropped untold: nothing is cut, and no thread waits for ever
        let fr = xz_file(dir.path(), &v);
        let keep = Arc::new(Keep::default());
        let k = keep.clone();
        let h = std::thread::spawn(move || load_cut(&fr, 0, &k).is_some());
        drop(TellOnDrop(Some(keep)));
        assert!(!h.join().expect("thread"));
    }
}
