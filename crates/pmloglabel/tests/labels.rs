//! pmloglabel on copies of the project's test archives: labels changed in
//! every file, mismatches found and repaired, and nothing written where not
//! every file can be.

use archive_format::codec::label::{decode_label, encode_label, Label};
use archive_format::compress::{compress, Compression};
use std::path::{Path, PathBuf};
use test_support::run_tool;

use test_support::copy_test_archive as copy;

fn files(base: &str) -> Vec<PathBuf> {
    ["0", "index", "meta"]
        .iter()
        .map(|e| PathBuf::from(format!("{base}.{e}")))
        .collect()
}

fn label_of(p: &Path) -> Label {
    decode_label(&std::fs::read(p).expect("reads")).expect("a good label")
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_tool(pmloglabel::run, args)
}

#[test]
fn a_new_host_goes_into_every_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = copy("sample_v3", dir.path());
    let before = label_of(Path::new(&format!("{base}.meta")));
    assert!(!before.zoneinfo.is_empty(), "the test archive has zoneinfo");
    let (code, out, err) = run(&["-h", "newhost", &base]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    for (f, vol) in files(&base).iter().zip([0, -2, -1]) {
        let l = label_of(f);
        assert_eq!((l.hostname.as_str(), l.vol), ("newhost", vol), "{f:?}");
        assert_eq!((l.pid, l.start), (before.pid, before.start));
        // PCP 6.0.3 drops the zone information of a label it writes
        assert_eq!(l.zoneinfo, "");
    }
    let a = archive_format::Archive::open(&base).expect("opens");
    assert_eq!(a.label().hostname, "newhost");
}

#[test]
fn a_mismatch_is_found_and_repaired() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = copy("sample_v2", dir.path());
    let meta = PathBuf::from(format!("{base}.meta"));
    let mut l = label_of(&meta);
    let pid = l.pid;
    l.pid += 1;
    let mut bytes = std::fs::read(&meta).expect("reads");
    bytes[..l.record_len()].copy_from_slice(&encode_label(&l));
    std::fs::write(&meta, bytes).expect("writes");
    let (code, _, err) = run(&[&base]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "Mismatched PID ({}/{pid}) between metadata volume and data volume 0\n",
            pid + 1
        )
    );
    let (code, _, _) = run(&["-p", &pid.to_string(), &base]);
    assert_eq!(code, 0);
    assert_eq!(run(&[&base]), (0, String::new(), String::new()));
}

#[test]
fn a_version_change_is_refused_with_nothing_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = copy("sample_v2", dir.path());
    let before: Vec<Vec<u8>> = files(&base)
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let (code, _, err) = run(&["-V", "3", &base]);
    assert_eq!(code, 3);
    assert!(err.contains("would overwrite the records"), "{err}");
    let after: Vec<Vec<u8>> = files(&base)
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_compressed_volume_stops_every_write() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = copy("sample_v2", dir.path());
    let vol = format!("{base}.0");
    let xz = compress(Compression::Xz, &std::fs::read(&vol).unwrap()).expect("compresses");
    std::fs::write(format!("{vol}.xz"), xz).unwrap();
    std::fs::remove_file(&vol).unwrap();
    let meta = std::fs::read(format!("{base}.meta")).unwrap();
    let (code, out, err) = run(&["-h", "other", "-l", &base]);
    assert_eq!(code, 3);
    assert!(err.starts_with("Failed data volume 0 open: No such file or directory\n"));
    assert!(
        err.ends_with("no label written (every file's or none)\n"),
        "{err}"
    );
    assert_eq!(std::fs::read(format!("{base}.meta")).unwrap(), meta);
    // the label shown is the one asked for; the archive, untouched, still opens
    assert!(
        out.contains("Performance metrics from host other\n"),
        "{out}"
    );
    assert!(!out.contains("UNKNOWN"), "{out}");
}
