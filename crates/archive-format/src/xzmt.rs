//! An `.xz` file decoded on several threads: liblzma's multi-threaded decoder
//! decodes the blocks of a stream whose block headers give their sizes (what `xz
//! -T` and PCP 7's pmlogcompress write, 10 MiB blocks) each on a thread of its
//! own, and a stream of one block (what plain `xz` writes) on one, as the
//! single-threaded decoder would. Streams written one after another are decoded in
//! turn, as liblzma's concatenated mode does, with the zero bytes of stream padding
//! between them passed over. The errors are those of the single-threaded reader.

use liblzma::stream::{Action, MtStreamBuilder, Status, Stream};
use std::io::{self, BufRead, Read};

/// The reader: the decompressed bytes of `inner`'s streams.
pub struct XzMt<R: BufRead> {
    inner: R,
    stream: Stream,
    threads: u32,
    done: bool,
}

fn decoder(threads: u32) -> io::Result<Stream> {
    MtStreamBuilder::new()
        .threads(threads)
        .memlimit_threading(u64::MAX)
        .memlimit_stop(u64::MAX)
        .decoder()
        .map_err(io::Error::other)
}

impl<R: BufRead> XzMt<R> {
    pub fn new(inner: R, threads: usize) -> io::Result<XzMt<R>> {
        let threads = threads.clamp(1, 64) as u32;
        Ok(XzMt {
            inner,
            stream: decoder(threads)?,
            threads,
            done: false,
        })
    }

    /// After a stream's end: past its padding, a new decoder for the next
    /// stream, or the end.
    fn next_stream(&mut self) -> io::Result<()> {
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                self.done = true;
                return Ok(());
            }
            let zeros = buf.iter().take_while(|&&b| b == 0).count();
            if zeros == 0 {
                self.stream = decoder(self.threads)?;
                return Ok(());
            }
            self.inner.consume(zeros);
        }
    }
}

impl<R: BufRead> Read for XzMt<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.done {
                return Ok(0);
            }
            let input = self.inner.fill_buf()?;
            let eof = input.is_empty();
            let (before_in, before_out) = (self.stream.total_in(), self.stream.total_out());
            let action = if eof { Action::Finish } else { Action::Run };
            let ret = self.stream.process(input, buf, action);
            let read = (self.stream.total_out() - before_out) as usize;
            let consumed = (self.stream.total_in() - before_in) as usize;
            self.inner.consume(consumed);
            let status = ret?;
            if status == Status::StreamEnd {
                self.next_stream()?;
                if read > 0 {
                    return Ok(read);
                }
                continue;
            }
            if read > 0 {
                return Ok(read);
            }
            if eof {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "premature eof",
                ));
            }
            if consumed == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "corrupt xz stream",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn multi_block(data: &[u8], block: u64) -> Vec<u8> {
        let stream = MtStreamBuilder::new()
            .threads(2)
            .block_size(block)
            .preset(1)
            .encoder()
            .expect("encoder");
        let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
        e.write_all(data).expect("write");
        e.finish().expect("finish")
    }

    fn decode(z: &[u8], threads: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        XzMt::new(io::BufReader::new(z), threads)?.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn blocks_streams_and_padding_decode_as_one() {
        let data: Vec<u8> = (0..400_000u32)
            .flat_map(|i| (i % 251).to_be_bytes())
            .collect();
        let mut z = multi_block(&data, 64 << 10);
        let second =
            crate::compress::compress(crate::compress::Compression::Xz, b"tail").expect("xz");
        z.extend([0u8; 8]);
        z.extend(&second);
        for threads in [1, 2, 4] {
            let mut want = data.clone();
            want.extend(b"tail");
            assert_eq!(
                decode(&z, threads).expect("decode"),
                want,
                "{threads} threads"
            );
        }
    }

    #[test]
    fn a_cut_stream_is_a_premature_end_as_with_one_thread() {
        let data = vec![7u8; 300_000];
        let z = multi_block(&data, 64 << 10);
        let cut = &z[..z.len() / 2];
        let e = decode(cut, 2).expect_err("cut");
        let mut one = Vec::new();
        let e1 = liblzma::read::XzDecoder::new_multi_decoder(cut)
            .read_to_end(&mut one)
            .expect_err("cut");
        assert_eq!((e.kind(), e.to_string()), (e1.kind(), e1.to_string()));
    }
}
