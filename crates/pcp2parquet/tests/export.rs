//! pcp2parquet end to end on corpus archives: the rows in the files are the
//! archive's values, a rerun adds nothing, the options shape the rows, and the
//! command line behaves as a PCP user expects of a tool.

// helpers of the tests below: a failure to read what the tool wrote is the test failing
#![allow(clippy::unwrap_used)]

use archive_format::Archive;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::path::{Path, PathBuf};
use std::process::Command;

const CORPUS: &str = "/var/lib/pcp/testsuite/archives";

fn corpus(name: &str) -> Option<PathBuf> {
    let p = Path::new(CORPUS).join(name);
    if Path::new(CORPUS).join(format!("{name}.meta")).exists()
        || Path::new(CORPUS).join(format!("{name}.meta.xz")).exists()
    {
        Some(p)
    } else {
        test_support::skip(&format!("the QA corpus archive {name} is not installed"));
        None
    }
}

fn tool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pcp2parquet"))
}

/// Every `.parquet` file under `dir`, sorted.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = test_support::files_under(dir);
    out.retain(|p| p.extension().is_some_and(|x| x == "parquet"));
    out
}

fn rows(files: &[PathBuf]) -> i64 {
    files
        .iter()
        .map(|f| {
            let r = SerializedFileReader::new(std::fs::File::open(f).unwrap()).unwrap();
            r.metadata().file_metadata().num_rows()
        })
        .sum()
}

/// Values and marks as the library reads them.
fn archive_rows(base: &Path) -> i64 {
    let a = Archive::open(base.to_str().unwrap()).unwrap();
    let mut n = 0i64;
    for r in a.records() {
        let (_, rec) = r.unwrap();
        if rec.is_mark() {
            n += 1;
        }
        n += rec
            .vsets
            .iter()
            .map(|vs| vs.values.len() as i64)
            .sum::<i64>();
    }
    n
}

#[test]
fn every_value_once_and_a_rerun_adds_nothing() {
    let Some(a) = corpus("omnibus_v3") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let st = tool().arg("-o").arg(&out).arg(&a).status().unwrap();
    assert!(st.success());
    let values = parquet_files(&out.join("values"));
    assert!(!values.is_empty());
    for f in &values {
        let rel = f.strip_prefix(&out).unwrap().to_string_lossy().into_owned();
        assert!(
            rel.starts_with("values/host=bozo-vm.localdomain/date=2022-04-0"),
            "{rel}"
        );
    }
    assert_eq!(rows(&values), archive_rows(&a));
    assert!(!parquet_files(&out.join("events")).is_empty());
    assert_eq!(parquet_files(&out.join("metrics")).len(), 1);
    assert!(out.join(".pcp2parquet.json").exists());

    // a rerun: the same files, no more rows
    let before = parquet_files(&out);
    let st = tool().arg("-o").arg(&out).arg(&a).status().unwrap();
    assert!(st.success());
    assert_eq!(parquet_files(&out), before);
    assert_eq!(rows(&parquet_files(&out.join("values"))), archive_rows(&a));

    // other options into the same directory are refused, another time unit too
    for other in [["-t", "10"], ["--time-unit", "us"]] {
        let o = tool()
            .args(other)
            .arg("-o")
            .arg(&out)
            .arg(&a)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{other:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("pcp2parquet: "), "{err}");
        assert!(err.contains("other options"), "{err}");
    }
    // the default unit said again is the same options
    let st = tool()
        .args(["--time-unit", "ns", "-o"])
        .arg(&out)
        .arg(&a)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(parquet_files(&out), before);
}

#[test]
fn metrics_and_window_select_rows() {
    let Some(a) = corpus("20201109") else { return };
    let d = tempfile::tempdir().unwrap();
    let all = d.path().join("all");
    let some = d.path().join("some");
    assert!(tool()
        .arg("-o")
        .arg(&all)
        .arg(&a)
        .status()
        .unwrap()
        .success());
    assert!(tool()
        .args([
            "-m",
            "kernel.all",
            "-m",
            "mem.util.free",
            "-S",
            "+10min",
            "-T",
            "+20min"
        ])
        .arg("-o")
        .arg(&some)
        .arg(&a)
        .status()
        .unwrap()
        .success());
    let (n_all, n_some) = (
        rows(&parquet_files(&all.join("values"))),
        rows(&parquet_files(&some.join("values"))),
    );
    assert!(n_some > 0 && n_some * 10 < n_all, "{n_some} of {n_all}");
}

#[test]
fn interpolated_samples_are_rates_for_counters() {
    let Some(a) = corpus("20201109") else { return };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    assert!(tool()
        .args([
            "-t",
            "1min",
            "-m",
            "kernel.all.cpu.user",
            "-m",
            "kernel.all.load"
        ])
        .arg("-o")
        .arg(&out)
        .arg(&a)
        .status()
        .unwrap()
        .success());
    let files = parquet_files(&out.join("values"));
    let r = SerializedFileReader::new(std::fs::File::open(&files[0]).unwrap()).unwrap();
    let mut user = Vec::new();
    let mut load = 0;
    for row in r.get_row_iter(None).unwrap() {
        let s = row.unwrap().to_string();
        if s.contains("kernel.all.cpu.user") {
            user.push(s);
        } else if s.contains("kernel.all.load") {
            load += 1;
        }
    }
    // three instances of the load a sample, one user rate (none for the first)
    assert!(load > 3 && load % 3 == 0, "{load}");
    assert_eq!(user.len(), load / 3 - 1, "{user:?}");
}

#[test]
fn command_line_conventions() {
    let o = tool().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    for opt in [
        "--output",
        "--start",
        "--finish",
        "--metric",
        "--interval",
        "--jobs",
    ] {
        assert!(help.contains(opt), "{opt} in {help}");
    }
    let o = tool().arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("pcp2parquet "));
    let o = tool().args(["--completions", "bash"]).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("pcp2parquet"));
    let o = tool().arg("--man").output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains(".TH pcp2parquet"));
    // no such archive
    let d = tempfile::tempdir().unwrap();
    let o = tool()
        .arg("-o")
        .arg(d.path())
        .arg(d.path().join("nothing-here"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("pcp2parquet: ") && err.contains("no PCP archive"),
        "{err}"
    );
}
