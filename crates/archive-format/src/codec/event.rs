//! Packed event arrays (`PM_TYPE_EVENT` and `PM_TYPE_HIGHRES_EVENT` value blocks).
//!
//! Block payload (after the vtype/vlen word):
//!
//! | field | EVENT | HIGHRES_EVENT |
//! |-------|-------|---------------|
//! | nrecords | i32 | i32 |
//! | record timestamp | sec i32, usec i32 | sec i64, nsec i64 |
//! | flags, nparams | u32, i32 | u32, i32 |
//! | parameters (unless MISSED) | pmid u32, type:8\|len:24, value padded to 4 | same |
//!
//! With the MISSED flag, `nparams` is the number of missed records and no parameters
//! follow.

use super::cursor::{Cursor, PutBe};
use crate::error::{DecodeError, DecodeErrorKind, PM_ERR_TOOBIG, PM_ERR_TOOSMALL, PM_ERR_TYPE};
use crate::types::{vtype, PmId, Timestamp};

pub const FLAG_POINT: u32 = 0x1;
pub const FLAG_START: u32 = 0x2;
pub const FLAG_END: u32 = 0x4;
pub const FLAG_ID: u32 = 0x8;
pub const FLAG_PARENT: u32 = 0x10;
pub const FLAG_MISSED: u32 = 0x8000_0000;

/// One parameter of an event record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventParam<'a> {
    pub pmid: PmId,
    pub vtype: u8,
    /// The value bytes (`len - 4` of them, no padding).
    pub data: &'a [u8],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord<'a> {
    pub stamp: Timestamp,
    pub flags: u32,
    /// Number of parameters, or of missed records when `flags` has MISSED.
    pub nparams: i32,
    pub params: Vec<EventParam<'a>>,
}

/// `pmEventFlagsStr`.
pub fn flags_str(flags: u32) -> String {
    if flags & FLAG_MISSED != 0 {
        return "missed".into();
    }
    let names = [
        (FLAG_POINT, "point"),
        (FLAG_START, "start"),
        (FLAG_END, "end"),
        (FLAG_ID, "id"),
        (FLAG_PARENT, "parent"),
    ];
    names
        .iter()
        .filter(|(b, _)| flags & b != 0)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(",")
}

fn err(c: &Cursor, code: i32, what: &'static str) -> DecodeError {
    c.err(DecodeErrorKind::Pcp(code, what))
}

impl<'a> EventParam<'a> {
    /// The parameter's value as libpcp's `pmUnpackEventRecords` hands it out for a
    /// metric of type `ty`: 32-bit integers in the value word, everything else as a
    /// value block.
    pub fn value_as(&self, ty: i32) -> crate::codec::result::Value<'a> {
        use crate::codec::result::Value;
        if matches!(ty, crate::types::vtype::I32 | crate::types::vtype::U32) && self.data.len() >= 4
        {
            Value::Insitu(u32::from_be_bytes([
                self.data[0],
                self.data[1],
                self.data[2],
                self.data[3],
            ]))
        } else {
            Value::Block {
                vtype: self.vtype,
                data: self.data,
            }
        }
    }
}

/// Decodes an event array block payload; `base` is the file offset of `data[0]`.
pub fn decode_events(
    data: &[u8],
    base: u64,
    highres: bool,
) -> Result<Vec<EventRecord<'_>>, DecodeError> {
    let mut c = Cursor::new(data, base);
    if data.len() < 4 {
        return Err(err(&c, PM_ERR_TOOSMALL, "event array too short"));
    }
    let n = c.i32()?;
    let rec_hdr = if highres { 24 } else { 16 };
    if n < 0 || n as usize > c.remaining() / rec_hdr {
        return Err(err(&c, PM_ERR_TOOBIG, "illegal number of event records"));
    }
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        if c.remaining() < rec_hdr {
            return Err(err(
                &c,
                PM_ERR_TOOBIG,
                "event record past the end of its array",
            ));
        }
        let stamp = if highres {
            let sec = c.i64()?;
            let nsec = c.i64()?;
            Timestamp::new(sec, nsec.clamp(0, 999_999_999) as u32)
        } else {
            let sec = c.i32()? as i64;
            let usec = c.i32()?;
            Timestamp::new(sec, usec.clamp(0, 999_999) as u32 * 1000)
        };
        let flags = c.u32()?;
        let nparams = c.i32()?;
        let mut params = Vec::new();
        if flags & FLAG_MISSED != 0 {
            if flags != FLAG_MISSED {
                return Err(err(
                    &c,
                    crate::error::PM_ERR_CONV,
                    "missed flag with other flags",
                ));
            }
        } else {
            if nparams < 0 || nparams as usize > c.remaining() / 8 {
                return Err(err(&c, PM_ERR_TOOBIG, "illegal number of event parameters"));
            }
            for _ in 0..nparams {
                let pmid = PmId(c.u32()?);
                let w = c.u32()?;
                let ptype = (w >> 24) as u8;
                let len = (w & 0x00ff_ffff) as usize;
                if len < 4 {
                    return Err(err(&c, PM_ERR_TOOSMALL, "event parameter too short"));
                }
                if matches!(ptype as i32, vtype::EVENT | vtype::HIGHRES_EVENT) {
                    return Err(err(&c, PM_ERR_TYPE, "nested event parameter"));
                }
                let padded = (len - 4).div_ceil(4) * 4;
                if padded > c.remaining() {
                    return Err(err(
                        &c,
                        PM_ERR_TOOBIG,
                        "event parameter past the end of its array",
                    ));
                }
                let bytes = c.bytes(padded)?;
                params.push(EventParam {
                    pmid,
                    vtype: ptype,
                    data: &bytes[..len - 4],
                });
            }
        }
        out.push(EventRecord {
            stamp,
            flags,
            nparams,
            params,
        });
    }
    Ok(out)
}

/// Builds packed event arrays, in the spirit of `pmdaEventNewArray`,
/// `pmdaEventAddRecord`, `pmdaEventAddParam` and `pmdaEventAddMissedRecord`.
#[derive(Debug, Clone)]
pub struct EventArrayBuilder {
    highres: bool,
    nrecords: i32,
    body: Vec<u8>,
    /// Offset in `body` of the current record's nparams word.
    cur_nparams: Option<usize>,
}

impl EventArrayBuilder {
    pub fn new(highres: bool) -> Self {
        EventArrayBuilder {
            highres,
            nrecords: 0,
            body: Vec::new(),
            cur_nparams: None,
        }
    }
    fn put_stamp(&mut self, t: Timestamp) {
        if self.highres {
            self.body.put_u64(t.sec as u64);
            self.body.put_u64(t.nsec as u64);
        } else {
            self.body.put_i32(t.sec as i32);
            self.body.put_i32((t.nsec / 1000) as i32);
        }
    }
    /// Starts a new record.
    pub fn add_record(&mut self, t: Timestamp, flags: u32) -> &mut Self {
        self.put_stamp(t);
        self.body.put_u32(flags);
        self.cur_nparams = Some(self.body.len());
        self.body.put_i32(0);
        self.nrecords += 1;
        self
    }
    /// Adds a record that stands for `count` missed records.
    pub fn add_missed(&mut self, t: Timestamp, count: i32) -> &mut Self {
        self.put_stamp(t);
        self.body.put_u32(FLAG_MISSED);
        self.body.put_i32(count);
        self.cur_nparams = None;
        self.nrecords += 1;
        self
    }
    /// Adds a parameter to the current record; ignored when there is none.
    pub fn add_param(&mut self, pmid: PmId, vtype: u8, value: &[u8]) -> &mut Self {
        let Some(at) = self.cur_nparams else {
            return self;
        };
        self.body.put_u32(pmid.0);
        self.body
            .put_u32((vtype as u32) << 24 | (value.len() as u32 + 4));
        self.body.extend_from_slice(value);
        while !self.body.len().is_multiple_of(4) {
            self.body.push(0);
        }
        let n = i32::from_be_bytes([
            self.body[at],
            self.body[at + 1],
            self.body[at + 2],
            self.body[at + 3],
        ]);
        self.body[at..at + 4].copy_from_slice(&(n + 1).to_be_bytes());
        self
    }
    /// The block payload (without the vtype/vlen header word).
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.body.len());
        out.put_i32(self.nrecords);
        out.extend_from_slice(&self.body);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_and_decode_both_resolutions() {
        for highres in [false, true] {
            let mut b = EventArrayBuilder::new(highres);
            b.add_record(Timestamp::new(100, 5000), FLAG_POINT)
                .add_param(PmId::new(29, 0, 1), vtype::U32 as u8, &7u32.to_be_bytes())
                .add_param(PmId::new(29, 0, 2), vtype::STRING as u8, b"abc\0");
            b.add_missed(Timestamp::new(101, 0), 3);
            let data = b.finish();
            let recs = decode_events(&data, 0, highres).unwrap();
            assert_eq!(recs.len(), 2);
            assert_eq!(recs[0].params.len(), 2);
            assert_eq!(recs[0].params[1].data, b"abc\0");
            assert_eq!(recs[0].stamp, Timestamp::new(100, 5000));
            assert_eq!(recs[1].flags, FLAG_MISSED);
            assert_eq!(recs[1].nparams, 3);
            assert!(decode_events(&data[..data.len() - 4], 0, highres).is_err());
        }
        assert_eq!(flags_str(FLAG_POINT | FLAG_ID), "point,id");
        assert_eq!(flags_str(FLAG_MISSED), "missed");
    }
}
