//! Golden tests: our pmlogextract, run in-process, against what PCP 6.0.3's
//! pmlogextract printed and wrote for the same inputs (testdata/golden-pmlogextract,
//! made by scripts/regen-golden-pmlogextract.sh). Output files are compared byte for
//! byte with the pid of each label zeroed. These need no PCP installation.

use std::path::{Path, PathBuf};

mod common;
use common::masked;

#[test]
fn matches_reference_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root");
    let golden = root.join("testdata/golden-pmlogextract");
    // the goldens were made in testdata/archives with TZ=UTC; this is the only test in
    // this binary, so changing the process state here is safe
    std::env::set_var("TZ", "UTC");
    std::env::set_current_dir(root.join("testdata/archives")).expect("cd testdata/archives");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("testdata/golden-pmlogextract")
        .map(|e| e.expect("entry").path())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 15,
        "expected the committed goldens, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let tmp = tempfile::tempdir().expect("tempdir");
        let out = tmp.path().join("out").to_string_lossy().into_owned();
        let cmd = std::fs::read_to_string(case.join("cmd")).expect("cmd");
        let args: Vec<String> = cmd
            .split_whitespace()
            .map(|a| {
                if a == "OUT" {
                    out.clone()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let (mut so, mut se) = (Vec::new(), Vec::new());
        let status = pmlogextract::run(&args, &mut so, &mut se);
        let se = String::from_utf8_lossy(&se).replace(&out, "OUT");
        let so = String::from_utf8_lossy(&so).replace(&out, "OUT");
        let want_status: i32 = std::fs::read_to_string(case.join("status"))
            .expect("status")
            .trim()
            .parse()
            .expect("status number");
        let want_err = std::fs::read_to_string(case.join("stderr")).expect("stderr");
        let want_out = std::fs::read_to_string(case.join("stdout")).expect("stdout");
        let mut diffs = Vec::new();
        if status != want_status {
            diffs.push(format!("status {status}, reference {want_status}"));
        }
        if se != want_err {
            diffs.push(format!("stderr:\n{se}\nreference:\n{want_err}"));
        }
        if so != want_out {
            diffs.push(format!("stdout:\n{so}\nreference:\n{want_out}"));
        }
        let mut want_files: Vec<String> = std::fs::read_dir(case)
            .expect("case dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("out."))
            .collect();
        want_files.sort();
        let mut got_files: Vec<String> = std::fs::read_dir(tmp.path())
            .expect("tmp")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        got_files.sort();
        if got_files != want_files {
            diffs.push(format!("files {got_files:?}, reference {want_files:?}"));
        } else {
            for f in &want_files {
                if masked(&tmp.path().join(f)) != masked(&case.join(f)) {
                    diffs.push(format!("{f} differs"));
                }
            }
        }
        if !diffs.is_empty() {
            failures.push(format!("{cmd}{}", diffs.join("\n")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n---\n")
    );
}
