#![no_main]
use archive_format::codec::rawlabel::{self, RawLabel};
use libfuzzer_sys::fuzz_target;

// The strict decoder, and libpcp's lenient loader with what it re-encodes.
fuzz_target!(|data: &[u8]| {
    let _ = archive_format::codec::label::decode_label(data);
    let mut l = RawLabel::default();
    let _ = rawlabel::check(data, 0, &mut l);
    let _ = rawlabel::encode(&l);
});
