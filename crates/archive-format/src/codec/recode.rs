//! A data record of a v2 archive written as a v3 archive holds it, without decoding
//! its values: what a copy from one version to the other does with each record.
//! The v3 head is a word longer (64-bit seconds, nanoseconds); the value lists and
//! blocks after it are the same bytes, but every pointer to a block counts words
//! from the record's start, so each is one more.

use super::result::{put_record_head, VAL_INSITU};
use crate::types::Timestamp;

/// The payload `encode_result` would make for version 3 of the record whose
/// version 2 payload is `payload`, into `out`, where the payload is laid out as
/// `encode_result` makes it for version 2 (`scan_canonical` says so); `false`
/// (with `out` left in no particular state) where it is not.
pub fn recode_v2_as_v3(payload: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    let word = |b: &[u8], o: usize| {
        b.get(o..)
            .and_then(|b| b.first_chunk::<4>())
            .map(|w| u32::from_be_bytes(*w))
    };
    let (Some(sec), Some(usec), Some(numpmid)) =
        (word(payload, 0), word(payload, 4), word(payload, 8))
    else {
        return false;
    };
    if usec > 999_999 {
        return false;
    }
    let stamp = Timestamp::new(sec as i32 as i64, usec * 1000);
    put_record_head(out, stamp, numpmid as i32, 3);
    out.extend_from_slice(&payload[12..]);
    // the value lists, from after the head: each pointer one word on
    let mut off = 16;
    for _ in 0..numpmid {
        let Some(numval) = word(out, off + 4) else {
            return false;
        };
        off += 8;
        let numval = numval as i32;
        if numval <= 0 {
            continue;
        }
        let Some(valfmt) = word(out, off) else {
            return false;
        };
        off += 4;
        let end = (numval as usize)
            .checked_mul(8)
            .and_then(|n| n.checked_add(off))
            .filter(|&e| e <= out.len());
        let Some(end) = end else {
            return false;
        };
        if valfmt != VAL_INSITU as u32 {
            for pair in out[off..end].chunks_exact_mut(8) {
                let ptr = u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]);
                let Some(moved) = ptr.checked_add(1) else {
                    return false;
                };
                pair[4..].copy_from_slice(&moved.to_be_bytes());
            }
        }
        off = end;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::result::{
        decode_result, encode_result, scan_canonical, BlockData, OwnedValue, OwnedValueSet,
        VAL_DPTR,
    };
    use crate::types::PmId;
    use proptest::prelude::*;

    /// Value sets of in-place values or of blocks, and empty ones.
    fn sets() -> impl Strategy<Value = Vec<OwnedValueSet>> {
        let set = (
            any::<u32>(),
            any::<bool>(),
            proptest::collection::vec(any::<(i32, u32)>(), 0..4),
        )
            .prop_map(|(pmid, blocks, vals)| {
                let values: Vec<(i32, OwnedValue)> = vals
                    .into_iter()
                    .map(|(i, w)| match blocks {
                        true => {
                            let data = BlockData::from_slice(&w.to_be_bytes()[..(w % 5) as usize]);
                            (i, OwnedValue::Block { vtype: 3, data })
                        }
                        false => (i, OwnedValue::Insitu(w)),
                    })
                    .collect();
                OwnedValueSet {
                    pmid: PmId(pmid),
                    numval: values.len() as i32,
                    valfmt: if blocks && !values.is_empty() {
                        VAL_DPTR
                    } else {
                        VAL_INSITU
                    },
                    values,
                }
            });
        proptest::collection::vec(set, 0..6)
    }

    proptest::proptest! {
        /// A record written for v2 and recoded is the record written for v3.
        #[test]
        fn recoded_is_encoded_for_v3(
            sets in sets(),
            sec in any::<i32>(),
            usec in 0u32..1_000_000,
        ) {
            let stamp = Timestamp::new(sec as i64, usec * 1000);
            let v2 = encode_result(stamp, &sets, 2);
            proptest::prop_assume!(scan_canonical(&v2, 2, &mut Vec::new()));
            let mut got = Vec::new();
            proptest::prop_assert!(recode_v2_as_v3(&v2, &mut got));
            proptest::prop_assert_eq!(&got, &encode_result(stamp, &sets, 3));
            let back = decode_result(&got, 0, 3).expect("decodes");
            let owned: Vec<OwnedValueSet> = back.vsets.iter().map(OwnedValueSet::from_set).collect();
            proptest::prop_assert_eq!(owned.len(), sets.len());
        }

        /// Any bytes: recoded or refused, never a panic.
        #[test]
        fn any_bytes_are_recoded_or_refused(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut out = Vec::new();
            let _ = recode_v2_as_v3(&bytes, &mut out);
        }
    }
}
