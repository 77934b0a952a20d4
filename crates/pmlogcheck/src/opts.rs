//! pmlogcheck's command line: PCP 6.0.3's options, PCP 7's (`-f`, `-r`, `-R`, and
//! several archives with them), and ours (`--repair`, `--json`, `--version`), which
//! are long options only so that no short letter PCP's pmlogcheck refuses comes to
//! mean something.

use cli_common::clock;
use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmlogcheck's options: PCP 6.0.3's, then ours.
pub const TOOL: Tool = Tool {
    name: "pmlogcheck",
    synopsis: "[options] archive",
    purpose: "checks for invalid data in a PCP archive, and repairs torn ones",
    sections: &[Section {
        title: "Options",
        opts: &[
            pcp::DEBUG,
            Opt::flag('l', "label", "print the archive label"),
            Opt::flag('m', "metadataonly", "skip checking log data volumes"),
            pcp::NAMESPACE,
            pcp::START,
            pcp::FINISH,
            Opt::flag('v', "verbose", "verbose output"),
            Opt::flag('w', "nowrap", "suppress counter wrap warnings"),
            pcp::TIMEZONE,
            pcp::HOSTZONE,
            pcp::HELP,
            Opt::flag('f', "full", "full check, don't give up early").later(),
            Opt::flag('r', "interactive-repair", "repair [interactive]").later(),
            Opt::flag('R', "auto-repair", "repair [non-interactive]").later(),
            Opt::flag(
                'E',
                "repair",
                "cut torn volumes, .meta and index back to their last whole record",
            )
            .ours(),
            Opt::flag(
                'N',
                "dry-run",
                "with --repair: say what would be cut, change nothing",
            )
            .ours(),
            Opt::flag(
                'J',
                "json",
                "findings as JSON, with their pass and the exit status",
            )
            .ours(),
            Opt::flag('V', "version", "PCP's version line, then this project's").ours(),
        ],
    }],
    notes: "",
};

/// PCP 7's repair by truncation (`-r` asks first, `-R` does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncate {
    Ask,
    Auto,
}

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pub label: bool,
    pub metadata_only: bool,
    pub namespace: Option<String>,
    pub verbose: u32,
    pub nowrap: bool,
    /// `-S`, `-T`, `-Z`, `-z`.
    pub clock: clock::ClockOpts,
    /// Ours: cut damaged files back to their last whole record, mend the index.
    pub repair: bool,
    /// Ours, with `--repair`: say what would be cut, change nothing.
    pub dry_run: bool,
    /// Ours: the findings as JSON on stdout.
    pub json: bool,
    pub archive: Option<String>,
    /// PCP 7's `-f`: pass 0's fatal findings do not end the check.
    pub full: bool,
    /// PCP 7's `-r` or `-R`.
    pub truncate: Option<Truncate>,
    /// `-r` where stdin or stdout is not a terminal: refused, as PCP 7's.
    pub not_interactive: bool,
    /// Every archive named (PCP 7 checks each; 6.0.3 only the first).
    pub archives: Vec<String>,
}

impl Opts {
    /// Whether the check is PCP 7's (in its order and words): one of its options
    /// was given.
    pub fn pcp7(&self) -> bool {
        self.full || self.truncate.is_some()
    }
}

pub fn parse(args: &[String]) -> Parse<Box<Opts>> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts::default();
    let mut err = None;
    for (c, v) in p.opts {
        match c {
            'D' => {
                if let Err(e) = cli_common::debug::check(v.as_deref().unwrap_or("")) {
                    err.get_or_insert(e);
                }
            }
            'l' => o.label = true,
            'm' => o.metadata_only = true,
            'n' => o.namespace = v,
            'v' => o.verbose += 1,
            'w' => o.nowrap = true,
            'S' | 'T' | 'Z' | 'z' => {
                if let Some(Err(e)) = o.clock.take(c, v) {
                    err.get_or_insert(e);
                }
            }
            'f' => o.full = true,
            'r' => {
                use std::io::IsTerminal;
                if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
                    // PCP 7 refuses at once, whatever else the line holds
                    o.not_interactive = true;
                    return Parse::Run(Box::new(o));
                }
                o.truncate = Some(Truncate::Ask);
                o.full = true;
            }
            'R' => {
                o.truncate = Some(Truncate::Auto);
                o.full = true;
            }
            'E' => o.repair = true,
            'N' => o.dry_run = true,
            'J' => o.json = true,
            'V' => return Parse::Version,
            _ => return Parse::Usage(None),
        }
    }
    if err.is_some() {
        return Parse::Usage(err);
    }
    o.archive = p.operands.first().cloned();
    o.archives = p.operands;
    if o.archive.is_none() {
        return Parse::UsageAfter("Error: no archive specified\n\n".into());
    }
    Parse::Run(Box::new(o))
}
