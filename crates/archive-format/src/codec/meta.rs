//! `.meta` records (the payload between the framing length words). The first word of
//! the payload is the record type:
//!
//! | type | record | layout after the type word |
//! |------|--------|----------------------------|
//! | 1 | DESC | pmid, type, indom, sem, units, numnames, numnames x {len, bytes} |
//! | 2 | INDOM_V2 | sec i32, usec i32, indom, numinst, inst\[\], stridx\[\], strings |
//! | 3 | LABEL_V2 | sec i32, usec i32, labeltype, ident, nsets, sets |
//! | 4 | TEXT | texttype, ident, text bytes incl. NUL |
//! | 5 | INDOM (v3) | sec (2 words, low first), nsec, indom, numinst, inst\[\], stridx\[\], strings |
//! | 6 | INDOM_DELTA (v3) | as 5; stridx -1 marks a deleted instance |
//! | 7 | LABEL (v3) | sec (2 words), nsec, labeltype, ident, nsets, sets |
//!
//! Label set: inst i32, jsonlen i32, json, nlabels i32, nlabels x {name off u16,
//! name len u8, flags u8, value off u16, value len u16}.

use super::cursor::{Cursor, PutBe};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::types::{Desc, InDom, PmId, Timestamp, Units};

pub const TYPE_DESC: i32 = 1;
pub const TYPE_INDOM_V2: i32 = 2;
pub const TYPE_LABEL_V2: i32 = 3;
pub const TYPE_TEXT: i32 = 4;
pub const TYPE_INDOM: i32 = 5;
pub const TYPE_INDOM_DELTA: i32 = 6;
pub const TYPE_LABEL: i32 = 7;

/// Label types (`PM_LABEL_*`).
pub mod label_type {
    pub const CONTEXT: u32 = 0x1;
    pub const DOMAIN: u32 = 0x2;
    pub const INDOM: u32 = 0x4;
    pub const CLUSTER: u32 = 0x8;
    pub const ITEM: u32 = 0x10;
    pub const INSTANCES: u32 = 0x20;
    pub const COMPOUND: u32 = 0x40;
    pub const OPTIONAL: u32 = 0x80;
}

/// Help text types (`PM_TEXT_*`).
pub mod text_type {
    pub const ONELINE: u32 = 1;
    pub const HELP: u32 = 2;
    pub const PMID: u32 = 4;
    pub const INDOM: u32 = 8;
}

/// How an instance domain record is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum InDomKind {
    /// `TYPE_INDOM_V2`: full set, v2 timestamp.
    V2,
    /// `TYPE_INDOM`: full set, v3 timestamp.
    Full,
    /// `TYPE_INDOM_DELTA`: changes against the previous set.
    Delta,
}

/// One instance of an instance-domain record. In a delta record `name == None` means
/// the instance was deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Instance {
    pub inst: i32,
    pub name: Option<String>,
}

/// One label (`pmLabel`): offsets into the set's JSON string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LabelEntry {
    pub name_off: u16,
    pub name_len: u8,
    pub flags: u8,
    pub value_off: u16,
    pub value_len: u16,
}

/// A label set (`pmLabelSet`) with its JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LabelSet {
    pub inst: i32,
    pub json: String,
    /// Number of labels, or a negative PCP error code.
    pub nlabels: i32,
    pub labels: Vec<LabelEntry>,
}

/// `PM_LABEL_OPTIONAL`: a label that does not identify the source.
pub const LABEL_OPTIONAL: u8 = 0x80;

impl LabelSet {
    /// Builds a label set from `(name, JSON value, optional)` triples as pmParseLabels
    /// leaves it: names sorted, the JSON compact, each entry's offsets into it and
    /// its flags (`ltype`, the `PM_LABEL_*` type, plus [`LABEL_OPTIONAL`]). Returns
    /// `None` when the JSON would not fit the record's 16-bit offsets or a name is
    /// longer than 255 bytes.
    pub fn from_labels(inst: i32, ltype: u8, labels: &[(&str, &str, bool)]) -> Option<LabelSet> {
        let mut sorted: Vec<&(&str, &str, bool)> = labels.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let mut json = String::from("{");
        let mut entries = Vec::with_capacity(sorted.len());
        for (i, (name, value, optional)) in sorted.into_iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            json.push('"');
            let name_off = u16::try_from(json.len()).ok()?;
            json.push_str(name);
            json.push_str("\":");
            let value_off = u16::try_from(json.len()).ok()?;
            json.push_str(value);
            entries.push(LabelEntry {
                name_off,
                name_len: u8::try_from(name.len()).ok()?,
                flags: ltype | if *optional { LABEL_OPTIONAL } else { 0 },
                value_off,
                value_len: u16::try_from(value.len()).ok()?,
            });
        }
        json.push('}');
        if entries.is_empty() {
            json.clear();
        }
        u16::try_from(json.len()).ok()?;
        Some(LabelSet {
            inst,
            json,
            nlabels: entries.len() as i32,
            labels: entries,
        })
    }
}

/// A decoded `.meta` record.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum MetaRecord {
    Desc {
        desc: Desc,
        names: Vec<String>,
    },
    InDom {
        kind: InDomKind,
        stamp: Timestamp,
        indom: InDom,
        instances: Vec<Instance>,
    },
    Label {
        /// True for the v3 record type.
        v3: bool,
        stamp: Timestamp,
        /// Label type with the COMPOUND/OPTIONAL bits masked off.
        ltype: u32,
        ident: u32,
        sets: Vec<LabelSet>,
    },
    Text {
        ttype: u32,
        ident: u32,
        text: String,
    },
}

fn rec(c: &Cursor, what: &'static str) -> DecodeError {
    c.err(DecodeErrorKind::Record(what))
}

fn stamp(c: &mut Cursor, v3: bool) -> Result<Timestamp, DecodeError> {
    crate::codec::result::read_stamp(c, v3)
}

/// The bytes of a `.meta` payload that [`indom_head`] needs at most: the type
/// word, a v3 timestamp and the instance domain.
pub const INDOM_HEAD_LEN: usize = 20;

/// The kind, time and instance domain of an instance-domain record, from the
/// first bytes of its payload (at most [`INDOM_HEAD_LEN`]); `None` for a record
/// of another type or a head too short to hold them.
pub fn indom_head(head: &[u8]) -> Option<(InDomKind, Timestamp, InDom)> {
    let mut c = Cursor::new(head, 0);
    let kind = match c.i32().ok()? {
        TYPE_INDOM_V2 => InDomKind::V2,
        TYPE_INDOM => InDomKind::Full,
        TYPE_INDOM_DELTA => InDomKind::Delta,
        _ => return None,
    };
    let stamp = stamp(&mut c, kind != InDomKind::V2).ok()?;
    let indom = InDom(c.u32().ok()?);
    Some((kind, stamp, indom))
}

/// Decodes one `.meta` record payload; `base` is the file offset of `payload[0]`.
///
/// Long on purpose: a dispatch on the record type with each type's layout in its
/// arm, so that the layouts read top to bottom beside each other as LOGARCHIVE(5)
/// lists them.
pub fn decode_meta(payload: &[u8], base: u64) -> Result<MetaRecord, DecodeError> {
    let mut c = Cursor::new(payload, base);
    let rtype = c.i32()?;
    match rtype {
        TYPE_DESC => {
            let desc = Desc {
                pmid: PmId(c.u32()?),
                vtype: c.i32()?,
                indom: InDom(c.u32()?),
                sem: c.i32()?,
                units: Units(c.u32()?),
            };
            let mut names = Vec::new();
            if c.remaining() >= 4 {
                let n = c.i32()?;
                if n < 0 || n as usize > c.remaining() / 4 {
                    return Err(rec(&c, "illegal number of names in metric descriptor"));
                }
                for _ in 0..n {
                    let len = c.i32()?;
                    if len < 0 || len as usize > c.remaining() {
                        return Err(rec(&c, "illegal metric name length"));
                    }
                    let b = c.bytes(len as usize)?;
                    names.push(crate::text::from_bytes(b));
                }
                // libpcp reads the names as a stream and then the trailer: bytes
                // left over (a damaged name count) make the trailer mismatch
                if c.remaining() != 0 {
                    return Err(rec(&c, "metric descriptor has bytes after its names"));
                }
            }
            Ok(MetaRecord::Desc { desc, names })
        }
        TYPE_INDOM_V2 | TYPE_INDOM | TYPE_INDOM_DELTA => {
            let kind = match rtype {
                TYPE_INDOM_V2 => InDomKind::V2,
                TYPE_INDOM => InDomKind::Full,
                _ => InDomKind::Delta,
            };
            let stamp = stamp(&mut c, kind != InDomKind::V2)?;
            let indom = InDom(c.u32()?);
            let numinst = c.i32()?;
            if numinst < 0 || numinst as usize > c.remaining() / 8 {
                return Err(rec(&c, "illegal number of instances"));
            }
            let n = numinst as usize;
            let mut insts = Vec::with_capacity(n);
            for _ in 0..n {
                insts.push(c.i32()?);
            }
            let mut idx = Vec::with_capacity(n);
            for _ in 0..n {
                idx.push(c.i32()?);
            }
            let strbase = c.pos();
            let strings = &payload[strbase..];
            let mut instances = Vec::with_capacity(n);
            for (inst, sidx) in insts.into_iter().zip(idx) {
                if inst < 0 {
                    return Err(rec(&c, "negative instance identifier"));
                }
                let name = if sidx < 0 {
                    if kind != InDomKind::Delta {
                        return Err(rec(&c, "missing instance name in a full instance domain"));
                    }
                    None
                } else {
                    let s = sidx as usize;
                    if s >= strings.len() {
                        return Err(rec(&c, "instance name offset past the end of the record"));
                    }
                    let tail = &strings[s..];
                    let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
                    Some(crate::text::from_bytes(&tail[..end]))
                };
                instances.push(Instance { inst, name });
            }
            Ok(MetaRecord::InDom {
                kind,
                stamp,
                indom,
                instances,
            })
        }
        TYPE_LABEL_V2 | TYPE_LABEL => {
            let v3 = rtype == TYPE_LABEL;
            let stamp = stamp(&mut c, v3)?;
            let ltype = c.u32()? & !(label_type::COMPOUND | label_type::OPTIONAL);
            let ident = c.u32()?;
            let nsets = c.i32()?;
            if nsets < 0 || nsets as usize > c.remaining() / 12 + 1 {
                return Err(rec(&c, "illegal number of label sets"));
            }
            let mut sets = Vec::with_capacity(nsets as usize);
            for _ in 0..nsets {
                let inst = c.i32()?;
                let jsonlen = c.i32()?;
                if !(0..=65535).contains(&jsonlen) {
                    return Err(rec(&c, "illegal label JSON length"));
                }
                let json = String::from_utf8_lossy(c.bytes(jsonlen as usize)?).into_owned();
                let nlabels = c.i32()?;
                if nlabels > 255 {
                    return Err(rec(&c, "illegal number of labels"));
                }
                let mut labels = Vec::new();
                for _ in 0..nlabels.max(0) {
                    labels.push(LabelEntry {
                        name_off: c.u16()?,
                        name_len: c.u8()?,
                        flags: c.u8()?,
                        value_off: c.u16()?,
                        value_len: c.u16()?,
                    });
                }
                sets.push(LabelSet {
                    inst,
                    json,
                    nlabels,
                    labels,
                });
            }
            Ok(MetaRecord::Label {
                v3,
                stamp,
                ltype,
                ident,
                sets,
            })
        }
        TYPE_TEXT => {
            let ttype = c.u32()?;
            let ident = c.u32()?;
            let rest = c.bytes(c.remaining())?;
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            Ok(MetaRecord::Text {
                ttype,
                ident,
                text: crate::text::from_bytes(&rest[..end]),
            })
        }
        t => Err(DecodeError::new(base, DecodeErrorKind::RecType(t))),
    }
}

fn put_stamp(out: &mut Vec<u8>, t: Timestamp, v3: bool) {
    if v3 {
        out.put_sec64(t.sec);
        out.put_u32(t.nsec);
    } else {
        out.put_i32(t.sec as i32);
        out.put_i32((t.nsec / 1000) as i32);
    }
}

/// Encodes a `.meta` record payload (without framing).
pub fn encode_meta(r: &MetaRecord) -> Vec<u8> {
    let mut out = Vec::new();
    match r {
        MetaRecord::Desc { desc, names } => {
            out.put_i32(TYPE_DESC);
            out.put_u32(desc.pmid.0);
            out.put_i32(desc.vtype);
            out.put_u32(desc.indom.0);
            out.put_i32(desc.sem);
            out.put_u32(desc.units.0);
            out.put_i32(names.len() as i32);
            for n in names {
                let b = crate::text::to_bytes(n);
                out.put_i32(b.len() as i32);
                out.extend_from_slice(&b);
            }
        }
        MetaRecord::InDom {
            kind,
            stamp,
            indom,
            instances,
        } => {
            out.put_i32(match kind {
                InDomKind::V2 => TYPE_INDOM_V2,
                InDomKind::Full => TYPE_INDOM,
                InDomKind::Delta => TYPE_INDOM_DELTA,
            });
            put_stamp(&mut out, *stamp, *kind != InDomKind::V2);
            out.put_u32(indom.0);
            out.put_i32(instances.len() as i32);
            for i in instances {
                out.put_i32(i.inst);
            }
            let mut strings = Vec::new();
            for i in instances {
                match &i.name {
                    Some(n) => {
                        out.put_i32(strings.len() as i32);
                        strings.extend_from_slice(&crate::text::to_bytes(n));
                        strings.push(0);
                    }
                    None => out.put_i32(-1),
                }
            }
            out.extend_from_slice(&strings);
        }
        MetaRecord::Label {
            v3,
            stamp,
            ltype,
            ident,
            sets,
        } => {
            out.put_i32(if *v3 { TYPE_LABEL } else { TYPE_LABEL_V2 });
            put_stamp(&mut out, *stamp, *v3);
            out.put_u32(*ltype);
            out.put_u32(*ident);
            out.put_i32(sets.len() as i32);
            for s in sets {
                out.put_i32(s.inst);
                out.put_i32(s.json.len() as i32);
                out.extend_from_slice(s.json.as_bytes());
                out.put_i32(s.nlabels);
                for l in &s.labels {
                    out.extend_from_slice(&l.name_off.to_be_bytes());
                    out.push(l.name_len);
                    out.push(l.flags);
                    out.extend_from_slice(&l.value_off.to_be_bytes());
                    out.extend_from_slice(&l.value_len.to_be_bytes());
                }
            }
        }
        MetaRecord::Text { ttype, ident, text } => {
            out.put_i32(TYPE_TEXT);
            out.put_u32(*ttype);
            out.put_u32(*ident);
            out.extend_from_slice(&crate::text::to_bytes(text));
            out.push(0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_sets_are_sorted_with_offsets_as_pcp_parses_them() {
        // The reference pmlogger's context labels, as pmdumplog -l shows them.
        let set = LabelSet::from_labels(
            -1,
            1,
            &[
                ("userid", "0", true),
                ("hostname", "\"vm\"", false),
                ("domainname", "\"localdomain\"", false),
                ("groupid", "0", true),
            ],
        )
        .expect("fits");
        assert_eq!(
            set.json,
            r#"{"domainname":"localdomain","groupid":0,"hostname":"vm","userid":0}"#
        );
        let spans: Vec<(u16, u8, u16, u16, u8)> = set
            .labels
            .iter()
            .map(|l| (l.name_off, l.name_len, l.value_off, l.value_len, l.flags))
            .collect();
        assert_eq!(
            spans,
            [
                (2, 10, 14, 13, 1),
                (29, 7, 38, 1, 0x81),
                (41, 8, 51, 4, 1),
                (57, 6, 65, 1, 0x81)
            ]
        );
        let empty = LabelSet::from_labels(3, 0x20, &[]).expect("fits");
        assert_eq!((empty.json.as_str(), empty.nlabels), ("", 0));
        let long = "x".repeat(300);
        assert!(LabelSet::from_labels(0, 2, &[(long.as_str(), "1", false)]).is_none());
    }

    #[test]
    fn desc_layout() {
        let r = MetaRecord::Desc {
            desc: Desc {
                pmid: PmId::new(29, 0, 5),
                vtype: 0,
                indom: InDom::new(29, 1),
                sem: 3,
                units: Units(0),
            },
            names: vec!["sample.colour".into()],
        };
        let b = encode_meta(&r);
        #[rustfmt::skip]
        let want: Vec<u8> = [
            &[0, 0, 0, 1][..],          // type DESC
            &[0x07, 0x40, 0x00, 0x05],  // pmid 29.0.5
            &[0, 0, 0, 0],              // type 32
            &[0x07, 0x40, 0x00, 0x01],  // indom 29.1
            &[0, 0, 0, 3],              // instant
            &[0, 0, 0, 0],              // units
            &[0, 0, 0, 1],              // one name
            &[0, 0, 0, 13], b"sample.colour",
        ].concat();
        assert_eq!(b, want);
        assert_eq!(decode_meta(&b, 0).unwrap(), r);
    }

    #[test]
    fn indom_delta_round_trip() {
        let r = MetaRecord::InDom {
            kind: InDomKind::Delta,
            stamp: Timestamp::new(5_000_000_000, 7),
            indom: InDom::new(29, 12),
            instances: vec![
                Instance {
                    inst: 5,
                    name: Some("0005 loko".into()),
                },
                Instance {
                    inst: 7,
                    name: None,
                },
            ],
        };
        assert_eq!(decode_meta(&encode_meta(&r), 0).unwrap(), r);
    }

    #[test]
    fn bad_records() {
        assert_eq!(
            decode_meta(&[0, 0, 0, 9, 0, 0, 0, 0], 100).unwrap_err(),
            DecodeError::new(100, DecodeErrorKind::RecType(9))
        );
        // full indom with a -1 string index
        let mut b = encode_meta(&MetaRecord::InDom {
            kind: InDomKind::Delta,
            stamp: Timestamp::new(1, 0),
            indom: InDom::new(1, 1),
            instances: vec![Instance {
                inst: 1,
                name: None,
            }],
        });
        b[3] = TYPE_INDOM as u8;
        assert!(decode_meta(&b, 0).is_err());
    }
}
