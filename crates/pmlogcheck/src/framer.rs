//! Pass 0 of a data volume from its bytes as they decode, piece by piece, for a
//! check that reads each compressed volume once (see `streamed`): the records'
//! framing followed across the pieces. It answers only for a sound volume, with
//! the report [`crate::pass0::scan`] gives one; for anything else it gives no
//! answer, and the caller checks the volume whole as pass 0 does.

use crate::pass0::{self, Report, Status};

/// The label and the start of what follows, kept for the label's checks.
const HEAD: usize = 1024;

#[derive(Debug, Default)]
pub struct Framer {
    /// Bytes seen.
    seen: u64,
    /// The record being read: its length (0 before its header is whole), the
    /// bytes of its header or trailer so far, and the body still to pass.
    len: u32,
    word: [u8; 4],
    have: usize,
    body: u64,
    /// Whole records.
    records: usize,
    /// The label's body length.
    label_body: usize,
    /// A framing fault: no answer.
    bad: bool,
    head: Vec<u8>,
}

impl Framer {
    /// The next piece of the volume's bytes.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        if self.head.len() < HEAD {
            let n = (HEAD - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..n]);
        }
        self.seen += bytes.len() as u64;
        while !bytes.is_empty() && !self.bad {
            if self.len != 0 && self.body > 0 {
                let n = self.body.min(bytes.len() as u64);
                self.body -= n;
                bytes = &bytes[n as usize..];
                continue;
            }
            let n = (4 - self.have).min(bytes.len());
            self.word[self.have..self.have + n].copy_from_slice(&bytes[..n]);
            self.have += n;
            bytes = &bytes[n..];
            if self.have == 4 {
                self.have = 0;
                self.word_done(u32::from_be_bytes(self.word));
            }
        }
    }

    /// A record's header or trailer word read whole.
    fn word_done(&mut self, w: u32) {
        if self.len == 0 {
            // (pass 0 reads lengths of 2^31 and more otherwise: left to it)
            if !(8..=i32::MAX as u32).contains(&w) {
                self.bad = true;
                return;
            }
            self.len = w;
            self.body = u64::from(w - 8);
            if self.records == 0 {
                self.label_body = (w - 8) as usize;
            }
        } else if w == self.len {
            self.len = 0;
            self.records += 1;
        } else {
            self.bad = true;
        }
    }

    /// The label's version and start, once the label record has been fed whole
    /// and loads without a finding.
    pub fn label(&self, fname: &str) -> Option<(u32, archive_format::Timestamp)> {
        if self.bad || self.records == 0 {
            return None;
        }
        let mut lines = Vec::new();
        let (status, label) = pass0::check_label(fname, &self.head, self.label_body, &mut lines);
        let (magic, start) = label.filter(|_| status == Status::Ok && lines.is_empty())?;
        Some((magic & 0xff, start))
    }

    /// The volume's report once every byte has been fed: `Some` only for a sound
    /// volume of `size` bytes (records framed to its end, a label that loads, and
    /// data after it), as pass 0 reports it.
    pub fn report(&self, fname: &str, size: u64) -> Option<Report> {
        let whole = !self.bad && self.len == 0 && self.have == 0 && self.seen == size;
        if !whole || self.records < 2 {
            return None;
        }
        let label = self.label(fname)?;
        Some(Report {
            lines: Vec::new(),
            records: self.records,
            framing: Status::Ok,
            status: Status::Ok,
            last_good: size,
            label: Some(label),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass0::Kind;
    use proptest::prelude::*;

    fn record(body_len: usize, fill: u8) -> Vec<u8> {
        let len = (body_len + 8) as u32;
        let mut v = len.to_be_bytes().to_vec();
        v.extend(std::iter::repeat_n(fill, body_len));
        v.extend_from_slice(&len.to_be_bytes());
        v
    }

    fn label_v2(start: i32) -> Vec<u8> {
        let mut r = record(124, 0);
        r[4..8].copy_from_slice(&(archive_format::codec::label::PM_LOG_MAGIC | 2).to_be_bytes());
        r[12..16].copy_from_slice(&start.to_be_bytes());
        r
    }

    /// `file` fed in pieces cut at `cuts`.
    fn framed(file: &[u8], cuts: &[usize]) -> Option<Report> {
        let mut f = Framer::default();
        let mut at = 0;
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (file.len() + 1)).collect();
        cuts.sort_unstable();
        for c in cuts.into_iter().chain([file.len()]) {
            f.feed(&file[at..c.max(at)]);
            at = c.max(at);
        }
        f.report("v.0", file.len() as u64)
    }

    #[test]
    fn a_sound_volume_in_any_pieces_is_what_pass_0_says() {
        let mut file = label_v2(77);
        for k in 0..50 {
            file.extend(record(k * 37 % 500, k as u8));
        }
        let whole = pass0::scan("v.0", &file, Kind::Data);
        for cuts in [
            vec![],
            vec![1, 2, 3],
            vec![131, 132, 133, 900],
            vec![4000, 4001],
        ] {
            assert_eq!(framed(&file, &cuts), Some(whole.clone()));
        }
    }

    #[test]
    fn damage_gets_no_answer() {
        let mut file = label_v2(77);
        file.extend(record(40, 1));
        let good = file.clone();
        // a trailer that is not its header, a cut record, a label alone
        let mut t = good.clone();
        let n = t.len();
        t[n - 1] ^= 1;
        assert_eq!(framed(&t, &[]), None);
        assert_eq!(framed(&good[..good.len() - 3], &[]), None);
        assert_eq!(framed(&label_v2(1), &[]), None);
        // fewer bytes than the volume declares
        let mut f = Framer::default();
        f.feed(&good);
        assert_eq!(f.report("v.0", good.len() as u64 + 1), None);
    }

    proptest! {
        /// Whatever the bytes and the pieces, an answer is pass 0's report of a
        /// sound volume.
        #[test]
        fn an_answer_is_always_pass_0s(
            records in proptest::collection::vec((0usize..300, any::<u8>()), 0..20),
            noise in proptest::collection::vec((0usize..4000, any::<u8>()), 0..3),
            cuts in proptest::collection::vec(0usize..5000, 0..6),
        ) {
            let mut file = label_v2(5);
            for (len, fill) in records {
                file.extend(record(len, fill));
            }
            for (at, b) in noise {
                if let Some(x) = file.get_mut(at) {
                    *x ^= b;
                }
            }
            let whole = pass0::scan("v.0", &file, Kind::Data);
            match framed(&file, &cuts) {
                Some(r) => prop_assert_eq!(r, whole),
                None => prop_assert!(whole.status != Status::Ok || !whole.lines.is_empty()
                    || whole.framing != Status::Ok || noise_len_quirk(&file)),
            }
        }
    }

    /// A file pass 0 passes that the framer leaves to it: a length word of 2^31
    /// or more somewhere.
    fn noise_len_quirk(file: &[u8]) -> bool {
        let mut pos = 0;
        while pos + 4 <= file.len() {
            let w = u32::from_be_bytes(file[pos..pos + 4].try_into().unwrap());
            if w > i32::MAX as u32 {
                return true;
            }
            pos += 4 + (w.saturating_sub(8)) as usize + 4;
        }
        false
    }
}
