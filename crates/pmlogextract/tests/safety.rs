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
