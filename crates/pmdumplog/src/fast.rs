//! The value lines' building blocks, written for the way they are used millions of
//! times: integers written digit by digit where they go (not formatted elsewhere
//! and copied, which costs a store-to-load stall per number), and short texts
//! copied in fixed 32-byte moves from buffers that keep 32 spare bytes after each
//! text (a fixed-size copy is a pair of vector moves; a call to `memcpy` for a
//! dozen bytes costs more than the copy).

/// Pairs of decimal digits, "00" to "99".
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends `x` in decimal and a newline.
pub fn push_u64_nl(line: &mut Vec<u8>, x: u64) {
    let n = x.checked_ilog10().map_or(1, |l| l as usize + 1);
    let at = line.len();
    // room for the longest number and its newline, in one fixed-size write
    line.extend_from_slice(&[b'\n'; 21]);
    write_digits(&mut line[at..at + n], x);
    line.truncate(at + n + 1);
}

/// Appends `x` in decimal (with its sign) and a newline.
pub fn push_i64_nl(line: &mut Vec<u8>, x: i64) {
    if x < 0 {
        line.push(b'-');
    }
    push_u64_nl(line, x.unsigned_abs());
}

/// Appends `x` in decimal (with its sign).
pub fn push_i32(line: &mut Vec<u8>, x: i32) {
    if x < 0 {
        line.push(b'-');
    }
    let x = x.unsigned_abs() as u64;
    let n = x.checked_ilog10().map_or(1, |l| l as usize + 1);
    let at = line.len();
    line.extend_from_slice(&[0; 10]);
    write_digits(&mut line[at..at + n], x);
    line.truncate(at + n);
}

/// Fills `d` with the last `d.len()` decimal digits of `x`.
fn write_digits(d: &mut [u8], mut x: u64) {
    let mut i = d.len();
    while x >= 100 && i >= 2 {
        let r = (x % 100) as usize * 2;
        x /= 100;
        i -= 2;
        d[i] = PAIRS[r];
        d[i + 1] = PAIRS[r + 1];
    }
    if x >= 10 && i >= 2 {
        let r = x as usize * 2;
        d[i - 2] = PAIRS[r];
        d[i - 1] = PAIRS[r + 1];
    } else if i >= 1 {
        d[i - 1] = b'0' + x as u8;
    }
}

/// How many bytes a padded buffer keeps after each text.
pub const PAD: usize = 32;

/// Texts kept one after another, each followed by [`PAD`] spare bytes, so that
/// [`Padded::push_to`] can copy them in whole 32-byte moves.
#[derive(Default)]
pub struct Padded {
    bytes: Vec<u8>,
}

/// Where a text of a [`Padded`] buffer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    at: u32,
    len: u32,
}

impl Piece {
    /// The first `len` bytes of this text (all of it if it is shorter).
    pub fn prefix(self, len: usize) -> Piece {
        Piece {
            at: self.at,
            len: self.len.min(len as u32),
        }
    }

    /// Its length in bytes.
    pub fn len(self) -> usize {
        self.len as usize
    }
}

impl Padded {
    /// Adds the text `build` writes; where it is.
    pub fn add(&mut self, build: impl FnOnce(&mut Vec<u8>)) -> Piece {
        let at = self.bytes.len();
        build(&mut self.bytes);
        let len = self.bytes.len() - at;
        self.bytes.extend_from_slice(&[0; PAD]);
        Piece {
            at: at as u32,
            len: len as u32,
        }
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Gives back the room not used.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
    }

    /// Keeps the texts up to `p` (none with `None`) and forgets those after it.
    pub fn truncate_to(&mut self, p: Option<Piece>) {
        let end = p.map_or(0, |p| (p.at + p.len) as usize + PAD);
        self.bytes.truncate(end);
    }

    /// Appends text `p` to `line`.
    pub fn push_to(&self, p: Piece, line: &mut Vec<u8>) {
        let (at, len) = (p.at as usize, p.len as usize);
        let old = line.len();
        let mut k = 0;
        while k < len {
            match self
                .bytes
                .get(at + k..)
                .and_then(|b| b.first_chunk::<PAD>())
            {
                Some(chunk) => line.extend_from_slice(chunk),
                // not reached: every text has its spare bytes
                None => {
                    line.truncate(old);
                    line.extend_from_slice(&self.bytes[at..at + len]);
                    return;
                }
            }
            k += PAD;
        }
        line.truncate(old + len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn integers_read_as_rust_prints_them(u in any::<u64>(), i in any::<i64>(), s in any::<i32>(), small in 0u64..1000, shift in 0u32..64) {
            // (numbers of every length: `u` shifted)
            let (u, i) = (u >> shift, i >> shift);
            let mut line = b"x".to_vec();
            push_u64_nl(&mut line, u);
            push_i64_nl(&mut line, i);
            push_i32(&mut line, s);
            push_u64_nl(&mut line, small);
            prop_assert_eq!(String::from_utf8(line).unwrap(), format!("x{u}\n{i}\n{s}{small}\n"));
        }

        #[test]
        fn padded_texts_come_back_whole(texts in proptest::collection::vec(".{0,80}", 1..8), cut in 0usize..8) {
            let mut p = Padded::default();
            let pieces: Vec<Piece> = texts.iter().map(|t| p.add(|b| b.extend_from_slice(t.as_bytes()))).collect();
            let mut line = b">".to_vec();
            for &k in pieces.iter().rev() {
                p.push_to(k, &mut line);
            }
            let want: String = texts.iter().rev().map(String::as_str).collect();
            prop_assert_eq!(String::from_utf8(line).unwrap(), format!(">{want}"));
            // a prefix of a text: its first bytes
            let mut line = Vec::new();
            let k = pieces[0];
            p.push_to(k.prefix(k.len() / 2), &mut line);
            prop_assert_eq!(&line[..], &texts[0].as_bytes()[..k.len() / 2]);
            // cut back: the texts before the cut stay, the next added follows them
            let cut = cut.min(texts.len());
            p.truncate_to(cut.checked_sub(1).map(|k| pieces[k]));
            let next = p.add(|b| b.extend_from_slice(b"new"));
            let mut line = Vec::new();
            for &k in &pieces[..cut] {
                p.push_to(k, &mut line);
            }
            p.push_to(next, &mut line);
            let kept: String = texts[..cut].iter().map(String::as_str).collect();
            prop_assert_eq!(String::from_utf8(line).unwrap(), format!("{kept}new"));
        }
    }

    #[test]
    fn edges() {
        for (x, s) in [
            (0u64, "0"),
            (9, "9"),
            (10, "10"),
            (99, "99"),
            (100, "100"),
            (9_999_999, "9999999"),
            (10_000_000, "10000000"),
            (99_999_999, "99999999"),
            (1_000_000_001, "1000000001"),
            (100_000_000, "100000000"),
            (10_000_000_000_000_000, "10000000000000000"),
            (u64::MAX, "18446744073709551615"),
        ] {
            let mut line = Vec::new();
            push_u64_nl(&mut line, x);
            assert_eq!(line, format!("{s}\n").as_bytes());
        }
        let mut line = Vec::new();
        push_i64_nl(&mut line, i64::MIN);
        push_i32(&mut line, i32::MIN);
        assert_eq!(line, format!("{}\n{}", i64::MIN, i32::MIN).as_bytes());
    }
}
