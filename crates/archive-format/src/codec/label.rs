//! The archive label record that starts every file of an archive.
//!
//! v2 (132 bytes with framing):
//!
//! | off | size | field |
//! |-----|------|-------|
//! | 0   | 4    | len = 132 |
//! | 4   | 4    | magic `0x50052602` |
//! | 8   | 4    | pid |
//! | 12  | 8    | start: sec i32, usec i32 |
//! | 20  | 4    | vol (N for data volume N, -1 `.meta`, -2 `.index`) |
//! | 24  | 64   | hostname, NUL padded |
//! | 88  | 40   | timezone, NUL padded |
//! | 128 | 4    | len again |
//!
//! v3 (808 bytes): len, magic `0x50052603`, pid, start (sec: two 32-bit words low word
//! first, nsec u32), vol, features u32, reserved u32, hostname\[256\], timezone\[256\],
//! zoneinfo\[256\], len.

use super::cursor::{Cursor, PutBe};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::types::Timestamp;

pub const PM_LOG_MAGIC: u32 = 0x5005_2600;
pub const LABEL_V2_LEN: usize = 132;
pub const LABEL_V3_LEN: usize = 808;
/// The only feature bit PCP 6.0.3 knows ("QA").
pub const FEATURE_QA: u32 = 0x8000_0000;
pub const VOL_META: i32 = -1;
pub const VOL_INDEX: i32 = -2;

/// An archive label (`__pmLogLabel`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Label {
    /// Archive format version, 2 or 3.
    pub version: u32,
    /// Process id of the writer.
    pub pid: i32,
    pub start: Timestamp,
    /// Volume number, or -1 for `.meta`, -2 for `.index`.
    pub vol: i32,
    /// Feature bits (v3 only).
    pub features: u32,
    pub hostname: String,
    pub timezone: String,
    /// v3 only.
    pub zoneinfo: String,
}

impl Label {
    /// Length of the label record for this version.
    pub fn record_len(&self) -> usize {
        Label::len_for(self.version) as usize
    }
    /// Length of the label record of format `version`.
    pub fn len_for(version: u32) -> u64 {
        if version >= 3 {
            LABEL_V3_LEN as u64
        } else {
            LABEL_V2_LEN as u64
        }
    }
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

fn bad(offset: u64, what: &'static str) -> DecodeError {
    DecodeError::new(offset, DecodeErrorKind::Label(what))
}

/// Decodes the label at the start of `file` (the whole file or at least its first
/// 808 bytes).
pub fn decode_label(file: &[u8]) -> Result<Label, DecodeError> {
    if file.len() < 8 {
        return Err(bad(0, "file too short for a label record"));
    }
    let mut c = Cursor::new(file, 0);
    let len = c.u32()? as usize;
    let magic = c.u32()?;
    if magic & 0xffff_ff00 != PM_LOG_MAGIC {
        return Err(bad(4, "bad magic number in label"));
    }
    let version = magic & 0xff;
    let want = match version {
        2 => LABEL_V2_LEN,
        3 => LABEL_V3_LEN,
        _ => return Err(bad(4, "unsupported archive version in label")),
    };
    if len != want {
        return Err(bad(0, "label record length is wrong for its version"));
    }
    if file.len() < want {
        return Err(bad(file.len() as u64, "label record is truncated"));
    }
    let trailer = u32::from_be_bytes([
        file[want - 4],
        file[want - 3],
        file[want - 2],
        file[want - 1],
    ]);
    if trailer as usize != len {
        return Err(bad(
            want as u64 - 4,
            "label record trailer does not match its header",
        ));
    }
    let pid = c.i32()?;
    if version == 2 {
        let sec = c.i32()? as i64;
        let usec = c.i32()?;
        let vol = c.i32()?;
        let host = c.bytes(64)?;
        let tz = c.bytes(40)?;
        Ok(Label {
            version,
            pid,
            start: Timestamp::new(sec, (usec.clamp(0, 999_999) as u32) * 1000),
            vol,
            features: 0,
            hostname: cstr(host),
            timezone: cstr(tz),
            zoneinfo: String::new(),
        })
    } else {
        let sec = c.sec64()?;
        let nsec = c.u32()?;
        let vol = c.i32()?;
        let features = c.u32()?;
        let _reserved = c.u32()?;
        let host = c.bytes(256)?;
        let tz = c.bytes(256)?;
        let zi = c.bytes(256)?;
        Ok(Label {
            version,
            pid,
            start: Timestamp::new(sec, nsec.min(999_999_999)),
            vol,
            features,
            hostname: cstr(host),
            timezone: cstr(tz),
            zoneinfo: cstr(zi),
        })
    }
}

fn put_padded(out: &mut Vec<u8>, s: &str, n: usize) {
    let b = s.as_bytes();
    let k = b.len().min(n - 1);
    out.extend_from_slice(&b[..k]);
    out.resize(out.len() + (n - k), 0);
}

/// Encodes a label record (framing included).
pub fn encode_label(l: &Label) -> Vec<u8> {
    let len = l.record_len() as u32;
    let mut out = Vec::with_capacity(len as usize);
    out.put_u32(len);
    out.put_u32(PM_LOG_MAGIC | l.version);
    out.put_i32(l.pid);
    if l.version >= 3 {
        out.put_sec64(l.start.sec);
        out.put_u32(l.start.nsec);
        out.put_i32(l.vol);
        out.put_u32(l.features);
        out.put_u32(0);
        put_padded(&mut out, &l.hostname, 256);
        put_padded(&mut out, &l.timezone, 256);
        put_padded(&mut out, &l.zoneinfo, 256);
    } else {
        out.put_i32(l.start.sec as i32);
        out.put_i32((l.start.nsec / 1000) as i32);
        out.put_i32(l.vol);
        put_padded(&mut out, &l.hostname, 64);
        put_padded(&mut out, &l.timezone, 40);
    }
    out.put_u32(len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(version: u32) -> Label {
        Label {
            version,
            pid: 1234,
            start: Timestamp::new(
                1_700_000_000,
                if version == 3 {
                    123_456_789
                } else {
                    123_456_000
                },
            ),
            vol: VOL_META,
            features: 0,
            hostname: "bozo".into(),
            timezone: "AEST-10".into(),
            zoneinfo: if version == 3 {
                ":Australia/Melbourne".into()
            } else {
                String::new()
            },
        }
    }

    #[test]
    fn round_trip_both_versions() {
        for v in [2, 3] {
            let l = sample(v);
            let bytes = encode_label(&l);
            assert_eq!(bytes.len(), l.record_len());
            assert_eq!(decode_label(&bytes).unwrap(), l);
        }
    }

    #[test]
    fn rejects_bad_labels() {
        let mut b = encode_label(&sample(2));
        b[7] = 1; // version 1
        assert_eq!(
            decode_label(&b).unwrap_err().kind.pm_err(),
            crate::error::PM_ERR_LABEL
        );
        let mut b = encode_label(&sample(3));
        let n = b.len();
        b[n - 1] ^= 1;
        assert!(decode_label(&b).is_err());
        assert!(decode_label(&encode_label(&sample(3))[..500]).is_err());
    }
}
