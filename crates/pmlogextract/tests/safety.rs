//! pmlogextract never leaves a half-written archive and never overwrites one.

use std::path::Path;

fn sample(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/archives")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_existing_output_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out");
    std::fs::write(tmp.path().join("out.index"), b"keep me").expect("write");
    let args = vec![sample("sample_v3"), out.to_string_lossy().into_owned()];
    let (mut so, mut se) = (Vec::new(), Vec::new());
    assert_eq!(pmlogextract::run(&args, &mut so, &mut se), 1);
    let err = String::from_utf8_lossy(&se);
    assert!(err.contains("already exists, not over-written"), "{err}");
    assert_eq!(names(tmp.path()), ["out.index"]);
    assert_eq!(
        std::fs::read(tmp.path().join("out.index")).expect("read"),
        b"keep me"
    );
}

#[test]
fn a_failed_extraction_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out").to_string_lossy().into_owned();
    // different hosts: abandoned after the output was started
    let args = vec![sample("sample_v2"), sample("pmi_v2"), out.clone()];
    let (mut so, mut se) = (Vec::new(), Vec::new());
    assert_eq!(pmlogextract::run(&args, &mut so, &mut se), 1);
    assert!(String::from_utf8_lossy(&se).contains("not created"));
    assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
    // -s 0 writes nothing: abandoned at the end
    let args = vec!["-s".into(), "0".into(), sample("sample_v3"), out];
    assert_eq!(pmlogextract::run(&args, &mut so, &mut se), 1);
    assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
}

#[test]
fn a_successful_extraction_reads_back_record_for_record() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out").to_string_lossy().into_owned();
    let args = vec![sample("sample_v3"), out.clone()];
    let (mut so, mut se) = (Vec::new(), Vec::new());
    assert_eq!(
        pmlogextract::run(&args, &mut so, &mut se),
        0,
        "{}",
        String::from_utf8_lossy(&se)
    );
    assert_eq!(names(tmp.path()), ["out.0", "out.index", "out.meta"]);
    let a = archive_format::Archive::open(sample("sample_v3")).expect("input");
    let b = archive_format::Archive::open(&out).expect("output");
    let ra: Vec<_> = a.records().map(|r| r.expect("in").1).collect();
    let rb: Vec<_> = b.records().map(|r| r.expect("out").1).collect();
    assert_eq!(ra.len(), rb.len());
    assert!(ra == rb, "records differ");
}

/// SIGTERM, SIGINT and SIGHUP while the output is being written: its temporary
/// files are removed and the process ends of the signal (as PCP's does). The
/// test hook stops the process right after the files are created, so the
/// signal arrives at that point without a race.
#[test]
fn signals_leave_no_temporary_files() {
    use std::os::unix::process::ExitStatusExt;
    for sig in ["TERM", "INT", "HUP"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let out = tmp.path().join("out");
        /// The child, killed if the test fails before it is waited for.
        struct Reaped(std::process::Child);
        impl Drop for Reaped {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        let mut child = Reaped(
            std::process::Command::new(env!("CARGO_BIN_EXE_pmlogextract"))
                .env("PMLOGEXTRACT_STOP_AFTER_CREATE", "1")
                .arg(sample("sample_v3"))
                .arg(&out)
                .spawn()
                .expect("spawn"),
        );
        let pid = child.0.id().to_string();
        // readiness: the process has stopped itself (state T) with its files made
        let stat = format!("/proc/{pid}/stat");
        let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let s = std::fs::read_to_string(&stat).unwrap_or_default();
            let state = s.rsplit_once(") ").map(|(_, r)| r.chars().next());
            if state == Some(Some('T')) {
                break;
            }
            assert!(std::time::Instant::now() < end, "pmlogextract did not stop");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            names(tmp.path())
                .iter()
                .any(|n| n.starts_with(".out.pmlogextract-")),
            "{:?}",
            names(tmp.path())
        );
        let kill = |s: &str| {
            std::process::Command::new("kill")
                .args([&format!("-{s}"), &pid])
                .status()
                .expect("kill")
        };
        assert!(kill(sig).success());
        assert!(kill("CONT").success());
        let status = child.0.wait().expect("wait");
        let want = match sig {
            "TERM" => 15,
            "INT" => 2,
            _ => 1,
        };
        assert_eq!(status.signal(), Some(want), "SIG{sig}: {status:?}");
        assert!(
            names(tmp.path()).is_empty(),
            "SIG{sig}: {:?}",
            names(tmp.path())
        );
    }
}
