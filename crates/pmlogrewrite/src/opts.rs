//! pmlogrewrite's command line, as PCP 6.0.3 parses it: `-c` takes a file or a
//! directory (its files, not those starting with `.`, in directory order).

use crate::os_err;
use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};
use std::path::Path;

/// pmlogrewrite's options.
pub const TOOL: Tool = Tool {
    name: "pmlogrewrite",
    synopsis: "[options] input-archive [output-archive]",
    purpose: "rewrite Performance Co-Pilot archives",
    sections: &[
        Section {
            title: "Options",
            opts: &[
                pcp::DEBUG,
                Opt::arg(
                    'c',
                    "config",
                    "PATH",
                    "file or directory to load rules from",
                ),
                Opt::flag(
                    'C',
                    "check",
                    "parse config file(s) and quit (verbose warnings also)",
                ),
                Opt::flag(
                    'd',
                    "desperate",
                    "desperate, save output archive even after error",
                ),
                Opt::short('i', "rewrite in place, input-archive will be over-written"),
                Opt::flag('q', "quick", "quick mode, no output if no change"),
                Opt::flag('s', "scale", "do scale conversion"),
                Opt::flag('v', "verbose", "increased diagnostic verbosity"),
                Opt::arg(
                    'V',
                    "version",
                    "N",
                    "output archive in version N [2/3] format",
                ),
                Opt::flag('w', "warnings", "emit warnings [default is silence]"),
                pcp::HELP,
            ],
        },
        Section {
            title: "output-archive is required unless -i is specified",
            opts: &[],
        },
    ],
    notes: "",
};

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// The rule files, in the order found.
    pub configs: Vec<String>,
    /// `-C`: parse the rules and stop.
    pub check: bool,
    pub desperate: bool,
    pub in_place: bool,
    pub quick: bool,
    pub scale: bool,
    pub verbose: u32,
    /// `-V`: the output's version (else the input's).
    pub version: Option<u32>,
    pub warnings: bool,
    pub input: String,
    pub output: Option<String>,
}

/// The rule files `-c PATH` names: a file (or link), or a directory's files;
/// each problem as pmlogrewrite words it.
fn configs_of(path: &str, errs: &mut Vec<String>) -> Vec<String> {
    let prog = TOOL.name;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            errs.push(format!("{prog}: stat({path}) failed: {}", os_err(&e)));
            return Vec::new();
        }
    };
    if meta.is_file() {
        return vec![path.to_string()];
    }
    if !meta.is_dir() {
        errs.push(format!(
            "{prog}: Error: -c config {path} is not a file or directory"
        ));
        return Vec::new();
    }
    let dir = match std::fs::read_dir(path) {
        Ok(d) => d,
        Err(e) => {
            errs.push(format!("{prog}: opendir({path}) failed: {}", os_err(&e)));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let full = Path::new(path).join(&name).to_string_lossy().into_owned();
        match std::fs::metadata(&full) {
            Ok(m) if m.is_file() => out.push(full),
            Ok(_) => {}
            Err(e) => errs.push(format!("{prog}: {full}: {}", os_err(&e))),
        }
    }
    out
}

pub fn parse(args: &[String]) -> Parse<Box<Opts>> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts::default();
    let mut errs: Vec<String> = Vec::new();
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'c' => {
                let found = configs_of(&v, &mut errs);
                o.configs.extend(found);
            }
            'C' => {
                o.check = true;
                o.verbose = o.verbose.max(1);
                o.warnings = true;
            }
            'd' => o.desperate = true,
            'D' => {
                if let Err(e) = cli_common::debug::check(&v) {
                    errs.push(e);
                }
            }
            'i' => o.in_place = true,
            'q' => o.quick = true,
            's' => o.scale = true,
            'v' => o.verbose += 1,
            'V' => {
                let n = cli_common::window::strtol(&v).0 as i32;
                if n != 2 && n != 3 {
                    errs.push(format!(
                        "{}: Error: unsupported version ({n}) requested",
                        TOOL.name
                    ));
                }
                o.version = Some(n as u32);
            }
            'w' => o.warnings = true,
            _ => return Parse::Usage(None),
        }
    }
    if !errs.is_empty() {
        // pmprintf's messages, then the usage
        let text: String = errs.iter().map(|e| format!("{e}\n")).collect();
        return Parse::UsageAfter(text);
    }
    let want = if o.in_place { 1 } else { 2 };
    if p.operands.len() != want {
        return Parse::Usage(None);
    }
    let mut ops = p.operands.into_iter();
    o.input = ops.next().unwrap_or_default();
    o.output = ops.next();
    Parse::Run(Box::new(o))
}
