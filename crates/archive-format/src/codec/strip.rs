//! A data record written again with only some metrics' value sets: what a reader
//! that asks only for those metrics reads of it, in fewer bytes. The record's time
//! and its kept sets decode as they did; a record that kept none holds one empty
//! set of its first metric instead, so that it is not taken for a `<mark>` (which
//! has no sets at all).

use super::record::put_frame;
use super::result::{decode_result_for, encode_result, OwnedValueSet, SetOf};
use crate::error::DecodeError;
use crate::types::PmId;

/// Appends to `out` the frame (length word, payload, length word) of the record
/// whose payload is `payload` (`version`'s layout), holding only the value sets of
/// the metrics `keep` accepts. `Err` where the record does not decode (`base` is the
/// payload's offset in its file, for the error).
pub fn strip_record(
    payload: &[u8],
    base: u64,
    version: u32,
    keep: &dyn Fn(PmId) -> bool,
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    let rec = decode_result_for(payload, base, version, keep)?;
    let mut kept: Vec<SetOf<'_, '_>> = rec
        .vsets
        .iter()
        .filter(|vs| keep(vs.pmid))
        .map(SetOf::Read)
        .collect();
    if kept.is_empty() {
        if let Some(first) = rec.vsets.first() {
            kept.push(SetOf::Rebuilt(OwnedValueSet {
                pmid: first.pmid,
                numval: 0,
                valfmt: 0,
                values: Vec::new(),
            }));
        }
    }
    put_frame(out, &encode_result(rec.stamp, &kept, version));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::record::frame_at;
    use crate::codec::result::{decode_result, BlockData, OwnedValue, VAL_DPTR, VAL_INSITU};
    use crate::types::Timestamp;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = OwnedValue> {
        prop_oneof![
            any::<u32>().prop_map(OwnedValue::Insitu),
            (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..12)).prop_map(|(t, d)| {
                OwnedValue::Block {
                    vtype: t,
                    data: BlockData::from_vec(d),
                }
            }),
        ]
    }

    /// A value set of metric `item`: values all in place or all in blocks, or an
    /// error code.
    fn set(item: u32) -> impl Strategy<Value = OwnedValueSet> {
        let values = proptest::collection::vec((any::<i32>(), value()), 0..4);
        (values, any::<bool>(), -3i32..0).prop_map(move |(vals, insitu, err)| {
            let pmid = PmId::new(60, 0, item);
            if vals.is_empty() {
                return OwnedValueSet {
                    pmid,
                    numval: err,
                    valfmt: 0,
                    values: Vec::new(),
                };
            }
            let values: Vec<(i32, OwnedValue)> = vals
                .into_iter()
                .map(|(i, v)| match (insitu, v) {
                    (true, OwnedValue::Block { data, .. }) => {
                        (i, OwnedValue::Insitu(data.len() as u32))
                    }
                    (false, OwnedValue::Insitu(w)) => (
                        i,
                        OwnedValue::Block {
                            vtype: 3,
                            data: BlockData::from_slice(&w.to_be_bytes()),
                        },
                    ),
                    (_, v) => (i, v),
                })
                .collect();
            OwnedValueSet {
                pmid,
                numval: values.len() as i32,
                valfmt: if insitu { VAL_INSITU } else { VAL_DPTR },
                values,
            }
        })
    }

    fn record() -> impl Strategy<Value = Vec<OwnedValueSet>> {
        proptest::collection::vec(0u32..6, 0..6)
            .prop_flat_map(|items| items.into_iter().map(set).collect::<Vec<_>>())
    }

    proptest! {
        /// The stripped record decodes to the original's time and kept sets, in
        /// their order; one that kept none to one empty set of its first metric;
        /// a `<mark>` to a `<mark>`.
        #[test]
        fn a_stripped_record_reads_as_its_kept_sets(
            sets in record(),
            kept in proptest::collection::vec(0u32..6, 0..3),
            v3 in any::<bool>(),
            sec in 0i64..2_000_000_000,
            usec in 0u32..1_000_000,
        ) {
            let version = if v3 { 3 } else { 2 };
            let stamp = Timestamp::new(sec, usec * 1000);
            let payload = encode_result(stamp, &sets, version);
            let keep = |p: PmId| kept.contains(&p.item());
            let mut out = Vec::new();
            strip_record(&payload, 4, version, &keep, &mut out).expect("a sound record");
            let f = frame_at(&out, 0).expect("one frame").expect("not empty");
            prop_assert_eq!(f.len as usize, out.len());
            let got = decode_result(f.payload(&out), 4, version).expect("it decodes");
            prop_assert_eq!(got.stamp, stamp);
            let want: Vec<OwnedValueSet> =
                sets.iter().filter(|s| keep(s.pmid)).cloned().collect();
            let got_sets: Vec<OwnedValueSet> = got.vsets.iter().map(OwnedValueSet::from_set).collect();
            if want.is_empty() && !sets.is_empty() {
                prop_assert_eq!(got_sets.len(), 1);
                prop_assert_eq!(got_sets[0].pmid, sets[0].pmid);
                prop_assert_eq!(got_sets[0].numval, 0);
            } else {
                prop_assert_eq!(got_sets, want);
            }
        }
    }

    #[test]
    fn a_record_that_does_not_decode_is_an_error() {
        let sets = vec![OwnedValueSet::insitu(PmId::new(60, 0, 1), vec![(1, 7)])];
        let mut payload = encode_result(Timestamp::new(10, 0), &sets, 2);
        // more metrics than the record can hold
        payload[8..12].copy_from_slice(&1000i32.to_be_bytes());
        let mut out = Vec::new();
        let err = strip_record(&payload, 4, 2, &|_| true, &mut out).unwrap_err();
        assert_eq!(err.offset, 12, "{err:?}");
        assert!(out.is_empty());
    }
}
