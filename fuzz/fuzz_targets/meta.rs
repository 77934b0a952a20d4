#![no_main]
use libfuzzer_sys::fuzz_target;

// A whole .meta body: framing and every record kind.
fuzz_target!(|data: &[u8]| {
    let _ = archive_format::Metadata::load(data, 0);
});
