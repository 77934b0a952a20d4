//! Our `--csv` and `--json` carry the numbers PCP's text shows (at full precision),
//! `--version` and `--help`.

use std::path::{Path, PathBuf};
use test_support::run_tool;

fn archive(name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/archives")
        .join(name);
    p.to_string_lossy().into_owned()
}

/// The text report's lines as (metric, instance, numbers, units).
fn text_rows(text: &str) -> Vec<(String, String, Vec<f64>, String)> {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let nums = f[2..f.len() - 1]
                .iter()
                .map(|x| x.parse().expect("a number"))
                .collect();
            let inst = f[1]
                .trim_start_matches("[\"")
                .trim_end_matches("\"]")
                .to_string();
            (f[0].to_string(), inst, nums, f[f.len() - 1].to_string())
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.0005 + 1e-9 * b.abs()
}

#[test]
fn csv_rows_are_the_text_rows() {
    let a = archive("sample_v3");
    let (code, text, _) = run_tool(pmlogsummary::run, &["-F", "-b", "-m", "-M", &a]);
    assert_eq!(code, 0);
    let (code, csv, err) = run_tool(pmlogsummary::run, &["--csv", "-b", "-m", "-M", &a]);
    assert_eq!((code, err.as_str()), (0, ""));
    let want = text_rows(&text);
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let head: Vec<String> = r
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    assert_eq!(
        head,
        [
            "metric",
            "instance",
            "stochastic_average",
            "time_average",
            "minimum",
            "maximum",
            "units",
            "note"
        ]
    );
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("a row")).collect();
    assert_eq!(rows.len(), want.len());
    assert!(!rows.is_empty());
    for (row, (metric, inst, nums, units)) in rows.iter().zip(&want) {
        assert_eq!((&row[0], &row[1]), (metric.as_str(), inst.as_str()));
        for (k, n) in nums.iter().enumerate() {
            let got: f64 = row[2 + k].parse().expect("a number");
            assert!(close(got, *n), "{metric} [{inst}] column {k}: {got} vs {n}");
        }
        assert_eq!(&row[6], units);
    }
}

#[test]
fn json_objects_are_the_text_rows() {
    let a = archive("sample_v2");
    let args = ["-F", "-bmMy", "-B", "2", &a, "sample.colour"];
    let (code, text, _) = run_tool(pmlogsummary::run, &args);
    assert_eq!(code, 0);
    let (code, json, _) = run_tool(
        pmlogsummary::run,
        &["--json", "-bmMy", "-B", "2", &a, "sample.colour"],
    );
    assert_eq!(code, 0);
    let objs: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(objs.len(), text.lines().count());
    for (o, line) in objs.iter().zip(text.lines()) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(o["metric"], f[0]);
        assert_eq!(
            format!("[\"{}\"]", o["instance"].as_str().expect("named")),
            f[1]
        );
        for (k, key) in ["stochastic_average", "time_average", "minimum", "maximum"]
            .iter()
            .enumerate()
        {
            let want: f64 = f[2 + k].parse().expect("a number");
            let got = o[key].as_f64().expect("a number");
            assert!(close(got, want), "{key}: {got} vs {want}");
        }
        assert_eq!(
            o["count"].as_u64().map(|n| n.to_string()).as_deref(),
            Some(f[6])
        );
        assert_eq!(o["bins"].as_array().map(Vec::len), Some(2));
    }
}

#[test]
fn version_and_help() {
    let (code, out, _) = run_tool(pmlogsummary::run, &["--version"]);
    assert_eq!(code, 0);
    test_support::assert_version("pmlogsummary", out.as_bytes());
    let (code, _, err) = run_tool(pmlogsummary::run, &["--help"]);
    assert_eq!(code, 1);
    test_support::assert_help_lists("pmlogsummary", err.as_bytes(), &["--csv", "--json"]);
}
