//! What every tool says of itself: `--version` gives PCP's first line (scripts parse
//! it), then this project's; `--help` gives PCP's usage, then the options that are
//! ours; `-?` gives PCP's usage alone.

use std::io::Write;

fn pmlc(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    pmlc::run(args, &mut std::io::Cursor::new(Vec::new()), out, err)
}

/// Each tool with a `--version`, and the options it has beyond PCP's.
const TOOLS: [(&str, test_support::RunFn, &[&str]); 5] = [
    ("pmdumplog", pmdumplog::run, &["--json"]),
    ("pmval", pmval::run, &["--csv", "--json", "--nearest"]),
    ("pmlogextract", pmlogextract::run, &["--version"]),
    (
        "pmlogcheck",
        pmlogcheck::run,
        &["--repair", "--dry-run", "--json", "--version"],
    ),
    ("pmlc", pmlc, &["--pcp-exit-status", "--version"]),
];

fn run(f: test_support::RunFn, arg: &str) -> (i32, Vec<u8>, Vec<u8>) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = f(&[arg.to_string()], &mut out, &mut err);
    (status, out, err)
}

#[test]
fn version_and_help_say_what_is_ours() {
    for (tool, f, ours) in TOOLS {
        let (status, out, _) = run(f, "--version");
        assert_eq!(status, 0, "{tool} --version");
        test_support::assert_version(tool, &out);
        let (status, _, err) = run(f, "--help");
        assert_eq!(status, 1, "{tool} --help exits 1, as PCP's");
        test_support::assert_help_lists(tool, &err, ours);
        let (_, _, err) = run(f, "-?");
        let err = String::from_utf8_lossy(&err);
        assert!(err.starts_with(&format!("Usage: {tool} ")), "{err}");
        assert!(
            !err.contains("pcp-archive-rs"),
            "{tool} -? is PCP's usage alone: {err}"
        );
    }
}
