//! What a tool says of itself. `--version` keeps PCP's first line (scripts parse
//! it) and names this project, and the PCP version it follows, on the second.

/// The PCP release whose tools ours follow.
pub const PCP_VERSION: &str = "6.0.3";

/// The newer PCP release whose tools ours follow where PCP 6.0.3 has none
/// (pmlogcompress, pmlogdecompress, pmlogcp, pmlogls).
pub const PCP7_VERSION: &str = "7.2";

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

/// Whether the command line asks for help by its long name, `--help`: then the
/// usage is followed by [`ours`] (`-?` prints PCP's usage alone, as PCP's does).
pub fn asks_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "--help")
}

/// The options a tool has beyond PCP's, listed after PCP's usage on `--help`
/// (the usage printed for a wrong command line stays PCP's).
pub fn ours(options: &[(&str, &str)]) -> String {
    let mut s = format!("\nOptions of {PROJECT} (not in PCP {PCP_VERSION}):\n");
    for (opt, what) in options {
        if opt.len() <= 20 {
            s.push_str(&format!("  {opt:<20}  {what}\n"));
        } else {
            s.push_str(&format!("  {opt}\n  {:<20}  {what}\n", ""));
        }
    }
    s
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

    #[test]
    fn our_options_after_pcps_usage() {
        let o = ours(&[
            ("--json", "JSON lines"),
            ("--a-very-long-option=VALUE", "x"),
        ]);
        assert_eq!(
            o,
            "\nOptions of pcp-archive-rs (not in PCP 6.0.3):\n  --json                JSON lines\n  --a-very-long-option=VALUE\n                        x\n"
        );
        assert!(asks_help(&["--help".into()]));
        assert!(!asks_help(&["-a".into()]));
        assert!(!asks_help(&["-?".into()]), "PCP's usage alone");
    }
}
