//! The command line beyond what the conformance suite compares with PCP's:
//! `--json` keeps stdout a JSON document, `--version` names this project, and
//! errors come as `pmlogcheck: message` with exit status 1.

fn run(args: &[&str]) -> (i32, String, String) {
    test_support::run_tool(pmlogcheck::run, args)
}

fn corpus_copy(dir: &std::path::Path) -> String {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives");
    for ext in ["0", "meta", "index"] {
        std::fs::copy(
            src.join(format!("sample_v2.{ext}")),
            dir.join(format!("a.{ext}")),
        )
        .expect("copy");
    }
    dir.join("a").to_string_lossy().into_owned()
}

#[test]
fn json_stays_json_with_every_option() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = corpus_copy(dir.path());
    for extra in [&[][..], &["-z"], &["-Z", "UTC"], &["-v", "-l"]] {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        args.push(&a);
        let (code, out, err) = run(&args);
        let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
        assert_eq!(doc["status"], code, "{extra:?}");
        assert_eq!(code, 0, "{extra:?}: {err}");
        assert!(err.is_empty(), "{extra:?}: {err}");
    }
    // a torn volume: the finding is in the document, with its pass
    let vol = dir.path().join("a.0");
    let len = std::fs::metadata(&vol).expect("len").len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&vol)
        .expect("open")
        .set_len(len - 3)
        .expect("cut");
    let (code, out, _) = run(&["--json", &a]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
    let f = &doc["findings"][0];
    assert_eq!(f["stage"], "pass0");
    assert!(
        f["message"]
            .as_str()
            .expect("message")
            .contains("a.0[record"),
        "{f}"
    );
}

#[test]
fn version_names_this_project() {
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("pcp-archive-rs") && out.contains("6.0.3"),
        "{out}"
    );
    // -V is not one of PCP's pmlogcheck options
    let (code, _, err) = run(&["-V"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("pmlogcheck: invalid option -- 'V'"),
        "{err}"
    );
}

#[test]
fn no_files_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("nothing").to_string_lossy().into_owned();
    let (code, _, err) = run(&[&a]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!("pmlogcheck: no PCP archive files match \"{a}\"\n")
    );
}
