//! Every PDU kind decodes to what was encoded; arbitrary bytes never panic.

use archive_format::Timestamp as Stamp;
use pdu::{decode, encode, LogStatus, Pdu, ValueList};
use proptest::prelude::*;

fn vlist(with_values: bool) -> impl Strategy<Value = ValueList> {
    (
        any::<u32>(),
        proptest::collection::vec((any::<i32>(), any::<u32>()), 0..5),
        -3i32..0,
    )
        .prop_map(move |(pmid, values, err)| {
            if with_values && !values.is_empty() {
                ValueList {
                    pmid,
                    numval: values.len() as i32,
                    values,
                }
            } else {
                ValueList {
                    pmid,
                    numval: if with_values { err } else { 0 },
                    values: Vec::new(),
                }
            }
        })
}

fn stamp() -> impl Strategy<Value = Stamp> {
    (any::<i64>(), 0u32..1_000_000_000).prop_map(|(sec, nsec)| Stamp { sec, nsec })
}

fn any_pdu() -> impl Strategy<Value = Pdu> {
    let text = proptest::option::of("[ -~]{0,30}");
    prop_oneof![
        (any::<i32>(), any::<i32>()).prop_map(|(from, code)| Pdu::Error { from, code }),
        (
            any::<i32>(),
            proptest::collection::vec(any::<[u8; 4]>(), 0..4)
        )
            .prop_map(|(from, creds)| Pdu::Creds { from, creds }),
        (any::<i32>(), any::<i32>()).prop_map(|(from, request)| Pdu::LogRequest { from, request }),
        (
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            proptest::collection::vec(vlist(true), 0..4)
        )
            .prop_map(|(from, control, state, delta, metrics)| {
                // a request's value lists: instances with a zero value, or none (all)
                let metrics = metrics
                    .into_iter()
                    .map(|m| ValueList {
                        numval: m.values.len() as i32,
                        values: m.values.into_iter().map(|(i, _)| (i, 0)).collect(),
                        pmid: m.pmid,
                    })
                    .collect();
                Pdu::LogControl {
                    from,
                    control,
                    state,
                    delta,
                    metrics,
                }
            }),
        (
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            proptest::collection::vec(vlist(true), 0..4)
        )
            .prop_map(|(from, sec, usec, vsets)| Pdu::Result {
                from,
                sec,
                usec,
                vsets
            }),
        (
            any::<i32>(),
            stamp(),
            stamp(),
            stamp(),
            any::<i32>(),
            any::<i32>(),
            any::<i64>(),
            proptest::collection::vec(text, 6)
        )
            .prop_map(|(from, start, last, now, state, vol, size, s)| {
                let mut strings: [Option<String>; 6] = Default::default();
                for (k, v) in s.into_iter().enumerate() {
                    strings[k] = v;
                }
                Pdu::LogStatus {
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
                }
            }),
    ]
}

proptest! {
    #[test]
    fn round_trip(p in any_pdu()) {
        let b = encode(&p);
        prop_assert_eq!(b.len() % 4, 0);
        prop_assert_eq!(decode(&b), Ok(p));
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode(&b);
        let _ = pdu::read_frame(&mut std::io::Cursor::new(b), pdu::CLIENT_LIMIT);
    }

    #[test]
    fn truncations_are_errors(p in any_pdu(), cut in 1usize..64) {
        let b = encode(&p);
        let n = b.len().saturating_sub(cut);
        prop_assert!(decode(&b[..n]).is_err());
    }
}
