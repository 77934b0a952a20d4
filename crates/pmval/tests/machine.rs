//! `--csv` and `--json` carry the same samples as the text output, a sample
//! without values as empty fields or nulls.

use std::path::{Path, PathBuf};

fn archive() -> String {
    let p: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives/sample_v3");
    p.to_string_lossy().into_owned()
}

fn run(extra: &[&str]) -> String {
    let mut args: Vec<String> = vec!["-a".into(), archive(), "-t".into(), "0.1".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push("sample.colour".into());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = pmval::run(&args, &mut out, &mut err);
    assert_eq!(status, 0, "{}", String::from_utf8_lossy(&err));
    String::from_utf8(out).expect("utf-8")
}

/// The value rows of the text output, as numbers per instance column (none for
/// a sample without values).
fn text_rows() -> Vec<Vec<Option<i64>>> {
    run(&[])
        .lines()
        .filter(|l| l.len() > 12 && l.as_bytes()[2] == b':')
        .map(|l| {
            if l.contains("No values available") {
                return vec![None; 3];
            }
            l[12..]
                .split_whitespace()
                .map(|v| Some(v.parse().expect("number")))
                .collect()
        })
        .collect()
}

#[test]
fn csv_rows_match_the_text_output() {
    let csv = run(&["--csv"]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("time,red,green,blue"));
    let rows: Vec<Vec<Option<i64>>> = lines
        .map(|l| {
            l.split(',')
                .skip(1)
                .map(|v| (!v.is_empty()).then(|| v.parse().expect("number")))
                .collect()
        })
        .collect();
    let want = text_rows();
    assert!(want.iter().any(|r| r[0].is_some()));
    assert!(
        want.iter().any(|r| r[0].is_none()),
        "a sample without values"
    );
    assert_eq!(rows, want);
}

#[test]
fn json_lines_match_the_text_output() {
    let json = run(&["--json"]);
    let rows: Vec<Vec<Option<i64>>> = json
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            assert_eq!(v["metric"], "sample.colour");
            assert!(v["time"].as_str().is_some_and(|t| t.contains('T')));
            ["red", "green", "blue"]
                .iter()
                .map(|k| {
                    let x = &v["instances"][k];
                    assert!(x.is_null() || x.is_i64(), "{l}");
                    x.as_i64()
                })
                .collect()
        })
        .collect();
    assert_eq!(rows, text_rows());
}
