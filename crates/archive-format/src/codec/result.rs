//! Data-volume records: a pmResult as stored in an archive.
//!
//! Payload (between the framing words):
//!
//! | field | size |
//! |-------|------|
//! | timestamp | v2: sec i32, usec i32; v3: sec (2 words, low first), nsec i32 |
//! | numpmid | i32 (0 = `<mark>` record) |
//! | value sets | numpmid x {pmid u32, numval i32, \[valfmt i32, numval x {inst i32, value u32}\] } |
//! | value blocks | each: vtype:8 \| vlen:24, payload, padded to 4 bytes |
//!
//! `valfmt` is present only when `numval > 0`. For DPTR/SPTR values the `value` word is
//! a word index counted from 8 bytes before the record's length word.

use super::cursor::{Cursor, PutBe};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::types::{PmId, Timestamp};

pub const VAL_INSITU: i32 = 0;
pub const VAL_DPTR: i32 = 1;
pub const VAL_SPTR: i32 = 2;

mod inplace;
pub use inplace::{
    raw_result_into, raw_value_sets, raw_value_sets_into, CheckedValues, RawValueSet,
};

/// A value: in the value word itself, or a pointer to a value block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    Insitu(u32),
    /// A `pmValueBlock`: its type byte and payload (without the header word or padding).
    Block {
        vtype: u8,
        data: &'a [u8],
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSet<'a> {
    pub pmid: PmId,
    /// Number of values, or a negative PCP error code.
    pub numval: i32,
    /// `PM_VAL_INSITU`, `PM_VAL_DPTR` or `PM_VAL_SPTR` (0 when numval <= 0).
    pub valfmt: i32,
    /// (instance, value) pairs; one is held inline.
    pub values: Values<'a>,
}

/// The values of a value set: most sets have one, held without an allocation.
pub type Values<'a> = smallvec::SmallVec<[(i32, Value<'a>); 1]>;

/// A decoded data record (a pmResult). No value sets means a `<mark>` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRecord<'a> {
    pub stamp: Timestamp,
    pub vsets: Vec<ValueSet<'a>>,
}

impl ResultRecord<'_> {
    pub fn is_mark(&self) -> bool {
        self.vsets.is_empty()
    }
    /// Record size as `pmdumplog -s` reports it.
    pub fn size(&self, version: u32) -> usize {
        record_size(version, &self.vsets)
    }
}

/// The on-disk size of a record holding `vsets` (what `pmdumplog -s` reports; with
/// metric arguments the reference reports the size of the record cut down to them).
pub fn record_size<'v, 'a: 'v>(
    version: u32,
    vsets: impl IntoIterator<Item = &'v ValueSet<'a>>,
) -> usize {
    let mut n = 4 + if version >= 3 { 12 } else { 8 } + 4 + 4;
    for vs in vsets {
        n += 8;
        if vs.numval > 0 {
            n += 4;
            for (_, v) in &vs.values {
                n += 8;
                if let Value::Block { data, .. } = v {
                    n += (data.len() + 4).div_ceil(4) * 4;
                }
            }
        }
    }
    n
}

fn logrec(off: u64, what: &'static str) -> DecodeError {
    DecodeError::new(off, DecodeErrorKind::Record(what))
}

/// Decodes the timestamp at the start of a record payload.
pub fn decode_stamp(payload: &[u8], base: u64, version: u32) -> Result<Timestamp, DecodeError> {
    read_stamp(&mut Cursor::new(payload, base), version >= 3)
}

/// A timestamp at the cursor in a v3 layout (64-bit seconds, nanoseconds) or a
/// v2 one (32-bit seconds, microseconds), its fraction clamped as libpcp's is.
pub(crate) fn read_stamp(c: &mut Cursor, v3: bool) -> Result<Timestamp, DecodeError> {
    if v3 {
        let sec = c.sec64()?;
        let nsec = c.u32()?;
        Ok(Timestamp::new(sec, nsec.min(999_999_999)))
    } else {
        let sec = c.i32()? as i64;
        let usec = c.i32()?;
        Ok(Timestamp::new(sec, usec.clamp(0, 999_999) as u32 * 1000))
    }
}

/// A data record's head in `version`'s layout: its time, then `numpmid`.
pub fn put_record_head(out: &mut Vec<u8>, stamp: Timestamp, numpmid: i32, version: u32) {
    if version >= 3 {
        out.put_sec64(stamp.sec);
        out.put_u32(stamp.nsec);
    } else {
        out.put_i32(stamp.sec as i32);
        out.put_i32((stamp.nsec / 1000) as i32);
    }
    out.put_i32(numpmid);
}

/// One value list's head, at the cursor: PMID, count, value format (0 without
/// values) and the `(inst, value)` pairs, checked against what the payload holds.
/// (A RESULT PDU's value lists are laid out as a record's.)
pub fn value_list<'a>(c: &mut Cursor<'a>) -> Result<(PmId, i32, i32, &'a [u8]), DecodeError> {
    let pmid = PmId(c.u32()?);
    let numval = c.i32()?;
    if numval <= 0 {
        return Ok((pmid, numval, 0, &[]));
    }
    let valfmt = c.i32()?;
    if !(VAL_INSITU..=VAL_SPTR).contains(&valfmt) {
        return Err(logrec(c.offset() - 4, "illegal value format"));
    }
    if numval as usize > c.remaining() / 8 {
        return Err(logrec(c.offset() - 8, "illegal number of values"));
    }
    Ok((pmid, numval, valfmt, c.bytes(numval as usize * 8)?))
}

/// Whether a data record payload is exactly what [`encode_result`] makes of its
/// decoded form in the same `version` (stamp in range, value blocks right after the
/// value lists in their order, each padded with `~`, nothing else): then the payload
/// can be copied instead of decoded and re-encoded. Collects the record's PMIDs into
/// `pmids` (cleared first). Never fails: anything unusual is just not canonical.
pub fn scan_canonical(payload: &[u8], version: u32, pmids: &mut Vec<PmId>) -> bool {
    pmids.clear();
    // the big-endian word at `o`, with one bounds check
    let word = |o: usize| {
        payload
            .get(o..)
            .and_then(|b| b.first_chunk::<4>())
            .map(|w| u32::from_be_bytes(*w))
    };
    // the stamp reads back as written unless decode_stamp clamps its fraction, then
    // the count of value sets
    let (hlen, limit) = if version >= 3 {
        (12, 999_999_999)
    } else {
        (8, 999_999)
    };
    let (Some(frac), Some(numpmid)) = (word(hlen - 4), word(hlen)) else {
        return false;
    };
    let numpmid = numpmid as usize;
    if frac > limit || numpmid > payload.len() / 8 {
        return false;
    }
    pmids.reserve(numpmid);
    // one pass over the value lists: the first pointer says where the value
    // blocks start (right after the lists, if the record is canonical), every
    // later one must point just past the previous block, and the lists must end
    // where the blocks start; blocks are `len | type` words and '~' padding
    let mut off = hlen + 4;
    let mut first: Option<usize> = None;
    let mut next = 0;
    for _ in 0..numpmid {
        // pmid and numval
        let Some(set) = payload.get(off..).and_then(|b| b.first_chunk::<8>()) else {
            return false;
        };
        let set = u64::from_be_bytes(*set);
        pmids.push(PmId((set >> 32) as u32));
        off += 8;
        let numval = set as u32 as i32;
        if numval <= 0 {
            continue;
        }
        // valfmt, then the list
        let numval = numval as usize;
        if numval > payload.len() / 8 {
            return false;
        }
        let end = off + 4 + 8 * numval;
        let Some((valfmt, list)) = payload
            .get(off..end)
            .and_then(|b| b.split_first_chunk::<4>())
        else {
            return false;
        };
        off = end;
        let valfmt = u32::from_be_bytes(*valfmt);
        if valfmt > VAL_SPTR as u32 {
            return false;
        }
        if valfmt == VAL_INSITU as u32 {
            continue;
        }
        for v in list.chunks_exact(8) {
            // the pointer counts words from the record's length word
            let ptr = u32::from_be_bytes([v[4], v[5], v[6], v[7]]) as usize * 4;
            let Some(at) = ptr.checked_sub(12) else {
                return false;
            };
            if first.is_none() {
                first = Some(at);
                next = at;
            }
            if at != next {
                return false;
            }
            let Some(hdr) = word(at) else {
                return false;
            };
            let len = (hdr & 0x00ff_ffff) as usize;
            if len < 4 {
                return false;
            }
            let padded = (len + 3) & !3;
            let Some(pad) = payload.get(at + len..at + padded) else {
                return false;
            };
            if pad.iter().any(|&b| b != b'~') {
                return false;
            }
            next = at + padded;
        }
    }
    match first {
        Some(first) => first == off && next == payload.len(),
        None => off == payload.len(),
    }
}

/// Decodes a data record payload; `base` is the file offset of `payload[0]` (the byte
/// after the leading length word).
pub fn decode_result(
    payload: &[u8],
    base: u64,
    version: u32,
) -> Result<ResultRecord<'_>, DecodeError> {
    decode_result_for(payload, base, version, |_| true)
}

/// A data record payload's number of value sets, and where its sets start when
/// they are cut into `parts` runs of equal length (the last shorter): each run's
/// first set's place and the offset of its value list in the payload, for
/// [`decode_result_part`]. Reads only the value lists' heads; stops where they
/// stop making sense (the record's check names the fault).
pub fn value_set_starts(
    payload: &[u8],
    version: u32,
    parts: usize,
) -> (usize, Vec<(usize, usize)>) {
    let mut out = Vec::new();
    let mut c = Cursor::new(payload, 0);
    if c.skip(if version >= 3 { 12 } else { 8 }).is_err() {
        return (0, out);
    }
    let numpmid = c.i32().map_or(0, |n| usize::try_from(n).unwrap_or(0));
    let numpmid = numpmid.min(payload.len() / 8);
    let every = numpmid.div_ceil(parts.max(1)).max(1);
    for k in 0..numpmid {
        if k % every == 0 {
            out.push((k, c.pos()));
        }
        if value_list(&mut c).is_err() {
            break;
        }
    }
    (numpmid, out)
}

/// `count` value sets of a data record payload, with their values, from the one at
/// `start` (its place and the offset of its value list, from [`value_set_starts`]):
/// a large record decoded in parts (on several threads, say) once it has been
/// checked whole by [`decode_result`] or [`decode_result_for`]. The parts are not
/// checked against each other again; anything out of place is still an error,
/// never a panic.
pub fn decode_result_part(
    payload: &[u8],
    base: u64,
    version: u32,
    start: (usize, usize),
    count: usize,
) -> Result<ResultRecord<'_>, DecodeError> {
    let stamp = decode_stamp(payload, base, version)?;
    let mut c = Cursor::new(payload, base);
    c.skip(start.1)?;
    let mut vsets = Vec::with_capacity(count.min(payload.len() / 8));
    for _ in 0..count {
        let (pmid, numval, valfmt, list) = value_list(&mut c)?;
        let mut values = Values::new();
        if numval > 1 {
            values.reserve(numval as usize);
        }
        for pair in list.chunks_exact(8) {
            let inst = i32::from_be_bytes([pair[0], pair[1], pair[2], pair[3]]);
            let w = u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]);
            if valfmt == VAL_INSITU {
                values.push((inst, Value::Insitu(w)));
                continue;
            }
            match block_at(payload, w, 12) {
                Some((_, _, v)) => values.push((inst, v)),
                None => return Err(logrec(c.offset(), "value block outside its record")),
            }
        }
        vsets.push(ValueSet {
            pmid,
            numval,
            valfmt,
            values,
        });
    }
    Ok(ResultRecord { stamp, vsets })
}

/// Like [`decode_result`], but the values of metrics `keep` rejects are not
/// collected (their value sets are there, with `numval` and `valfmt`, and no
/// values). The record is validated the same way.
pub fn decode_result_for<'a>(
    payload: &'a [u8],
    base: u64,
    version: u32,
    keep: impl Fn(PmId) -> bool,
) -> Result<ResultRecord<'a>, DecodeError> {
    let (stamp, vlist_at, numpmid) = result_head(payload, base, version)?;
    // block word indices count from 8 bytes before the record's length word
    let vsets = decode_value_sets(payload, vlist_at, numpmid, 12, base, keep)?;
    Ok(ResultRecord { stamp, vsets })
}

/// The time of a data record and the value sets of the metrics `keep` accepts,
/// with their values, the others left out; and how many sets the record holds (0
/// for a `<mark>`). Checked as [`decode_result`] checks it, with its errors. For a
/// reader of a few metrics of records of many: nothing is collected for the
/// others.
pub fn decode_result_kept<'a>(
    payload: &'a [u8],
    base: u64,
    version: u32,
    keep: impl Fn(PmId) -> bool,
) -> Result<(ResultRecord<'a>, usize), DecodeError> {
    let (stamp, vlist_at, numpmid) = result_head(payload, base, version)?;
    let vsets = value_sets(payload, (vlist_at, numpmid), 12, base, keep, true)?;
    Ok((ResultRecord { stamp, vsets }, numpmid as usize))
}

/// A data record's time, where its value lists start and how many there are.
fn result_head(
    payload: &[u8],
    base: u64,
    version: u32,
) -> Result<(Timestamp, usize, i32), DecodeError> {
    let stamp = decode_stamp(payload, base, version)?;
    let (vlist_at, numpmid) = sets_head(payload, base, version)?;
    Ok((stamp, vlist_at, numpmid))
}

/// Where a data record's value lists start and how many there are (`base`: the
/// file offset of `payload[0]`, for errors).
pub(super) fn sets_head(
    payload: &[u8],
    base: u64,
    version: u32,
) -> Result<(usize, i32), DecodeError> {
    let mut c = Cursor::new(payload, base);
    c.skip(if version >= 3 { 12 } else { 8 })?;
    let numpmid = c.i32()?;
    if numpmid < 0 || numpmid as usize > c.remaining() / 8 {
        return Err(logrec(
            c.offset() - 4,
            "illegal number of metrics in record",
        ));
    }
    Ok((c.pos(), numpmid))
}

/// Decodes `numpmid` value sets starting at `vlist_at` in `buf`, with their value
/// blocks; a pointer value's word index `w` is the block at byte `w * 4 - shift` of
/// `buf` (12 for a record payload, 0 for a whole PDU). `base` is the file or stream
/// offset of `buf[0]`, for errors. Shared by data records and pmcd's RESULT PDUs,
/// whose value lists have the same layout.
pub fn decode_value_sets<'a>(
    buf: &'a [u8],
    vlist_at: usize,
    numpmid: i32,
    shift: i64,
    base: u64,
    keep: impl Fn(PmId) -> bool,
) -> Result<Vec<ValueSet<'a>>, DecodeError> {
    value_sets(buf, (vlist_at, numpmid), shift, base, keep, false)
}

/// [`decode_value_sets`]; with `only_kept`, the sets `keep` rejects left out.
fn value_sets<'a>(
    buf: &'a [u8],
    (vlist_at, numpmid): (usize, i32),
    shift: i64,
    base: u64,
    keep: impl Fn(PmId) -> bool,
    only_kept: bool,
) -> Result<Vec<ValueSet<'a>>, DecodeError> {
    if let Some(vsets) = value_sets_in_one_pass(buf, vlist_at, numpmid, shift, &keep, only_kept) {
        return Ok(vsets);
    }
    // something is wrong: the careful pass names the first fault as libpcp does
    let all = value_sets_checked(buf, vlist_at, numpmid, shift, base, &keep)?;
    Ok(match only_kept {
        true => all.into_iter().filter(|s| keep(s.pmid)).collect(),
        false => all,
    })
}

/// [`decode_value_sets`] of a sound record in one pass: each value block is
/// checked where its pointer is met (the end of the value lists, which a block
/// must start after, is checked at the end). `None` at the first sign of damage,
/// without saying what it is. `only_kept`: the sets `keep` rejects are left out.
fn value_sets_in_one_pass<'a>(
    payload: &'a [u8],
    vlist_at: usize,
    numpmid: i32,
    shift: i64,
    keep: &impl Fn(PmId) -> bool,
    only_kept: bool,
) -> Option<Vec<ValueSet<'a>>> {
    let mut c = Cursor::new(payload, 0);
    c.skip(vlist_at).ok()?;
    if numpmid < 0 || numpmid as usize > c.remaining() / 8 {
        return None;
    }
    let mut vsets = Vec::with_capacity(if only_kept { 0 } else { numpmid as usize });
    let mut first_block = payload.len();
    let mut blocks = 0usize;
    for _ in 0..numpmid {
        let (pmid, numval, valfmt, list) = value_list(&mut c).ok()?;
        let kept = keep(pmid);
        let mut values = Values::new();
        if kept && numval > 1 {
            values.reserve(numval as usize);
        }
        for pair in list.chunks_exact(8) {
            let w = u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]);
            let v = if valfmt == VAL_INSITU {
                Value::Insitu(w)
            } else {
                let (at, padded, v) = block_at(payload, w, shift)?;
                first_block = first_block.min(at);
                blocks += padded;
                v
            };
            if kept {
                let inst = i32::from_be_bytes([pair[0], pair[1], pair[2], pair[3]]);
                values.push((inst, v));
            }
        }
        if kept || !only_kept {
            vsets.push(ValueSet {
                pmid,
                numval,
                valfmt,
                values,
            });
        }
    }
    // every block after the value lists, and together they fill the rest
    let vlist_end = c.pos();
    (first_block == vlist_end && vlist_end + blocks == payload.len()).then_some(vsets)
}

/// The value block a pointer value names (`w` counts words; the block is at byte
/// `w * 4 - shift` of `payload`): where it starts, its length padded to a word,
/// and the value. `None` unless it lies whole inside `payload`.
#[inline(always)]
fn block_at(payload: &[u8], w: u32, shift: i64) -> Option<(usize, usize, Value<'_>)> {
    let at = usize::try_from(w as i64 * 4 - shift).ok()?;
    let hdr = payload.get(at..at.checked_add(4)?)?;
    let hdr = u32::from_be_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]);
    let vlen = (hdr & 0x00ff_ffff) as usize;
    if vlen < 4 {
        return None;
    }
    let data = payload.get(at + 4..at.checked_add(vlen)?)?;
    let vtype = (hdr >> 24) as u8;
    Some((at, vlen.div_ceil(4) * 4, Value::Block { vtype, data }))
}

/// The value block pointer word `w` names (at byte `w*4 - shift` of `payload`),
/// checked as libpcp checks it: after the value lists (which end at
/// `vlist_end`), its header and data within the record. Its offset, length and
/// value; an error names its offset counted from `base`.
pub(super) fn checked_block(
    payload: &[u8],
    w: u32,
    shift: i64,
    vlist_end: usize,
    base: u64,
) -> Result<(usize, usize, Value<'_>), DecodeError> {
    let at = (w as i64) * 4 - shift;
    if at < vlist_end as i64 || at as usize + 4 > payload.len() {
        return Err(logrec(
            base + vlist_end as u64,
            "value block outside its record",
        ));
    }
    let at = at as usize;
    let hdr = u32::from_be_bytes([
        payload[at],
        payload[at + 1],
        payload[at + 2],
        payload[at + 3],
    ]);
    let vlen = (hdr & 0x00ff_ffff) as usize;
    if vlen < 4 || at + vlen > payload.len() {
        return Err(logrec(base + at as u64, "illegal value block length"));
    }
    let data = &payload[at + 4..at + vlen];
    let vtype = (hdr >> 24) as u8;
    Ok((at, vlen, Value::Block { vtype, data }))
}

/// [`decode_value_sets`] checking each thing in libpcp's order, for its error.
fn value_sets_checked<'a>(
    buf: &'a [u8],
    vlist_at: usize,
    numpmid: i32,
    shift: i64,
    base: u64,
    keep: impl Fn(PmId) -> bool,
) -> Result<Vec<ValueSet<'a>>, DecodeError> {
    let payload = buf;
    let mut c = Cursor::new(payload, base);
    c.skip(vlist_at)?;
    if numpmid < 0 || numpmid as usize > c.remaining() / 8 {
        return Err(logrec(c.offset(), "illegal number of metrics"));
    }
    let mut vsets = Vec::with_capacity(numpmid as usize);
    // (vset index, value index, word index, kept) of pointer values, checked after
    // the vlist
    let mut ptrs: Vec<(usize, usize, u32, bool)> = Vec::new();
    for _ in 0..numpmid {
        let (pmid, numval, valfmt, list) = value_list(&mut c)?;
        let mut values = Values::new();
        let kept = keep(pmid);
        if kept && numval > 1 {
            values.reserve(numval as usize);
        }
        // (no values: the list is empty)
        for (j, pair) in list.chunks_exact(8).enumerate() {
            let w = u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]);
            if kept {
                let inst = i32::from_be_bytes([pair[0], pair[1], pair[2], pair[3]]);
                values.push((inst, Value::Insitu(w)));
            }
            if valfmt != VAL_INSITU {
                ptrs.push((vsets.len(), j, w, kept));
            }
        }
        vsets.push(ValueSet {
            pmid,
            numval,
            valfmt,
            values,
        });
    }
    let vlist_end = c.pos();
    // libpcp's accounting: the value blocks start where the value lists end and
    // fill the rest of the record exactly, each padded to a word (a record whose
    // value-format word or metric count was damaged fails here)
    let mut first_block = payload.len();
    let mut blocks = 0usize;
    for (i, j, w, kept) in ptrs {
        // byte offset within the record = w*4 - 8; within the payload 4 less
        let (at, vlen, v) = checked_block(payload, w, shift, vlist_end, base)?;
        first_block = first_block.min(at);
        blocks += vlen.div_ceil(4) * 4;
        if kept {
            vsets[i].values[j].1 = v;
        }
    }
    if first_block != vlist_end || vlist_end + blocks != payload.len() {
        return Err(logrec(
            base + vlist_end as u64,
            "value lists and value blocks do not fill the record",
        ));
    }
    Ok(vsets)
}

/// The bytes of an owned value block: up to 8 (a 64-bit integer or a double, the
/// usual case) are kept inline, so building a result does not allocate per value.
pub type BlockData = smallvec::SmallVec<[u8; 8]>;

/// Owned form of a value, for building records to encode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedValue {
    Insitu(u32),
    Block { vtype: u8, data: BlockData },
}

impl OwnedValue {
    pub fn from_value(v: &Value<'_>) -> OwnedValue {
        match *v {
            Value::Insitu(w) => OwnedValue::Insitu(w),
            Value::Block { vtype, data } => OwnedValue::Block {
                vtype,
                data: BlockData::from_slice(data),
            },
        }
    }
    /// A borrowed [`Value`], for [`crate::format::format_value`] and
    /// [`crate::atom::extract`].
    pub fn as_value(&self) -> Value<'_> {
        match self {
            OwnedValue::Insitu(w) => Value::Insitu(*w),
            OwnedValue::Block { vtype, data } => Value::Block {
                vtype: *vtype,
                data,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedValueSet {
    pub pmid: PmId,
    pub numval: i32,
    pub valfmt: i32,
    pub values: Vec<(i32, OwnedValue)>,
}

impl OwnedValueSet {
    /// An owned copy of a decoded value set.
    pub fn from_set(vs: &ValueSet<'_>) -> OwnedValueSet {
        OwnedValueSet {
            pmid: vs.pmid,
            numval: vs.numval,
            valfmt: vs.valfmt,
            values: vs
                .values
                .iter()
                .map(|(i, v)| (*i, OwnedValue::from_value(v)))
                .collect(),
        }
    }

    /// A set of 32-bit values stored in place (`PM_VAL_INSITU`), `(instance, value)`
    /// each; an empty set has no value format.
    /// A borrowed view of the set, as a decoded record gives it.
    pub fn view(&self) -> ValueSet<'_> {
        ValueSet {
            pmid: self.pmid,
            numval: self.numval,
            valfmt: self.valfmt,
            values: self
                .values
                .iter()
                .map(|(i, v)| (*i, v.as_value()))
                .collect(),
        }
    }

    pub fn insitu(pmid: PmId, vals: Vec<(i32, u32)>) -> OwnedValueSet {
        OwnedValueSet {
            pmid,
            numval: vals.len() as i32,
            valfmt: if vals.is_empty() { 0 } else { VAL_INSITU },
            values: vals
                .into_iter()
                .map(|(i, v)| (i, OwnedValue::Insitu(v)))
                .collect(),
        }
    }
}

/// A value set as the encoder reads it: decoded from a record (borrowed) or
/// owned, so that a record can be written again with only some of its sets
/// rebuilt.
pub trait SetView {
    fn pmid(&self) -> PmId;
    /// Number of values, or a negative PCP error code.
    fn numval(&self) -> i32;
    fn valfmt(&self) -> i32;
    /// The (instance, value) pairs.
    fn pairs(&self) -> impl Iterator<Item = (i32, Value<'_>)>;
}

impl SetView for OwnedValueSet {
    fn pmid(&self) -> PmId {
        self.pmid
    }
    fn numval(&self) -> i32 {
        self.numval
    }
    fn valfmt(&self) -> i32 {
        self.valfmt
    }
    fn pairs(&self) -> impl Iterator<Item = (i32, Value<'_>)> {
        self.values.iter().map(|(i, v)| (*i, v.as_value()))
    }
}

impl SetView for ValueSet<'_> {
    fn pmid(&self) -> PmId {
        self.pmid
    }
    fn numval(&self) -> i32 {
        self.numval
    }
    fn valfmt(&self) -> i32 {
        self.valfmt
    }
    fn pairs(&self) -> impl Iterator<Item = (i32, Value<'_>)> {
        self.values.iter().map(|(i, v)| (*i, *v))
    }
}

/// A set of a record being written again: as read, or rebuilt.
#[derive(Debug, Clone)]
pub enum SetOf<'r, 'a> {
    Read(&'r ValueSet<'a>),
    Rebuilt(OwnedValueSet),
}

impl SetView for SetOf<'_, '_> {
    fn pmid(&self) -> PmId {
        match self {
            SetOf::Read(s) => s.pmid,
            SetOf::Rebuilt(s) => s.pmid,
        }
    }
    fn numval(&self) -> i32 {
        match self {
            SetOf::Read(s) => s.numval,
            SetOf::Rebuilt(s) => s.numval,
        }
    }
    fn valfmt(&self) -> i32 {
        match self {
            SetOf::Read(s) => s.valfmt,
            SetOf::Rebuilt(s) => s.valfmt,
        }
    }
    fn pairs(&self) -> impl Iterator<Item = (i32, Value<'_>)> {
        let (read, rebuilt) = match self {
            SetOf::Read(s) => (Some(s.pairs()), None),
            SetOf::Rebuilt(s) => (None, Some(s.pairs())),
        };
        read.into_iter()
            .flatten()
            .chain(rebuilt.into_iter().flatten())
    }
}

/// Encodes a data record payload (no framing). Value blocks follow the value sets in
/// vlist order, padded with `~` as libpcp does.
pub fn encode_result<S: SetView>(stamp: Timestamp, vsets: &[S], version: u32) -> Vec<u8> {
    // sized up front: the stamp and count, the value lists, then the blocks
    let mut vlist_len = 0usize;
    let mut blocks_len = 0usize;
    for vs in vsets {
        vlist_len += 8;
        if vs.numval() > 0 {
            for (_, v) in vs.pairs() {
                vlist_len += 8;
                if let Value::Block { data, .. } = v {
                    blocks_len += (4 + data.len()).next_multiple_of(4);
                }
            }
            vlist_len += 4;
        }
    }
    let mut head = Vec::with_capacity(16 + vlist_len + blocks_len);
    put_record_head(&mut head, stamp, vsets.len() as i32, version);
    // word index of the first block: 8 bytes before the record + 4 (len) + head + vlist
    let mut blocks = Vec::with_capacity(blocks_len);
    let first = 8 + 4 + head.len() + vlist_len;
    for vs in vsets {
        head.put_u32(vs.pmid().0);
        head.put_i32(vs.numval());
        if vs.numval() > 0 {
            head.put_i32(vs.valfmt());
            for (inst, v) in vs.pairs() {
                head.put_i32(inst);
                match v {
                    Value::Insitu(w) => head.put_u32(w),
                    Value::Block { vtype, data } => {
                        head.put_u32(((first + blocks.len()) / 4) as u32);
                        blocks.put_u32((vtype as u32) << 24 | (data.len() as u32 + 4));
                        blocks.extend_from_slice(data);
                        while blocks.len() % 4 != 0 {
                            blocks.push(b'~');
                        }
                    }
                }
            }
        }
    }
    head.extend_from_slice(&blocks);
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_blocks() {
        let vsets = vec![
            OwnedValueSet {
                pmid: PmId::new(29, 0, 1),
                numval: 2,
                valfmt: VAL_INSITU,
                values: vec![(1, OwnedValue::Insitu(7)), (2, OwnedValue::Insitu(9))],
            },
            OwnedValueSet {
                pmid: PmId::new(29, 0, 2),
                numval: -12350,
                valfmt: 0,
                values: vec![],
            },
            OwnedValueSet {
                pmid: PmId::new(29, 0, 3),
                numval: 1,
                valfmt: VAL_DPTR,
                values: vec![(
                    -1,
                    OwnedValue::Block {
                        vtype: 6,
                        data: BlockData::from_slice(b"hullo\0"),
                    },
                )],
            },
        ];
        for v in [2, 3] {
            let p = encode_result(Timestamp::new(100, 5000), &vsets, v);
            assert_eq!(p.len() % 4, 0);
            let r = decode_result(&p, 4, v).unwrap();
            assert_eq!(r.vsets.len(), 3);
            assert_eq!(r.vsets[0].values[1], (2, Value::Insitu(9)));
            assert_eq!(r.vsets[1].numval, -12350);
            assert_eq!(
                r.vsets[2].values[0].1,
                Value::Block {
                    vtype: 6,
                    data: b"hullo\0"
                }
            );
            assert_eq!(r.size(v), p.len() + 8);
            // written again from the sets as read, or some of them rebuilt:
            // the same bytes
            let stamp = Timestamp::new(100, 5000);
            assert_eq!(encode_result(stamp, &r.vsets, v), p);
            let mixed = [
                SetOf::Rebuilt(vsets[0].clone()),
                SetOf::Read(&r.vsets[1]),
                SetOf::Read(&r.vsets[2]),
            ];
            assert_eq!(encode_result(stamp, &mixed, v), p);
            let mut changed = vsets[0].clone();
            changed.values.pop();
            changed.numval = 1;
            let mixed = [SetOf::Rebuilt(changed), SetOf::Read(&r.vsets[2])];
            let again = encode_result(stamp, &mixed, v);
            let back = decode_result(&again, 4, v).unwrap();
            assert_eq!(back.vsets[0].values.len(), 1);
            assert_eq!(back.vsets[1].values[0].1, r.vsets[2].values[0].1);
        }
    }

    fn sets_strategy() -> impl proptest::strategy::Strategy<Value = Vec<OwnedValueSet>> {
        use proptest::prelude::*;
        let value = prop_oneof![
            any::<u32>().prop_map(OwnedValue::Insitu),
            (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..13)).prop_map(|(vtype, d)| {
                OwnedValue::Block {
                    vtype,
                    data: BlockData::from_slice(&d),
                }
            }),
        ];
        let set = (
            any::<u32>(),
            -3i32..4,
            proptest::collection::vec((any::<i32>(), value), 1..5),
        )
            .prop_map(|(pmid, n, values)| {
                if n <= 0 {
                    return OwnedValueSet {
                        pmid: PmId(pmid),
                        numval: n,
                        valfmt: 0,
                        values: vec![],
                    };
                }
                // one format per set, as records have
                let block = matches!(values[0].1, OwnedValue::Block { .. });
                let values: Vec<_> = values
                    .into_iter()
                    .filter(|(_, v)| matches!(v, OwnedValue::Block { .. }) == block)
                    .collect();
                OwnedValueSet {
                    pmid: PmId(pmid),
                    numval: values.len() as i32,
                    valfmt: if block { VAL_DPTR } else { VAL_INSITU },
                    values,
                }
            });
        proptest::collection::vec(set, 0..6)
    }

    proptest::proptest! {
        /// The one-pass decoder gives what the careful one gives on sound records,
        /// and on damaged ones either the same or gives way to it (never a
        /// different decoding).
        #[test]
        fn one_pass_agrees_with_the_careful_decoder(
            sets in sets_strategy(),
            v3 in proptest::prelude::any::<bool>(),
            keep_odd in proptest::prelude::any::<bool>(),
            damage in proptest::collection::vec((0usize..400, proptest::prelude::any::<u8>()), 0..3),
        ) {
            let version = if v3 { 3 } else { 2 };
            let mut p = encode_result(Timestamp::new(7, 0), &sets, version);
            let sound = damage.is_empty();
            for (at, b) in damage {
                if let Some(x) = p.get_mut(at) {
                    *x = b;
                }
            }
            let at = if v3 { 16 } else { 12 };
            if p.len() < at {
                return Ok(());
            }
            let numpmid = i32::from_be_bytes([p[at - 4], p[at - 3], p[at - 2], p[at - 1]]);
            let keep = |pmid: PmId| !keep_odd || pmid.0 % 2 == 1;
            let fast = value_sets_in_one_pass(&p, at, numpmid, 12, &keep, false);
            let careful = value_sets_checked(&p, at, numpmid, 12, 0, keep);
            if sound {
                proptest::prop_assert!(fast.is_some());
            }
            if let Some(f) = fast {
                proptest::prop_assert_eq!(Some(f), careful.ok());
            }
        }
    }

    proptest::proptest! {
        /// A record read in place is the record decoded: its time, its sets and
        /// each value, or (damaged) the same error.
        #[test]
        fn read_in_place_is_decoded(
            sets in sets_strategy(),
            v3 in proptest::prelude::any::<bool>(),
            damage in proptest::collection::vec((0usize..400, proptest::prelude::any::<u8>()), 0..3),
        ) {
            let version = if v3 { 3 } else { 2 };
            let mut p = encode_result(Timestamp::new(7, 5000), &sets, version);
            for (at, b) in damage {
                if let Some(x) = p.get_mut(at) {
                    *x = b;
                }
            }
            let mut raw = Vec::new();
            let got = raw_result_into(&p, 100, version, &mut raw);
            let want = decode_result(&p, 100, version);
            match (got, want) {
                (Ok(stamp), Ok(rec)) => {
                    proptest::prop_assert_eq!(stamp, rec.stamp);
                    proptest::prop_assert_eq!(raw.len(), rec.vsets.len());
                    for (r, d) in raw.iter().zip(&rec.vsets) {
                        proptest::prop_assert_eq!((r.pmid, r.numval), (d.pmid, d.numval));
                        if d.numval > 0 {
                            proptest::prop_assert_eq!(r.valfmt, d.valfmt);
                        }
                        let values: Vec<_> = r.checked_values().collect();
                        proptest::prop_assert_eq!(&values[..], &d.values[..]);
                    }
                }
                (Err(g), Err(w)) => proptest::prop_assert_eq!(g, w),
                (g, w) => proptest::prop_assert!(false, "read in place {:?}, decoded {:?}", g, w),
            };
        }
    }

    proptest::proptest! {
        /// A record decoded for some metrics is the record decoded, less the other
        /// metrics' sets, with the count of all; or (damaged) the same error.
        #[test]
        fn kept_sets_are_those_of_the_whole(
            sets in sets_strategy(),
            v3 in proptest::prelude::any::<bool>(),
            damage in proptest::collection::vec((0usize..400, proptest::prelude::any::<u8>()), 0..3),
        ) {
            let version = if v3 { 3 } else { 2 };
            let mut p = encode_result(Timestamp::new(7, 5000), &sets, version);
            for (at, b) in damage {
                if let Some(x) = p.get_mut(at) {
                    *x = b;
                }
            }
            let keep = |pmid: PmId| pmid.0 % 3 == 1;
            match (decode_result_kept(&p, 100, version, keep), decode_result(&p, 100, version)) {
                (Ok((kept, n)), Ok(whole)) => {
                    proptest::prop_assert_eq!(kept.stamp, whole.stamp);
                    proptest::prop_assert_eq!(n, whole.vsets.len());
                    let want: Vec<_> = whole.vsets.iter().filter(|s| keep(s.pmid)).cloned().collect();
                    proptest::prop_assert_eq!(kept.vsets, want);
                }
                (Err(g), Err(w)) => proptest::prop_assert_eq!(g, w),
                (g, w) => proptest::prop_assert!(false, "kept {:?}, whole {:?}", g, w),
            };
        }
    }

    proptest::proptest! {
        /// A record decoded in parts gives the value sets of the whole, in order,
        /// and its number of sets.
        #[test]
        fn parts_put_together_are_the_whole(
            sets in sets_strategy(),
            v3 in proptest::prelude::any::<bool>(),
            parts in 1usize..5,
        ) {
            let version = if v3 { 3 } else { 2 };
            let p = encode_result(Timestamp::new(9, 0), &sets, version);
            let whole = decode_result(&p, 4, version).expect("sound");
            let (total, starts) = value_set_starts(&p, version, parts);
            proptest::prop_assert_eq!(total, whole.vsets.len());
            proptest::prop_assert!(starts.len() <= parts);
            let mut joined = Vec::new();
            for (j, &(k, at)) in starts.iter().enumerate() {
                let n = starts.get(j + 1).map_or(total, |s| s.0) - k;
                let part = decode_result_part(&p, 4, version, (k, at), n).expect("part");
                proptest::prop_assert_eq!(part.stamp, whole.stamp);
                joined.extend(part.vsets);
            }
            proptest::prop_assert_eq!(joined, whole.vsets);
        }
    }

    #[test]
    fn rejects_wild_pointers() {
        let vsets = vec![OwnedValueSet {
            pmid: PmId::new(1, 0, 3),
            numval: 1,
            valfmt: VAL_DPTR,
            values: vec![(
                -1,
                OwnedValue::Block {
                    vtype: 3,
                    data: BlockData::from_elem(0, 8),
                },
            )],
        }];
        let mut p = encode_result(Timestamp::new(1, 0), &vsets, 2);
        // point the value at word 1000
        let n = 8 + 4 + 8 + 4 + 4;
        p[n..n + 4].copy_from_slice(&1000u32.to_be_bytes());
        assert!(decode_result(&p, 4, 2).is_err());
        assert!(decode_result(&p[..10], 4, 2).is_err());
    }
}
