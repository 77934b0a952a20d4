//! An archive whose volume is compressed is exported while the volume decodes:
//! the files written are those of the same archive's export with its volume
//! not compressed (read as it is, its end known from the start), whatever the
//! archive: its records in time order, or a record later than the archive's end
//! (where an export stops). A volume that fails to decode part way is not
//! exported, and nothing is written for it, as when it is decoded whole first.

// helpers of the tests below: a failure to set up or read what the tool wrote
// is the test failing
#![allow(clippy::unwrap_used)]

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::compress::{compress, Compression};
use archive_format::types::{sem, vtype};
use archive_format::writer::ArchiveWriter;
use archive_format::{Desc, InDom, PmId, Timestamp, Units};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

const PMID: PmId = PmId(60 << 22 | 2);

/// An archive at `base` of one metric with a record at each of `secs`, in a
/// volume of each part.
fn archive(base: &Path, parts: &[&[i64]]) {
    let d = Desc {
        pmid: PMID,
        vtype: vtype::U64,
        indom: InDom::NULL,
        sem: sem::INSTANT,
        units: Units(0),
    };
    let mut w = test_support::one_metric_writer(base, 3, d, "test.value");
    for (p, secs) in parts.iter().enumerate() {
        if p > 0 {
            w.new_volume().unwrap();
        }
        for &s in *secs {
            put(&mut w, s);
        }
    }
    w.close().unwrap();
}

/// A record at `s` seconds, its value `s`.
fn put(w: &mut ArchiveWriter, s: i64) {
    let set = OwnedValueSet {
        pmid: PMID,
        numval: 1,
        valfmt: VAL_INSITU,
        values: vec![(-1, OwnedValue::Insitu(s as u32))],
    };
    w.put_result(Timestamp::new(1_700_000_000 + s, 0), &[set])
        .unwrap();
}

/// The archive's volumes xz-compressed in place (one block each: each decodes
/// on one thread, and is read while it does).
fn compress_volumes(base: &Path) {
    for n in 0.. {
        let vol = base.with_extension(n.to_string());
        let Ok(plain) = std::fs::read(&vol) else {
            break;
        };
        let xz = compress(Compression::Xz, &plain).unwrap();
        std::fs::write(base.with_extension(format!("{n}.xz")), xz).unwrap();
        std::fs::remove_file(vol).unwrap();
    }
}

/// Changes a byte in the middle of `file`'s compressed data: the index at the
/// end still declares the size, so the volume is read while it decodes, and
/// fails part way.
fn damage(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(file, bytes).unwrap();
}

/// Exports `base` into `out` on two threads (a volume is read while it decodes
/// only with more than one): what the tool said, and every file written with
/// its bytes.
fn export(base: &Path, out: &Path) -> (Output, BTreeMap<String, Vec<u8>>) {
    let o = Command::new(env!("CARGO_BIN_EXE_pcp2parquet"))
        .env("PCPRS_THREADS", "2")
        .arg("-o")
        .arg(out)
        .arg(base)
        .output()
        .unwrap();
    let files = test_support::files_under(out)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect();
    (o, files)
}

/// `base` exported as it is and with its volume compressed: the same status,
/// messages and files (but the state file, which lists the archive's files).
fn same_compressed(base: &Path) -> BTreeMap<String, Vec<u8>> {
    let dir = base.parent().unwrap();
    let (plain, mut want) = export(base, &dir.join("plain"));
    compress_volumes(base);
    let (xz, mut got) = export(base, &dir.join("xz"));
    assert_eq!(xz.status.code(), plain.status.code());
    assert_eq!(
        String::from_utf8_lossy(&xz.stderr),
        String::from_utf8_lossy(&plain.stderr)
    );
    for files in [&mut want, &mut got] {
        assert!(files.remove(STATE).is_some(), "{:?}", files.keys());
    }
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &want {
        assert!(got[name] == *bytes, "{name} differs");
    }
    want
}

/// The state file of an output directory.
const STATE: &str = ".pcp2parquet.json";

/// The rows of the `values` files.
fn values_rows(files: &BTreeMap<String, Vec<u8>>) -> i64 {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    files
        .iter()
        .filter(|(k, _)| k.starts_with("values/") && k.ends_with(".parquet"))
        .map(|(_, bytes)| {
            let r = SerializedFileReader::new(bytes::Bytes::from(bytes.clone())).unwrap();
            r.metadata().file_metadata().num_rows()
        })
        .sum()
}

#[test]
fn records_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("a");
    let secs: Vec<i64> = (0..2000).map(|s| s * 10).collect();
    archive(&base, &[&secs[..1000], &secs[1000..]]);
    assert_eq!(values_rows(&same_compressed(&base)), 2000);
}

#[test]
fn a_record_later_than_the_archives_end() {
    // the end is the last record's time (8 s): the export stops at the record
    // at 9 s, the first past it
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("a");
    let mut secs: Vec<i64> = (0..10).collect();
    secs.extend([20, 5, 6, 7, 8]);
    archive(&base, &[&secs]);
    assert_eq!(values_rows(&same_compressed(&base)), 9);
}

#[test]
fn a_volume_that_fails_to_decode_part_way() {
    // the only volume, and the first of two (the archive's end, in the second,
    // is found)
    for parts in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("a");
        let secs: Vec<i64> = (0..20_000).collect();
        let two: [&[i64]; 2] = [&secs, &[20_000, 20_001]];
        archive(&base, &two[..parts]);
        compress_volumes(&base);
        damage(&base.with_extension("0.xz"));
        let (o, files) = export(&base, &dir.path().join("out"));
        assert_eq!(o.status.code(), Some(1), "{parts} volume(s)");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("pcp2parquet: "), "{err}");
        assert!(
            err.contains("a.0.xz") && err.contains("cannot decompress"),
            "{err}"
        );
        assert!(files.is_empty(), "{:?}", files.keys());
    }
}
