//! What the integration tests of every crate share about the reference PCP: a test
//! that needs it skips with a printed reason where it is missing, and fails instead
//! when REQUIRE_REFERENCE is set (as CI sets it).

/// Records that the reference (or the part of it named by `what`) is missing: fails
/// under REQUIRE_REFERENCE, else prints why the test is skipped.
pub fn skip(what: &str) {
    assert!(
        std::env::var_os("REQUIRE_REFERENCE").is_none(),
        "REQUIRE_REFERENCE is set but {what}"
    );
    eprintln!("skipping: {what}");
}

/// Whether PCP's `tool` can be run; when it cannot, [`skip`]s.
pub fn have_tool(tool: &str) -> bool {
    let have = std::process::Command::new(tool)
        .arg("--help")
        .output()
        .is_ok();
    if !have {
        skip(&format!("PCP's {tool} is not installed"));
    }
    have
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_is_missing() {
        // an absent tool is reported missing (and fails if the reference is required)
        if std::env::var_os("REQUIRE_REFERENCE").is_none() {
            assert!(!have_tool("no-such-pcp-tool-here"));
        }
        assert!(have_tool("true"), "a tool that runs is there");
    }
}
