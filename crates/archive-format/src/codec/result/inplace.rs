//! A data record's value sets read in place: each set's instances and values
//! decoded only as they are asked for, checked as [`super::decode_result`]
//! checks the record (the same errors).

use super::{
    block_at, checked_block, decode_result_for, decode_stamp, sets_head, value_list, Value,
    VAL_INSITU,
};
use crate::codec::cursor::Cursor;
use crate::error::DecodeError;
use crate::types::{PmId, Timestamp};

/// One value set of a record payload, read in place: its values are decoded only
/// when asked for, one at a time (no allocation).
#[derive(Debug, Clone, Copy)]
pub struct RawValueSet<'a> {
    pub pmid: PmId,
    /// Number of values, or a negative PCP error code.
    pub numval: i32,
    pub valfmt: i32,
    /// The (instance, value word) pairs.
    pairs: &'a [u8],
    payload: &'a [u8],
    vlist_end: usize,
}

impl<'a> RawValueSet<'a> {
    /// The instances of the values, in order.
    pub fn insts(&self) -> impl ExactSizeIterator<Item = i32> + 'a {
        pairs(self.pairs)
            .iter()
            .map(|p| i32::from_be_bytes([p[0], p[1], p[2], p[3]]))
    }

    /// Whether the instances are `prev`, in that order (without decoding them).
    pub fn insts_eq(&self, prev: &[i32]) -> bool {
        self.pairs.len() == prev.len() * 8
            && pairs(self.pairs)
                .iter()
                .zip(prev)
                .all(|(p, i)| p[..4] == i.to_be_bytes())
    }

    /// The values of a set [`raw_result_into`] read, which are all there, as
    /// [`decode_result`] gives them, decoded one at a time. (A value of a set not
    /// checked so whose block is not there comes as an empty block.)
    #[inline]
    pub fn checked_values(&self) -> CheckedValues<'a> {
        CheckedValues {
            pairs: pairs(self.pairs).iter(),
            payload: self.payload,
            insitu: self.valfmt == VAL_INSITU,
        }
    }

    /// The values, as [`decode_result`] gives them (a block outside the record is
    /// an error).
    pub fn values(&self) -> impl Iterator<Item = Result<(i32, Value<'a>), DecodeError>> + 'a {
        let (payload, vlist_end, valfmt) = (self.payload, self.vlist_end, self.valfmt);
        self.pairs.chunks_exact(8).map(move |p| {
            let inst = i32::from_be_bytes([p[0], p[1], p[2], p[3]]);
            let w = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
            if valfmt == VAL_INSITU {
                return Ok((inst, Value::Insitu(w)));
            }
            checked_block(payload, w, 12, vlist_end, 0).map(|(_, _, v)| (inst, v))
        })
    }
}

/// A set's (instance, value) pairs, 8 bytes each.
fn pairs(b: &[u8]) -> &[[u8; 8]] {
    b.as_chunks::<8>().0
}

/// The values of a checked [`RawValueSet`]: see [`RawValueSet::checked_values`].
pub struct CheckedValues<'a> {
    pairs: std::slice::Iter<'a, [u8; 8]>,
    payload: &'a [u8],
    insitu: bool,
}

impl<'a> Iterator for CheckedValues<'a> {
    type Item = (i32, Value<'a>);

    // (always: a value returned through memory costs more than reading it)
    #[inline(always)]
    fn next(&mut self) -> Option<(i32, Value<'a>)> {
        let p = self.pairs.next()?;
        let inst = i32::from_be_bytes([p[0], p[1], p[2], p[3]]);
        let w = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
        if self.insitu {
            return Some((inst, Value::Insitu(w)));
        }
        let empty = Value::Block {
            vtype: 0,
            data: &[],
        };
        match block_at(self.payload, w, 12) {
            Some((_, _, v)) => Some((inst, v)),
            None => Some((inst, empty)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.pairs.size_hint()
    }
}

impl ExactSizeIterator for CheckedValues<'_> {}

/// The value sets of a data record payload (`version`'s layout), read in place:
/// the value lists are checked first, then each set is handed out without
/// decoding its values.
pub fn raw_value_sets(payload: &[u8], version: u32) -> Result<Vec<RawValueSet<'_>>, DecodeError> {
    let mut out = Vec::new();
    raw_value_sets_into(payload, version, &mut out)?;
    Ok(out)
}

/// [`raw_value_sets`] into a vector the caller keeps (cleared first).
pub fn raw_value_sets_into<'a>(
    payload: &'a [u8],
    version: u32,
    out: &mut Vec<RawValueSet<'a>>,
) -> Result<(), DecodeError> {
    raw_sets(payload, version, out).map(|_| ())
}

/// [`raw_value_sets_into`], checked as [`decode_result`] checks the record (the
/// same errors; `base` is the file offset of `payload[0]`), with the record's
/// time: for a reader that looks at each value once, in place, collecting none.
/// The sets' [`RawValueSet::values`] are then all `Ok`.
pub fn raw_result_into<'a>(
    payload: &'a [u8],
    base: u64,
    version: u32,
    out: &mut Vec<RawValueSet<'a>>,
) -> Result<Timestamp, DecodeError> {
    let stamp = decode_stamp(payload, base, version)?;
    if let Ok(end) = raw_sets(payload, version, out) {
        if blocks_fill(out, end, payload) {
            return Ok(stamp);
        }
    }
    // something is wrong: the careful pass names the first fault as libpcp does
    decode_result_for(payload, base, version, |_| false)?;
    raw_sets(payload, version, out)?;
    Ok(stamp)
}

/// Whether the value blocks of `sets` lie after the value lists (which end at
/// `vlist_end`) and fill the rest of `payload`, each padded to a word, as
/// [`decode_result`] requires.
fn blocks_fill(sets: &[RawValueSet<'_>], vlist_end: usize, payload: &[u8]) -> bool {
    let mut first_block = payload.len();
    let mut blocks = 0usize;
    for s in sets
        .iter()
        .filter(|s| s.numval > 0 && s.valfmt != VAL_INSITU)
    {
        for pair in s.pairs.chunks_exact(8) {
            let w = u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]);
            let Some((at, padded, _)) = block_at(payload, w, 12) else {
                return false;
            };
            first_block = first_block.min(at);
            blocks += padded;
        }
    }
    first_block == vlist_end && vlist_end + blocks == payload.len()
}

/// [`raw_value_sets_into`], answering where the value lists end.
fn raw_sets<'a>(
    payload: &'a [u8],
    version: u32,
    out: &mut Vec<RawValueSet<'a>>,
) -> Result<usize, DecodeError> {
    out.clear();
    let (vlist_at, numpmid) = sets_head(payload, 0, version)?;
    let mut c = Cursor::new(payload, 0);
    c.skip(vlist_at)?;
    out.reserve(numpmid as usize);
    for _ in 0..numpmid {
        let (pmid, numval, valfmt, pairs) = value_list(&mut c)?;
        out.push(RawValueSet {
            pmid,
            numval,
            valfmt,
            pairs,
            payload,
            vlist_end: 0,
        });
    }
    let end = c.pos();
    for v in out.iter_mut() {
        v.vlist_end = end;
    }
    Ok(end)
}
