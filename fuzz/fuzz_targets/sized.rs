#![no_main]
use archive_format::compress::{
    sized::{declared_size, xz_blocks},
    Compression,
};
use libfuzzer_sys::fuzz_target;

// The decoded size an xz or zstd file declares, and the blocks an xz file's
// indexes place, from any bytes: an answer, never a panic or a runaway read; every
// block within the file, in order, and the decoded size their sum.
fuzz_target!(|data: &[u8]| {
    let size = declared_size(Compression::Xz, data);
    let _ = declared_size(Compression::Zstd, data);
    if let Some(blocks) = xz_blocks(data) {
        let mut at = 0;
        let mut out = 0;
        for b in &blocks {
            assert!(
                b.start >= at && b.start + b.len <= data.len() as u64,
                "{b:?}"
            );
            assert_eq!(b.out, out, "{b:?}");
            at = b.start + b.len;
            out += b.size;
        }
        assert_eq!(size, Some(out));
    }
});
