#![no_main]
use archive_format::compress::{sized::declared_size, Compression};
use libfuzzer_sys::fuzz_target;

// The decoded size an xz or zstd file declares, from any bytes: an answer, never
// a panic or a runaway read.
fuzz_target!(|data: &[u8]| {
    let _ = declared_size(Compression::Xz, data);
    let _ = declared_size(Compression::Zstd, data);
});
