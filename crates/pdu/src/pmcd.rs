//! The part of pmcd's client protocol that pmlc needs to resolve names: names to
//! PMIDs, subtree traversal, descriptors and instance domains. Pure encoders of the
//! requests and decoders of the replies (layouts in pcp-internals §7.3).

use super::{finish, header, PduError, R, W};

pub const PDU_FETCH: i32 = 0x7003;
pub const PDU_DESC_REQ: i32 = 0x7004;
pub const PDU_DESC: i32 = 0x7005;
pub const PDU_INSTANCE_REQ: i32 = 0x7006;
pub const PDU_INSTANCE: i32 = 0x7007;
pub const PDU_PMNS_IDS: i32 = 0x700d;
pub const PDU_PMNS_NAMES: i32 = 0x700e;
pub const PDU_PMNS_TRAVERSE: i32 = 0x7010;
/// PM_ID_NULL: an unknown name in a PMNS_IDS reply.
pub const PM_ID_NULL: u32 = 0xffff_ffff;
/// PM_IN_NULL: every instance in an INSTANCE_REQ.
pub const PM_IN_NULL: i32 = -1;

/// A metric descriptor as pmcd sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Desc {
    pub pmid: u32,
    pub vtype: i32,
    pub indom: u32,
    pub sem: i32,
    pub units: u32,
}

/// A reply from pmcd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// An error code (PCP 2 numbering), or pmcd's greeting (code 0 and its
    /// feature word) when the PDU has the extra datum.
    Error {
        code: i32,
        datum: Option<u32>,
    },
    /// PMIDs for names, PM_ID_NULL where unknown.
    Ids(Vec<u32>),
    /// Names (of a traversal, or of a PMID).
    Names(Vec<String>),
    Desc(Desc),
    /// An instance domain: (instance, name) pairs.
    Instances {
        indom: u32,
        list: Vec<(i32, String)>,
    },
    /// A fetch's values (only values held in the value word are decoded).
    Values(Vec<super::ValueList>),
}

fn pad_str(w: &mut W, s: &str) {
    w.i32(s.len() as i32);
    w.0.extend_from_slice(s.as_bytes());
    while !w.0.len().is_multiple_of(4) {
        w.0.push(b'~');
    }
}

/// PMNS_NAMES: look these names up (pmLookupName).
pub fn names_req(names: &[&str]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(names.iter().map(|n| n.len() as i32 + 1).sum());
    w.i32(0); // no status words
    w.i32(names.len() as i32);
    for n in names {
        pad_str(&mut w, n);
    }
    finish(PDU_PMNS_NAMES, 0, w)
}

/// PMNS_TRAVERSE: every leaf name below `name`.
pub fn traverse_req(name: &str) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(0);
    pad_str(&mut w, name);
    finish(PDU_PMNS_TRAVERSE, 0, w)
}

/// DESC_REQ: the descriptor of a PMID.
pub fn desc_req(pmid: u32) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.u32(pmid);
    finish(PDU_DESC_REQ, 0, w)
}

pub const PDU_PROFILE: i32 = 0x7002;

/// PROFILE: every instance of every instance domain (pmcd wants a profile before
/// the first fetch; it sends no reply).
pub fn profile_all_req() -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(0); // context
    w.i32(0); // PM_PROFILE_INCLUDE
    w.i32(0); // no per-indom entries
    w.i32(0);
    finish(PDU_PROFILE, 0, w)
}

/// FETCH: the current values of some metrics.
pub fn fetch_req(pmids: &[u32]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(0); // context
    w.i32(0); // unused timestamp
    w.i32(0);
    w.i32(pmids.len() as i32);
    for p in pmids {
        w.u32(*p);
    }
    finish(PDU_FETCH, 0, w)
}

/// INSTANCE_REQ: every instance of an instance domain.
pub fn instances_req(indom: u32) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.u32(indom);
    w.i32(0);
    w.i32(0);
    w.i32(PM_IN_NULL);
    w.i32(0);
    finish(PDU_INSTANCE_REQ, 0, w)
}

fn padded_str(r: &mut R<'_>) -> Result<String, PduError> {
    let len = r.count(1)?;
    r.need(len)?;
    let s = String::from_utf8_lossy(&r.b[r.off..r.off + len]).into_owned();
    r.off += len.div_ceil(4) * 4;
    Ok(s)
}

/// Decodes a reply from pmcd (`b` holds exactly the PDU).
pub fn decode_reply(b: &[u8]) -> Result<Reply, PduError> {
    let (len, ptype, _) = header(b)?;
    if len != b.len() {
        return Err(PduError::Truncated {
            need: len,
            have: b.len(),
        });
    }
    let mut r = R { b, off: 12 };
    match ptype {
        super::PDU_ERROR => {
            let code = r.i32()?;
            let datum = if b.len() >= 20 { Some(r.u32()?) } else { None };
            Ok(Reply::Error { code, datum })
        }
        PDU_PMNS_IDS => {
            let _sts = r.i32()?;
            let n = r.count(4)?;
            let mut ids = Vec::with_capacity(n);
            for _ in 0..n {
                ids.push(r.u32()?);
            }
            Ok(Reply::Ids(ids))
        }
        PDU_PMNS_NAMES => {
            let _nstrbytes = r.i32()?;
            let numstatus = r.i32()?;
            let n = r.count(4)?;
            let mut names = Vec::with_capacity(n);
            for _ in 0..n {
                if numstatus > 0 {
                    r.i32()?;
                }
                names.push(padded_str(&mut r)?);
            }
            Ok(Reply::Names(names))
        }
        PDU_DESC => Ok(Reply::Desc(Desc {
            pmid: r.u32()?,
            vtype: r.i32()?,
            indom: r.u32()?,
            sem: r.i32()?,
            units: r.u32()?,
        })),
        PDU_INSTANCE => {
            let indom = r.u32()?;
            let n = r.count(8)?;
            let mut list = Vec::with_capacity(n);
            for _ in 0..n {
                let inst = r.i32()?;
                list.push((inst, padded_str(&mut r)?));
            }
            Ok(Reply::Instances { indom, list })
        }
        super::PDU_RESULT => match super::decode(b)? {
            super::Pdu::Result { vsets, .. } => Ok(Reply::Values(vsets)),
            _ => Err(PduError::UnknownType(ptype)),
        },
        t => Err(PduError::UnknownType(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Replies built the way pmcd lays them out, for the decoder.
    fn names_reply(names: &[String]) -> Vec<u8> {
        let mut w = W(Vec::new());
        w.i32(names.iter().map(|n| n.len() as i32 + 1).sum());
        w.i32(0);
        w.i32(names.len() as i32);
        for n in names {
            pad_str(&mut w, n);
        }
        finish(PDU_PMNS_NAMES, 0, w)
    }

    #[test]
    fn greeting_and_layouts() {
        // pmcd's greeting as observed: code 0, datum 0x02010e44
        let g = [
            0, 0, 0, 20, 0, 0, 0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0x0e, 0x44,
        ];
        assert_eq!(
            decode_reply(&g),
            Ok(Reply::Error {
                code: 0,
                datum: Some(0x0201_0e44)
            })
        );
        let req = names_req(&["kernel.all.load"]);
        assert_eq!(req.len(), 12 + 12 + 4 + 16);
        assert_eq!(&req[24..28], &15i32.to_be_bytes());
        assert_eq!(&req[43..44], b"~");
        assert_eq!(instances_req(7).len(), 32);
        assert_eq!(fetch_req(&[1, 2]).len(), 12 + 16 + 8);
        assert!(decode_reply(&req[..20]).is_err());
    }

    proptest! {
        #[test]
        fn names_round_trip(names in proptest::collection::vec("[a-z][a-z0-9_.]{0,20}", 0..8)) {
            let b = names_reply(&names);
            prop_assert_eq!(decode_reply(&b), Ok(Reply::Names(names.clone())));
        }

        #[test]
        fn never_panics(b in proptest::collection::vec(any::<u8>(), 0..64), t in 0x7000i32..0x7020) {
            let mut pdu = ((b.len() + 12) as i32).to_be_bytes().to_vec();
            pdu.extend_from_slice(&t.to_be_bytes());
            pdu.extend_from_slice(&0i32.to_be_bytes());
            pdu.extend_from_slice(&b);
            let _ = decode_reply(&pdu);
        }
    }
}
