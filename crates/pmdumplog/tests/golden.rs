//! Golden tests: our pmdumplog, run in-process, against the output of PCP 6.0.3's
//! pmdumplog kept under testdata/golden (made by scripts/regen-testdata.sh). These
//! need no PCP installation.

#[test]
fn matches_reference_goldens() {
    test_support::assert_goldens("golden", 40, pmdumplog::run);
}

/// `pmlogdump`, PCP 6.0.4's name, is the same tool, and says its own name.
#[test]
fn pmlogdump_is_the_same_tool_by_its_own_name() {
    let run = |tool: &cli_common::spec::Tool, args: &[&str]| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let rc = pmdumplog::run_as(tool, &args, &mut out, &mut err);
        (
            rc,
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        )
    };
    let (rc, _, err) = run(&pmdumplog::PMLOGDUMP, &["/nonexistent/archive"]);
    assert_eq!(rc, 1);
    assert!(err.starts_with("pmlogdump: Cannot open archive"), "{err}");
    let (rc, _, err) = run(&pmdumplog::PMLOGDUMP, &["-Q"]);
    assert_eq!(rc, 1);
    assert!(err.contains("Usage: pmlogdump [options]"), "{err}");
    let (_, _, err) = run(&pmdumplog::TOOL, &["/nonexistent/archive"]);
    assert!(err.starts_with("pmdumplog: Cannot open archive"), "{err}");
}
