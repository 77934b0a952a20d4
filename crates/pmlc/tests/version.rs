//! `--version` (ours; PCP's pmlc has none): PCP's form first, then this project.

#[test]
fn version_names_pcp_then_this_project() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut input = std::io::Cursor::new(Vec::new());
    let rc = pmlc::run(&["--version".to_string()], &mut input, &mut out, &mut err);
    assert_eq!(rc, 0, "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"pmlc version 6.0.3"), "{out}");
    assert!(
        lines
            .get(1)
            .is_some_and(|l| l.starts_with("pcp-archive-rs ")),
        "{out}"
    );
}
