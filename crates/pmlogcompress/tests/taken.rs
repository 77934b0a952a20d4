//! A compressed name already taken: where the file there holds the volume's
//! bytes (a killed run renamed it into place and did not remove the source),
//! the run removes the source and goes on; otherwise it fails with the
//! program's own words, as PCP 7.2's script does, and the volume stays.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pmlogcompress");

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN).args(args).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), err)
}

#[test]
fn a_finished_step_is_completed_and_a_stranger_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = test_support::copy_test_archive("sample_v3", dir.path());
    let vol = format!("{base}.0");
    let bytes = std::fs::read(&vol).expect("reads");

    // a stranger under the name: xz's refusal, the volume kept
    std::fs::write(format!("{vol}.xz"), b"not the volume").expect("writes");
    let (rc, err) = run(&["-l", "0", "-f", "xz", &base]);
    assert_eq!(rc, 1, "{err}");
    assert_eq!(
        err,
        format!("xz: {vol}.xz: File exists\n{vol}: xz failed!\n")
    );
    assert_eq!(std::fs::read(&vol).expect("kept"), bytes);

    // the volume's own bytes under the name (made with -k, as a killed run
    // leaves them): the source goes, and the rest of the archive is done
    std::fs::remove_file(format!("{vol}.xz")).expect("removes");
    let (rc, err) = run(&["-l", "0", "-f", "xz", "-A", "-k", &vol]);
    assert_eq!((rc, err.as_str()), (0, ""));
    let (rc, err) = run(&["-l", "0", "-f", "xz", &base]);
    assert_eq!((rc, err.as_str()), (0, ""));
    assert!(!std::path::Path::new(&vol).exists());
    let meta = format!("{base}.meta.xz");
    assert!(std::path::Path::new(&meta).exists(), "{meta}");
    archive_format::Archive::open(&base).expect("the compressed archive opens");
}
