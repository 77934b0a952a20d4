//! `--version`: PCP's first line (scripts parse it), then this project's.

#[test]
fn version_names_pcp_then_this_project() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = pmdumplog::run(&["--version".to_string()], &mut out, &mut err);
    assert_eq!(rc, 0, "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"pmdumplog version 6.0.3"), "{out}");
    assert!(
        lines.get(1).is_some_and(|l| l.starts_with("pcp-archive-rs ") && l.ends_with("following PCP 6.0.3")),
        "{out}"
    );
}

#[test]
fn help_lists_our_options_after_pcps_usage() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    pmdumplog::run(&["--help".to_string()], &mut out, &mut err);
    let err = String::from_utf8(err).expect("utf-8");
    let (pcp, ours) = err
        .split_once("\nOptions of pcp-archive-rs (not in PCP 6.0.3):\n")
        .expect("our options after PCP's usage");
    assert!(pcp.starts_with("Usage: pmdumplog "), "{err}");
    assert!(
        ours.lines().any(|l| l.trim_start().starts_with("--json")),
        "--json missing: {err}"
    );
}
