//! Golden tests: our pmval, run in-process, against the output of PCP 6.0.3's pmval
//! kept under testdata/golden-pmval (made by scripts/regen-testdata.sh). These need
//! no PCP installation.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn matches_reference_goldens() {
    let root = root().canonicalize().expect("workspace root");
    let golden = root.join("testdata/golden-pmval");
    // the goldens were made in testdata/archives with TZ=UTC; this is the only test in
    // this binary, so changing the process state here is safe
    std::env::set_var("TZ", "UTC");
    std::env::set_current_dir(root.join("testdata/archives")).expect("cd testdata/archives");
    let mut cases: Vec<PathBuf> = Vec::new();
    for arch in std::fs::read_dir(&golden).expect("testdata/golden-pmval") {
        for case in std::fs::read_dir(arch.expect("entry").path()).expect("archive dir") {
            cases.push(case.expect("case").path());
        }
    }
    cases.sort();
    assert!(
        cases.len() >= 30,
        "expected the committed goldens, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let cmd = std::fs::read_to_string(case.join("cmd")).expect("cmd");
        // `args` (one argument a line) where an argument holds spaces
        let args: Vec<String> = match std::fs::read_to_string(case.join("args")) {
            Ok(lines) => lines.lines().map(String::from).collect(),
            Err(_) => cmd.split_whitespace().map(String::from).collect(),
        };
        let want_out = std::fs::read(case.join("stdout")).expect("stdout");
        let want_err = std::fs::read(case.join("stderr")).expect("stderr");
        let want_status: i32 = std::fs::read_to_string(case.join("status"))
            .expect("status")
            .trim()
            .parse()
            .expect("number");
        let mut out = Vec::new();
        let mut err = Vec::new();
        let status = pmval::run(&args, &mut out, &mut err);
        if out != want_out || err != want_err || status != want_status {
            let first = String::from_utf8_lossy(&out)
                .lines()
                .zip(String::from_utf8_lossy(&want_out).lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("line {}: ours {a:?} reference {b:?}", i + 1))
                .unwrap_or_else(|| "lengths or stderr/status differ".into());
            failures.push(format!(
                "{} ({cmd}): {first}; status {status} vs {want_status}",
                case.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
