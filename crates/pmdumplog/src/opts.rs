//! pmdumplog's command line, as PCP 6.0.3 parses it.

use cli_common::clock;
use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmdumplog's options: PCP 6.0.3's, then ours.
pub const TOOL: Tool = Tool {
    name: "pmdumplog",
    synopsis: "[options] [archive [metricname ...]]",
    purpose: "dump internal details of a performance metrics archive",
    sections: &[Section {
        title: "Options",
        opts: &[
            pcp::DEBUG,
            Opt::flag('a', "all", "dump everything"),
            Opt::flag('d', "descs", "dump metric descriptions"),
            Opt::flag('e', "labelsets", "dump all metric label metadata"),
            Opt::flag('h', "helptext", "dump all metric help text"),
            Opt::flag(
                'I',
                "on-disk-insts",
                "dump on-disk instance domain descriptions",
            ),
            Opt::flag('i', "insts", "dump instance domain descriptions"),
            Opt::short('L', "more verbose form of archive label dump"),
            Opt::flag('l', "label", "dump the archive label"),
            Opt::flag('M', "markrecs", "report <mark> records"),
            Opt::flag('m', "metrics", "dump values of the metrics (default)"),
            pcp::NAMESPACE,
            Opt::flag(
                'r',
                "reverse",
                "process archive in reverse chronological order",
            ),
            pcp::START,
            Opt::flag('s', "sizes", "report size of data records in archive"),
            pcp::FINISH,
            Opt::short('t', "dump the temporal index"),
            Opt::short_arg(
                'v',
                "FILE",
                "verbose hex dump of a physical file in raw format",
            ),
            Opt::short(
                'x',
                "include date, usec (-xx) and Epoch (-xxx) in reported timestamps",
            ),
            pcp::TIMEZONE,
            pcp::HOSTZONE,
            pcp::VERSION,
            pcp::HELP,
            Opt::flag(
                'J',
                "json",
                "the archive as JSON: label, descriptors, instances, records",
            )
            .ours(),
        ],
    }],
    notes: "",
};

/// The same tool under PCP 6.0.4's new name (`pmdumplog` stays).
pub const PMLOGDUMP: Tool = Tool {
    name: "pmlogdump",
    ..TOOL
};

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// The name the tool was run by, as its messages begin.
    pub prog: &'static str,
    pub descs: bool,
    pub labelsets: bool,
    pub help: bool,
    pub ondisk: bool,
    pub insts: bool,
    pub label: bool,
    pub verbose_label: bool,
    pub metrics: bool,
    pub marks: bool,
    pub namespace: Option<String>,
    pub reverse: bool,
    pub sizes: bool,
    pub index: bool,
    pub raw: Option<String>,
    pub x: u32,
    /// `-S`, `-T`, `-Z`, `-z`.
    pub clock: clock::ClockOpts,
    pub json: bool,
    pub archive: Option<String>,
    pub names: Vec<String>,
}

/// The command line of the tool by the name `tool` has.
pub fn parse_as(tool: &Tool, args: &[String]) -> Parse<Box<Opts>> {
    let p = match tool.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts {
        prog: tool.name,
        ..Opts::default()
    };
    let mut err = None;
    let given: Vec<char> = p.opts.iter().map(|(c, _)| *c).collect();
    for (c, v) in p.opts {
        match c {
            'a' => {
                o.descs = true;
                o.insts = true;
                o.label = true;
                o.verbose_label = true;
                o.metrics = true;
                o.sizes = true;
                o.index = true;
            }
            'D' => {
                if let Err(e) = cli_common::debug::check(v.as_deref().unwrap_or("")) {
                    err = Some(e);
                }
            }
            'd' => o.descs = true,
            'e' => o.labelsets = true,
            'h' => o.help = true,
            'I' => o.ondisk = true,
            'i' => o.insts = true,
            'L' => {
                o.label = true;
                o.verbose_label = true;
            }
            'l' => o.label = true,
            'M' => o.marks = true,
            'm' => o.metrics = true,
            'n' => o.namespace = v,
            'r' => o.reverse = true,
            's' => o.sizes = true,
            't' => o.index = true,
            'v' => o.raw = v,
            'x' => o.x += 1,
            'S' | 'T' | 'Z' | 'z' => {
                if let Some(Err(e)) = o.clock.take(c, v) {
                    err.get_or_insert(e);
                }
            }
            'V' => return Parse::Version,
            'J' => o.json = true,
            _ => return Parse::Usage(None),
        }
    }
    if err.is_some() {
        return Parse::Usage(err);
    }
    // --json writes the whole archive (label, descriptors, instances, records
    // within -S/-T, of the metrics named): options that pick sections, order or
    // formats cannot be honoured, and are refused rather than ignored
    if o.json {
        if let Some(c) = given.iter().find(|c| "dehIiLlMmrstvxZz".contains(**c)) {
            return Parse::Usage(Some(format!(
                "--json writes the whole archive; -{c} cannot be used with it"
            )));
        }
    }
    if o.raw.is_some() {
        if !p.operands.is_empty() {
            return Parse::Usage(None);
        }
        return Parse::Run(Box::new(o));
    }
    let mut ops = p.operands.into_iter();
    o.archive = ops.next();
    if o.archive.is_none() {
        return Parse::Usage(None);
    }
    o.names = ops.collect();
    if !(o.descs || o.labelsets || o.help || o.ondisk || o.insts || o.label || o.metrics || o.index)
    {
        o.metrics = true;
    }
    Parse::Run(Box::new(o))
}
