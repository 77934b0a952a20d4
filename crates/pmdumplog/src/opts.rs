//! pmdumplog's command line, as PCP 6.0.3 parses it.

use cli_common::getopt::{getopt, LongOpt};

pub const SHORT: &str = "aD:dehIilLmMn:rS:sT:tv:xZ:z?";

pub const LONG: &[LongOpt] = &[
    LongOpt {
        name: "debug",
        has_arg: true,
        short: 'D',
    },
    LongOpt {
        name: "all",
        has_arg: false,
        short: 'a',
    },
    LongOpt {
        name: "descs",
        has_arg: false,
        short: 'd',
    },
    LongOpt {
        name: "labelsets",
        has_arg: false,
        short: 'e',
    },
    LongOpt {
        name: "helptext",
        has_arg: false,
        short: 'h',
    },
    LongOpt {
        name: "on-disk-insts",
        has_arg: false,
        short: 'I',
    },
    LongOpt {
        name: "insts",
        has_arg: false,
        short: 'i',
    },
    LongOpt {
        name: "label",
        has_arg: false,
        short: 'l',
    },
    LongOpt {
        name: "markrecs",
        has_arg: false,
        short: 'M',
    },
    LongOpt {
        name: "metrics",
        has_arg: false,
        short: 'm',
    },
    LongOpt {
        name: "namespace",
        has_arg: true,
        short: 'n',
    },
    LongOpt {
        name: "reverse",
        has_arg: false,
        short: 'r',
    },
    LongOpt {
        name: "start",
        has_arg: true,
        short: 'S',
    },
    LongOpt {
        name: "sizes",
        has_arg: false,
        short: 's',
    },
    LongOpt {
        name: "finish",
        has_arg: true,
        short: 'T',
    },
    LongOpt {
        name: "timezone",
        has_arg: true,
        short: 'Z',
    },
    LongOpt {
        name: "hostzone",
        has_arg: false,
        short: 'z',
    },
    LongOpt {
        name: "version",
        has_arg: false,
        short: 'V',
    },
    LongOpt {
        name: "help",
        has_arg: false,
        short: '?',
    },
    LongOpt {
        name: "json",
        has_arg: false,
        short: 'J',
    },
];

pub const USAGE: &str = "Usage: pmdumplog [options] [archive [metricname ...]]

Options:
  -a, --all             dump everything
  -d, --descs           dump metric descriptions
  -e, --labelsets       dump all metric label metadata
  -h, --helptext        dump all metric help text
  -I, --on-disk-insts   dump on-disk instance domain descriptions
  -i, --insts           dump instance domain descriptions
  -L                    more verbose form of archive label dump
  -l, --label           dump the archive label
  -M, --markrecs        report <mark> records
  -m, --metrics         dump values of the metrics (default)
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -r, --reverse         process archive in reverse chronological order
  -S TIME, --start=TIME start of the time window
  -s, --sizes           report size of data records in archive
  -T TIME, --finish=TIME
                        end of the time window
  -t                    dump the temporal index
  -v FILE               verbose hex dump of a physical file in raw format
  -x                    include date, usec (-xx) and Epoch (-xxx) in reported timestamps
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit
";

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct Opts {
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
    pub start: Option<String>,
    pub finish: Option<String>,
    pub sizes: bool,
    pub index: bool,
    pub raw: Option<String>,
    pub x: u32,
    pub tz: Option<String>,
    pub hostzone: bool,
    pub json: bool,
    pub archive: Option<String>,
    pub names: Vec<String>,
}

pub enum Parse {
    Run(Box<Opts>),
    Version,
    /// Print this message (if any) and the usage, exit 1.
    Usage(Option<String>),
}

pub fn parse(args: &[String]) -> Parse {
    let p = match getopt(args, SHORT, LONG) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts::default();
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
                if !cli_common::debug::debug_ok(v.as_deref().unwrap_or("")) {
                    err = Some(format!(
                        "unrecognized debug options specification ({})",
                        v.unwrap_or_default()
                    ));
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
            'S' => o.start = v,
            's' => o.sizes = true,
            'T' => o.finish = v,
            't' => o.index = true,
            'v' => o.raw = v,
            'x' => o.x += 1,
            'Z' => {
                if o.hostzone {
                    err.get_or_insert("at most one of -Z and -z allowed".into());
                }
                o.tz = v;
            }
            'z' => {
                if o.tz.is_some() {
                    err.get_or_insert("at most one of -Z and -z allowed".into());
                }
                o.hostzone = true;
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
