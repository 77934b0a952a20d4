//! The shapes of `.xz` file the tests decode: one block, blocks whose headers
//! give their sizes (`xz -T2 --block-size`), and blocks whose headers do not
//! (`xz -T1 --block-size`, what PCP 7's pmlogcompress writes with xz before 5.6).

use liblzma::stream::{Action, Check, MtStreamBuilder, Status, Stream};
use std::io::Write;

/// `data` as xz writes it: one block, or blocks of `block` bytes whose headers
/// give their sizes.
pub(crate) fn xz(data: &[u8], block: Option<u64>) -> Vec<u8> {
    let mut b = MtStreamBuilder::new();
    b.threads(1).preset(0);
    if let Some(block) = block {
        b.block_size(block);
    }
    let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), b.encoder().expect("encoder"));
    e.write_all(data).expect("write");
    e.finish().expect("finish")
}

/// `data` as `xz -T1 --block-size` writes it: blocks of `block` bytes whose
/// headers do not give their sizes.
pub(crate) fn xz_unsized(data: &[u8], block: usize) -> Vec<u8> {
    let mut s = Stream::new_easy_encoder(0, Check::Crc64).expect("encoder");
    let mut out = Vec::with_capacity(data.len() + 4096);
    let until_end = |s: &mut Stream, out: &mut Vec<u8>, action: Action| {
        while !matches!(s.process_vec(&[], out, action), Ok(Status::StreamEnd)) {
            out.reserve(4096);
        }
    };
    for piece in data.chunks(block) {
        s.process_vec(piece, &mut out, Action::Run).expect("run");
        until_end(&mut s, &mut out, Action::FullFlush);
    }
    until_end(&mut s, &mut out, Action::Finish);
    out
}
