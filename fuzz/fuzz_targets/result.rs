#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use archive_format::codec::result::{
        decode_result, encode_result, scan_canonical, OwnedValueSet,
    };
    for v in [2, 3] {
        // read in place, a record is what it decodes to (or the same error)
        let mut raw = Vec::new();
        match (
            archive_format::codec::result::raw_result_into(data, 4, v, &mut raw),
            decode_result(data, 4, v),
        ) {
            (Ok(stamp), Ok(r)) => {
                assert_eq!(stamp, r.stamp);
                assert_eq!(raw.len(), r.vsets.len());
                for (s, d) in raw.iter().zip(&r.vsets) {
                    assert!(
                        s.checked_values().eq(d.values.iter().copied()),
                        "values read in place differ"
                    );
                }
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("read in place {a:?}, decoded {b:?}"),
        }
        if let Ok(r) = decode_result(data, 4, v) {
            let _ = r.size(v);
        }
        // what scan_canonical accepts is copied as stored: it must re-encode to itself
        if scan_canonical(data, v, &mut Vec::new()) {
            let r = decode_result(data, 4, v).expect("accepted as canonical but does not decode");
            let owned: Vec<OwnedValueSet> = r.vsets.iter().map(OwnedValueSet::from_set).collect();
            assert_eq!(
                encode_result(r.stamp, &owned, v),
                data,
                "canonical but not re-encoded alike"
            );
            // and a canonical v2 record recodes to its v3 encoding
            if v == 2 {
                let mut v3 = Vec::new();
                assert!(
                    archive_format::codec::recode::recode_v2_as_v3(data, &mut v3),
                    "canonical but not recoded"
                );
                assert_eq!(
                    v3,
                    encode_result(r.stamp, &owned, 3),
                    "recoded unlike the v3 encoding"
                );
            }
        }
    }
    let _ = archive_format::codec::recode::recode_v2_as_v3(data, &mut Vec::new());
    // a record cut down to the metrics of odd items decodes to its time and
    // those sets, or to one empty set where it kept none
    for v in [2, 3] {
        let keep = |p: archive_format::PmId| p.0 % 2 == 1;
        let mut out = Vec::new();
        let Ok(()) = archive_format::codec::strip::strip_record(data, 4, v, &keep, &mut out) else {
            continue;
        };
        let whole = decode_result(data, 4, v).expect("cut but does not decode");
        let cut = decode_result(&out[4..out.len() - 4], 4, v).expect("cut does not decode");
        assert_eq!(cut.stamp, whole.stamp);
        let kept: Vec<_> = whole
            .vsets
            .iter()
            .filter(|s| keep(s.pmid))
            .cloned()
            .collect();
        if kept.is_empty() && !whole.vsets.is_empty() {
            assert_eq!((cut.vsets.len(), cut.vsets[0].numval), (1, 0));
        } else {
            assert_eq!(cut.vsets, kept);
        }
    }
    let _ = archive_format::codec::index::decode_index(data, 0, 3);
});
