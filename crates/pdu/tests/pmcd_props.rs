//! Every pmcd reply decodes to what was encoded (as pmcd lays it out); requests
//! have the sizes their layouts give.

use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::{BlockData, OwnedValue, OwnedValueSet, VAL_DPTR, VAL_INSITU};
use archive_format::types::{PmId, Timestamp};
use archive_format::{Desc, InDom, Units};
use pdu::pmcd::{self as p, decode_reply, encode_reply, Reply};
use proptest::prelude::*;

fn vset() -> impl Strategy<Value = OwnedValueSet> {
    let insitu = proptest::collection::vec((any::<i32>(), any::<u32>()), 1..4).prop_map(|v| {
        (
            VAL_INSITU,
            v.into_iter()
                .map(|(i, x)| (i, OwnedValue::Insitu(x)))
                .collect::<Vec<_>>(),
        )
    });
    let blocks = proptest::collection::vec(
        (
            any::<i32>(),
            1u8..11,
            proptest::collection::vec(any::<u8>(), 0..20),
        ),
        1..4,
    )
    .prop_map(|v| {
        (
            VAL_DPTR,
            v.into_iter()
                .map(|(i, vtype, d)| {
                    (
                        i,
                        OwnedValue::Block {
                            vtype,
                            data: BlockData::from_slice(&d),
                        },
                    )
                })
                .collect::<Vec<_>>(),
        )
    });
    (any::<u32>(), prop_oneof![insitu, blocks], -12400i32..=0).prop_map(
        |(pmid, (valfmt, values), err)| {
            if err < 0 {
                OwnedValueSet {
                    pmid: PmId(pmid),
                    numval: err,
                    valfmt: 0,
                    values: Vec::new(),
                }
            } else {
                OwnedValueSet {
                    pmid: PmId(pmid),
                    numval: values.len() as i32,
                    valfmt,
                    values,
                }
            }
        },
    )
}

fn label_set() -> impl Strategy<Value = LabelSet> {
    (
        any::<i32>(),
        proptest::collection::btree_map("[a-z]{1,8}", 0u32..1000, 0..4),
    )
        .prop_filter_map("fits", |(inst, labels)| {
            let vals: Vec<(String, String)> = labels
                .into_iter()
                .map(|(k, v)| (k, v.to_string()))
                .collect();
            let borrowed: Vec<(&str, &str, bool)> = vals
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str(), false))
                .collect();
            LabelSet::from_labels(inst, 0x10, &borrowed)
        })
}

fn desc() -> impl Strategy<Value = Desc> {
    (any::<u32>(), -1i32..11, any::<u32>(), 0i32..5, any::<u32>()).prop_map(
        |(pmid, vtype, indom, sem, units)| Desc {
            pmid: PmId(pmid),
            vtype,
            indom: InDom(indom),
            sem,
            units: Units(units),
        },
    )
}

fn reply() -> impl Strategy<Value = (Reply, bool)> {
    let name = "[a-z][a-z0-9_.]{0,24}";
    prop_oneof![
        (any::<i32>(), proptest::option::of(any::<u32>()))
            .prop_map(|(code, datum)| (Reply::Error { code, datum }, false)),
        proptest::collection::vec(any::<u32>(), 0..6).prop_map(|v| (Reply::Ids(v), false)),
        proptest::collection::vec(name, 0..6).prop_map(|v| (Reply::Names(v), false)),
        desc().prop_map(|d| (Reply::Desc(d), false)),
        proptest::collection::vec(desc(), 0..5).prop_map(|d| (Reply::Descs(d), false)),
        (
            any::<u32>(),
            proptest::collection::vec((any::<i32>(), "[ -}]{0,20}"), 0..5)
        )
            .prop_map(|(indom, list)| (Reply::Instances { indom, list }, false)),
        (any::<u32>(), "[ -}\n]{0,60}")
            .prop_map(|(ident, text)| (Reply::Text { ident, text }, false)),
        (
            any::<u32>(),
            1i32..64,
            proptest::collection::vec(label_set(), 0..4)
        )
            .prop_map(|(ident, ltype, sets)| (Reply::Labels { ident, ltype, sets }, false)),
        (
            any::<bool>(),
            0i64..i32::MAX as i64,
            0u32..1_000_000_000,
            proptest::collection::vec(vset(), 0..5)
        )
            .prop_map(|(highres, sec, nsec, vsets)| {
                // a RESULT carries microseconds
                let nsec = if highres { nsec } else { nsec / 1000 * 1000 };
                (
                    Reply::Result {
                        stamp: Timestamp::new(sec, nsec),
                        vsets,
                    },
                    highres,
                )
            }),
    ]
}

proptest! {
    #[test]
    fn replies_round_trip((r, highres) in reply()) {
        let b = encode_reply(&r, highres);
        prop_assert_eq!(b.len() % 4, 0);
        prop_assert_eq!(decode_reply(&b), Ok(r));
    }

    #[test]
    fn damaged_replies_never_panic((r, highres) in reply(), cut in 0usize..200, flip in any::<(usize, u8)>()) {
        let mut b = encode_reply(&r, highres);
        if !b.is_empty() {
            let at = flip.0 % b.len();
            b[at] ^= flip.1;
        }
        let _ = decode_reply(&b);
        b.truncate(cut);
        let _ = decode_reply(&b);
    }

    #[test]
    fn profile_layout(entries in proptest::collection::vec((any::<u32>(), proptest::collection::vec(any::<i32>(), 0..5)), 0..4)) {
        let b = p::profile_req(&entries);
        let insts: usize = entries.iter().map(|(_, v)| v.len()).sum();
        prop_assert_eq!(b.len(), 12 + 16 + 16 * entries.len() + 4 * insts);
        prop_assert_eq!(&b[20..24], &(entries.len() as i32).to_be_bytes());
    }
}

proptest! {
    /// A record made straight from pmcd's PDU is the record the encoder makes of
    /// the decoded values, for both PDU kinds and both archive versions.
    #[test]
    fn pdu_to_record_payload(
        highres in any::<bool>(),
        version in 2u32..4,
        sec in 0i64..i32::MAX as i64,
        nsec in 0u32..1_000_000_000,
        vsets in proptest::collection::vec(vset(), 0..6),
    ) {
        let nsec = if highres { nsec } else { nsec / 1000 * 1000 };
        let stamp = Timestamp::new(sec, nsec);
        let b = encode_reply(&Reply::Result { stamp, vsets: vsets.clone() }, highres);
        let (got_stamp, at, numpmid) = p::result_layout(&b).expect("layout").expect("a result");
        prop_assert_eq!(got_stamp, stamp);
        let mut out = Vec::new();
        p::payload_from_pdu(&b, at, numpmid, stamp, version, &mut out)
            .expect("payload");
        let want_stamp = if version >= 3 { stamp } else { Timestamp::new(sec, nsec / 1000 * 1000) };
        prop_assert_eq!(out, archive_format::codec::result::encode_result(want_stamp, &vsets, version));
    }
}

#[test]
fn request_layouts() {
    assert_eq!(p::text_req(7, 5).len(), 20);
    assert_eq!(p::label_req(u32::MAX, 1)[12..16], [0xff; 4]);
    assert_eq!(p::descs_req(&[1, 2, 3]).len(), 12 + 8 + 12);
    assert_eq!(p::names_of_req(9).len(), 24);
    assert_eq!(&p::highres_fetch_req(&[1])[4..8], &0x7014i32.to_be_bytes());
}

/// pmcd's reply to HIGHRES_FETCH, captured from PCP 6.0.3 with its sample agent
/// (sample.colour, sample.long.one, sample.string.hullo).
#[test]
fn captured_highres_result() {
    let hex = "00000080000070150000000000000003000000006b04d60b000000001832e220\
               074000050000000300000000000000000000006d00000001000000d200000002\
               000001370740000a0000000100000000ffffffff000000010740001f00000001\
               00000001ffffffff0000001b0600001168756c6c6f20776f726c6421007e7e7e";
    let b: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    let Ok(Reply::Result { stamp, vsets }) = decode_reply(&b) else {
        panic!("not a result: {:?}", decode_reply(&b));
    };
    assert_eq!(stamp, Timestamp::new(0x6b04d60b, 0x1832e220));
    assert_eq!(vsets.len(), 3);
    assert_eq!(vsets[0].values[1], (1, OwnedValue::Insitu(210)));
    assert_eq!(
        vsets[2].values[0].1,
        OwnedValue::Block {
            vtype: 6,
            data: BlockData::from_slice(b"hullo world!\0")
        }
    );
    // and it encodes back to the same bytes
    assert_eq!(encode_reply(&Reply::Result { stamp, vsets }, true), b);
}
