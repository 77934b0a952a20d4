//! What a tool says of itself. `--version` keeps PCP's first line (scripts parse
//! it) and names this project, and the PCP version it follows, on the second.

/// The PCP release whose tools ours follow.
pub const PCP_VERSION: &str = "6.0.3";

/// This project's name.
pub const PROJECT: &str = "pcp-archive-rs";

/// The long option `--version` where PCP's tool has none (a character no short
/// option uses).
pub const VERSION_OPT: char = '\u{2}';

/// The `--version` text of `tool`.
pub fn version(tool: &str) -> String {
    format!(
        "{tool} version {PCP_VERSION}\n{PROJECT} {}: a Rust replacement for PCP's archive tools, following PCP {PCP_VERSION}\n",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_is_pcps_second_is_ours() {
        let v = version("pmval");
        let lines: Vec<&str> = v.lines().collect();
        assert_eq!(lines[0], "pmval version 6.0.3");
        assert!(lines[1].starts_with("pcp-archive-rs 0."), "{v}");
        assert!(lines[1].ends_with("following PCP 6.0.3"), "{v}");
    }
}
