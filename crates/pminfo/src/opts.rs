//! pminfo's command line, as PCP 6.0.3 parses it (`pmGetOptions` with pminfo's
//! own options), plus our `--json`.

use cli_common::clock;
use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pminfo's options, in the sections of its usage.
pub const TOOL: Tool = Tool {
    name: "pminfo",
    synopsis: "[options] [metricname | pmid | indom]...",
    purpose: "display information about performance metrics",
    sections: &[
        Section {
            title: "General options",
            opts: &[
                pcp::ARCHIVE,
                pcp::DEBUG,
                pcp::HOST,
                pcp::CONTAINER,
                pcp::LOCALPMDA,
                pcp::SPECLOCAL,
                pcp::NAMESPACE,
                Opt::arg(
                    'N',
                    "uniqnames",
                    "FILE",
                    "like -n but only one name allowed for each PMID",
                ),
                pcp::ORIGIN,
                pcp::TIMEZONE,
                pcp::HOSTZONE,
                pcp::VERSION,
                pcp::HELP,
                Opt::short('C', "").hidden(),
            ],
        },
        Section {
            title: "Protocol options",
            opts: &[
                Opt::arg(
                    'b',
                    "batch",
                    "N",
                    "fetch N metrics at a time for -f and -v [128]",
                ),
                Opt::flag('d', "desc", "get and print metric description"),
                Opt::flag('f', "fetch", "fetch and print values for all instances"),
                Opt::flag(
                    'F',
                    "fetchall",
                    "fetch and print values for non-enumerable indoms",
                ),
                Opt::flag('I', "fullindom", "print InDom in verbose format"),
                Opt::flag('l', "labels", "print InDom, metric and instance labels"),
                Opt::flag('m', "pmid", "print PMID"),
                Opt::flag('M', "fullpmid", "print PMID in verbose format"),
                Opt::flag(
                    's',
                    "series",
                    "print source, metric, instance series identifiers",
                ),
                Opt::flag('t', "oneline", "get and display (terse) oneline text"),
                Opt::flag('T', "helptext", "get and display (verbose) help text"),
            ],
        },
        Section {
            title: "Metrics options",
            opts: &[
                Opt::arg(
                    'c',
                    "derived",
                    "FILE",
                    "load derived metric definitions from FILE(s)",
                ),
                Opt::flag(
                    'x',
                    "events",
                    "unpack and report on any fetched event records",
                ),
                Opt::flag(
                    'v',
                    "verify",
                    "verify mode, be quiet and only report errors",
                ),
                Opt::flag(
                    JSON,
                    "json",
                    "what -d -m -t -T -l -f report, as one JSON object a metric per line",
                )
                .ours(),
                pcp::SKIP_DAMAGED,
            ],
        },
    ],
    notes: "",
};

const JSON: char = '\u{10}';

/// What pminfo was asked to print.
#[derive(Debug, Default, Clone)]
pub struct Show {
    pub desc: bool,
    pub value: bool,
    pub force: bool,
    pub full_indom: bool,
    pub labels: bool,
    pub pmid: bool,
    pub full_pmid: bool,
    pub series: bool,
    pub oneline: bool,
    pub help: bool,
    pub events: bool,
    pub verify: bool,
}

impl Show {
    /// Whether the metrics are fetched (`-f`, `-l`, `-v` and what imply them).
    pub fn fetches(&self) -> bool {
        self.value || self.labels || self.verify
    }
}

#[derive(Debug, Default)]
pub struct Opts {
    pub archive: Option<String>,
    pub host: Option<String>,
    /// `--container`.
    pub container: Option<String>,
    pub local: bool,
    /// `-b`: metrics fetched together from a host (as `(int)strtol`).
    pub batch: i32,
    pub namespace: Option<String>,
    pub origin: Option<String>,
    /// `-Z`, `-z`.
    pub clock: clock::ClockOpts,
    /// `-c` files, in order.
    pub derived: Vec<String>,
    pub show: Show,
    pub json: bool,
    /// `--skip-damaged`: PCP 7.1.4's multi-archive contexts.
    pub skip_damaged: bool,
    pub names: Vec<String>,
}

/// Adds an archive to the comma-separated list every `-a` builds.
fn add_archive(o: &mut Opts, name: String) {
    match &mut o.archive {
        None => o.archive = Some(name),
        Some(list) => {
            list.push(',');
            list.push_str(&name);
        }
    }
}

pub fn parse(args: &[String]) -> Parse<Box<Opts>> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts {
        batch: 128,
        ..Opts::default()
    };
    let mut errs: Vec<String> = Vec::new();
    let mut sources = 0;
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        let s = &mut o.show;
        match c {
            'a' => {
                sources += usize::from(o.archive.is_none());
                add_archive(&mut o, v);
            }
            'h' => {
                sources += 1;
                o.host = Some(v);
            }
            'L' => {
                sources += 1;
                o.local = true;
            }
            'D' => {
                if let Err(e) = cli_common::debug::check(&v) {
                    errs.push(e);
                }
            }
            'n' | 'N' => o.namespace = Some(v),
            'O' => o.origin = Some(v),
            'Z' | 'z' => {
                if let Some(Err(e)) = o.clock.take(c, Some(v)) {
                    errs.push(e);
                }
            }
            'V' => return Parse::Version,
            '?' => return Parse::Usage(None),
            'b' => match cli_common::window::strtol(&v) {
                (n, "") => o.batch = n as i32,
                _ => errs.push("-b requires numeric argument".into()),
            },
            pcp::CONTAINER_KEY => o.container = Some(v),
            'c' => o.derived.push(v),
            'd' => s.desc = true,
            'F' => (s.force, s.value) = (true, true),
            'f' => s.value = true,
            'l' => s.labels = true,
            'M' => (s.full_pmid, s.pmid) = (true, true),
            'I' => (s.full_indom, s.desc) = (true, true),
            'm' => s.pmid = true,
            's' => s.series = true,
            't' => s.oneline = true,
            'T' => s.help = true,
            'v' => s.verify = true,
            'x' => (s.events, s.value) = (true, true),
            JSON => o.json = true,
            pcp::SKIP_DAMAGED_KEY => o.skip_damaged = true,
            _ => {}
        }
    }
    if sources > 1 {
        errs.push("only one host or archive allowed".into());
    }
    if let Some(e) = errs.into_iter().next() {
        return Parse::Usage(Some(e));
    }
    // a time window option without a source: this host's archive, as libpcp
    if sources == 0 && o.origin.is_some() {
        o.archive = Some(cli_common::pcpconf::local_archive());
    }
    if o.show.verify {
        let s = &mut o.show;
        (s.desc, s.pmid, s.full_pmid, s.help, s.oneline) = (false, false, false, false, false);
        (s.value, s.force, s.labels) = (false, false, false);
    }
    o.names = p.operands;
    Parse::Run(Box::new(o))
}
