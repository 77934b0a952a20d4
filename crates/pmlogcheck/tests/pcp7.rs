//! PCP 7's options on archives we write and then damage: `-R` cuts a torn data
//! volume and the index entries past it, says so and leaves an archive that checks
//! clean; it refuses compressed files; `-r` is refused without a terminal; `-f`
//! checks several archives, each once.

use archive_format::compress::{self, Compression};
use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::write_archive;

/// Runs the tool in `dir` with stdin from nowhere; (status, stdout, stderr).
fn check_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pmlogcheck"))
        .args(args)
        .current_dir(dir)
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .expect("run pmlogcheck");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf8");
    (
        o.status.code().unwrap_or(-1),
        text(o.stdout),
        text(o.stderr),
    )
}

fn len(p: &Path) -> u64 {
    std::fs::metadata(p).expect("stat").len()
}

#[test]
fn auto_repair_cuts_the_volume_and_the_index_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_archive(&dir.path().join("a"), 20);
    let vol = dir.path().join("a.0");
    let whole = len(&vol);
    // the last record gone and the one before it torn (a record's trailer is
    // its length)
    let bytes = std::fs::read(&vol).expect("read");
    let tail: [u8; 4] = bytes[bytes.len() - 4..].try_into().expect("trailer");
    let torn = whole - u64::from(u32::from_be_bytes(tail)) - 5;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&vol)
        .expect("open");
    f.set_len(torn).expect("cut");

    let (code, _, err) = check_in(dir.path(), &["-R", "a"]);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("a.0[record 19]: unexpected EOF"),
        "{err}"
    );
    let last = lines[1]
        .strip_prefix("a.0: last valid record ends at offset ")
        .and_then(|r| r.strip_suffix(&format!(" (of {torn})")))
        .expect("the last valid record's end, with the file's size");
    let at: u64 = last.parse().expect("offset");
    assert_eq!(
        lines[2],
        format!("Info: a.0: truncated from {torn} to {at} bytes")
    );
    assert_eq!(len(&vol), at);
    // the index's last entry points past the cut volume: the index is cut too
    assert!(err.contains("Info: a.index: truncated from"), "{err}");
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = check_in(dir.path(), &["a"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn compressed_files_are_not_repaired_by_truncation() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_archive(&dir.path().join("a"), 5);
    let vol = dir.path().join("a.0");
    let z = compress::compress(Compression::Xz, &std::fs::read(&vol).expect("read")).expect("xz");
    std::fs::write(dir.path().join("a.0.xz"), z).expect("write");
    std::fs::remove_file(&vol).expect("rm");
    let (code, _, err) = check_in(dir.path(), &["-R", "a"]);
    assert_eq!(code, 1);
    assert_eq!(err, "Error: a.0.xz: compressed file, repair not allowed\n");
}

#[test]
fn interactive_repair_needs_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_archive(&dir.path().join("a"), 5);
    let (code, out, err) = check_in(dir.path(), &["-r", "a"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "Error: not interactive so repair not allowed\n       ... consider -R for non-interactive repair\n"
    );
}

#[test]
fn full_checks_every_archive_named_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_archive(&dir.path().join("a"), 5);
    write_archive(&dir.path().join("b"), 5);
    let vol = dir.path().join("b.0");
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&vol)
        .expect("open");
    f.set_len(len(&vol) - 3).expect("cut");
    let (code, _, err) = check_in(dir.path(), &["-f", "-v", "a", "b", "a.0"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Scanning for components of archive \"a\""),
        "{err}"
    );
    assert!(
        err.contains("Scanning for components of archive \"b\""),
        "{err}"
    );
    assert!(
        err.contains("b.0: last valid record ends at offset"),
        "{err}"
    );
    assert!(
        err.contains("a.0: skip, already checked this archive"),
        "{err}"
    );
    // PCP 7's order: the index, the metadata, then the volumes
    let a_files: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("a.") && l.contains("start pass0"))
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(a_files, ["a.index", "a.meta", "a.0"]);
    // the good archive alone
    let (code, _, err) = check_in(dir.path(), &["-f", "a"]);
    assert_eq!((code, err.as_str()), (0, ""));
}
