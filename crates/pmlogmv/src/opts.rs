//! pmlogmv's command line, as PCP 6.0.3 parses it (`-V` is verbosity here,
//! not the version).

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmlogmv's options.
pub const TOOL: Tool = Tool {
    name: "pmlogmv",
    synopsis: "[options] oldname newname",
    purpose: "move (rename) Performance Co-Pilot archive files",
    sections: &[Section {
        title: "Options",
        opts: &[
            pcp::DEBUG,
            Opt::flag(
                'c',
                "checksum",
                "checksum all source and destintion files when copying",
            ),
            Opt::flag('f', "force", "force changes, even if they look unsafe"),
            Opt::flag(
                'N',
                "showme",
                "perform a dry run, showing what would be done",
            ),
            Opt::flag('V', "verbose", "increase diagnostic verbosity"),
            pcp::HELP,
        ],
    }],
    notes: "",
};

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pub checksum: bool,
    pub force: bool,
    pub showme: bool,
    pub verbose: u32,
    pub old: String,
    pub new: String,
}

pub fn parse(args: &[String]) -> Parse<Opts> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts::default();
    for (c, v) in p.opts {
        match c {
            'c' => o.checksum = true,
            'D' => {
                if let Err(e) = cli_common::debug::check(&v.unwrap_or_default()) {
                    return Parse::UsageAfter(format!("{}: {e}\n", TOOL.name));
                }
            }
            'f' => o.force = true,
            'N' => o.showme = true,
            'V' => o.verbose += 1,
            _ => return Parse::Usage(None),
        }
    }
    let Ok([old, new]) = <[String; 2]>::try_from(p.operands) else {
        return Parse::Usage(None);
    };
    o.old = old;
    o.new = new;
    Parse::Run(o)
}
