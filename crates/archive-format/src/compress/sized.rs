//! How many bytes a compressed file decodes to, as its container declares it,
//! without decoding it: an `.xz` file's stream indexes (at the end of each
//! stream: every block's uncompressed size) and a `.zst` file's frame headers
//! (each frame's content size, when its writer recorded it). A reader that knows
//! the size can be handed the decoded bytes while they are still being decoded
//! ([`crate::volume`]). Only those parts of the file are read (through [`At`]:
//! a slice, or a file by `pread`), not the compressed data. `None` where the
//! container does not say (or is damaged, which the decoding will find).

use super::Compression;

/// Bytes of a compressed file at an offset.
pub trait At {
    /// Its length.
    fn size(&self) -> u64;
    /// Fills `buf` from `off`; `false` when the bytes are not all there.
    fn at(&self, off: u64, buf: &mut [u8]) -> bool;
}

impl At for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn at(&self, off: u64, buf: &mut [u8]) -> bool {
        let Some(src) = usize::try_from(off)
            .ok()
            .and_then(|o| self.get(o..o.checked_add(buf.len())?))
        else {
            return false;
        };
        buf.copy_from_slice(src);
        true
    }
}

impl At for std::fs::File {
    fn size(&self) -> u64 {
        self.metadata().map_or(0, |m| m.len())
    }
    fn at(&self, off: u64, buf: &mut [u8]) -> bool {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, off).is_ok()
    }
}

/// What file `f`, compressed as `c`, declares it decodes to.
pub fn declared_size(c: Compression, f: &(impl At + ?Sized)) -> Option<u64> {
    match c {
        Compression::Xz => xz_size(f),
        Compression::Zstd => zstd_size(f),
        _ => None,
    }
}

/// The bytes of an xz stream header and of its footer.
const XZ_FRAME: u64 = 12;

/// The largest xz index read (a block of 10 MiB takes a few bytes in it).
const XZ_INDEX_MAX: u64 = 16 << 20;

/// The sum of the uncompressed sizes in the index of every stream of an `.xz`
/// file (see [`xz_streams`]).
pub fn xz_size(f: &(impl At + ?Sized)) -> Option<u64> {
    xz_streams(f).map(|s| s.size)
}

/// What the streams of an `.xz` file hold ([`xz_streams`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XzShape {
    /// Their blocks.
    pub blocks: u64,
    /// What they decode to.
    pub size: u64,
}

/// How many blocks the streams of an `.xz` file hold, and what they decode to
/// ([`xz_blocks`]).
pub fn xz_streams(f: &(impl At + ?Sized)) -> Option<XzShape> {
    let blocks = xz_blocks(f)?;
    Some(XzShape {
        blocks: blocks.len() as u64,
        size: blocks.last().map_or(0, |b| b.out + b.size),
    })
}

/// A block of an `.xz` file, where its stream's index places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XzBlock {
    /// Where its stream starts (the stream header, which gives the check).
    pub stream: u64,
    /// Where the block starts (its header), and the bytes it takes up to the
    /// end of its check (its padding included).
    pub start: u64,
    pub len: u64,
    /// Its size as the index gives it (header, data and check: no padding).
    pub unpadded: u64,
    /// Where its bytes start among what the file decodes to, and how many.
    pub out: u64,
    pub size: u64,
}

/// Every block of every stream of an `.xz` file, in the file's order: walking
/// from its end, past the stream padding (zero bytes, in fours), the footer
/// gives the index's size, the index each block's sizes, and the blocks' sizes
/// where the stream starts, before which the previous stream ends. The footer's
/// and the index's CRC32 are checked, and the footer's flags against the
/// header's; `None` where any of it is missing or wrong.
pub fn xz_blocks(f: &(impl At + ?Sized)) -> Option<Vec<XzBlock>> {
    let mut end = f.size();
    let mut streams = Vec::new();
    loop {
        let mut word = [0u8; 4];
        while end >= 4 && f.at(end - 4, &mut word) && word == [0; 4] {
            end -= 4;
        }
        if end == 0 {
            // no stream, or padding before the first: not a file xz reads
            return None;
        }
        let (start, records) = xz_stream(f, end)?;
        streams.push((start, records));
        end = start;
        if end == 0 {
            break;
        }
    }
    let (mut blocks, mut out) = (Vec::new(), 0u64);
    for (stream, records) in streams.into_iter().rev() {
        let mut start = stream + XZ_FRAME;
        for (unpadded, size) in records {
            let padded = padded(unpadded)?;
            blocks.push(XzBlock {
                stream,
                start,
                len: padded,
                unpadded,
                out,
                size,
            });
            start += padded;
            out = out.checked_add(size)?;
        }
    }
    Some(blocks)
}

/// A block's size in its stream with its padding (to a multiple of four).
fn padded(unpadded: u64) -> Option<u64> {
    Some(unpadded.checked_add(3)? / 4 * 4)
}

/// The stream of `f` that ends (with its footer) at `end`: where it starts,
/// and its blocks' sizes (in the stream, without their padding, and what they
/// decode to).
fn xz_stream(f: &(impl At + ?Sized), end: u64) -> Option<(u64, Vec<(u64, u64)>)> {
    let mut footer = [0u8; XZ_FRAME as usize];
    if !f.at(end.checked_sub(XZ_FRAME)?, &mut footer)
        || footer[10..12] != *b"YZ"
        || crc32fast::hash(&footer[4..10]).to_le_bytes() != footer[..4]
    {
        return None;
    }
    let backward = u32::from_le_bytes(footer[4..8].try_into().ok()?);
    let index_len = (u64::from(backward) + 1) * 4;
    if index_len > XZ_INDEX_MAX {
        return None;
    }
    let index_start = (end - XZ_FRAME).checked_sub(index_len)?;
    let mut index = vec![0u8; index_len as usize];
    if !f.at(index_start, &mut index) {
        return None;
    }
    let records = xz_index(&index)?;
    let blocks = records.iter().try_fold(0u64, |sum, &(unpadded, _)| {
        sum.checked_add(padded(unpadded)?)
    })?;
    let start = index_start.checked_sub(blocks)?.checked_sub(XZ_FRAME)?;
    let mut header = [0u8; 8];
    if !f.at(start, &mut header) || header[..6] != *b"\xfd7zXZ\0" || header[6..8] != footer[8..10] {
        return None;
    }
    Some((start, records))
}

/// An xz index (its indicator byte to its CRC, which is checked): each block's
/// size in the stream (without its padding) and what it decodes to.
fn xz_index(index: &[u8]) -> Option<Vec<(u64, u64)>> {
    let (body, crc) = index.split_at(index.len().checked_sub(4)?);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return None;
    }
    let (&indicator, mut rest) = body.split_first()?;
    if indicator != 0 {
        return None;
    }
    let count = varint(&mut rest)?;
    // each record takes two bytes at least: a damaged count is not believed
    if count > rest.len() as u64 / 2 {
        return None;
    }
    let mut records = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let unpadded = varint(&mut rest)?;
        let uncompressed = varint(&mut rest)?;
        records.push((unpadded, uncompressed));
    }
    // what is left is the padding to four
    (rest.len() < 4 && rest.iter().all(|&b| b == 0)).then_some(records)
}

/// An xz multibyte integer (7 bits a byte, least significant first, at most 9
/// bytes), taken from the front of `b`.
fn varint(b: &mut &[u8]) -> Option<u64> {
    let mut x = 0u64;
    for i in 0..9 {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        x |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return (byte != 0 || i == 0).then_some(x);
        }
    }
    None
}

/// The magic number of a zstd frame, and the range of a skippable frame's.
const ZSTD_MAGIC: u32 = 0xFD2F_B528;
const ZSTD_SKIPPABLE: std::ops::RangeInclusive<u32> = 0x184D_2A50..=0x184D_2A5F;

/// The sum of the content sizes of every frame of a `.zst` file (skippable
/// frames decode to nothing); `None` when a frame does not record its size.
/// Each frame is walked by its block headers (RFC 8878) to where the next starts.
pub fn zstd_size(f: &(impl At + ?Sized)) -> Option<u64> {
    let len = f.size();
    let (mut at, mut total) = (0u64, 0u64);
    while at < len {
        let mut word = [0u8; 4];
        if !f.at(at, &mut word) {
            return None;
        }
        let magic = u32::from_le_bytes(word);
        if ZSTD_SKIPPABLE.contains(&magic) {
            if !f.at(at + 4, &mut word) {
                return None;
            }
            at = at.checked_add(8 + u64::from(u32::from_le_bytes(word)))?;
            continue;
        }
        if magic != ZSTD_MAGIC {
            return None;
        }
        let (next, size) = zstd_frame(f, at + 4)?;
        total = total.checked_add(size)?;
        at = next;
    }
    (at == len && len > 0).then_some(total)
}

/// The frame whose header starts at `at` (after its magic number): where the
/// next frame starts and what this one decodes to.
fn zstd_frame(f: &(impl At + ?Sized), mut at: u64) -> Option<(u64, u64)> {
    let mut fhd = [0u8; 1];
    if !f.at(at, &mut fhd) {
        return None;
    }
    let fhd = fhd[0];
    let single = fhd & 0x20 != 0;
    let checksum = fhd & 0x04 != 0;
    let dict_len = [0, 1, 2, 4][usize::from(fhd & 3)];
    let fcs_len = match fhd >> 6 {
        0 if single => 1,
        0 => return None,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    at += 1 + u64::from(!single) + dict_len;
    let mut fcs = [0u8; 8];
    if !f.at(at, &mut fcs[..fcs_len]) {
        return None;
    }
    let size = u64::from_le_bytes(fcs) + if fcs_len == 2 { 256 } else { 0 };
    at += fcs_len as u64;
    loop {
        let mut head = [0u8; 4];
        if !f.at(at, &mut head[..3]) {
            return None;
        }
        let h = u32::from_le_bytes(head);
        let body = match (h >> 1) & 3 {
            // raw and compressed blocks hold their size in bytes; RLE one byte
            0 | 2 => u64::from(h >> 3),
            1 => 1,
            _ => return None,
        };
        at = at.checked_add(3 + body)?;
        if h & 1 == 1 {
            break;
        }
    }
    Some((at + if checksum { 4 } else { 0 }, size))
}

#[cfg(all(test, feature = "xz", feature = "zstd"))]
mod tests {
    use super::*;
    use crate::compress::xz_shapes::{xz, xz_unsized};
    use proptest::prelude::*;
    use std::io::Write;

    fn pieces() -> impl Strategy<Value = Vec<Vec<u8>>> {
        proptest::collection::vec(proptest::collection::vec(0u8..4, 0..3000), 1..4)
    }

    proptest! {
        /// Streams of one block or many, one after another with padding between
        /// them and after: the sum of what each decodes to.
        #[test]
        fn xz_files_declare_what_they_decode_to(parts in pieces(), block in proptest::option::of(64u64..2000), pad in 0usize..3) {
            let mut file = Vec::new();
            for p in &parts {
                file.extend(xz(p, block));
                file.extend(vec![0u8; 4 * pad]);
            }
            let want: usize = parts.iter().map(Vec::len).sum();
            prop_assert_eq!(declared_size(Compression::Xz, &file[..]), Some(want as u64));
            // a block per `block` bytes of each part, or one; none for no bytes
            let blocks: u64 = parts.iter().map(|p| match block {
                Some(b) => (p.len() as u64).div_ceil(b),
                None => u64::from(!p.is_empty()),
            }).sum();
            let shape = XzShape { blocks, size: want as u64 };
            prop_assert_eq!(xz_streams(&file[..]), Some(shape));
        }

        /// Blocks whose headers leave their sizes out (as `xz -T1` writes
        /// them), alone and with a stream of one block after them: the index
        /// still gives what they decode to.
        #[test]
        fn xz_blocks_without_their_sizes_are_counted(data in proptest::collection::vec(0u8..4, 1..6000), block in 64usize..2000) {
            let mut file = xz_unsized(&data, block);
            let blocks = data.len().div_ceil(block) as u64;
            let size = data.len() as u64;
            prop_assert_eq!(xz_streams(&file[..]), Some(XzShape { blocks, size }));
            file.extend(xz(&data, None));
            prop_assert_eq!(xz_streams(&file[..]), Some(XzShape { blocks: blocks + 1, size: 2 * size }));
        }

        /// Frames that record their size, one after another, with a skippable
        /// frame among them: the sum; a frame written without its size: none.
        #[test]
        fn zstd_files_declare_what_they_decode_to(parts in pieces()) {
            let mut file = Vec::new();
            for p in &parts {
                file.extend(zstd::bulk::compress(p, 1).expect("compress"));
            }
            // a skippable frame: its magic, its length, its bytes
            file.extend(0x184D_2A50u32.to_le_bytes());
            file.extend(3u32.to_le_bytes());
            file.extend(b"pcp");
            let want: usize = parts.iter().map(Vec::len).sum();
            prop_assert_eq!(declared_size(Compression::Zstd, &file[..]), Some(want as u64));
            let mut e = zstd::stream::Encoder::new(Vec::new(), 1).expect("encoder");
            e.include_contentsize(false).expect("option");
            e.write_all(&parts[0]).expect("write");
            let unsized_frame = e.finish().expect("finish");
            prop_assert_eq!(declared_size(Compression::Zstd, &unsized_frame[..]), None);
        }

        /// Whatever the bytes (a file cut short, or changed), an answer and no
        /// panic; a cut xz file declares nothing.
        #[test]
        fn damaged_files_are_answered(parts in pieces(), cut in 1usize..64, at in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let file = xz(&parts[0], Some(512));
            let short = &file[..file.len().saturating_sub(cut)];
            prop_assert_eq!(declared_size(Compression::Xz, short), None);
            let mut changed = file.clone();
            let i = at.index(changed.len());
            changed[i] = byte;
            let _ = declared_size(Compression::Xz, &changed[..]);
            let z = zstd::bulk::compress(&parts[0], 1).expect("compress");
            prop_assert_eq!(declared_size(Compression::Zstd, &z[..z.len().saturating_sub(cut)]), None);
            let mut changed = z.clone();
            let i = at.index(changed.len());
            changed[i] = byte;
            let _ = declared_size(Compression::Zstd, &changed[..]);
        }
    }

    /// A file is read as a slice is.
    #[test]
    fn files_are_read_as_slices() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 7) as u8).collect();
        for (c, z) in [
            (Compression::Xz, xz(&data, Some(10_000))),
            (
                Compression::Zstd,
                zstd::bulk::compress(&data, 3).expect("compress"),
            ),
        ] {
            let mut f = tempfile::tempfile().expect("temporary file");
            f.write_all(&z).expect("write");
            assert_eq!(declared_size(c, &f), Some(data.len() as u64), "{c:?}");
            assert_eq!(declared_size(c, &z[..]), Some(data.len() as u64), "{c:?}");
        }
    }

    /// An index or footer whose CRC32 does not hold is not believed.
    #[test]
    fn a_wrong_crc_declares_nothing() {
        let z = xz(&[5u8; 10_000], Some(1000));
        assert_eq!(xz_blocks(&z[..]).map(|b| b.len()), Some(10));
        for back in [13, 10] {
            // the index's CRC32, and the footer's
            let mut bad = z.clone();
            let at = bad.len() - back;
            bad[at] ^= 1;
            assert_eq!(xz_blocks(&bad[..]), None, "{back} bytes from the end");
        }
    }

    #[test]
    fn no_stream_declares_nothing() {
        assert_eq!(xz_size(&[][..]), None);
        assert_eq!(xz_size(&[0; 16][..]), None);
        assert_eq!(zstd_size(&[][..]), None);
        assert_eq!(declared_size(Compression::Gzip, &b"anything"[..]), None);
        // an xz multibyte integer: at most 9 bytes, and no trailing zero byte
        assert_eq!(varint(&mut &[0x80, 0x01][..]), Some(128));
        assert_eq!(varint(&mut &[0x80, 0x00][..]), None);
        assert_eq!(varint(&mut &[0xff; 10][..]), None);
    }
}
