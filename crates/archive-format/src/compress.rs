//! Compressed archive files. PCP 6.0.3 reads `.xz`, `.lzma`, `.bz2`, `.bz`, `.gz`, `.Z`
//! and `.z`; we also read `.zst`. Every decoder runs in-process; the decompressed bytes
//! go to an unlinked temporary file (as libpcp does for most suffixes) that is then
//! memory-mapped, so a compressed archive never sits whole in memory.

pub mod sized;
#[cfg(all(test, feature = "xz"))]
pub(crate) mod xz_shapes;

use std::io::{self, Read};

/// A compression scheme, identified by file suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Xz,
    Lzma,
    Bzip2,
    Gzip,
    /// Unix `compress` (LZW), `.Z`.
    Lzw,
    Zstd,
}

/// Suffixes in the order libpcp tries them, then ours.
pub const SUFFIXES: &[(&str, Compression)] = &[
    (".xz", Compression::Xz),
    (".lzma", Compression::Lzma),
    (".bz2", Compression::Bzip2),
    (".bz", Compression::Bzip2),
    (".gz", Compression::Gzip),
    (".Z", Compression::Lzw),
    (".z", Compression::Gzip),
    (".zst", Compression::Zstd),
];

/// The compression implied by a file name's suffix, and the name without it.
pub fn strip_suffix(name: &str) -> Option<(&str, Compression)> {
    SUFFIXES
        .iter()
        .find_map(|(s, c)| name.strip_suffix(s).map(|b| (b, *c)))
}

/// The compression a suffix alone (`.xz`, ...) names.
pub fn suffix(suffix: &str) -> Option<Compression> {
    SUFFIXES.iter().find(|(s, _)| *s == suffix).map(|(_, c)| *c)
}

fn unsupported(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{what} support was not compiled in"),
    )
}

/// How much of a compressed file [`decoder`] reads at a time.
const READ_AHEAD: usize = 128 * 1024;

/// Decodes `file`, an `.xz` file of several blocks, on the job's threads
/// ([`crate::cores::threads`]), each block where its stream's index places it,
/// handing each piece to `put` with its offset in the decoded whole (a block's
/// pieces in order, the blocks in any order). `Ok(false)`, with nothing
/// decoded, where `file` is not such a file or the job has one thread.
#[cfg(feature = "xz")]
pub fn xz_by_blocks(
    file: &std::fs::File,
    put: &(dyn Fn(u64, &[u8]) -> io::Result<()> + Sync),
) -> io::Result<bool> {
    let threads = crate::cores::threads();
    let Some(blocks) = crate::xzblocks::worth_it(Compression::Xz, file, threads) else {
        return Ok(false);
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    crate::xzblocks::decode(file, &blocks, threads, 1 << 20, &never, &|_, at, b| {
        put(at, b)
    })?;
    Ok(true)
}

/// A reader that decompresses `inner`.
pub fn decoder<'a, R: Read + 'a>(c: Compression, inner: R) -> io::Result<Box<dyn Read + 'a>> {
    buffered_decoder(c, io::BufReader::with_capacity(READ_AHEAD, inner))
}

/// A reader that decompresses `inner`, decoding straight out of its buffer (the
/// compressed bytes are not copied into a second buffer on the way).
pub fn buffered_decoder<'a, R: io::BufRead + 'a>(
    c: Compression,
    inner: R,
) -> io::Result<Box<dyn Read + 'a>> {
    Ok(match c {
        #[cfg(feature = "xz")]
        Compression::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(inner)),
        #[cfg(feature = "xz")]
        Compression::Lzma => {
            let stream =
                liblzma::stream::Stream::new_lzma_decoder(u64::MAX).map_err(io::Error::other)?;
            Box::new(liblzma::bufread::XzDecoder::new_stream(inner, stream))
        }
        #[cfg(feature = "bzip2")]
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(inner)),
        #[cfg(feature = "gzip")]
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(inner)),
        #[cfg(feature = "zstd")]
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(inner)?),
        Compression::Lzw => Box::new(crate::lzw::LzwReader::new(inner)),
        #[allow(unreachable_patterns)]
        other => {
            drop(inner);
            return Err(unsupported(&format!("{other:?}")));
        }
    })
}

/// `data` compressed as `c` would have it, for rewriting a compressed file (a
/// repaired volume). `Unsupported` for the scheme we only read (`.Z`).
pub fn compress(c: Compression, data: &[u8]) -> io::Result<Vec<u8>> {
    #[allow(unused_imports)]
    use std::io::Write;
    // without any encoder built in, nothing reads it
    let _ = data;
    match c {
        #[cfg(feature = "xz")]
        Compression::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data)?;
            e.finish()
        }
        #[cfg(feature = "xz")]
        Compression::Lzma => {
            let opts = liblzma::stream::LzmaOptions::new_preset(6).map_err(io::Error::other)?;
            let stream =
                liblzma::stream::Stream::new_lzma_encoder(&opts).map_err(io::Error::other)?;
            let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
            e.write_all(data)?;
            e.finish()
        }
        #[cfg(feature = "bzip2")]
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            e.write_all(data)?;
            e.finish()
        }
        #[cfg(feature = "gzip")]
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)?;
            e.finish()
        }
        #[cfg(feature = "zstd")]
        Compression::Zstd => zstd::stream::encode_all(data, 3),
        #[allow(unreachable_patterns)]
        other => Err(unsupported(&format!("writing {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        assert_eq!(strip_suffix("a.0.xz"), Some(("a.0", Compression::Xz)));
        assert_eq!(
            strip_suffix("a.meta.bz2"),
            Some(("a.meta", Compression::Bzip2))
        );
        assert_eq!(strip_suffix("a.meta"), None);
    }

    #[cfg(feature = "gzip")]
    #[test]
    fn gzip_round_trip() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b"hello archive").unwrap();
        let gz = enc.finish().unwrap();
        let mut out = String::new();
        decoder(Compression::Gzip, &gz[..])
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "hello archive");
    }

    #[test]
    fn compress_round_trips_through_the_decoder() {
        for c in [
            Compression::Xz,
            Compression::Lzma,
            Compression::Bzip2,
            Compression::Gzip,
            Compression::Zstd,
        ] {
            let data: Vec<u8> = (0..5000u32).flat_map(|i| i.to_be_bytes()).collect();
            let z = compress(c, &data).expect("compress");
            let mut back = Vec::new();
            decoder(c, &z[..])
                .expect("decoder")
                .read_to_end(&mut back)
                .expect("read");
            assert_eq!(back, data, "{c:?}");
        }
        assert!(compress(Compression::Lzw, b"x").is_err());
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn zstd_frames_one_after_another_read_as_one() {
        // zstd --rm on a file appended to, or a volume pmlogcompress wrote in
        // pieces: every frame is read
        let mut z = compress(Compression::Zstd, b"first ").expect("compress");
        z.extend(compress(Compression::Zstd, b"second").expect("compress"));
        let mut back = String::new();
        decoder(Compression::Zstd, &z[..])
            .expect("decoder")
            .read_to_string(&mut back)
            .expect("read");
        assert_eq!(back, "first second");
        let cut = &z[..z.len() - 3];
        let mut out = Vec::new();
        assert!(decoder(Compression::Zstd, cut)
            .expect("decoder")
            .read_to_end(&mut out)
            .is_err());
    }
}
