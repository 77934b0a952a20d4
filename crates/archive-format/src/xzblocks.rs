//! An `.xz` file's blocks decoded on several threads, each found where its
//! stream's index places it ([`crate::compress::sized::xz_blocks`]). `xz -T1
//! --block-size` (what PCP 7's pmlogcompress writes where xz is older than 5.6)
//! leaves the sizes out of its block headers, and liblzma's multi-threaded
//! decoder then takes the whole file on one thread; the index at each stream's
//! end gives every block's sizes all the same. Each block is decoded on its own,
//! behind its stream's header (which names the check), and its check verified;
//! the threads take the blocks in the file's order, so the decoded bytes grow
//! from the front (see [`Front`]). A file that fails here is decoded again on one
//! decoder by the caller, whose error is the one told.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use liblzma::stream::{Action, Status, Stream};

use crate::compress::sized::{xz_blocks, XzBlock};
use crate::compress::Compression;

/// Compressed bytes read at a time.
const READ: usize = 256 * 1024;

/// The bytes of an xz stream header.
const HEADER: usize = 12;

/// `file`'s blocks, when it is an `.xz` file of more than one block and there
/// are more than one of `threads` to decode them on.
pub(crate) fn worth_it(c: Compression, file: &File, threads: usize) -> Option<Vec<XzBlock>> {
    if c != Compression::Xz || threads < 2 {
        return None;
    }
    xz_blocks(file).filter(|b| b.len() > 1)
}

/// Takes a decoded piece: the block's place in the list, the piece's offset in
/// the decoded whole, its bytes.
pub(crate) type Put<'a> = dyn Fn(usize, u64, &[u8]) -> io::Result<()> + Sync + 'a;

/// Decodes `blocks` of `file` on `threads` threads, handing each piece of at
/// most `step` bytes to `put` (the block's place in `blocks`, the piece's offset
/// in the decoded whole, its bytes), each block's pieces in order. The first
/// failure stops every thread and is returned; so does `cancel`.
pub(crate) fn decode(
    file: &File,
    blocks: &[XzBlock],
    threads: usize,
    step: usize,
    cancel: &AtomicBool,
    put: &Put,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let work = || -> io::Result<()> {
        let mut out = vec![0u8; step.max(1)];
        let mut input = Vec::with_capacity(READ);
        loop {
            let i = next.fetch_add(1, Relaxed);
            let Some(b) = blocks.get(i) else {
                return Ok(());
            };
            let mut piece = |at: u64, bytes: &[u8]| {
                if stop.load(Relaxed) || cancel.load(Relaxed) {
                    return Err(io::Error::other("the decoding was stopped"));
                }
                put(i, at, bytes)
            };
            if let Err(e) = block(file, b, &mut input, &mut out, &mut piece) {
                stop.store(true, Relaxed);
                return Err(e);
            }
        }
    };
    let threads = threads.min(blocks.len());
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("decompress".into())
                    .spawn_scoped(s, work)
                    .ok()
            })
            .collect();
        let mut result = work();
        for h in helpers {
            let r = h
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a decoding thread failed")));
            result = result.and(r);
        }
        result
    })
}

/// Decodes block `b` of `file` as the one block of a stream: its stream's
/// header, its bytes (read into `input`), then an index and footer made for it,
/// so that the decoder checks the block against its index entry and ends the
/// stream only where all of it holds. A piece at a time through `out`, each to
/// `put` with its offset in the decoded whole.
fn block(
    file: &File,
    b: &XzBlock,
    input: &mut Vec<u8>,
    out: &mut [u8],
    put: &mut dyn FnMut(u64, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mismatch = || io::Error::other("an xz block decodes to other than its index says");
    let mut header = [0u8; HEADER];
    file.read_exact_at(&mut header, b.stream)?;
    let trailer = index_and_footer(b, [header[6], header[7]]);
    let mut s = Stream::new_stream_decoder(u64::MAX, 0).map_err(io::Error::other)?;
    let end = b.start.checked_add(b.len).ok_or_else(mismatch)?;
    input.clear();
    input.extend_from_slice(&header);
    let (mut pos, mut used, mut filled, mut done, mut trailed) = (b.start, 0, 0, 0u64, false);
    loop {
        if used == input.len() {
            input.clear();
            used = 0;
            if pos < end {
                let n = (end - pos).min(READ as u64) as usize;
                input.resize(n, 0);
                file.read_exact_at(input, pos)?;
                pos += n as u64;
            } else if !trailed {
                input.extend_from_slice(&trailer);
                trailed = true;
            }
        }
        let (in0, out0) = (s.total_in(), s.total_out());
        let status = s
            .process(&input[used..], &mut out[filled..], Action::Run)
            .map_err(io::Error::other)?;
        used += (s.total_in() - in0) as usize;
        filled += (s.total_out() - out0) as usize;
        let ended = status == Status::StreamEnd;
        if filled == out.len() || (ended && filled > 0) {
            if done + filled as u64 > b.size {
                return Err(mismatch());
            }
            put(b.out + done, &out[..filled])?;
            (done, filled) = (done + filled as u64, 0);
        }
        if ended {
            return if done == b.size {
                Ok(())
            } else {
                Err(mismatch())
            };
        }
        if s.total_in() == in0 && s.total_out() == out0 && used == input.len() && trailed {
            // all of it given, and no end of the stream
            return Err(mismatch());
        }
    }
}

/// The index of a stream of block `b` alone, and the stream's footer (with
/// the stream's `flags`), as the xz format lays them out: CRC32s included.
fn index_and_footer(b: &XzBlock, flags: [u8; 2]) -> Vec<u8> {
    let mut index = vec![0u8, 1];
    for mut x in [b.unpadded, b.size] {
        while x >= 0x80 {
            index.push(x as u8 | 0x80);
            x >>= 7;
        }
        index.push(x as u8);
    }
    index.resize(index.len().div_ceil(4) * 4, 0);
    index.extend(crc32fast::hash(&index).to_le_bytes());
    let backward = (index.len() / 4 - 1) as u32;
    let mut tail = backward.to_le_bytes().to_vec();
    tail.extend(flags);
    index.extend(crc32fast::hash(&tail).to_le_bytes());
    index.extend(tail);
    index.extend(b"YZ");
    index
}

/// How far from the start the decoded bytes are whole, as blocks decoded in
/// any order (each from its own start) come in.
pub(crate) struct Front {
    /// Each block's offset in the whole, its size, and its bytes decoded.
    blocks: Vec<(u64, u64, u64)>,
    /// The first block not whole yet.
    next: usize,
}

impl Front {
    pub(crate) fn new(blocks: &[XzBlock]) -> Front {
        Front {
            blocks: blocks.iter().map(|b| (b.out, b.size, 0)).collect(),
            next: 0,
        }
    }

    /// Block `i` is decoded up to `upto` (an offset in the whole): the bytes
    /// whole from the start.
    pub(crate) fn advance(&mut self, i: usize, upto: u64) -> u64 {
        if let Some(b) = self.blocks.get_mut(i) {
            b.2 = upto.saturating_sub(b.0).min(b.1);
        }
        while self.blocks.get(self.next).is_some_and(|b| b.2 == b.1) {
            self.next += 1;
        }
        match self.blocks.get(self.next) {
            Some(&(out, _, done)) => out + done,
            None => self.blocks.last().map_or(0, |b| b.0 + b.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::xz_shapes::{xz, xz_unsized};
    use std::io::Write;
    use std::sync::Mutex;

    fn file_of(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().expect("temporary file");
        f.write_all(bytes).expect("write");
        f
    }

    /// What [`decode`] gives for `z`, put together as the pieces say, with
    /// the front checked to move only forward over whole bytes.
    fn decoded(z: &[u8], step: usize) -> io::Result<Vec<u8>> {
        let f = file_of(z);
        let blocks = xz_blocks(&f).expect("blocks");
        let len = blocks.last().map_or(0, |b| b.out + b.size) as usize;
        let whole = Mutex::new((vec![0u8; len], vec![false; len], Front::new(&blocks), 0u64));
        decode(
            &f,
            &blocks,
            2,
            step,
            &AtomicBool::new(false),
            &|i, at, b| {
                let mut w = whole.lock().expect("lock");
                let at = at as usize;
                w.0[at..at + b.len()].copy_from_slice(b);
                w.1[at..at + b.len()].iter_mut().for_each(|x| *x = true);
                let front = w.2.advance(i, (at + b.len()) as u64);
                assert!(front >= w.3, "the front went back");
                assert!(
                    w.1[..front as usize].iter().all(|&x| x),
                    "bytes before the front missing"
                );
                w.3 = front;
                Ok(())
            },
        )?;
        let w = whole.into_inner().expect("lock");
        assert_eq!(w.3 as usize, len, "the front reached the end");
        Ok(w.0)
    }

    fn data(n: u32) -> Vec<u8> {
        (0..n).flat_map(|i| (i % 1013).to_le_bytes()).collect()
    }

    proptest::proptest! {
        /// Blocks with and without their sizes in their headers, streams one
        /// after another with padding: the bytes one decoder gives.
        #[test]
        fn blocks_decode_to_what_one_decoder_gives(n in 1u32..20_000, block in 500usize..20_000, step in 1usize..70_000, two in proptest::bool::ANY) {
            let d = data(n);
            let mut z = xz_unsized(&d, block);
            let mut want = d.clone();
            if two {
                // a stream of one block, then one whose block headers give their sizes
                z.extend([0u8; 4]);
                z.extend(crate::compress::compress(Compression::Xz, &d).expect("xz"));
                z.extend(xz(&d, Some(block as u64)));
                want.extend(&d);
                want.extend(&d);
            }
            proptest::prop_assert_eq!(decoded(&z, step).expect("decode"), want);
        }
    }

    #[test]
    fn a_damaged_block_is_an_error() {
        let d = data(30_000);
        let z = xz_unsized(&d, 20_000);
        let blocks = xz_blocks(&z[..]).expect("blocks");
        assert!(blocks.len() > 3);
        // a byte of the third block's compressed data, and its last check byte
        for at in [blocks[2].start + 40, blocks[2].start + blocks[2].len - 1] {
            let mut bad = z.clone();
            bad[at as usize] ^= 0x55;
            assert!(decoded(&bad, 4096).is_err(), "byte {at} changed");
        }
    }

    #[test]
    fn an_index_that_misplaces_a_block_is_an_error() {
        let d = data(30_000);
        let z = xz_unsized(&d, 20_000);
        let f = file_of(&z);
        let mut blocks = xz_blocks(&f).expect("blocks");
        blocks[1].size -= 1;
        let r = decode(&f, &blocks, 2, 4096, &AtomicBool::new(false), &|_, _, _| {
            Ok(())
        });
        assert!(r.is_err());
        let mut blocks = xz_blocks(&f).expect("blocks");
        blocks[1].unpadded -= 1;
        let r = decode(&f, &blocks, 2, 4096, &AtomicBool::new(false), &|_, _, _| {
            Ok(())
        });
        assert!(r.is_err());
        let mut blocks = xz_blocks(&f).expect("blocks");
        blocks[1].len += 4;
        let r = decode(&f, &blocks, 2, 4096, &AtomicBool::new(false), &|_, _, _| {
            Ok(())
        });
        assert!(r.is_err());
    }

    #[test]
    fn a_cancelled_decoding_stops() {
        let z = xz_unsized(&data(30_000), 20_000);
        let f = file_of(&z);
        let blocks = xz_blocks(&f).expect("blocks");
        let r = decode(&f, &blocks, 2, 4096, &AtomicBool::new(true), &|_, _, _| {
            Ok(())
        });
        assert!(r.is_err());
    }
}
