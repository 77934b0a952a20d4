//! The command lines of pmlogcompress and pmlogdecompress, as PCP 7.2's
//! scripts take them (through pmgetopt: a mistake prints the usage and
//! exits 0; no archive prints it and exits 1).

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

const NOTES: &str = "More than one -A option is allowed, and more than one -c option is allowed.

PROGLIST may be one command, or multiple commands separated by colons,
[default zstd:xz:bzip2:gzip].

Compression program (without -o or -f) depends on installed programs and
file size (use -N to see what would be used, use -f to force a particular
compression program to be used).

Decompression program is selected based on file extension.

LIMIT is in bytes [default 4096]; use 0 to force compression. similarly
for zstd mimimum file size MIN [default 52428800].

Compression optimization TYPE may be time or space.";

/// pmlogcompress's options.
pub const TOOL: Tool = Tool {
    name: "pmlogcompress",
    synopsis: "[options] archive ...",
    purpose: "compress the files of Performance Co-Pilot archives",
    sections: &[
        Section {
            title: "Options",
            opts: &[
                Opt::arg('A', "arg", "ARG", "argument for compression program"),
                Opt::arg(
                    'C',
                    "config",
                    "conffile",
                    "alternate defaults configuration file",
                ),
                Opt::arg(
                    'c',
                    "command",
                    "PROGLIST",
                    "candidate compression program(s)",
                ),
                Opt::arg('f', "use", "PROG", "use this compression program"),
                Opt::arg(
                    'l',
                    "lower-limit",
                    "LIMIT",
                    "do no compress files smaller than LIMIT",
                ),
                Opt::flag('N', "show-me", "do nothing, but show me"),
                Opt::arg(
                    'o',
                    "optimize",
                    "TYPE",
                    "choose program to optimize compression",
                ),
                Opt::flag('V', "verbose", "increase verbosity"),
                Opt::arg(
                    'Z',
                    "min-zstd-size",
                    "MIN",
                    "minimum file size for compression with zstd",
                ),
                pcp::HELP,
            ],
        },
        Section {
            title: NOTES,
            opts: &[],
        },
    ],
    notes: "",
};

/// pmlogdecompress's options.
pub const DE_TOOL: Tool = Tool {
    name: "pmlogdecompress",
    synopsis: "[options] archive ...",
    purpose: "decompress the files of Performance Co-Pilot archives",
    sections: &[
        Section {
            title: "Options",
            opts: &[
                Opt::flag('N', "show-me", "do nothing, but show me"),
                Opt::arg('t', "dir", "DIR", "decompress into directory DIR"),
                Opt::flag('V', "verbose", "increase verbosity"),
                pcp::HELP,
            ],
        },
        Section {
            title: "Decompression program is selected based on file extension.",
            opts: &[],
        },
    ],
    notes: "",
};

/// What pmlogcompress's command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// `-A`, joined by spaces.
    pub args: Option<String>,
    pub config: Option<String>,
    /// `-c`, joined by colons.
    pub progs: Option<String>,
    pub use_prog: Option<String>,
    pub min_size: Option<u64>,
    pub min_zstd: Option<u64>,
    pub showme: bool,
    /// `-o`: "space" or "time".
    pub optimize: Option<String>,
    pub verbose: u32,
    /// `-t` (pmlogdecompress).
    pub dir: Option<String>,
    pub archives: Vec<String>,
    /// A mistake the script stops at (after its message, exit 1).
    pub fail: Option<String>,
}

/// A size argument: digits only, else the script's message.
fn numeric(name: &str, flag: char, v: &str) -> Result<u64, String> {
    if v.bytes().all(|c| c.is_ascii_digit()) {
        Ok(v.parse().unwrap_or(0))
    } else {
        Err(format!(
            "{name}: Error: -{flag} value ({v}) must be numeric"
        ))
    }
}

/// The command line of `tool` (pmlogcompress or pmlogdecompress).
pub fn parse(tool: &Tool, args: &[String]) -> Parse<Opts> {
    let name = tool.name;
    let p = match tool.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::UsageAfter(format!("{name}: {msg}\n")),
    };
    let mut o = Opts::default();
    let join = |old: Option<String>, v: &str, sep: &str| match old {
        Some(o) => Some(format!("{o}{sep}{v}")),
        None => Some(v.to_string()),
    };
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        let mut checked = Ok(());
        match c {
            'A' => o.args = join(o.args.take(), &v, " "),
            'C' => o.config = Some(v),
            'c' => o.progs = join(o.progs.take(), &v, ":"),
            'f' => o.use_prog = Some(v),
            'l' => checked = numeric(name, 'l', &v).map(|n| o.min_size = Some(n)),
            'N' => o.showme = true,
            'o' if v == "space" || v == "time" => o.optimize = Some(v),
            'o' => checked = Err(format!("{name}: Error: -o option must be space or time")),
            'V' => o.verbose += 1,
            't' => o.dir = Some(v),
            'Z' => checked = numeric(name, 'Z', &v).map(|n| o.min_zstd = Some(n)),
            _ => return Parse::UsageAfter(String::new()),
        }
        if let Err(msg) = checked {
            o.fail = Some(msg);
            return Parse::Run(o);
        }
    }
    o.archives = p.operands;
    Parse::Run(o)
}
