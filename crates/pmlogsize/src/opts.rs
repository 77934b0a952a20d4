//! pmlogsize's command line, as PCP 6.0.3 parses it (`-x` checked as it is
//! read, `-r` implying `-d`).

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmlogsize's options.
pub const TOOL: Tool = Tool {
    name: "pmlogsize",
    synopsis: "[options] archive",
    purpose: "report sizes for components of PCP archives",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::flag('d', "detail", "detailed output (per metric and per indom)"),
            pcp::DEBUG,
            Opt::flag(
                'r',
                "replication",
                "report replicated metric values and instances",
            ),
            Opt::flag('v', "verbose", "verbose output"),
            Opt::arg(
                'x',
                "threshold",
                "thres",
                "cull detailed report after thres % of space reported",
            ),
            pcp::HELP,
        ],
    }],
    notes: "",
};

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// `-d` (or `-r`): per metric and per instance domain.
    pub detail: bool,
    /// `-r`: replicated values and instances.
    pub replication: bool,
    pub verbose: u32,
    /// `-x`: the share of the space after which details stop.
    pub threshold: Option<i32>,
    pub archives: Vec<String>,
    /// A mistake pmlogsize stops at as it reads it (without the usage).
    pub fail: Option<String>,
}

/// The command line, or PCP's words for what is wrong with it.
pub fn parse(args: &[String]) -> Parse<Opts> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts::default();
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'd' => o.detail = true,
            'D' => {
                if let Err(e) = cli_common::debug::check(&v) {
                    return Parse::UsageAfter(format!("{}: {e}\n", TOOL.name));
                }
            }
            'r' => (o.detail, o.replication) = (true, true),
            'v' => o.verbose += 1,
            'x' => {
                let n = cli_common::window::strtol(&v).0 as i32;
                if !(1..=100).contains(&n) {
                    o.fail = Some(format!("Bad arg for -x ({v}): should be between 1 and 100"));
                    return Parse::Run(o);
                }
                o.threshold = Some(n);
            }
            _ => return Parse::Usage(None),
        }
    }
    if p.operands.is_empty() {
        return Parse::UsageAfter("Error: no archive specified\n\n".into());
    }
    o.archives = p.operands;
    Parse::Run(o)
}
