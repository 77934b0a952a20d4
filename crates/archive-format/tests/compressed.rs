//! `.Z` (unix compress) volumes written by ncompress decode to the original bytes, and
//! an archive whose volume and metadata are compressed reads like the plain one.

#[cfg(feature = "gzip")]
mod common;

use archive_format::archive::{Archive, OpenOptions};
use archive_format::compress::{decoder, Compression};
use std::io::Read;
use std::path::PathBuf;

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(rel)
}

fn unz(rel: &str) -> Vec<u8> {
    let z = std::fs::read(testdata(rel)).expect("test file");
    let mut out = Vec::new();
    decoder(Compression::Lzw, &z[..])
        .expect("decoder")
        .read_to_end(&mut out)
        .expect("decodes");
    out
}

#[test]
fn lzw_16_bit_codes_match_original() {
    for f in ["0", "meta"] {
        let plain = std::fs::read(testdata(&format!("archives/sample_v2.{f}"))).expect("plain");
        assert_eq!(
            unz(&format!("compressed/sample_v2.{f}.Z")),
            plain,
            "sample_v2.{f}"
        );
    }
}

#[test]
fn lzw_10_bit_codes_match_original() {
    // 10-bit codes: the width grows to its maximum and the table fills.
    let plain = std::fs::read(testdata("archives/sample_v3.0")).expect("plain");
    assert_eq!(unz("compressed/sample_v3_b10.0.Z"), plain);
}

#[test]
fn lzw_truncated_stream_is_an_error_or_short_never_a_panic() {
    let z = std::fs::read(testdata("compressed/sample_v2.0.Z")).expect("test file");
    for cut in [0, 2, 3, 100, z.len() / 2] {
        let mut out = Vec::new();
        if let Ok(mut d) = decoder(Compression::Lzw, &z[..cut]) {
            let _ = d.read_to_end(&mut out);
        }
        assert!(out.len() < 18496);
    }
}

#[test]
fn compressed_archive_reads_like_plain() {
    let plain = Archive::open(testdata("archives/sample_v2").to_string_lossy()).expect("plain");
    let z = Archive::open(testdata("compressed/sample_v2").to_string_lossy()).expect("compressed");
    let a: Vec<_> = plain.records().map(|r| r.expect("rec").1).collect();
    let b: Vec<_> = z.records().map(|r| r.expect("rec").1).collect();
    assert_eq!(a.len(), b.len());
    assert!(!a.is_empty());
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

/// Half repetitive, half pseudo-random: once the 10-bit table is full the ratio drops
/// and compress emits CLEAR codes (the generator is mirrored in
/// testdata/compressed/README).
fn clear_input() -> Vec<u8> {
    let mut x: u64 = 1;
    (0..30000u32)
        .map(|i| {
            if i < 15000 {
                b'a' + (i % 7) as u8
            } else {
                x = (x * 1103515245 + 12345) % (1 << 31);
                ((x >> 16) & 0xff) as u8
            }
        })
        .collect()
}

#[test]
fn lzw_clear_codes_reset_the_table() {
    assert_eq!(unz("compressed/clear_b10.Z"), clear_input());
}

/// A multi-volume archive whose volumes are compressed reads like the plain one,
/// forward and backward (the next volume is decompressed on another thread while
/// one is read).
#[cfg(feature = "gzip")]
#[test]
fn compressed_volumes_read_in_order_while_the_next_decompresses() {
    use archive_format::codec::result::OwnedValueSet;
    use archive_format::types::{vtype, PmId};
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("mv");
    common::write_one_metric(
        &base,
        PmId::new(251, 0, 1),
        vtype::U32,
        "t.a",
        400,
        100,
        |p, k| OwnedValueSet::insitu(p, vec![(-1, k)]),
    );
    let plain = Archive::open(base.to_string_lossy()).expect("plain");
    let want: Vec<_> = plain
        .records()
        .map(|r| r.expect("record").1.stamp)
        .collect();
    assert_eq!(want.len(), 400);
    for v in 0..4 {
        let f = format!("{}.{v}", base.display());
        let bytes = std::fs::read(&f).expect("volume");
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(format!("{f}.gz")).expect("gz"),
            flate2::Compression::fast(),
        );
        gz.write_all(&bytes).expect("compress");
        gz.finish().expect("finish");
        std::fs::remove_file(&f).expect("remove plain volume");
    }
    // by default, with no thread started, and through decompressed copies (the
    // second archive opened with them loads what the first decompressed)
    let cache = archive_format::volume::Decompressed::new();
    let ways = [
        OpenOptions::default(),
        OpenOptions {
            single_threaded: true,
            ..OpenOptions::default()
        },
        OpenOptions {
            decompressed: Some(cache.clone()),
            ..OpenOptions::default()
        },
    ];
    for opts in ways {
        let open = || Archive::open_with(base.to_string_lossy(), opts.clone());
        let a = open().expect("compressed");
        let got: Vec<_> = a.records().map(|r| r.expect("record").1.stamp).collect();
        assert_eq!(got, want, "{opts:?}");
        let a = open().expect("compressed again");
        let mut back: Vec<_> = a
            .records_rev()
            .map(|r| r.expect("record").1.stamp)
            .collect();
        back.reverse();
        assert_eq!(back, want, "{opts:?}");
    }
    assert!(format!("{cache:?}").contains("files: 4"), "{cache:?}");
}

/// A compressed first volume is decompressed while the metadata and index are read:
/// errors still come in the order of reading the files one by one (the volume's
/// first, then the metadata's, then the index's).
#[cfg(feature = "xz")]
#[test]
fn errors_of_an_archive_with_a_compressed_volume_come_in_file_order() {
    use archive_format::compress::compress;
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("e");
    let copy = |ext: &str| {
        std::fs::copy(
            testdata(&format!("archives/sample_v2.{ext}")),
            format!("{}.{ext}", base.display()),
        )
        .expect("copy");
    };
    let volume = std::fs::read(testdata("archives/sample_v2.0")).expect("volume");
    let xz = compress(Compression::Xz, &volume).expect("xz");
    // the same errors whether the volume is decompressed beside the metadata's
    // reading or before it
    let open = || {
        let one = |single_threaded| {
            let opts = OpenOptions {
                single_threaded,
                ..OpenOptions::default()
            };
            Archive::open_with(base.to_string_lossy(), opts)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let (threaded, single) = (one(false), one(true));
        assert_eq!(threaded, single);
        threaded
    };
    let write = |ext: &str, b: &[u8]| {
        std::fs::write(format!("{}.{ext}", base.display()), b).expect("write")
    };
    copy("meta");
    copy("index");
    write("0.xz", &xz);
    open().expect("a sound archive opens");
    // every file damaged: the volume's error
    write("0.xz", &xz[..xz.len() / 2]);
    write("meta", b"junk");
    write("index", b"junk");
    let e = open().expect_err("damaged volume");
    assert!(e.contains("e.0.xz"), "{e}");
    // the volume sound: the metadata's error, not the index's
    write("0.xz", &xz);
    let e = open().expect_err("damaged metadata");
    assert!(e.contains("e.meta"), "{e}");
    copy("meta");
    let e = open().expect_err("damaged index");
    assert!(e.contains("e.index"), "{e}");
    // metadata that does not decode, past a sound label: its decoding error
    copy("index");
    let mut meta = std::fs::read(testdata("archives/sample_v2.meta")).expect("meta");
    let n = meta.len();
    meta.truncate(n - 5);
    write("meta", &meta);
    let e = open().expect_err("metadata cut short");
    assert!(e.contains("e.meta"), "{e}");
}
