//! Damage libpcp reads into, found by conformance/mutations.py: libpcp checks a
//! data volume's label when it opens the archive, not when reading goes on into
//! a later volume, so a later "volume" that is really another file (here the
//! temporal index copied as volume 1) is read record by record, and its first
//! "record" is corrupt: reading ends with an error, as PCP's pmdumplog does
//! ("pmFetch: Corrupted record in a PCP archive log", exit status 1).

use archive_format::Archive;
use std::path::Path;

#[test]
fn a_later_volume_of_another_file_is_read_and_found_corrupt() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives");
    let dir = tempfile::tempdir().expect("tempdir");
    for ext in ["0", "meta", "index"] {
        std::fs::copy(
            src.join(format!("sample_v3.{ext}")),
            dir.path().join(format!("a.{ext}")),
        )
        .expect("copy");
    }
    let base = dir.path().join("a").to_string_lossy().into_owned();
    let whole = Archive::open(&base).expect("open").records().count();
    std::fs::copy(dir.path().join("a.index"), dir.path().join("a.1")).expect("copy");
    let a = Archive::open(&base).expect("the first volume is still good");
    let read: Vec<_> = a.records().collect();
    // every record of volume 0, then an error (not a quiet end)
    assert_eq!(read.iter().filter(|r| r.is_ok()).count(), whole);
    assert!(
        read.last().is_some_and(|r| r.is_err()),
        "reading ends with an error"
    );
}
