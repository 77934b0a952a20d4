//! Temporal index entries (`.index` after its label; unframed, fixed size).
//!
//! | version | layout |
//! |---------|--------|
//! | v2 (20 bytes) | sec i32, usec i32, vol i32, off_meta i32, off_data i32 |
//! | v3 (32 bytes) | sec (2 words, low first), nsec i32, vol i32, off_meta i64, off_data i64 |
//!
//! A partial trailing entry is ignored, as libpcp does.

use super::cursor::{Cursor, PutBe};
use crate::error::DecodeError;
use crate::types::Timestamp;

/// One temporal index entry (`__pmLogTI`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct IndexEntry {
    pub stamp: Timestamp,
    /// The sub-second field as stored, in nanoseconds (v2: usec x 1000), unclamped,
    /// for integrity checks.
    pub raw_nsec: i64,
    pub vol: i32,
    pub off_meta: i64,
    pub off_data: i64,
}

pub fn entry_size(version: u32) -> usize {
    if version >= 3 {
        32
    } else {
        20
    }
}

/// Decodes every whole entry in `body` (the index file after its label);
/// `base` is the file offset of `body[0]`.
pub fn decode_index(body: &[u8], base: u64, version: u32) -> Result<Vec<IndexEntry>, DecodeError> {
    let size = entry_size(version);
    let n = body.len() / size;
    let mut c = Cursor::new(&body[..n * size], base);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let e = if version >= 3 {
            let sec = c.sec64()?;
            let nsec = c.i32()?;
            IndexEntry {
                stamp: Timestamp::new(sec, nsec.clamp(0, 999_999_999) as u32),
                raw_nsec: nsec as i64,
                vol: c.i32()?,
                off_meta: c.i64()?,
                off_data: c.i64()?,
            }
        } else {
            let sec = c.i32()? as i64;
            let usec = c.i32()?;
            IndexEntry {
                stamp: Timestamp::new(sec, usec.clamp(0, 999_999) as u32 * 1000),
                raw_nsec: usec as i64 * 1000,
                vol: c.i32()?,
                off_meta: c.i32()? as i64,
                off_data: c.i32()? as i64,
            }
        };
        out.push(e);
    }
    Ok(out)
}

pub fn encode_index_entry(e: &IndexEntry, version: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(entry_size(version));
    if version >= 3 {
        out.put_sec64(e.stamp.sec);
        out.put_u32(e.stamp.nsec);
        out.put_i32(e.vol);
        out.put_u64(e.off_meta as u64);
        out.put_u64(e.off_data as u64);
    } else {
        out.put_i32(e.stamp.sec as i32);
        out.put_i32((e.stamp.nsec / 1000) as i32);
        out.put_i32(e.vol);
        out.put_i32(e.off_meta as i32);
        out.put_i32(e.off_data as i32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_partial_tail() {
        for v in [2, 3] {
            let e = IndexEntry {
                stamp: Timestamp::new(1_600_000_000, 5000),
                raw_nsec: 5000,
                vol: 1,
                off_meta: 808,
                off_data: 4096,
            };
            let mut b = encode_index_entry(&e, v);
            b.extend_from_slice(&[1, 2, 3]);
            assert_eq!(decode_index(&b, 0, v).unwrap(), vec![e]);
        }
    }
}
