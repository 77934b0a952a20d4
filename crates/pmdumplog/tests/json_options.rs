//! `--json` writes the whole archive: options it cannot honour are refused with a
//! message and the usage (exit 1), not ignored; those it honours still work.

fn run(args: &[&str]) -> (i32, String, String) {
    test_support::run_tool(pmdumplog::run, args)
}

#[test]
fn options_json_cannot_honour_are_refused() {
    let arch = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/archives/sample_v2"
    );
    for opt in [
        "-r", "-l", "-d", "-m", "-x", "-t", "-L", "-i", "-e", "-h", "-I", "-M", "-s", "-z",
    ] {
        let (rc, out, err) = run(&["--json", opt, arch]);
        assert_eq!(rc, 1, "{opt}");
        assert!(out.is_empty(), "{opt}: {out}");
        assert!(
            err.starts_with(&format!(
                "pmdumplog: --json writes the whole archive; {opt} cannot be used with it\nUsage: "
            )),
            "{opt}: {err}"
        );
    }
    let (rc, out, err) = run(&["--json", "-a", "-S", "+0.3", arch]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("{\"type\":\"archive\""), "{out}");
}
