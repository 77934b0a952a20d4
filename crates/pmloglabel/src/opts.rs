//! pmloglabel's command line, as PCP 6.0.3 parses it (`-D` taken but not
//! shown in the usage, `-p` and `-V` read with `atoi`).

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmloglabel's options.
pub const TOOL: Tool = Tool {
    name: "pmloglabel",
    synopsis: "[options] archive",
    purpose: "check and repair a performance metrics archive label",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::short_arg('D', "DBG", "set debug options").hidden(),
            Opt::arg(
                'h',
                "host",
                "HOSTNAME",
                "set the hostname for all files in archive",
            ),
            Opt::flag('l', "label", "dump the archive label"),
            Opt::short('L', "more verbose form of label dump"),
            Opt::arg(
                'p',
                "pid",
                "PID",
                "set the logger process ID field for all files in archive",
            ),
            Opt::short(
                's',
                "write the label sentinel values for all files in archive",
            ),
            Opt::flag(
                'v',
                "verbose",
                "run in verbose mode, reporting on each stage of checking",
            ),
            Opt::arg(
                'V',
                "version",
                "NUM",
                "write magic and version numbers for all files in archive",
            ),
            Opt::arg(
                'Z',
                "timezone",
                "TZ",
                "set the timezone for all files in archive",
            ),
            pcp::HELP,
        ],
    }],
    notes: "",
};

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pub host: Option<String>,
    /// `-l`, `-L`.
    pub label: bool,
    pub long_label: bool,
    /// `-p` (0: keep).
    pub pid: i32,
    /// `-V` (0: keep).
    pub version: u32,
    pub tz: Option<String>,
    pub verbose: bool,
    /// Any of `-h -p -s -V -Z`: the labels are written.
    pub write: bool,
    pub archive: String,
}

/// The command line read as pmloglabel reads it: every mistake said (glibc's
/// and `-V`'s at once, `-D`'s and a missing archive after them, as `pmprintf`
/// holds them back), then the usage.
pub fn parse(args: &[String]) -> Parse<Opts> {
    let name = TOOL.name;
    let (p, glibc) = TOOL.getopt_all(args);
    let mut now: Vec<String> = glibc.iter().map(|m| format!("{name}: {m}")).collect();
    let mut later: Vec<String> = Vec::new();
    let mut o = Opts::default();
    let mut usage = !glibc.is_empty();
    let atoi = |v: &str| cli_common::window::strtol(v).0 as i32;
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'D' => {
                if let Err(e) = cli_common::debug::check(&v) {
                    later.push(format!("{name}: {e}"));
                }
            }
            'h' => o.host = Some(v),
            'l' => o.label = true,
            'L' => o.long_label = true,
            'p' => o.pid = atoi(&v),
            's' => {}
            'v' => o.verbose = true,
            'V' => {
                let n = atoi(&v);
                if n != 2 && n != 3 {
                    now.push(format!("{name}: unknown version number ({v})"));
                }
                o.version = n as u32;
            }
            'Z' => o.tz = Some(v),
            _ => usage = true,
        }
        o.write |= matches!(c, 'h' | 'p' | 's' | 'V' | 'Z');
    }
    if p.operands.len() != 1 {
        later.push(format!("{name}: insufficient arguments"));
    }
    if usage || !now.is_empty() || !later.is_empty() {
        let text: String = now.iter().chain(&later).map(|e| format!("{e}\n")).collect();
        return Parse::UsageAfter(text);
    }
    o.archive = p.operands.into_iter().next().unwrap_or_default();
    Parse::Run(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn changes_make_a_write() {
        let Parse::Run(o) = parse(&args(&["-h", "x", "-p", "12abc", "a"])) else {
            panic!()
        };
        assert!(o.write);
        assert_eq!((o.host.as_deref(), o.pid), (Some("x"), 12));
        let Parse::Run(o) = parse(&args(&["-L", "-v", "a"])) else {
            panic!()
        };
        assert!(!o.write && o.long_label && o.verbose);
    }

    #[test]
    fn mistakes_are_said_before_the_usage() {
        let Parse::UsageAfter(t) = parse(&args(&["-V", "4"])) else {
            panic!()
        };
        assert_eq!(
            t,
            "pmloglabel: unknown version number (4)\npmloglabel: insufficient arguments\n"
        );
    }
}
