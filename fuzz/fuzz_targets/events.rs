#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = archive_format::codec::event::decode_events(data, 0, false);
    let _ = archive_format::codec::event::decode_events(data, 0, true);
});
