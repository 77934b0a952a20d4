//! `--repair` on archives we write and then damage: a torn data volume, a torn
//! metadata file and a torn index, plain and compressed. After the repair the
//! archive checks clean, reads to its last whole record, and the report says what
//! was dropped; `--dry-run` changes nothing.

use archive_format::compress::{self, Compression};
use archive_format::Archive;
use std::path::Path;

mod common;
use common::write_archive;

fn check(args: &[&str]) -> (i32, String, String) {
    test_support::run_tool(pmlogcheck::run, args)
}

fn cut(path: &Path, by: u64) {
    let len = std::fs::metadata(path).expect("len").len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open");
    f.set_len(len - by).expect("cut");
}

fn compress_file(path: &Path, c: Compression, suffix: &str) {
    let data = std::fs::read(path).expect("read");
    let z = compress::compress(c, &data).expect("compress");
    std::fs::write(format!("{}{suffix}", path.display()), z).expect("write");
    std::fs::remove_file(path).expect("rm");
}

fn records(base: &str) -> usize {
    Archive::open(base).expect("open").records().count()
}

#[test]
fn a_torn_data_volume_and_index_are_cut_back_and_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("a");
    let name = base.to_string_lossy().into_owned();
    write_archive(&base, 20);
    let vol = dir.path().join("a.0");
    let before = std::fs::metadata(&vol).expect("len").len();
    cut(&vol, 5);
    cut(&dir.path().join("a.index"), 3);

    let (code, _, err) = check(&[&name]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("unexpected EOF in record"), "{err}");

    // a dry run reports and changes nothing
    let (code, out, _) = check(&["--repair", "--dry-run", &name]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("would cut"), "{out}");
    assert_eq!(std::fs::metadata(&vol).expect("len").len(), before - 5);

    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    std::fs::set_permissions(&vol, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (code, out, err) = check(&["--repair", &name]);
    assert_eq!(code, 0, "{out}{err}");
    // the repaired file keeps the damaged one's permissions
    assert_eq!(mode(&vol), 0o644);
    assert!(out.contains("a.0: cut at offset"), "{out}");
    assert!(out.contains("a.index: cut at offset"), "{out}");
    let (code, _, err) = check(&[&name]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(records(&name), 19);
}

#[test]
fn compressed_files_are_repaired_in_their_own_compression() {
    for (c, suffix) in [
        (Compression::Xz, ".xz"),
        (Compression::Gzip, ".gz"),
        (Compression::Bzip2, ".bz2"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("z");
        let name = base.to_string_lossy().into_owned();
        write_archive(&base, 30);
        let vol = dir.path().join("z.0");
        cut(&vol, 9);
        compress_file(&vol, c, suffix);
        let meta = dir.path().join("z.meta");
        compress_file(&meta, c, suffix);

        let (code, _, err) = check(&[&name]);
        assert_eq!(code, 1, "{suffix}: {err}");
        let (code, out, err) = check(&["--repair", "--json", &name]);
        assert_eq!(code, 0, "{suffix}: {out}{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
        let repairs: Vec<&str> = doc["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["stage"] == "repair")
            .filter_map(|f| f["message"].as_str())
            .collect();
        assert!(
            repairs
                .iter()
                .any(|m| m.contains(&format!("z.0{suffix}: cut at offset"))),
            "{repairs:?}"
        );
        assert!(dir.path().join(format!("z.0{suffix}")).exists());
        let (code, _, err) = check(&[&name]);
        assert_eq!((code, err.as_str()), (0, ""), "{suffix}");
        assert_eq!(records(&name), 29, "{suffix}");
    }
}

#[test]
fn a_damaged_label_is_not_repaired() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("l");
    let name = base.to_string_lossy().into_owned();
    write_archive(&base, 3);
    let vol = dir.path().join("l.0");
    std::fs::write(&vol, [0u8, 0, 0, 1]).expect("write");
    let (code, out, err) = check(&["--repair", &name]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("not repaired"), "{err}");
}
