//! A bounds-checked big-endian reader over a byte slice that knows the file offset of
//! its first byte, so every decode error can say where it happened.

use crate::error::{DecodeError, DecodeErrorKind};

/// Reads big-endian integers from `buf`; `base` is the file offset of `buf[0]`.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }
    /// File offset of the next byte to be read.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    pub fn err(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError {
            offset: self.offset(),
            kind,
        }
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.err(DecodeErrorKind::Truncated));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn skip(&mut self, n: usize) -> Result<(), DecodeError> {
        self.bytes(n).map(|_| ())
    }
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn i32(&mut self) -> Result<i32, DecodeError> {
        self.u32().map(|v| v as i32)
    }
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.bytes(1)?[0])
    }
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        let hi = self.u32()? as u64;
        let lo = self.u32()? as u64;
        Ok(hi << 32 | lo)
    }
    pub fn i64(&mut self) -> Result<i64, DecodeError> {
        self.u64().map(|v| v as i64)
    }
    /// A v3 64-bit seconds field as PCP 6.0.3 writes it on x86-64: two big-endian
    /// 32-bit words, the low word first.
    pub fn sec64(&mut self) -> Result<i64, DecodeError> {
        let lo = self.u32()? as u64;
        let hi = self.u32()? as u64;
        Ok((hi << 32 | lo) as i64)
    }
}

/// Big-endian writer helpers used by the encoders.
pub trait PutBe {
    fn put_u32(&mut self, v: u32);
    fn put_i32(&mut self, v: i32) {
        self.put_u32(v as u32)
    }
    fn put_u64(&mut self, v: u64) {
        self.put_u32((v >> 32) as u32);
        self.put_u32(v as u32);
    }
    /// See [`Cursor::sec64`].
    fn put_sec64(&mut self, v: i64) {
        let v = v as u64;
        self.put_u32(v as u32);
        self.put_u32((v >> 32) as u32);
    }
}

impl PutBe for Vec<u8> {
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_reports_offsets() {
        let data = [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 9];
        let mut c = Cursor::new(&data, 100);
        assert_eq!(c.u32().unwrap(), 1);
        assert_eq!(c.i32().unwrap(), -2);
        assert_eq!(c.offset(), 108);
        let e = c.u32().unwrap_err();
        assert_eq!(e.offset, 108);
        assert_eq!(e.kind, DecodeErrorKind::Truncated);
    }

    #[test]
    fn sec64_is_low_word_first() {
        let data = [0x6b, 0x02, 0x1e, 0xb9, 0, 0, 0, 0];
        assert_eq!(Cursor::new(&data, 0).sec64().unwrap(), 0x6b021eb9);
        let mut out = Vec::new();
        out.put_sec64(0x1_0000_0002);
        assert_eq!(out, [0, 0, 0, 2, 0, 0, 0, 1]);
    }
}
