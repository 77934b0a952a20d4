//! Archive strings that are not UTF-8, kept byte for byte.
//!
//! PCP's strings (metric and instance names, help text, string values) are C
//! strings: any bytes but NUL. Archives written on systems with other encodings
//! hold names such as `/^N[\xc9E]V/` (ISO 8859-1). The library hands strings out as
//! `String`, so that they are easy to use, but decodes them losslessly: each byte
//! that is not part of valid UTF-8 becomes the character `U+10FF00 + byte` (in a
//! private-use plane no archive string is expected to use; one that does have
//! such a character has its four bytes kept as four). [`to_bytes`] gives the
//! original bytes back, the writer encodes strings with it, and [`RawBytes`] restores
//! them in output, so that a tool prints exactly the bytes the reference prints.

use std::borrow::Cow;
use std::io::{self, Write};

/// First character of the range that stands for raw bytes.
const BASE: u32 = 0x10_FF00;

/// Whether bytes that are valid UTF-8 decode ([`from_bytes`]) to themselves:
/// they hold no character of the range that stands for raw bytes (all of which
/// start with the byte 0xf4).
pub fn decodes_to_itself(valid: &[u8]) -> bool {
    memchr::memchr(0xf4, valid).is_none()
}

/// Decodes bytes as UTF-8, keeping every invalid byte as `U+10FF00 + byte`.
pub fn from_bytes(mut b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    loop {
        match std::str::from_utf8(b) {
            Ok(t) => {
                push_valid(&mut s, t);
                return s;
            }
            Err(e) => {
                let (good, rest) = b.split_at(e.valid_up_to());
                // valid_up_to() marks a prefix that is valid UTF-8
                push_valid(&mut s, std::str::from_utf8(good).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len()).max(1);
                for &x in &rest[..bad.min(rest.len())] {
                    s.push(char::from_u32(BASE + u32::from(x)).unwrap_or('\u{fffd}'));
                }
                b = &rest[bad.min(rest.len())..];
            }
        }
    }
}

/// [`from_bytes`], borrowing `b` where it decodes to itself (valid UTF-8 with
/// no character of the range that stands for raw bytes: most strings).
pub fn from_bytes_cow(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(t) if decodes_to_itself(b) => Cow::Borrowed(t),
        _ => Cow::Owned(from_bytes(b)),
    }
}

/// Valid UTF-8 as it is, except the characters that stand for raw bytes: a
/// string holding one has its bytes kept as raw bytes, so that [`to_bytes`]
/// gives them back.
fn push_valid(s: &mut String, t: &str) {
    if decodes_to_itself(t.as_bytes()) {
        s.push_str(t);
        return;
    }
    for c in t.chars() {
        if (BASE..=BASE + 0xff).contains(&(c as u32)) {
            let mut buf = [0u8; 4];
            for &x in c.encode_utf8(&mut buf).as_bytes() {
                s.push(char::from_u32(BASE + u32::from(x)).unwrap_or('\u{fffd}'));
            }
        } else {
            s.push(c);
        }
    }
}

/// The bytes a string decoded by [`from_bytes`] came from (for any other string,
/// its UTF-8).
pub fn to_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let u = c as u32;
        if (BASE..=BASE + 0xff).contains(&u) {
            out.push((u - BASE) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    out
}

/// Whether `s` holds any byte that was not UTF-8.
pub fn has_raw(s: &str) -> bool {
    s.chars()
        .any(|c| (BASE..=BASE + 0xff).contains(&(c as u32)))
}

/// A writer that turns the characters standing for raw bytes back into those
/// bytes. Put it above any buffering: it expects whole characters per write, as
/// `write!` gives them.
pub struct RawBytes<W: Write>(pub W);

/// The UTF-8 of U+10FF00..=U+10FFFF is F4 8F BC..BF xx.
fn raw_at(b: &[u8], i: usize) -> Option<u8> {
    if b.len() >= i + 4 && b[i] == 0xf4 && b[i + 1] == 0x8f && (0xbc..=0xbf).contains(&b[i + 2]) {
        let c = ((u32::from(b[i + 2]) & 0x3f) << 6) | (u32::from(b[i + 3]) & 0x3f);
        // U+10FF00 has the low 12 bits 0xF00: 0xbc80 .. 0xbfbf
        let low = ((u32::from(b[i + 1]) & 0x3f) << 12) | c;
        if low >= 0xff00 {
            return Some((low - 0xff00) as u8);
        }
    }
    None
}

/// Writes `buf` to `w` with the characters that stand for raw bytes turned back
/// into those bytes (what [`RawBytes`] does to each write): for a writer that
/// takes text already made, whole characters at a time.
pub fn write_raw<W: Write + ?Sized>(w: &mut W, buf: &[u8]) -> io::Result<()> {
    if memchr::memchr(0xf4, buf).is_none() {
        return w.write_all(buf);
    }
    let mut out = Vec::with_capacity(buf.len());
    let mut i = 0;
    while i < buf.len() {
        if let Some(x) = raw_at(buf, i) {
            out.push(x);
            i += 4;
        } else {
            out.push(buf[i]);
            i += 1;
        }
    }
    w.write_all(&out)
}

impl<W: Write> Write for RawBytes<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write_raw(&mut self.0, buf).map(|_| buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn latin1_survives() {
        let b = b"N[\xc9E]V \xcc\xbe\xa4 ok";
        let s = from_bytes(b);
        assert!(has_raw(&s));
        assert_eq!(to_bytes(&s), b.to_vec());
        let mut out = RawBytes(Vec::new());
        write!(out, "<{s}>").expect("write");
        assert_eq!(out.0, [b"<".as_slice(), b, b">"].concat());
        assert_eq!(from_bytes("héllo".as_bytes()), "héllo");
        assert!(!has_raw("héllo"));
    }

    #[test]
    fn a_character_that_stands_for_a_byte_is_kept_as_its_bytes() {
        // U+10FF00 in UTF-8: the character for raw byte 0 if it were taken as one
        let b = [0xf4, 0x8f, 0xbc, 0x80, b'x'];
        let s = from_bytes(&b);
        assert_eq!(to_bytes(&s), b);
        let mut out = RawBytes(Vec::new());
        out.write_all(s.as_bytes()).expect("write");
        assert_eq!(out.0, b);
    }

    proptest! {
        #[test]
        fn any_bytes_round_trip(b in proptest::collection::vec(1u8..=255, 0..64)) {
            let s = from_bytes(&b);
            prop_assert_eq!(to_bytes(&s), b.clone());
            let mut out = RawBytes(Vec::new());
            out.write_all(s.as_bytes()).expect("write");
            prop_assert_eq!(out.0, b);
        }

        #[test]
        fn borrowed_or_not_the_same_text(b in proptest::collection::vec(1u8..=255, 0..64)) {
            let c = from_bytes_cow(&b);
            let owned = from_bytes(&b);
            prop_assert_eq!(&*c, owned.as_str());
            let plain = std::str::from_utf8(&b).is_ok() && !b.contains(&0xf4);
            prop_assert_eq!(matches!(c, Cow::Borrowed(_)), plain);
        }
    }
}
