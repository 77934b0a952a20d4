#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for v in [2, 3] {
        if let Ok(r) = archive_format::codec::result::decode_result(data, 4, v) {
            let _ = r.size(v);
        }
    }
    let _ = archive_format::codec::index::decode_index(data, 0, 3);
});
