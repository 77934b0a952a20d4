//! pmlogmv on copies of the project's test archives: every file renamed, or
//! none where one new name is taken, and nothing changed by a dry run.

use std::path::Path;
use test_support::run_tool;

/// A copy of the test archive `name` in `dir`; the bytes of its files.
fn copy(name: &str, dir: &Path) -> Vec<Vec<u8>> {
    let base = test_support::copy_test_archive(name, dir);
    ["0", "index", "meta"]
        .iter()
        .map(|ext| std::fs::read(format!("{base}.{ext}")).expect("reads"))
        .collect()
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn arg(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn every_file_takes_the_new_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bytes = copy("sample_v3", d);
    let (code, out, err) = run_tool(
        pmlogmv::run,
        &["-V", &arg(d, "sample_v3"), &arg(d, "moved")],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(files(d), ["moved.0", "moved.index", "moved.meta"]);
    for (ext, b) in ["0", "index", "meta"].iter().zip(&bytes) {
        assert_eq!(&std::fs::read(d.join(format!("moved.{ext}"))).unwrap(), b);
    }
    assert_eq!(out.lines().count(), 6, "three links, three removals: {out}");
}

#[test]
fn a_taken_name_stops_the_move_and_undoes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    copy("sample_v2", d);
    std::fs::write(d.join("moved.meta"), "taken").unwrap();
    let before = files(d);
    let (code, _, err) = run_tool(pmlogmv::run, &[&arg(d, "sample_v2"), &arg(d, "moved")]);
    assert_eq!(code, 1);
    assert!(err.ends_with("moved.meta: already exists\n"), "{err}");
    assert_eq!(files(d), before, "the links made so far are removed");
}

#[test]
fn a_dry_run_changes_nothing_and_an_unsafe_name_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    copy("sample_v2", d);
    let before = files(d);
    let (code, out, _) = run_tool(pmlogmv::run, &["-N", &arg(d, "sample_v2"), &arg(d, "x")]);
    assert_eq!(code, 0);
    assert!(out.starts_with("+ ln "), "{out}");
    assert_eq!(files(d), before);
    let (code, _, err) = run_tool(pmlogmv::run, &[&arg(d, "sample_v2"), "a;b"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "pmlogmv: newname (a;b) unsafe [shell metacharacter ';']\n"
    );
}

fn pmlogcp(a: &[String], o: &mut dyn std::io::Write, e: &mut dyn std::io::Write) -> i32 {
    pmlogmv::run_as(pmlogmv::opts::Mode::Cp, a, o, e)
}

fn pmlogls(a: &[String], o: &mut dyn std::io::Write, e: &mut dyn std::io::Write) -> i32 {
    pmlogmv::run_as(pmlogmv::opts::Mode::Ls, a, o, e)
}

#[test]
fn pmlogcp_copies_into_a_directory_and_pmlogls_lists() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bytes = copy("sample_v2", d);
    std::fs::create_dir(d.join("sub")).unwrap();
    let (code, _, err) = run_tool(pmlogcp, &[&arg(d, "sample_v2"), &arg(d, "sub")]);
    assert_eq!((code, err.as_str()), (0, ""));
    let sub = d.join("sub");
    assert_eq!(
        files(&sub),
        ["sample_v2.0", "sample_v2.index", "sample_v2.meta"]
    );
    assert_eq!(std::fs::read(sub.join("sample_v2.meta")).unwrap(), bytes[2]);
    assert_eq!(files(d).len(), 4, "the source stays");
    let (code, out, _) = run_tool(pmlogls, &[&arg(&sub, "sample_v2")]);
    assert_eq!(code, 0);
    let listed: Vec<&str> = out.lines().collect();
    assert_eq!(listed.len(), 3);
    assert!(listed[0].ends_with("sub/sample_v2.0"), "{out}");
    // pmlogls says nothing of an archive it cannot open unless asked
    assert_eq!(
        run_tool(pmlogls, &["no-such-archive"]),
        (1, String::new(), String::new())
    );
}
