//! The command lines of the tool's three names: pmlogmv as PCP 6.0.3 parses it
//! (`-V` is verbosity here, not the version), and pmlogcp and pmlogls, which
//! PCP 7 added, as 7.2 parses them.

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// What the tool does, by the name it runs under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// pmlogmv: link (or copy) under the new name, then remove the old.
    #[default]
    Mv,
    /// pmlogcp: copy under the new name.
    Cp,
    /// pmlogls: list the archive's files.
    Ls,
}

const CHECKSUM: Opt = Opt::flag(
    'c',
    "checksum",
    "checksum all source and destintion files when copying",
);
const FORCE: Opt = Opt::flag('f', "force", "force changes, even if they look unsafe");
const SHOWME: Opt = Opt::flag(
    'N',
    "showme",
    "perform a dry run, showing what would be done",
);
const VERBOSE: Opt = Opt::flag('V', "verbose", "increase diagnostic verbosity");
/// PCP 7's usage shows `-D`.
const DEBUG7: Opt = Opt::arg('D', "debug", "DBG", "set debug options, see pmdbg(1)");

/// pmlogmv's options.
pub const TOOL: Tool = Tool {
    name: "pmlogmv",
    synopsis: "[options] oldname newname",
    purpose: "move (rename) Performance Co-Pilot archive files",
    sections: &[Section {
        title: "Options",
        opts: &[pcp::DEBUG, CHECKSUM, FORCE, SHOWME, VERBOSE, pcp::HELP],
    }],
    notes: "",
};

/// pmlogcp's options (PCP 7).
pub const CP_TOOL: Tool = Tool {
    name: "pmlogcp",
    synopsis: "[options] srcname dstname",
    purpose: "copy Performance Co-Pilot archive files",
    sections: &[Section {
        title: "Options",
        opts: &[DEBUG7, CHECKSUM, FORCE, SHOWME, VERBOSE, pcp::HELP],
    }],
    notes: "",
};

/// pmlogls's options (PCP 7).
pub const LS_TOOL: Tool = Tool {
    name: "pmlogls",
    synopsis: "[options] srcname",
    purpose: "list the files of a Performance Co-Pilot archive",
    sections: &[Section {
        title: "Options",
        opts: &[DEBUG7, VERBOSE, pcp::HELP],
    }],
    notes: "",
};

impl Mode {
    /// The options of the tool's name in this mode.
    pub fn tool(self) -> &'static Tool {
        match self {
            Mode::Mv => &TOOL,
            Mode::Cp => &CP_TOOL,
            Mode::Ls => &LS_TOOL,
        }
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pub mode: Mode,
    pub checksum: bool,
    pub force: bool,
    pub showme: bool,
    pub verbose: u32,
    pub old: String,
    /// Empty for pmlogls.
    pub new: String,
}

/// The command line of the tool in `mode`.
pub fn parse(mode: Mode, args: &[String]) -> Parse<Opts> {
    let tool = mode.tool();
    let p = match tool.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts {
        mode,
        ..Opts::default()
    };
    for (c, v) in p.opts {
        match c {
            'c' => o.checksum = true,
            'D' => {
                if let Err(e) = cli_common::debug::check(&v.unwrap_or_default()) {
                    return Parse::UsageAfter(format!("{}: {e}\n", tool.name));
                }
            }
            'f' => o.force = true,
            'N' => o.showme = true,
            'V' => o.verbose += 1,
            _ => return Parse::Usage(None),
        }
    }
    let want = if mode == Mode::Ls { 1 } else { 2 };
    if p.operands.len() != want {
        return Parse::Usage(None);
    }
    let mut ops = p.operands.into_iter();
    o.old = ops.next().unwrap_or_default();
    o.new = ops.next().unwrap_or_default();
    Parse::Run(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_name_takes_its_operands() {
        assert!(matches!(
            parse(Mode::Ls, &args(&["-V", "a"])),
            Parse::Run(_)
        ));
        assert!(matches!(
            parse(Mode::Ls, &args(&["a", "b"])),
            Parse::Usage(None)
        ));
        assert!(matches!(parse(Mode::Cp, &args(&["a"])), Parse::Usage(None)));
        let Parse::Run(o) = parse(Mode::Mv, &args(&["-V", "-V", "-N", "a", "b"])) else {
            panic!()
        };
        assert_eq!((o.verbose, o.showme, o.new.as_str()), (2, true, "b"));
        // pmlogls has no -c
        assert!(matches!(
            parse(Mode::Ls, &args(&["-c", "a"])),
            Parse::Usage(Some(_))
        ));
    }
}
