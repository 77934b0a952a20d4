//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)]

use archive_format::codec::result::OwnedValueSet;
use archive_format::types::{sem, Desc, InDom, PmId, Timestamp, Units};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use std::path::Path;

/// Writes an archive at `base` of one metric `name` (PMID `pmid`, type `vtype`, no
/// instance domain): `count` records one second apart from 1,700,000,000, a new
/// volume every `per_volume` records, record `k` holding `value(pmid, k)`.
pub fn write_one_metric(
    base: &Path,
    pmid: PmId,
    vtype: i32,
    name: &str,
    count: u32,
    per_volume: u32,
    value: impl Fn(PmId, u32) -> OwnedValueSet,
) {
    let mut w = ArchiveWriter::create(base, WriterOptions::default()).expect("create");
    let d = Desc {
        pmid,
        vtype,
        indom: InDom::NULL,
        sem: sem::INSTANT,
        units: Units(0),
    };
    w.put_desc(d, &[name.into()]).expect("desc");
    for k in 0..count {
        if k > 0 && k % per_volume == 0 {
            w.new_volume().expect("volume");
        }
        w.put_result(
            Timestamp::new(1_700_000_000 + k as i64, 0),
            &[value(pmid, k)],
        )
        .expect("result");
    }
    w.close().expect("close");
}

/// A v3 archive at `base` of host `h` in UTC, for a test to fill.
pub fn v3_writer(base: &Path) -> ArchiveWriter {
    let opts = WriterOptions {
        version: 3,
        hostname: "h".into(),
        timezone: "UTC".into(),
        ..WriterOptions::default()
    };
    ArchiveWriter::create(base, opts).expect("create")
}

/// Compresses each data volume of the archive `base` (`base.0`, `base.1`, ...)
/// with xz, removing the plain ones.
pub fn xz_volumes(base: &str) {
    xz_volumes_in(base, Xz::OneBlock);
}

/// [`xz_volumes`], in one block, or in blocks of `block` bytes whose headers
/// give their sizes (as `xz -T2 --block-size` and PCP 7.2's pmlogcompress write
/// them: blocks that decode on every core).
pub fn xz_volumes_in(base: &str, shape: Xz) {
    use archive_format::compress::{compress, Compression};
    for v in 0.. {
        let f = format!("{base}.{v}");
        let Ok(bytes) = std::fs::read(&f) else { break };
        let z = match shape {
            Xz::OneBlock => compress(Compression::Xz, &bytes).expect("xz"),
            Xz::Blocks(b) => xz_blocks(&bytes, b),
            Xz::BlocksUnsized(b) => xz_blocks_unsized(&bytes, b),
        };
        std::fs::write(format!("{f}.xz"), z).expect("write");
        std::fs::remove_file(&f).expect("remove the plain volume");
    }
}

/// How [`xz_volumes_in`] compresses a volume: in one block, or in blocks of
/// so many bytes whose headers give their sizes (as `xz -T2` writes them) or
/// leave them out (as `xz -T1 --block-size`).
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
pub enum Xz {
    OneBlock,
    Blocks(u64),
    BlocksUnsized(u64),
}

/// `data` as xz in blocks of `block` bytes that give their sizes.
fn xz_blocks(data: &[u8], block: u64) -> Vec<u8> {
    use std::io::Write;
    let mut b = liblzma::stream::MtStreamBuilder::new();
    b.threads(2).preset(0).block_size(block);
    let enc = b.encoder().expect("encoder");
    let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), enc);
    e.write_all(data).expect("compress");
    e.finish().expect("finish")
}

/// `data` as xz in blocks of `block` bytes whose headers leave out their sizes
/// (a full flush ends each block).
fn xz_blocks_unsized(data: &[u8], block: u64) -> Vec<u8> {
    use liblzma::stream::{Action, Check, Status, Stream};
    let mut s = Stream::new_easy_encoder(0, Check::Crc64).expect("encoder");
    let mut out = Vec::with_capacity(data.len() + 4096);
    for piece in data.chunks(block as usize) {
        s.process_vec(piece, &mut out, Action::Run).expect("run");
        while !matches!(
            s.process_vec(&[], &mut out, Action::FullFlush),
            Ok(Status::StreamEnd)
        ) {
            out.reserve(4096);
        }
    }
    while !matches!(
        s.process_vec(&[], &mut out, Action::Finish),
        Ok(Status::StreamEnd)
    ) {
        out.reserve(4096);
    }
    out
}
