//! Parquet's value encodings, as bytes: the RLE / bit-packed hybrid (levels and
//! dictionary indices), PLAIN byte arrays and booleans, BYTE_STREAM_SPLIT
//! doubles, and the bounds statistics hold. Pure code: no I/O, no pages.
//!
//! The `values` dataset's rows are runs of one series, so most of its columns
//! are a handful of runs a page; these encoders take a run at once.

use std::cmp::Ordering;

/// The RLE / bit-packed hybrid encoding of unsigned values of `width` bits.
///
/// Repeats of 8 or more become RLE runs, the rest 8-value bit-packed groups.
/// A bit-packed group must be whole except at the very end, so a repeat that
/// follows values not filling a group first lends them the values they lack.
#[derive(Debug)]
pub struct Hybrid {
    out: Vec<u8>,
    width: u8,
    /// Values waiting to be bit-packed (a whole group's worth is written out).
    lit: Vec<u32>,
    run: u32,
    run_len: usize,
}

/// Literal values held before the whole groups among them are written.
const LIT_HELD: usize = 512;

impl Hybrid {
    /// An encoder of values below 2^`width` (`width` at most 32).
    pub fn new(width: u8) -> Self {
        Hybrid {
            out: Vec::new(),
            width: width.min(32),
            lit: Vec::with_capacity(LIT_HELD + 8),
            run: 0,
            run_len: 0,
        }
    }

    /// An encoder of values below 2^`width` whose bytes follow `prefix` (its
    /// room kept: a buffer used again saves fresh memory, faulted in page by
    /// page).
    pub fn after(prefix: Vec<u8>, width: u8) -> Self {
        Hybrid {
            out: prefix,
            ..Hybrid::new(width)
        }
    }

    /// Appends one value.
    #[inline]
    pub fn put(&mut self, v: u32) {
        if self.run_len == 1 && self.run != v {
            // the value in hand stands alone: a literal (no repeat of 8
            // starts with it), as `end_run` would make it
            self.literals(self.run, 1);
            self.run = v;
            return;
        }
        self.put_run(v, 1);
    }

    /// Appends `n` copies of `v`.
    pub fn put_run(&mut self, v: u32, n: usize) {
        if n == 0 {
            return;
        }
        if self.run_len > 0 && self.run == v {
            self.run_len += n;
            return;
        }
        self.end_run();
        self.run = v;
        self.run_len = n;
    }

    /// The encoded bytes (the last group padded with zeros).
    pub fn finish(mut self) -> Vec<u8> {
        self.end_run();
        if !self.lit.is_empty() {
            let whole = self.lit.len().div_ceil(8) * 8;
            self.lit.resize(whole, 0);
            self.pack(whole);
        }
        self.out
    }

    /// Ends the repeat in hand: an RLE run where it is long enough after
    /// filling the group waiting, literals otherwise.
    fn end_run(&mut self) {
        let (v, n) = (self.run, self.run_len);
        self.run_len = 0;
        if n == 0 {
            return;
        }
        let lend = (8 - self.lit.len() % 8) % 8;
        if n >= lend + 8 {
            self.lit.extend(std::iter::repeat_n(v, lend));
            let all = self.lit.len();
            self.pack(all);
            self.rle(v, n - lend);
        } else {
            self.literals(v, n);
        }
    }

    /// Holds `n` literals `v`, writing the whole groups held once they are
    /// [`LIT_HELD`].
    #[inline]
    fn literals(&mut self, v: u32, n: usize) {
        self.lit.extend(std::iter::repeat_n(v, n));
        if self.lit.len() >= LIT_HELD {
            let whole = self.lit.len() / 8 * 8;
            self.pack(whole);
        }
    }

    /// Writes the first `n` (a multiple of 8) literals as one bit-packed run.
    fn pack(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        varint(&mut self.out, ((n / 8) as u64) << 1 | 1);
        let w = usize::from(self.width);
        if w <= 16 {
            // 8 values of `w` bits are `w` whole bytes: a group at a time
            for group in self.lit[..n].chunks_exact(8) {
                let mut acc = 0u128;
                for (i, &v) in group.iter().enumerate() {
                    acc |= u128::from(v) << (i * w);
                }
                self.out.extend_from_slice(&acc.to_le_bytes()[..w]);
            }
        } else {
            let (mut acc, mut bits) = (0u64, 0);
            for &v in &self.lit[..n] {
                acc |= u64::from(v) << bits;
                bits += w;
                while bits >= 8 {
                    self.out.push(acc as u8);
                    acc >>= 8;
                    bits -= 8;
                }
            }
        }
        self.lit.drain(..n);
    }

    fn rle(&mut self, v: u32, n: usize) {
        varint(&mut self.out, (n as u64) << 1);
        let bytes = usize::from(self.width).div_ceil(8);
        self.out.extend_from_slice(&v.to_le_bytes()[..bytes]);
    }
}

/// The bits needed for values up to `max` (0 for 0).
pub fn width_of(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

/// ULEB128, as Parquet's hybrid run headers are written.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Counts one more value `b` into `runs` (of [`levels`] or [`plain_bools`]).
pub fn add_to_runs(runs: &mut Vec<(bool, usize)>, b: bool) {
    add_run(runs, b, 1);
}

/// Counts `k` more values `b` into `runs`.
pub fn add_run(runs: &mut Vec<(bool, usize)>, b: bool, k: usize) {
    if k == 0 {
        return;
    }
    match runs.last_mut() {
        Some((x, n)) if *x == b => *n += k,
        _ => runs.push((b, k)),
    }
}

/// Definition levels of a flat optional column (0 null, 1 present) as a v1
/// data page holds them: their length, then the hybrid encoding of width 1.
pub fn levels(runs: impl IntoIterator<Item = (bool, usize)>) -> Vec<u8> {
    let mut h = Hybrid::new(1);
    for (present, n) in runs {
        h.put_run(u32::from(present), n);
    }
    let body = h.finish();
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// A PLAIN byte array: its length, then its bytes.
pub fn plain_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// PLAIN booleans from runs: a bit each, the first in the lowest bit.
pub fn plain_bools(runs: impl IntoIterator<Item = (bool, usize)>) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let mut bits = 0usize;
    for (b, mut n) in runs {
        // the byte begun, then whole bytes, then the start of the next
        while n > 0 && !bits.is_multiple_of(8) {
            if let Some(last) = out.last_mut() {
                *last |= u8::from(b) << (bits % 8);
            }
            bits += 1;
            n -= 1;
        }
        let whole = n / 8;
        out.resize(out.len() + whole, if b { 0xff } else { 0 });
        bits += whole * 8;
        n -= whole * 8;
        if n > 0 {
            out.push(if b { (1u8 << n) - 1 } else { 0 });
            bits += n;
        }
    }
    out
}

/// BYTE_STREAM_SPLIT doubles, appended to `out`: the first bytes of every
/// value, then the second bytes, and so on.
pub fn byte_stream_split(values: &[f64], out: &mut Vec<u8>) {
    let n = values.len();
    let at = out.len();
    out.resize(at + n * 8, 0);
    let streams = &mut out[at..];
    // 8 values at a time: their bytes transposed in words, 8 bytes to a stream
    let (blocks, rest) = values.as_chunks::<8>();
    for (b, block) in blocks.iter().enumerate() {
        let words = transposed(block.map(f64::to_bits));
        for (k, w) in words.iter().enumerate() {
            if let Some(to) = streams
                .get_mut(k * n + b * 8..)
                .and_then(|s| s.first_chunk_mut::<8>())
            {
                *to = w.to_le_bytes();
            }
        }
    }
    let done = blocks.len() * 8;
    for (i, v) in rest.iter().enumerate() {
        for (k, x) in v.to_le_bytes().into_iter().enumerate() {
            streams[k * n + done + i] = x;
        }
    }
}

/// An 8 x 8 matrix of bytes, a row a word (its first byte the lowest),
/// transposed: blocks of 4, 2 and 1 bytes across the diagonal swapped.
#[inline(always)]
fn transposed(mut w: [u64; 8]) -> [u64; 8] {
    #[inline(always)]
    fn swap(w: &mut [u64; 8], i: usize, half: usize, mask: u64) {
        let shift = 8 * half as u32;
        let t = ((w[i] >> shift) ^ w[i + half]) & mask;
        w[i] ^= t << shift;
        w[i + half] ^= t;
    }
    for i in [0, 1, 2, 3] {
        swap(&mut w, i, 4, 0x0000_0000_ffff_ffff);
    }
    for i in [0, 1, 4, 5] {
        swap(&mut w, i, 2, 0x0000_ffff_0000_ffff);
    }
    for i in [0, 2, 4, 6] {
        swap(&mut w, i, 1, 0x00ff_00ff_00ff_00ff);
    }
    w
}

/// A value as statistics compare and store it.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    Bool(bool),
    I32(i32),
    I64(i64),
    F64(f64),
    Bytes(Vec<u8>),
}

impl Bound {
    /// The order statistics use: signed numbers, bytes unsigned, `false`
    /// before `true`; NaN is never a bound (see [`Bounds::add`]).
    fn cmp(&self, o: &Bound) -> Ordering {
        match (self, o) {
            (Bound::Bool(a), Bound::Bool(b)) => a.cmp(b),
            (Bound::I32(a), Bound::I32(b)) => a.cmp(b),
            (Bound::I64(a), Bound::I64(b)) => a.cmp(b),
            (Bound::F64(a), Bound::F64(b)) => a.total_cmp(b),
            (Bound::Bytes(a), Bound::Bytes(b)) => a.cmp(b),
            _ => Ordering::Equal,
        }
    }

    /// PLAIN bytes, as a page index stores a bound (a byte array bare).
    pub fn plain(&self) -> Vec<u8> {
        match self {
            Bound::Bool(b) => vec![u8::from(*b)],
            Bound::I32(v) => v.to_le_bytes().to_vec(),
            Bound::I64(v) => v.to_le_bytes().to_vec(),
            Bound::F64(v) => v.to_le_bytes().to_vec(),
            Bound::Bytes(b) => b.clone(),
        }
    }
}

/// The least and greatest values of a page or a chunk, its nulls and NaNs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bounds {
    pub min: Option<Bound>,
    pub max: Option<Bound>,
    pub nulls: u64,
    pub nans: u64,
}

impl Bounds {
    /// Counts a value in. NaNs are counted, not compared; a zero is a least
    /// value as -0 and a greatest as +0 (as Parquet asks of writers).
    pub fn add(&mut self, b: &Bound) {
        let b = match b {
            Bound::F64(v) if v.is_nan() => {
                self.nans += 1;
                return;
            }
            _ => b,
        };
        if self.min.as_ref().is_none_or(|m| b.cmp(m) == Ordering::Less) {
            self.min = Some(match b {
                Bound::F64(v) if *v == 0.0 => Bound::F64(-0.0),
                _ => b.clone(),
            });
        }
        if self
            .max
            .as_ref()
            .is_none_or(|m| b.cmp(m) == Ordering::Greater)
        {
            self.max = Some(match b {
                Bound::F64(v) if *v == 0.0 => Bound::F64(0.0),
                _ => b.clone(),
            });
        }
    }

    /// Counts a byte array in (copied only when it is a new bound).
    pub fn add_bytes(&mut self, t: &[u8]) {
        let below = !matches!(&self.min, Some(Bound::Bytes(m)) if t >= m.as_slice());
        let above = !matches!(&self.max, Some(Bound::Bytes(m)) if t <= m.as_slice());
        if below {
            self.min = Some(Bound::Bytes(t.to_vec()));
        }
        if above {
            self.max = Some(Bound::Bytes(t.to_vec()));
        }
    }

    /// Counts another's values in.
    pub fn merge(&mut self, o: &Bounds) {
        for b in [&o.min, &o.max].into_iter().flatten() {
            self.add(b);
        }
        self.nulls += o.nulls;
        self.nans += o.nans;
    }
}

/// A least bound of at most `len` bytes: `b` cut at a character boundary.
pub fn truncate_min(b: &[u8], len: usize) -> (Vec<u8>, bool) {
    if b.len() <= len {
        return (b.to_vec(), true);
    }
    let mut cut = len;
    while cut > 0 && !is_char_start(b.get(cut).copied()) {
        cut -= 1;
    }
    (b[..cut].to_vec(), false)
}

/// A greatest bound of at most `len` bytes: `b` cut at a character boundary
/// with its last character replaced by the next one (what no longer text
/// beginning the same way exceeds); `b` itself where no such character is.
pub fn truncate_max(b: &[u8], len: usize) -> (Vec<u8>, bool) {
    if b.len() <= len {
        return (b.to_vec(), true);
    }
    let Ok(s) = std::str::from_utf8(b) else {
        return (b.to_vec(), true);
    };
    let mut end = len;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let head = &s[..end];
    for (at, c) in head.char_indices().rev() {
        let next = (u32::from(c) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(n) = next {
            let mut out = head.as_bytes()[..at].to_vec();
            let mut buf = [0u8; 4];
            out.extend_from_slice(n.encode_utf8(&mut buf).as_bytes());
            return (out, false);
        }
    }
    (b.to_vec(), true)
}

fn is_char_start(b: Option<u8>) -> bool {
    b.is_none_or(|b| b & 0xc0 != 0x80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Decodes `n` values of the hybrid encoding (the spec's reading).
    fn unhybrid(mut b: &[u8], width: u8, n: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let bytes = usize::from(width).div_ceil(8);
        while out.len() < n {
            let (mut h, mut shift) = (0u64, 0);
            loop {
                let x = b[0];
                b = &b[1..];
                h |= u64::from(x & 0x7f) << shift;
                shift += 7;
                if x < 0x80 {
                    break;
                }
            }
            if h & 1 == 0 {
                let mut v = [0u8; 4];
                v[..bytes].copy_from_slice(&b[..bytes]);
                b = &b[bytes..];
                out.extend(std::iter::repeat_n(
                    u32::from_le_bytes(v),
                    (h >> 1) as usize,
                ));
            } else {
                let count = (h >> 1) as usize * 8;
                let (mut acc, mut bits) = (0u64, 0u32);
                for _ in 0..count {
                    while bits < u32::from(width) {
                        acc |= u64::from(b[0]) << bits;
                        b = &b[1..];
                        bits += 8;
                    }
                    out.push((acc & ((1u64 << width) - 1)) as u32);
                    acc >>= width;
                    bits -= u32::from(width);
                }
            }
        }
        out.truncate(n);
        out
    }

    fn encode(width: u8, runs: &[(u32, usize)]) -> Vec<u8> {
        let mut h = Hybrid::new(width);
        for &(v, n) in runs {
            h.put_run(v, n);
        }
        h.finish()
    }

    #[test]
    fn repeats_become_runs_and_the_rest_groups() {
        // 3 literals, then 20 of one value: 5 lent to the group, 15 as a run
        let b = encode(3, &[(1, 1), (2, 1), (3, 1), (5, 20)]);
        assert_eq!(b[0], 0b11, "one bit-packed group first");
        assert_eq!(&b[4..], &[15 << 1, 5], "then a run of the rest");
        assert_eq!(unhybrid(&b, 3, 23)[..4], [1, 2, 3, 5]);
    }

    #[test]
    fn widths_and_bounds() {
        assert_eq!(width_of(0), 0);
        assert_eq!(width_of(1), 1);
        assert_eq!(width_of(255), 8);
        assert_eq!(width_of(256), 9);
        // 3 levels: one bit-packed group; 10: a run
        assert_eq!(levels([(true, 3)]), vec![2, 0, 0, 0, 0b11, 0b111]);
        assert_eq!(levels([(true, 10)]), vec![2, 0, 0, 0, 10 << 1, 1]);
        assert_eq!(plain_bools([(true, 3), (false, 6), (true, 1)]), vec![7, 2]);
        let mut b = Bounds::default();
        for v in [3.0, f64::NAN, 0.0, -1.5] {
            b.add(&Bound::F64(v));
        }
        assert_eq!(
            (b.min, b.max, b.nans),
            (Some(Bound::F64(-1.5)), Some(Bound::F64(3.0)), 1)
        );
        let mut z = Bounds::default();
        z.add(&Bound::F64(0.0));
        assert!(matches!(z.min, Some(Bound::F64(m)) if m.is_sign_negative()));
        assert!(matches!(z.max, Some(Bound::F64(m)) if m.is_sign_positive()));
    }

    #[test]
    fn long_texts_are_cut_to_bounds_still() {
        let s = "é".repeat(40); // 80 bytes
        let (min, exact) = truncate_min(s.as_bytes(), 63);
        assert_eq!((min.len(), exact), (62, false));
        let (max, exact) = truncate_max(s.as_bytes(), 63);
        assert!(!exact && max.len() <= 63 && max.as_slice() > s.as_bytes());
        assert_eq!(truncate_max(b"abc", 64), (b"abc".to_vec(), true));
    }

    proptest! {
        #[test]
        fn hybrid_round_trip(width in 1u8..=32, runs in prop::collection::vec((any::<u32>(), 1usize..40), 0..60)) {
            let mask = if width == 32 { u32::MAX } else { (1 << width) - 1 };
            let runs: Vec<(u32, usize)> = runs.into_iter().map(|(v, n)| (v & mask, n)).collect();
            let want: Vec<u32> = runs.iter().flat_map(|&(v, n)| std::iter::repeat_n(v, n)).collect();
            let b = encode(width, &runs);
            prop_assert_eq!(unhybrid(&b, width, want.len()), want);
        }

        #[test]
        fn one_at_a_time_as_runs(width in 1u8..=32, vals in prop::collection::vec(0u32..4, 0..1500)) {
            // values put one at a time are encoded as their runs put at once
            let vals: Vec<u32> = vals.into_iter().map(|v| v & ((1 << width.min(31)) - 1)).collect();
            let mut one = Hybrid::new(width);
            let mut runs: Vec<(u32, usize)> = Vec::new();
            for &v in &vals {
                one.put(v);
                match runs.last_mut() {
                    Some((x, n)) if *x == v => *n += 1,
                    _ => runs.push((v, 1)),
                }
            }
            let b = one.finish();
            prop_assert_eq!(&b, &encode(width, &runs));
            prop_assert_eq!(&unhybrid(&b, width, vals.len()), &vals);
            // after a prefix (in a buffer used before): the prefix, then the same
            let mut kept = Vec::with_capacity(4096);
            kept.extend_from_slice(&[9, 9, 9]);
            kept.truncate(1);
            let mut after = Hybrid::after(kept, width);
            for &v in &vals {
                after.put(v);
            }
            let a = after.finish();
            prop_assert_eq!(a[0], 9);
            prop_assert_eq!(&a[1..], &b[..]);
        }

        #[test]
        fn streams_split_and_join(v in prop::collection::vec(any::<f64>(), 0..90)) {
            let mut b = vec![7u8];
            byte_stream_split(&v, &mut b);
            prop_assert_eq!(b.remove(0), 7);
            let n = v.len();
            for (i, x) in v.iter().enumerate() {
                let bytes: Vec<u8> = (0..8).map(|k| b[k * n + i]).collect();
                prop_assert_eq!(f64::from_le_bytes(bytes.try_into().unwrap()).to_bits(), x.to_bits());
            }
        }

        #[test]
        fn booleans_a_bit_each(runs in prop::collection::vec((any::<bool>(), 0usize..30), 0..20)) {
            let want: Vec<bool> = runs.iter().flat_map(|&(b, n)| std::iter::repeat_n(b, n)).collect();
            let b = plain_bools(runs);
            prop_assert_eq!(b.len(), want.len().div_ceil(8));
            for (i, &x) in want.iter().enumerate() {
                prop_assert_eq!(b[i / 8] >> (i % 8) & 1 == 1, x);
            }
        }

        #[test]
        fn cut_bounds_still_bound(s in "\\PC{0,40}", len in 1usize..30) {
            let (min, _) = truncate_min(s.as_bytes(), len);
            let (max, _) = truncate_max(s.as_bytes(), len);
            prop_assert!(min.as_slice() <= s.as_bytes());
            prop_assert!(max.as_slice() >= s.as_bytes());
            prop_assert!(std::str::from_utf8(&min).is_ok() && std::str::from_utf8(&max).is_ok());
        }
    }
}
