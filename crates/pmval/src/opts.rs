//! pmval's command line, as PCP 6.0.3 parses it (`pmGetOptions` with pmval's own
//! options), plus our `--csv`, `--json` and `--nearest`.

use cli_common::clock;
use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmval's options: `PMAPI_OPTIONS`, pmval's own, then ours.
pub const TOOL: Tool = Tool {
    name: "pmval",
    synopsis: "[options] metricname",
    purpose: "arbitrary performance metrics value dumper (archives)",
    sections: &[
        Section {
            title: "General options",
            opts: &[
                pcp::ALIGN,
                pcp::ARCHIVE,
                pcp::DEBUG,
                pcp::GUIMODE,
                pcp::HOST,
                pcp::NAMESPACE,
                pcp::ORIGIN,
                pcp::GUIPORT,
                pcp::START,
                pcp::SAMPLES,
                pcp::FINISH,
                pcp::INTERVAL,
                pcp::TIMEZONE,
                pcp::HOSTZONE,
                pcp::VERSION,
                pcp::HELP,
                pcp::SPECLOCAL,
                pcp::LOCALPMDA,
                pcp::CONTAINER,
                Opt::arg(
                    DERIVED,
                    "derived",
                    "FILE",
                    "load derived metric definitions from FILE(s)",
                ),
            ],
        },
        Section {
            title: "Reporting options",
            opts: &[
                Opt::flag(
                    'd',
                    "delay",
                    "delay, pause between updates for archive replay",
                ),
                Opt::arg(
                    'f',
                    "precision",
                    "N",
                    "fixed output format with N digits precision",
                ),
                Opt::arg(
                    'i',
                    "instances",
                    "INST",
                    "comma-separated metrics instance list",
                ),
                Opt::flag('r', "raw", "output raw counter values (no rate conversion)"),
                Opt::arg(
                    'U',
                    "nointerp",
                    "FILE",
                    "non-interpolated fetching; ignores interval",
                ),
                Opt::flag('v', "verbose", "increase diagnostic output"),
                Opt::arg('w', "width", "N", "set the width of each column of output"),
                Opt::arg(
                    'x',
                    "filter",
                    "VALUE",
                    "store to the metric before fetching (filter)",
                ),
                Opt::flag(
                    'X',
                    "timestamp",
                    "include date and microseconds in reported timestamps",
                ),
                Opt::flag(
                    CSV,
                    "csv",
                    "values as CSV: a header row of instance names, a row a sample",
                )
                .ours(),
                Opt::flag(JSON, "json", "values as JSON lines, a sample a line").ours(),
                Opt::flag(
                    NEAREST,
                    "nearest",
                    "the value recorded nearest each sample time, not interpolated",
                )
                .ours(),
                pcp::SKIP_DAMAGED,
            ],
        },
    ],
    notes: "",
};

// The keys of the long-only options.
const DERIVED: char = '\u{2}';
const CSV: char = '\u{10}';
const JSON: char = '\u{11}';
const NEAREST: char = '\u{12}';

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    /// One row per sample: time, then one column per instance.
    Csv,
    /// One JSON object per sample, per line.
    Json,
}

#[derive(Debug, Default)]
pub struct Opts {
    pub archive: Option<String>,
    pub host: bool,
    pub local: bool,
    pub gui: bool,
    pub origin: Option<String>,
    pub align: Option<String>,
    /// `-s N`: `Some(0)` is allowed and means no samples.
    pub samples: Option<i32>,
    pub interval: Option<String>,
    /// `-S`, `-T`, `-Z`, `-z`.
    pub clock: clock::ClockOpts,
    pub namespace: Option<String>,
    pub fixed: Option<i32>,
    pub instances: Vec<String>,
    pub raw: bool,
    /// `-U archive`: no interpolation, every record in turn.
    pub nointerp: bool,
    pub width: Option<i32>,
    pub xflag: u32,
    /// `--derived FILE`: derived metric definitions beside the global ones.
    pub derived: Option<String>,
    pub format: Format,
    pub nearest: bool,
    /// `--skip-damaged`: PCP 7.1.4's multi-archive contexts.
    pub skip_damaged: bool,
    /// `-d`: pause for the interval between samples, as if live.
    pub delay: bool,
    pub verbose: bool,
    pub metric: String,
}

/// Adds an archive to the comma-separated list `-a` and `-U` build (a name given
/// twice counts once).
fn add_archive(o: &mut Opts, name: String) {
    match &mut o.archive {
        None => o.archive = Some(name),
        Some(list) => {
            if !list.split(',').any(|n| n == name) {
                list.push(',');
                list.push_str(&name);
            }
        }
    }
}

/// pmval's `-i` list: separated by commas or white space, names may be quoted.
pub fn split_instances(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = s.chars().collect();
    let sep = |c: char| matches!(c, ',' | ' ' | '\t' | '\n');
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && sep(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        if b[i] == '"' || b[i] == '\'' {
            let q = b[i];
            i += 1;
            let st = i;
            while i < b.len() && b[i] != q {
                i += 1;
            }
            out.push(b[st..i].iter().collect());
            i += 1;
        } else {
            let st = i;
            while i < b.len() && !sep(b[i]) {
                i += 1;
            }
            out.push(b[st..i].iter().collect());
        }
        i += 1;
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
    let mut hosts = 0;
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'A' => o.align = Some(v),
            // every -a (and -U) adds an archive to one multi-archive context
            'a' => add_archive(&mut o, v),
            'D' => {
                if let Err(e) = cli_common::debug::check(&v) {
                    errs.push(e);
                }
            }
            'g' => o.gui = true,
            'h' => {
                hosts += 1;
                o.host = true;
            }
            'n' => o.namespace = Some(v),
            'O' => o.origin = Some(v),
            'p' => {}
            's' => match v.trim().parse::<i32>() {
                Ok(n) if n >= 0 => o.samples = Some(n),
                _ => errs.push("-s requires a positive numeric argument".into()),
            },
            't' => o.interval = Some(v),
            'V' => return Parse::Version,
            'S' | 'T' | 'Z' | 'z' => {
                if let Some(Err(e)) = o.clock.take(c, Some(v)) {
                    errs.push(e);
                }
            }
            '?' => return Parse::Usage(None),
            'K' => {}
            'L' => o.local = true,
            pcp::CONTAINER_KEY => {}
            DERIVED => o.derived = Some(v),
            'd' => o.delay = true,
            'f' => match v.parse::<i32>() {
                Ok(n) if n >= 0 => o.fixed = Some(n),
                _ => errs.push("-f requires +ve numeric argument".into()),
            },
            'i' => o.instances.extend(split_instances(&v)),
            'r' => o.raw = true,
            'U' => {
                add_archive(&mut o, v);
                o.nointerp = true;
            }
            'v' => o.verbose = true,
            'w' => match v.parse::<i32>() {
                Ok(n) if n >= 1 => o.width = Some(n),
                _ => errs.push("-w requires +ve numeric argument".into()),
            },
            'x' => {}
            'X' => o.xflag += 1,
            CSV => o.format = Format::Csv,
            JSON => o.format = Format::Json,
            NEAREST => o.nearest = true,
            pcp::SKIP_DAMAGED_KEY => o.skip_damaged = true,
            _ => return Parse::Usage(None),
        }
    }
    if hosts > 1 || (hosts > 0 && o.archive.is_some()) {
        errs.push("only one host or archive allowed".into());
    }
    if let Some(e) = errs.into_iter().next() {
        return Parse::Usage(Some(e));
    }
    match p.operands.len() {
        0 => return Parse::Usage(Some("error - no metricname specified".into())),
        1 => o.metric = p.operands[0].clone(),
        _ => return Parse::Usage(Some("error - too many arguments".into())),
    }
    match refuse(&o) {
        Some(no) => no,
        None => Parse::Run(Box::new(o)),
    }
}

/// What pmval refuses before it opens anything: a `-t` it cannot read, and a
/// metric argument that is wrong (where, and the usage) or names a host beside
/// `-a` or an archive beside `-h`.
fn refuse(o: &Opts) -> Option<Parse<Box<Opts>>> {
    if let Some(t) = &o.interval {
        // (an interval of 0 is read, and leaves pmval's default of a second)
        if cli_common::window::parse_interval(t).is_none() {
            let at = cli_common::window::interval_stop(t);
            return Some(Parse::Usage(Some(format!(
                "-t argument not in pmParseHighResInterval(3) format:\n{t}\n{:at$}^ -- unexpected value\n",
                ""
            ))));
        }
    }
    match crate::spec::parse(&o.metric) {
        Err(e) => Some(Parse::UsageAfter(e.render(&o.metric))),
        Ok(s) if (s.host.is_some() && o.archive.is_some()) || (s.archive.is_some() && o.host) => {
            Some(Parse::Usage(Some(
                "only one host or archive allowed".into(),
            )))
        }
        Ok(_) => None,
    }
}
