//! Record framing shared by data volumes and `.meta`:
//!
//! | bytes   | field                                   |
//! |---------|-----------------------------------------|
//! | 4       | `len`: whole record length, incl. both length words |
//! | len - 8 | payload                                 |
//! | 4       | `len` again (trailer)                   |

use crate::error::{DecodeError, DecodeErrorKind};

/// Where a framed record sits in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Offset of the leading length word.
    pub start: u64,
    /// Total length (both length words included).
    pub len: u32,
}

impl Frame {
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    /// Offset of the payload (after the leading length word).
    pub fn payload_start(&self) -> u64 {
        self.start + 4
    }
    pub fn payload<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        &file[self.start as usize + 4..self.end() as usize - 4]
    }
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The record starting at `off` in `file`. `Ok(None)` when fewer than 4 bytes remain
/// (a clean end, as libpcp treats it); an error for a short body, a length below 8 or a
/// trailer that does not match.
pub fn frame_at(file: &[u8], off: u64) -> Result<Option<Frame>, DecodeError> {
    let size = file.len() as u64;
    if off >= size || size - off < 4 {
        return Ok(None);
    }
    let len = be32(file, off as usize);
    check_frame_len(off, len, size)?;
    let trailer = be32(file, (off + len as u64 - 4) as usize);
    if trailer != len {
        return Err(DecodeError::new(
            off + len as u64 - 4,
            DecodeErrorKind::Record("record trailer does not match its header"),
        ));
    }
    Ok(Some(Frame { start: off, len }))
}

/// The checks of a record's length word `len` at `off` in a file of `size` bytes
/// that need nothing else of the file: at least the two length words, and not
/// past the end. A reader that holds only part of the file checks these before it
/// reads the record in (see [`frame_at`] for the rest).
pub fn check_frame_len(off: u64, len: u32, size: u64) -> Result<(), DecodeError> {
    if (len as i32) < 8 {
        return Err(DecodeError::new(
            off,
            DecodeErrorKind::Record("record length below 8"),
        ));
    }
    if off + len as u64 > size {
        return Err(DecodeError::new(
            off,
            DecodeErrorKind::Record("record runs past the end of the file"),
        ));
    }
    Ok(())
}

/// The record that ends at `end`, not starting before `lower` (the end of the label).
/// `Ok(None)` when `end <= lower`.
pub fn frame_before(file: &[u8], end: u64, lower: u64) -> Result<Option<Frame>, DecodeError> {
    if end <= lower {
        return Ok(None);
    }
    if end - lower < 4 || end > file.len() as u64 {
        return Err(DecodeError::new(
            end,
            DecodeErrorKind::Record("no record trailer"),
        ));
    }
    let len = be32(file, (end - 4) as usize);
    if (len as i32) < 8 || len as u64 > end - lower {
        return Err(DecodeError::new(
            end - 4,
            DecodeErrorKind::Record("record length in trailer is illegal"),
        ));
    }
    let start = end - len as u64;
    if be32(file, start as usize) != len {
        return Err(DecodeError::new(
            start,
            DecodeErrorKind::Record("record header does not match its trailer"),
        ));
    }
    Ok(Some(Frame { start, len }))
}

/// Frames `payload` as a record.
pub fn encode_frame(payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(payload.len() + 8);
    put_frame(&mut v, payload);
    v
}

/// Appends `payload` framed as a record (its length word before and after) to
/// `out`.
pub fn put_frame(out: &mut Vec<u8>, payload: &[u8]) {
    let len = (payload.len() + 8) as u32;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&len.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_forward_and_backward() {
        let mut file = vec![0u8; 4];
        file.extend(encode_frame(&[1, 2, 3, 4]));
        file.extend(encode_frame(&[5; 8]));
        let a = frame_at(&file, 4).unwrap().unwrap();
        assert_eq!(a, Frame { start: 4, len: 12 });
        assert_eq!(a.payload(&file), &[1, 2, 3, 4]);
        let b = frame_at(&file, a.end()).unwrap().unwrap();
        assert_eq!(b.len, 16);
        assert_eq!(frame_at(&file, b.end()).unwrap(), None);
        assert_eq!(frame_before(&file, b.end(), 4).unwrap(), Some(b));
        assert_eq!(frame_before(&file, b.start, 4).unwrap(), Some(a));
        assert_eq!(frame_before(&file, 4, 4).unwrap(), None);
    }

    #[test]
    fn damaged_frames() {
        let mut file = encode_frame(&[1, 2, 3, 4]);
        file.extend_from_slice(&[0, 0]);
        // two stray bytes: clean end
        assert_eq!(frame_at(&file, 12).unwrap(), None);
        let mut bad = encode_frame(&[1, 2, 3, 4]);
        bad[11] = 9;
        assert!(frame_at(&bad, 0).is_err());
        assert!(frame_at(&bad[..10], 0).is_err());
        assert!(frame_before(&bad, 12, 0).is_err());
    }
}
