//! pmcd's client protocol, as pmlogger and pmlc speak it: names to PMIDs and back,
//! subtree traversal, descriptors, instance domains, help text, label sets,
//! profiles and fetches. Pure encoders of the requests and decoders of the
//! replies, and encoders of the replies for test servers (layouts in
//! pcp-internals §7.3).
//!
//! | reply | body after the header |
//! |---|---|
//! | DESCS 0x7017 | `numdescs i32`, 20-byte descriptors |
//! | TEXT 0x7009 | `ident u32, buflen i32`, text padded with `~` |
//! | LABEL 0x7013 | `ident u32, type i32, pad i32, nsets i32`, per set `inst, nlabels, json offset (from the PDU's start), json length`, then 8-byte labels; the JSON texts after the sets |
//! | RESULT 0x7001 | `sec i32, usec i32, numpmid i32`, value lists as in a data record |
//! | HIGHRES_RESULT 0x7015 | `numpmid i32, sec i64, nsec i64`, value lists |
//!
//! In both results a pointer value is the word index of its block from the start
//! of the PDU.

use super::{body, finish, PduCursor, PduError, W};
use archive_format::codec::cursor::Cursor;
use archive_format::codec::meta::{LabelEntry, LabelSet};
use archive_format::codec::result::{
    decode_value_sets, put_record_head, value_list, OwnedValue, OwnedValueSet, VAL_INSITU,
};
use archive_format::error::{DecodeError, DecodeErrorKind};
use archive_format::types::{Desc, InDom, PmId, Timestamp, Units};

pub const PDU_FETCH: i32 = 0x7003;
pub const PDU_DESC_REQ: i32 = 0x7004;
pub const PDU_DESC: i32 = 0x7005;
pub const PDU_INSTANCE_REQ: i32 = 0x7006;
pub const PDU_INSTANCE: i32 = 0x7007;
pub const PDU_PMNS_IDS: i32 = 0x700d;
pub const PDU_PMNS_NAMES: i32 = 0x700e;
pub const PDU_PMNS_TRAVERSE: i32 = 0x7010;
pub const PDU_TEXT_REQ: i32 = 0x7008;
pub const PDU_TEXT: i32 = 0x7009;
pub const PDU_LABEL_REQ: i32 = 0x7012;
pub const PDU_LABEL: i32 = 0x7013;
pub const PDU_HIGHRES_FETCH: i32 = 0x7014;
pub const PDU_HIGHRES_RESULT: i32 = 0x7015;
pub const PDU_DESC_IDS: i32 = 0x7016;
pub const PDU_DESCS: i32 = 0x7017;
pub const PDU_ATTR: i32 = 0x7011;

/// PCP_ATTR_CONTAINER: the container a context's metrics are of.
pub const ATTR_CONTAINER: i32 = 15;

/// pmcd's feature bits (the greeting's datum, low 16 bits).
pub mod feature {
    pub const CREDS_REQD: u32 = 0x8;
    pub const CONTAINER: u32 = 0x40;
    pub const LABELS: u32 = 0x200;
    pub const HIGHRES: u32 = 0x400;
    pub const DESCS: u32 = 0x800;
}

/// Positive "errors" pmcd sends before a fetch's result: what changed since the
/// last fetch (OR'ed).
pub mod change {
    pub const ADD_AGENT: i32 = 1;
    pub const RESTART_AGENT: i32 = 2;
    pub const DROP_AGENT: i32 = 4;
    pub const LABEL: i32 = 8;
    pub const NAMES: i32 = 16;
}
/// PM_ID_NULL: an unknown name in a PMNS_IDS reply.
pub const PM_ID_NULL: u32 = 0xffff_ffff;
/// PM_IN_NULL: every instance in an INSTANCE_REQ.
pub const PM_IN_NULL: i32 = -1;

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
    Descs(Vec<Desc>),
    /// Help text of a PMID or instance domain.
    Text {
        ident: u32,
        text: String,
    },
    /// Label sets of one kind for one identifier.
    Labels {
        ident: u32,
        ltype: i32,
        sets: Vec<LabelSet>,
    },
    /// A fetch's values (RESULT or HIGHRES_RESULT).
    Result {
        stamp: Timestamp,
        vsets: Vec<OwnedValueSet>,
    },
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
    profile_req(&[])
}

/// PROFILE: every instance of every instance domain except those listed, of which
/// only the given instances (`pmDelProfile(indom, 0, NULL)` then `pmAddProfile`
/// with the list).
pub fn profile_req(only: &[(u32, Vec<i32>)]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(0); // context
    w.i32(0); // PM_PROFILE_INCLUDE: everything not named below
    w.i32(only.len() as i32);
    w.i32(0);
    for (indom, insts) in only {
        w.u32(*indom);
        w.i32(1); // PM_PROFILE_EXCLUDE: all but the listed instances
        w.i32(insts.len() as i32);
        w.i32(0);
    }
    for (_, insts) in only {
        for i in insts {
            w.i32(*i);
        }
    }
    finish(PDU_PROFILE, 0, w)
}

/// FETCH (or HIGHRES_FETCH): the current values of some metrics.
pub fn fetch_req(pmids: &[u32]) -> Vec<u8> {
    fetch_req_of(PDU_FETCH, pmids)
}

/// HIGHRES_FETCH: as FETCH, answered with nanosecond timestamps.
pub fn highres_fetch_req(pmids: &[u32]) -> Vec<u8> {
    fetch_req_of(PDU_HIGHRES_FETCH, pmids)
}

fn fetch_req_of(ptype: i32, pmids: &[u32]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(0); // context
    w.i32(0); // unused timestamp
    w.i32(0);
    w.i32(pmids.len() as i32);
    for p in pmids {
        w.u32(*p);
    }
    finish(ptype, 0, w)
}

/// PMNS_IDS as a request: every name of a PMID (pmNameAll).
pub fn names_of_req(pmid: u32) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(0);
    w.i32(1);
    w.u32(pmid);
    finish(PDU_PMNS_IDS, 0, w)
}

/// DESC_IDS: the descriptors of several PMIDs at once (pmLookupDescs).
pub fn descs_req(pmids: &[u32]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(-1);
    w.i32(pmids.len() as i32);
    for p in pmids {
        w.u32(*p);
    }
    finish(PDU_DESC_IDS, 0, w)
}

/// TEXT_REQ: help text; `ttype` is `PM_TEXT_ONELINE`/`HELP` with `PM_TEXT_PMID`
/// or `PM_TEXT_INDOM` (and `PM_TEXT_DIRECT`, 16, for no fallback).
pub fn text_req(ident: u32, ttype: i32) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.u32(ident);
    w.i32(ttype);
    finish(PDU_TEXT_REQ, 0, w)
}

/// LABEL_REQ: the label sets of one kind (`PM_LABEL_*`) of a context (ident
/// 0xffffffff), domain, instance domain, cluster, item, or the instances of an
/// instance domain.
pub fn label_req(ident: u32, ltype: i32) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.u32(ident);
    w.i32(ltype);
    finish(PDU_LABEL_REQ, 0, w)
}

/// ATTR: a connection attribute (`ATTR_*`) and its value, sent after the
/// credentials (the value's bytes as they are, the PDU not padded).
pub fn attr_req(attr: i32, value: &[u8]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i32(attr);
    w.0.extend_from_slice(value);
    finish(PDU_ATTR, 0, w)
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

fn padded_str(r: &mut Cursor<'_>) -> Result<String, PduError> {
    let len = r.count(1)?;
    let b = r.bytes(len)?;
    // valid UTF-8 (the usual case) is copied as it is; anything else lossily
    let s = match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    };
    // the padding, where there is any (the last string may go without)
    let pad = len.div_ceil(4) * 4 - len;
    r.skip(pad.min(r.remaining()))?;
    Ok(s)
}

/// Decodes a reply from pmcd (`b` holds exactly the PDU).
///
/// Long on purpose: a dispatch on the PDU type with each reply's layout in its arm.
pub fn decode_reply(b: &[u8]) -> Result<Reply, PduError> {
    if let Some((stamp, at, numpmid)) = result_layout(b)? {
        return result(b, at, numpmid, stamp);
    }
    let (ptype, _) = super::whole(b)?;
    let mut r = body(b);
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
        PDU_DESC => Ok(Reply::Desc(get_desc(&mut r)?)),
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
        PDU_DESCS => {
            let n = r.count(20)?;
            let mut descs = Vec::with_capacity(n);
            for _ in 0..n {
                descs.push(get_desc(&mut r)?);
            }
            Ok(Reply::Descs(descs))
        }
        PDU_TEXT => {
            let ident = r.u32()?;
            let len = r.count(1)?;
            let text = String::from_utf8_lossy(r.bytes(len)?).into_owned();
            Ok(Reply::Text { ident, text })
        }
        PDU_LABEL => {
            let ident = r.u32()?;
            let ltype = r.i32()?;
            let _pad = r.i32()?;
            let n = r.count(16)?;
            let mut sets = Vec::with_capacity(n);
            for _ in 0..n {
                let inst = r.i32()?;
                let nlabels = r.i32()?;
                let json_at = r.i32()?;
                let json_len = r.i32()?;
                if !(0..=255).contains(&nlabels) {
                    return Err(PduError::BadCount(nlabels as i64));
                }
                let (at, len) = (json_at.max(0) as usize, json_len.max(0) as usize);
                if json_at < 0 || json_len < 0 || at.saturating_add(len) > b.len() {
                    return Err(PduError::Truncated {
                        need: at.saturating_add(len),
                        have: b.len(),
                    });
                }
                let json = String::from_utf8_lossy(&b[at..at + len]).into_owned();
                let mut labels = Vec::with_capacity(nlabels as usize);
                for _ in 0..nlabels {
                    let a = r.u32()?;
                    let c = r.u32()?;
                    labels.push(LabelEntry {
                        name_off: (a >> 16) as u16,
                        name_len: (a >> 8) as u8,
                        flags: a as u8,
                        value_off: (c >> 16) as u16,
                        value_len: c as u16,
                    });
                }
                sets.push(LabelSet {
                    inst,
                    json,
                    nlabels,
                    labels,
                });
            }
            Ok(Reply::Labels { ident, ltype, sets })
        }
        t => Err(PduError::UnknownType(t)),
    }
}

/// Where a RESULT or HIGHRES_RESULT PDU's values are, without decoding them:
/// `(stamp, offset of the value lists, numpmid)`; `None` for other PDUs.
pub fn result_layout(b: &[u8]) -> Result<Option<(Timestamp, usize, i32)>, PduError> {
    let (ptype, _) = super::whole(b)?;
    let mut r = body(b);
    match ptype {
        super::PDU_RESULT => {
            let sec = r.i32()?;
            let usec = r.i32()?;
            let numpmid = r.i32()?;
            if !(0..1_000_000).contains(&usec) {
                return Err(PduError::BadCount(usec as i64));
            }
            Ok(Some((
                Timestamp::new(sec as i64, usec as u32 * 1000),
                r.pos(),
                numpmid,
            )))
        }
        PDU_HIGHRES_RESULT => {
            let numpmid = r.i32()?;
            let sec = (r.u32()? as u64) << 32 | r.u32()? as u64;
            let nsec = (r.u32()? as u64) << 32 | r.u32()? as u64;
            if nsec >= 1_000_000_000 {
                return Err(PduError::BadCount(nsec as i64));
            }
            Ok(Some((
                Timestamp::new(sec as i64, nsec as u32),
                r.pos(),
                numpmid,
            )))
        }
        _ => Ok(None),
    }
}

fn result(b: &[u8], at: usize, numpmid: i32, stamp: Timestamp) -> Result<Reply, PduError> {
    let vsets = decode_value_sets(b, at, numpmid, 0, 0, |_| true)
        .map_err(|_| PduError::BadCount(numpmid as i64))?;
    Ok(Reply::Result {
        stamp,
        vsets: vsets.iter().map(OwnedValueSet::from_set).collect(),
    })
}

/// Encodes a reply as pmcd sends it (for test servers); `Result` replies are
/// HIGHRES_RESULT when `highres`, else RESULT.
pub fn encode_reply(reply: &Reply, highres: bool) -> Vec<u8> {
    let mut w = W(Vec::new());
    match reply {
        Reply::Error { code, datum } => {
            w.i32(*code);
            if let Some(d) = datum {
                w.u32(*d);
            }
            finish(super::PDU_ERROR, 0, w)
        }
        Reply::Ids(ids) => {
            w.i32(ids.iter().filter(|i| **i != PM_ID_NULL).count() as i32);
            w.i32(ids.len() as i32);
            for i in ids {
                w.u32(*i);
            }
            finish(PDU_PMNS_IDS, 0, w)
        }
        Reply::Names(names) => {
            w.i32(names.iter().map(|n| n.len() as i32 + 1).sum());
            w.i32(0);
            w.i32(names.len() as i32);
            for n in names {
                pad_str(&mut w, n);
            }
            finish(PDU_PMNS_NAMES, 0, w)
        }
        Reply::Desc(d) => {
            put_desc(&mut w, d);
            finish(PDU_DESC, 0, w)
        }
        Reply::Descs(ds) => {
            w.i32(ds.len() as i32);
            for d in ds {
                put_desc(&mut w, d);
            }
            finish(PDU_DESCS, 0, w)
        }
        Reply::Instances { indom, list } => {
            w.u32(*indom);
            w.i32(list.len() as i32);
            for (i, n) in list {
                w.i32(*i);
                pad_str(&mut w, n);
            }
            finish(PDU_INSTANCE, 0, w)
        }
        Reply::Text { ident, text } => {
            w.u32(*ident);
            pad_str(&mut w, text);
            finish(PDU_TEXT, 0, w)
        }
        Reply::Labels { ident, ltype, sets } => {
            put_labels(&mut w, *ident, *ltype, sets);
            finish(PDU_LABEL, 0, w)
        }
        Reply::Result { stamp, vsets } => {
            put_result(&mut w, *stamp, vsets, highres);
            let ty = if highres {
                PDU_HIGHRES_RESULT
            } else {
                super::PDU_RESULT
            };
            finish(ty, 0, w)
        }
    }
}

/// A LABEL PDU's body: the sets' headers and labels, then their JSON, padded.
fn put_labels(w: &mut W, ident: u32, ltype: i32, sets: &[LabelSet]) {
    w.u32(ident);
    w.i32(ltype);
    w.i32(0);
    w.i32(sets.len() as i32);
    let mut json_at = 12 + 16 + sets.iter().map(|s| 16 + 8 * s.labels.len()).sum::<usize>();
    for s in sets {
        w.i32(s.inst);
        w.i32(s.labels.len() as i32);
        w.i32(json_at as i32);
        w.i32(s.json.len() as i32);
        json_at += s.json.len();
        for l in &s.labels {
            w.u32((l.name_off as u32) << 16 | (l.name_len as u32) << 8 | l.flags as u32);
            w.u32((l.value_off as u32) << 16 | l.value_len as u32);
        }
    }
    for s in sets {
        w.0.extend_from_slice(s.json.as_bytes());
    }
    while !w.0.len().is_multiple_of(4) {
        w.0.push(b'~');
    }
}

/// A RESULT's body (HIGHRES_RESULT's when `highres`): the time, the value
/// lists and their blocks.
fn put_result(w: &mut W, stamp: Timestamp, vsets: &[OwnedValueSet], highres: bool) {
    let vlist_at = if highres {
        w.i32(vsets.len() as i32);
        w.0.extend_from_slice(&stamp.sec.to_be_bytes());
        w.0.extend_from_slice(&(stamp.nsec as u64).to_be_bytes());
        32
    } else {
        w.i32(stamp.sec as i32);
        w.i32((stamp.nsec / 1000) as i32);
        w.i32(vsets.len() as i32);
        24
    };
    put_vsets(w, vsets, vlist_at);
}

fn put_desc(w: &mut W, d: &Desc) {
    w.u32(d.pmid.0);
    w.i32(d.vtype);
    w.u32(d.indom.0);
    w.i32(d.sem);
    w.u32(d.units.0);
}

/// A descriptor as pmcd sends it (the archive's layout).
fn get_desc(r: &mut Cursor<'_>) -> Result<Desc, PduError> {
    Ok(Desc {
        pmid: PmId(r.u32()?),
        vtype: r.i32()?,
        indom: InDom(r.u32()?),
        sem: r.i32()?,
        units: Units(r.u32()?),
    })
}

/// Value lists, then their blocks; `vlist_at` is where the lists start in the PDU.
fn put_vsets(w: &mut W, vsets: &[OwnedValueSet], vlist_at: usize) {
    let mut next = vlist_at
        + vsets
            .iter()
            .map(|v| {
                8 + if v.numval > 0 {
                    4 + 8 * v.values.len()
                } else {
                    0
                }
            })
            .sum::<usize>();
    let mut blocks = Vec::new();
    for vs in vsets {
        w.u32(vs.pmid.0);
        w.i32(vs.numval);
        if vs.numval <= 0 {
            continue;
        }
        w.i32(vs.valfmt);
        for (inst, v) in &vs.values {
            w.i32(*inst);
            match v {
                OwnedValue::Insitu(x) => w.u32(*x),
                OwnedValue::Block { vtype, data } => {
                    w.u32((next / 4) as u32);
                    let len = 4 + data.len();
                    blocks.extend_from_slice(&((*vtype as u32) << 24 | len as u32).to_be_bytes());
                    blocks.extend_from_slice(data);
                    while !blocks.len().is_multiple_of(4) {
                        blocks.push(b'~');
                    }
                    next += len.div_ceil(4) * 4;
                }
            }
        }
    }
    w.0.extend_from_slice(&blocks);
}

/// A record payload's error at `off` in the PDU.
fn logrec(off: u64, what: &'static str) -> DecodeError {
    DecodeError::new(off, DecodeErrorKind::Record(what))
}

/// A data record payload made from a pmcd RESULT or HIGHRES_RESULT PDU without
/// decoding its values: the stamp in `version`'s layout, then the PDU's value lists
/// and blocks from `vlist_at` on, copied, with each pointer value's word index
/// moved by the difference of the two layouts (a block stays where it is relative
/// to the value lists). `out` is cleared and filled (reused between calls).
pub fn payload_from_pdu(
    pdu: &[u8],
    vlist_at: usize,
    numpmid: i32,
    stamp: Timestamp,
    version: u32,
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    out.clear();
    out.extend_from_slice(pdu);
    let start = payload_in_pdu(out, vlist_at, numpmid, stamp, version)?;
    out.drain(..start);
    Ok(())
}

/// [`payload_from_pdu`] in place: the payload's header (stamp and count) is
/// written over the end of the PDU's header, just before `vlist_at`, and the
/// pointer values are moved there; returns where the payload starts (`pdu[at..]`
/// is the payload). Any PDU header of RESULT or HIGHRES_RESULT has room for it.
pub fn payload_in_pdu(
    pdu: &mut [u8],
    vlist_at: usize,
    numpmid: i32,
    stamp: Timestamp,
    version: u32,
) -> Result<usize, DecodeError> {
    let mut head = Vec::with_capacity(16);
    put_record_head(&mut head, stamp, numpmid, version);
    let Some(start) = vlist_at.checked_sub(head.len()) else {
        return Err(logrec(vlist_at as u64, "no room for the record header"));
    };
    if pdu.len() < vlist_at {
        return Err(logrec(vlist_at as u64, "truncated result"));
    }
    // payload word index = PDU word index + shift (a block at payload byte p has
    // index (p + 12) / 4, see decode_result_for; in a PDU, at byte p index p / 4)
    let shift = (12 - start as i64) / 4;
    if numpmid < 0 || numpmid as usize > (pdu.len() - vlist_at) / 8 {
        return Err(logrec(vlist_at as u64, "illegal number of metrics"));
    }
    // where each pointer value is, found first (the cursor borrows the PDU)
    let mut patch = Vec::new();
    {
        let mut c = Cursor::new(&pdu[vlist_at..], vlist_at as u64);
        for _ in 0..numpmid {
            let (_, numval, valfmt, _) = value_list(&mut c)?;
            if numval > 0 && valfmt != VAL_INSITU {
                // each pair's value word, in the list just read
                let list = vlist_at + c.pos() - 8 * numval as usize;
                patch.extend((0..numval as usize).map(|j| list + 8 * j + 4));
            }
        }
    }
    for at in patch {
        let w = u32::from_be_bytes([pdu[at], pdu[at + 1], pdu[at + 2], pdu[at + 3]]);
        let moved = (w as i64 + shift) as u32;
        pdu[at..at + 4].copy_from_slice(&moved.to_be_bytes());
    }
    pdu[start..vlist_at].copy_from_slice(&head);
    Ok(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Replies built the way pmcd lays them out, for the decoder.
    fn names_reply(names: &[String]) -> Vec<u8> {
        encode_reply(&Reply::Names(names.to_vec()), false)
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
