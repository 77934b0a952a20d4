//! `--version`: PCP's first line (scripts parse it), then this project's.

#[test]
fn version_names_pcp_then_this_project() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = pmlogcheck::run(&["--version".to_string()], &mut out, &mut err);
    assert_eq!(rc, 0, "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"pmlogcheck version 6.0.3"), "{out}");
    assert!(
        lines.get(1).is_some_and(|l| l.starts_with("pcp-archive-rs ") && l.ends_with("following PCP 6.0.3")),
        "{out}"
    );
}
