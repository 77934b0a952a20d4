//! pmlogrewrite without rules: the project's archives copied, file for file the
//! bytes PCP's pmlogrewrite writes (where it is installed), and readable again
//! with the same records; the command line's mistakes said as PCP says them.

use std::path::Path;
use test_support::run_tool;

mod common;
use common::{archive, REFERENCE};

fn files(base: &Path) -> Vec<(String, Vec<u8>)> {
    let dir = base.parent().expect("a directory");
    let stem = base
        .file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            let ext = n.strip_prefix(&format!("{stem}."))?.to_string();
            Some((ext, std::fs::read(e.path()).ok()?))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn copies_are_pcps_byte_for_byte() {
    let have = Path::new(REFERENCE).exists();
    if !have {
        test_support::skip("PCP's pmlogrewrite is not installed");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (a, opts) in [
        ("sample_v2", vec![]),
        ("sample_v3", vec![]),
        ("marks", vec![]),
        ("pmi_v2", vec![]),
        ("sample_v2", vec!["-V", "3"]),
    ] {
        let tag = format!("{a}{}", opts.join(""));
        let ours = dir.path().join(format!("ours-{tag}"));
        let mut args: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
        args.extend([archive(a), ours.to_string_lossy().into_owned()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run_tool(pmlogrewrite::run, &refs);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""), "{tag}");
        // the copy reads back with the same records
        let got = archive_format::Archive::open(ours.to_str().expect("utf-8")).expect("opens");
        let want = archive_format::Archive::open(archive(a)).expect("opens");
        assert_eq!(got.metadata().descs(), want.metadata().descs(), "{tag}");
        if !have {
            continue;
        }
        let theirs = dir.path().join(format!("ref-{tag}"));
        let mut args: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
        args.extend([archive(a), theirs.to_string_lossy().into_owned()]);
        let st = std::process::Command::new(REFERENCE)
            .args(&args)
            .status()
            .expect("runs");
        assert!(st.success(), "{tag}");
        assert_eq!(files(&ours), files(&theirs), "{tag}");
    }
}

#[test]
fn command_line_mistakes() {
    let (code, _, err) = run_tool(pmlogrewrite::run, &["-V", "4", "a", "b"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("pmlogrewrite: Error: unsupported version (4) requested\nUsage: "),
        "{err}"
    );
    let (code, _, err) = run_tool(pmlogrewrite::run, &["only-one"]);
    assert_eq!(code, 1);
    assert!(
        err.ends_with("output-archive is required unless -i is specified\n"),
        "{err}"
    );
    let (code, _, err) = run_tool(pmlogrewrite::run, &["/nonexistent/a", "b"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "pmlogrewrite: Error: cannot open archive \"/nonexistent/a\": No such file or directory\n"
    );
}

#[test]
fn an_existing_output_is_not_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    std::fs::write(dir.path().join("out.meta"), b"keep").expect("writes");
    let o = out.to_string_lossy().into_owned();
    let (code, _, err) = run_tool(pmlogrewrite::run, &[&archive("sample_v3"), &o]);
    assert_eq!(code, 1);
    assert!(err.contains("__pmLogCreate("), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("out.meta")).expect("kept"),
        b"keep"
    );
}

#[test]
fn an_output_named_in_the_current_directory_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = test_support::copy_test_archive("sample_v3", dir.path());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pmlogrewrite"))
        .current_dir(dir.path())
        .args([&input, "bare"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let bare = dir.path().join("bare");
    let names: Vec<String> = files(&bare).into_iter().map(|(e, _)| e).collect();
    assert_eq!(names, ["0", "index", "meta"]);
    assert_eq!(test_support::hidden_files(dir.path()), Vec::<String>::new());
}
