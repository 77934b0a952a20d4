#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use archive_format::codec::result::{decode_result, encode_result, scan_canonical, OwnedValueSet};
    for v in [2, 3] {
        if let Ok(r) = decode_result(data, 4, v) {
            let _ = r.size(v);
        }
        // what scan_canonical accepts is copied as stored: it must re-encode to itself
        if scan_canonical(data, v, &mut Vec::new()) {
            let r = decode_result(data, 4, v).expect("accepted as canonical but does not decode");
            let owned: Vec<OwnedValueSet> = r.vsets.iter().map(OwnedValueSet::from_set).collect();
            assert_eq!(encode_result(r.stamp, &owned, v), data, "canonical but not re-encoded alike");
        }
    }
    let _ = archive_format::codec::index::decode_index(data, 0, 3);
});
