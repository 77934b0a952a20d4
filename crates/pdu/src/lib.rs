//! PCP's PDU wire format, the part pmlc and pmlogger speak to each other and the
//! part pmlogger speaks to pmcd ([`pmcd`]): pure encoders and decoders (no I/O
//! besides [`read_frame`], which only frames bytes from a reader). The data model
//! is the archive's (`archive_format`'s timestamps, descriptors, value sets and
//! label sets, read with its cursor), and the conversions between PDUs and
//! archive records are here ([`pmcd::payload_in_pdu`]).
//!
//! Every PDU starts with a 12-byte header: total length (header included), type, and
//! `from` (the sender's pid or 0); all integers are big-endian.
//!
//! | PDU | body after the header |
//! |---|---|
//! | ERROR 0x7000 | `code i32` |
//! | RESULT 0x7001 | `sec i32, usec i32, numpmid i32`, value lists (`pmid, numval, [valfmt, (inst, value)*]`) |
//! | CREDS 0x700c | `numcreds i32`, 4-byte credentials (`[type][a][b][c]`) |
//! | LOG_CONTROL 0x8000 | `control, state, delta, numpmid`, then per metric `pmid, numval, (inst, 0)*` (no valfmt) |
//! | LOG_REQUEST 0x8002 | `request i32` |
//! | LOG_STATUS 0x8003 | start, last, now (v3 timestamps), `state, vol, size i64`, 6 string lengths, the strings, `~` padding |

use archive_format::codec::cursor::Cursor;
use archive_format::error::DecodeError;
use archive_format::Timestamp;
use std::io::{self, Read};

pub mod pmcd;

pub const PDU_ERROR: i32 = 0x7000;
pub const PDU_RESULT: i32 = 0x7001;
pub const PDU_CREDS: i32 = 0x700c;
pub const PDU_LOG_CONTROL: i32 = 0x8000;
pub const PDU_LOG_STATUS_V2: i32 = 0x8001;
pub const PDU_LOG_REQUEST: i32 = 0x8002;
pub const PDU_LOG_STATUS: i32 = 0x8003;

/// The largest PDU a server accepts from a client (libpcp's `LIMIT_SIZE`).
pub const CLIENT_LIMIT: usize = 64 * 1024;

/// LOG_REQUEST kinds.
pub mod request {
    pub const NEWVOLUME: i32 = 1;
    pub const STATUS: i32 = 2;
    pub const SYNC: i32 = 3;
}

/// LOG_CONTROL `control` values.
pub mod control {
    pub const MANDATORY: i32 = 11;
    pub const ADVISORY: i32 = 12;
    pub const ENQUIRE: i32 = 13;
}

/// LOG_CONTROL `state` values.
pub mod state {
    pub const OFF: i32 = 0;
    pub const MAYBE: i32 = 1;
    pub const ON: i32 = 2;
}

/// The LOG_STATUS body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogStatus {
    pub start: Timestamp,
    pub last: Timestamp,
    pub now: Timestamp,
    /// 0: nothing logged yet; 1: logging.
    pub state: i32,
    pub vol: i32,
    pub size: i64,
    /// pmcd.hostname, pmcd.fqdn, pmcd.timezone, pmcd.zoneinfo, pmlogger.timezone,
    /// pmlogger.zoneinfo.
    pub strings: [Option<String>; 6],
}

/// A metric of a LOG_CONTROL request (instances; empty = all) or of its reply
/// (`numval` < 0 is an error code; values are state words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueList {
    pub pmid: u32,
    pub numval: i32,
    pub values: Vec<(i32, u32)>,
}

/// A PDU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pdu {
    Error {
        from: i32,
        code: i32,
    },
    Creds {
        from: i32,
        creds: Vec<[u8; 4]>,
    },
    LogRequest {
        from: i32,
        request: i32,
    },
    LogControl {
        from: i32,
        control: i32,
        state: i32,
        delta: i32,
        metrics: Vec<ValueList>,
    },
    /// A RESULT whose values are all in the value words (pmlogger's reply to
    /// LOG_CONTROL).
    Result {
        from: i32,
        sec: i32,
        usec: i32,
        vsets: Vec<ValueList>,
    },
    LogStatus {
        from: i32,
        status: LogStatus,
    },
}

/// Why bytes are not a PDU this module understands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PduError {
    /// Shorter than its header says, or than its fields need.
    Truncated { need: usize, have: usize },
    /// Ends inside a field that starts at this byte.
    Short { at: u64 },
    /// A length below 12 or above the limit.
    BadLength(i64),
    /// A type this module does not decode.
    UnknownType(i32),
    /// A count that cannot fit in the PDU.
    BadCount(i64),
    /// A value list with another format than "in the value word".
    NotInsitu(i32),
}

impl std::fmt::Display for PduError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PduError::Truncated { need, have } => {
                write!(f, "PDU truncated: {need} bytes needed, {have} present")
            }
            PduError::Short { at } => write!(f, "PDU ends inside the field at byte {at}"),
            PduError::BadLength(n) => write!(f, "bad PDU length {n}"),
            PduError::UnknownType(t) => write!(f, "unknown PDU type {t:#x}"),
            PduError::BadCount(n) => write!(f, "bad count {n} in PDU"),
            PduError::NotInsitu(v) => write!(f, "value format {v} not supported here"),
        }
    }
}

impl std::error::Error for PduError {}

impl From<DecodeError> for PduError {
    fn from(e: DecodeError) -> PduError {
        PduError::Short { at: e.offset }
    }
}

struct W(Vec<u8>);

impl W {
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn stamp(&mut self, s: Timestamp) {
        // v3 layout: 64-bit seconds low word first, then nanoseconds
        let v = s.sec as u64;
        self.u32(v as u32);
        self.u32((v >> 32) as u32);
        self.u32(s.nsec);
    }
}

/// What PDUs read beyond the archive's fields, on the archive codec's cursor.
trait PduCursor {
    /// A count of items of `each` bytes, which must fit in the PDU.
    fn count(&mut self, each: usize) -> Result<usize, PduError>;
    /// A v3 timestamp (64-bit seconds, low word first, then nanoseconds).
    fn stamp(&mut self) -> Result<Timestamp, PduError>;
}

impl PduCursor for Cursor<'_> {
    fn count(&mut self, each: usize) -> Result<usize, PduError> {
        let n = self.i32()?;
        let len = self.pos() + self.remaining();
        if n < 0 || (n as usize).saturating_mul(each) > len {
            return Err(PduError::BadCount(n as i64));
        }
        Ok(n as usize)
    }
    fn stamp(&mut self) -> Result<Timestamp, PduError> {
        let sec = self.sec64()?;
        let nsec = self.u32()?;
        Ok(Timestamp { sec, nsec })
    }
}

/// A PDU's fields after its header.
fn body(b: &[u8]) -> Cursor<'_> {
    let mut c = Cursor::new(b, 0);
    let _ = c.skip(12);
    c
}

fn finish(ptype: i32, from: i32, body: W) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + body.0.len());
    out.extend_from_slice(&((12 + body.0.len()) as i32).to_be_bytes());
    out.extend_from_slice(&ptype.to_be_bytes());
    out.extend_from_slice(&from.to_be_bytes());
    out.extend_from_slice(&body.0);
    out
}

/// Encodes a PDU, header included.
pub fn encode(p: &Pdu) -> Vec<u8> {
    let mut w = W(Vec::new());
    match p {
        Pdu::Error { from, code } => {
            w.i32(*code);
            finish(PDU_ERROR, *from, w)
        }
        Pdu::Creds { from, creds } => {
            w.i32(creds.len() as i32);
            for c in creds {
                w.0.extend_from_slice(c);
            }
            finish(PDU_CREDS, *from, w)
        }
        Pdu::LogRequest { from, request } => {
            w.i32(*request);
            finish(PDU_LOG_REQUEST, *from, w)
        }
        Pdu::LogControl {
            from,
            control,
            state,
            delta,
            metrics,
        } => {
            w.i32(*control);
            w.i32(*state);
            w.i32(*delta);
            w.i32(metrics.len() as i32);
            for m in metrics {
                w.u32(m.pmid);
                w.i32(m.numval);
                for (inst, v) in &m.values {
                    w.i32(*inst);
                    w.u32(*v);
                }
            }
            finish(PDU_LOG_CONTROL, *from, w)
        }
        Pdu::Result {
            from,
            sec,
            usec,
            vsets,
        } => {
            w.i32(*sec);
            w.i32(*usec);
            w.i32(vsets.len() as i32);
            for vs in vsets {
                w.u32(vs.pmid);
                w.i32(vs.numval);
                if vs.numval > 0 {
                    w.i32(0); // PM_VAL_INSITU
                    for (inst, v) in &vs.values {
                        w.i32(*inst);
                        w.u32(*v);
                    }
                }
            }
            finish(PDU_RESULT, *from, w)
        }
        Pdu::LogStatus { from, status } => {
            w.stamp(status.start);
            w.stamp(status.last);
            w.stamp(status.now);
            w.i32(status.state);
            w.i32(status.vol);
            w.0.extend_from_slice(&status.size.to_be_bytes());
            for s in &status.strings {
                w.i32(s.as_ref().map(|s| s.len() as i32 + 1).unwrap_or(0));
            }
            for s in status.strings.iter().flatten() {
                w.0.extend_from_slice(s.as_bytes());
                w.0.push(0);
            }
            while !w.0.len().is_multiple_of(4) {
                w.0.push(b'~');
            }
            finish(PDU_LOG_STATUS, *from, w)
        }
    }
}

/// The header of a PDU: `(length, type, from)`.
pub fn header(b: &[u8]) -> Result<(usize, i32, i32), PduError> {
    let mut r = Cursor::new(b, 0);
    let len = r.i32()?;
    let ptype = r.i32()?;
    let from = r.i32()?;
    if len < 12 {
        return Err(PduError::BadLength(len as i64));
    }
    Ok((len as usize, ptype, from))
}

/// The header of a PDU that `b` holds exactly: `(type, from)`.
pub(crate) fn whole(b: &[u8]) -> Result<(i32, i32), PduError> {
    let (len, ptype, from) = header(b)?;
    if len != b.len() {
        return Err(PduError::Truncated {
            need: len,
            have: b.len(),
        });
    }
    Ok((ptype, from))
}

/// Decodes one PDU (`b` holds exactly the PDU, header included).
///
/// Long on purpose: a dispatch on the PDU type with each type's layout in its arm.
pub fn decode(b: &[u8]) -> Result<Pdu, PduError> {
    let (ptype, from) = whole(b)?;
    let mut r = body(b);
    match ptype {
        PDU_ERROR => Ok(Pdu::Error {
            from,
            code: r.i32()?,
        }),
        PDU_CREDS => {
            let n = r.count(4)?;
            let mut creds = Vec::with_capacity(n);
            for _ in 0..n {
                let c = r.bytes(4)?;
                creds.push([c[0], c[1], c[2], c[3]]);
            }
            Ok(Pdu::Creds { from, creds })
        }
        PDU_LOG_REQUEST => Ok(Pdu::LogRequest {
            from,
            request: r.i32()?,
        }),
        PDU_LOG_CONTROL => {
            let control = r.i32()?;
            let state = r.i32()?;
            let delta = r.i32()?;
            let n = r.count(8)?;
            let mut metrics = Vec::with_capacity(n);
            for _ in 0..n {
                let pmid = r.u32()?;
                let numval = r.i32()?;
                let mut values = Vec::new();
                if numval > 0 {
                    if numval as usize * 8 > b.len() {
                        return Err(PduError::BadCount(numval as i64));
                    }
                    for _ in 0..numval {
                        values.push((r.i32()?, r.u32()?));
                    }
                }
                metrics.push(ValueList {
                    pmid,
                    numval,
                    values,
                });
            }
            Ok(Pdu::LogControl {
                from,
                control,
                state,
                delta,
                metrics,
            })
        }
        PDU_RESULT => {
            let sec = r.i32()?;
            let usec = r.i32()?;
            let n = r.count(8)?;
            let mut vsets = Vec::with_capacity(n);
            for _ in 0..n {
                let pmid = r.u32()?;
                let numval = r.i32()?;
                let mut values = Vec::new();
                if numval > 0 {
                    let valfmt = r.i32()?;
                    if valfmt != 0 {
                        return Err(PduError::NotInsitu(valfmt));
                    }
                    if numval as usize * 8 > b.len() {
                        return Err(PduError::BadCount(numval as i64));
                    }
                    for _ in 0..numval {
                        values.push((r.i32()?, r.u32()?));
                    }
                }
                vsets.push(ValueList {
                    pmid,
                    numval,
                    values,
                });
            }
            Ok(Pdu::Result {
                from,
                sec,
                usec,
                vsets,
            })
        }
        PDU_LOG_STATUS => {
            let start = r.stamp()?;
            let last = r.stamp()?;
            let now = r.stamp()?;
            let state = r.i32()?;
            let vol = r.i32()?;
            let hi = r.u32()? as u64;
            let lo = r.u32()? as u64;
            let size = (hi << 32 | lo) as i64;
            let mut lens = [0usize; 6];
            for l in &mut lens {
                let v = r.i32()?;
                if v < 0 || v as usize > b.len() {
                    return Err(PduError::BadCount(v as i64));
                }
                *l = v as usize;
            }
            let mut strings: [Option<String>; 6] = Default::default();
            for (k, l) in lens.iter().enumerate() {
                if *l == 0 {
                    continue;
                }
                let raw = r.bytes(*l)?;
                strings[k] = Some(String::from_utf8_lossy(&raw[..l - 1]).into_owned());
            }
            Ok(Pdu::LogStatus {
                from,
                status: LogStatus {
                    start,
                    last,
                    now,
                    state,
                    vol,
                    size,
                    strings,
                },
            })
        }
        t => Err(PduError::UnknownType(t)),
    }
}

/// Reads one PDU's bytes from `r`: `Ok(None)` at a clean end of stream (before a
/// header), an error for a short read inside a PDU or a length outside 12..=`limit`.
pub fn read_frame(r: &mut impl Read, limit: usize) -> io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    Ok(read_frame_into(r, limit, &mut buf)?.then_some(buf))
}

/// [`read_frame`] into a buffer the caller keeps (a reader of large PDUs then
/// does not allocate, and map and unmap, a buffer per PDU). `Ok(false)`: the
/// stream ended cleanly before a PDU.
pub fn read_frame_into(r: &mut impl Read, limit: usize, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut head = [0u8; 12];
    let mut got = 0;
    while got < 12 {
        match r.read(&mut head[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len = i32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    if len < 12 || len as usize > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            PduError::BadLength(len as i64),
        ));
    }
    // a reused buffer is only zero-filled where it grows
    let len = len as usize;
    if buf.len() < len {
        buf.resize(len, 0);
    } else {
        buf.truncate(len);
    }
    buf[..12].copy_from_slice(&head);
    r.read_exact(&mut buf[12..])?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_pdu_layout() {
        let b = encode(&Pdu::Error {
            from: 4242,
            code: 3,
        });
        assert_eq!(
            b,
            [0, 0, 0, 16, 0, 0, 0x70, 0, 0, 0, 0x10, 0x92, 0, 0, 0, 3]
        );
        assert_eq!(
            decode(&b),
            Ok(Pdu::Error {
                from: 4242,
                code: 3
            })
        );
    }

    #[test]
    fn status_has_an_88_byte_fixed_part() {
        // header included, as PCP's pmlc expects it
        let s = LogStatus::default();
        let b = encode(&Pdu::LogStatus { from: 0, status: s });
        assert_eq!(b.len(), 88);
    }

    #[test]
    fn hostile_lengths_are_errors() {
        assert!(decode(&[0, 0, 0, 4, 0, 0, 0x70, 0, 0, 0, 0, 0]).is_err());
        let mut huge = encode(&Pdu::LogRequest {
            from: 0,
            request: 1,
        });
        huge[3] = 0xff;
        assert!(decode(&huge).is_err());
        let mut c = std::io::Cursor::new(vec![0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(read_frame(&mut c, CLIENT_LIMIT).is_err());
        let mut empty = std::io::Cursor::new(Vec::new());
        assert!(matches!(read_frame(&mut empty, CLIENT_LIMIT), Ok(None)));
    }
}
