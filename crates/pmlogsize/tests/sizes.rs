//! pmlogsize on the project's test archives: every byte of a whole file is
//! accounted for, the details add up to their totals, and a compressed file
//! says what compression saves.

use archive_format::compress::{compress, Compression};
use std::path::Path;
use test_support::run_tool;

/// The numbers before " bytes" on each line of `out` starting with `prefix`
/// (and not indented further).
fn bytes_of(out: &str, prefix: &str) -> Vec<i64> {
    out.lines()
        .filter(|l| l.starts_with(prefix) && !l[prefix.len()..].starts_with(' '))
        .filter_map(|l| l.split(": ").nth(1)?.split(' ').next()?.parse().ok())
        .collect()
}

#[test]
fn a_whole_archive_is_accounted_for_and_details_add_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["sample_v2", "sample_v3"] {
        let base = test_support::copy_test_archive(name, dir.path());
        let (code, out, err) = run_tool(pmlogsize::run, &["-d", &base]);
        assert_eq!((code, err.as_str()), (0, ""), "{name}");
        assert!(!out.contains("unaccounted"), "{out}");
        for ext in ["0", "index", "meta"] {
            let size = std::fs::metadata(format!("{base}.{ext}")).unwrap().len() as i64;
            let part = out
                .split(&format!("{base}.{ext}:\n"))
                .nth(1)
                .expect("a section per file")
                .split(&format!("{base}."))
                .next()
                .unwrap();
            let totals: i64 = bytes_of(part, "  ").iter().sum();
            assert_eq!(totals, size, "{name}.{ext}: {part}");
        }
        let data_part = out
            .split(".0:\n")
            .nth(1)
            .unwrap()
            .split(".index:")
            .next()
            .unwrap();
        let data = bytes_of(data_part, "  data")[0];
        let per_metric: i64 = bytes_of(data_part, "    ").iter().sum();
        // PCP counts a v3 timestamp as 16 bytes (a pmTimespec), 4 more than
        // the disk holds, so a v3 record's metrics hold 4 bytes more than its
        // data share
        let records: i64 = data_part
            .split(" records")
            .next()
            .and_then(|h| h.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("a record count");
        let extra = if name == "sample_v3" { 4 * records } else { 0 };
        assert_eq!(per_metric, data + extra, "{data_part}");
    }
}

#[test]
fn a_compressed_volume_says_what_compression_saves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = test_support::copy_test_archive("sample_v3", dir.path());
    let vol = format!("{base}.0");
    let plain = std::fs::read(&vol).unwrap();
    std::fs::write(
        format!("{vol}.xz"),
        compress(Compression::Xz, &plain).unwrap(),
    )
    .unwrap();
    std::fs::remove_file(&vol).unwrap();
    let xz = format!("{vol}.xz");
    let (code, out, _) = run_tool(pmlogsize::run, &[&xz]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(&format!("{xz}: [compression reduces size below by about ")),
        "{out}"
    );
    assert!(Path::new(&xz).exists());
}

#[test]
fn a_name_that_matches_nothing_is_an_error() {
    let (code, _, err) = run_tool(pmlogsize::run, &["/nonexistent-dir/x"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("Error: scandir(\"/nonexistent-dir\""),
        "{err}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let none = dir.path().join("none").to_string_lossy().into_owned();
    let (code, _, err) = run_tool(pmlogsize::run, &[&none]);
    assert_eq!(
        (code, err),
        (1, format!("Error: no PCP archive files match \"{none}\"\n"))
    );
}
