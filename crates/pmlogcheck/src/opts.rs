//! pmlogcheck's command line: PCP 6.0.3's options, and ours (`--repair`, `--json`,
//! `--version`), which are long options only so that no short letter PCP's
//! pmlogcheck refuses comes to mean something.

use cli_common::getopt::{getopt, LongOpt};

const SHORT: &str = "D:lmn:S:T:zvwZ:?";

const fn opt(name: &'static str, has_arg: bool, short: char) -> LongOpt {
    LongOpt {
        name,
        has_arg,
        short,
    }
}

const LONG: &[LongOpt] = &[
    opt("debug", true, 'D'),
    opt("label", false, 'l'),
    opt("metadataonly", false, 'm'),
    opt("namespace", true, 'n'),
    opt("start", true, 'S'),
    opt("finish", true, 'T'),
    opt("verbose", false, 'v'),
    opt("nowrap", false, 'w'),
    opt("timezone", true, 'Z'),
    opt("hostzone", false, 'z'),
    opt("help", false, '?'),
    opt("repair", false, 'R'),
    opt("dry-run", false, 'N'),
    opt("json", false, 'J'),
    opt("version", false, 'V'),
];

pub const USAGE: &str = "Usage: pmlogcheck [options] archive

Options:
  -l, --label           print the archive label
  -m, --metadataonly    skip checking log data volumes
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -S TIME, --start=TIME start of the time window
  -T TIME, --finish=TIME
                        end of the time window
  -v, --verbose         verbose output
  -w, --nowrap          suppress counter wrap warnings
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -?, --help            show this usage message and exit
";

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pub label: bool,
    pub metadata_only: bool,
    pub namespace: Option<String>,
    pub start: Option<String>,
    pub finish: Option<String>,
    pub verbose: u32,
    pub nowrap: bool,
    pub tz: Option<String>,
    pub hostzone: bool,
    /// Ours: cut damaged files back to their last whole record, mend the index.
    pub repair: bool,
    /// Ours, with `--repair`: say what would be cut, change nothing.
    pub dry_run: bool,
    /// Ours: the findings as JSON on stdout.
    pub json: bool,
    pub archive: Option<String>,
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
        Err(msg) => return Parse::Usage(Some(format!("pmlogcheck: {msg}\n"))),
    };
    let mut o = Opts::default();
    let mut err = None;
    for (c, v) in p.opts {
        match c {
            'D' => {
                if !cli_common::debug::debug_ok(v.as_deref().unwrap_or("")) {
                    err.get_or_insert(format!(
                        "pmlogcheck: unrecognized debug options specification ({})\n",
                        v.unwrap_or_default()
                    ));
                }
            }
            'l' => o.label = true,
            'm' => o.metadata_only = true,
            'n' => o.namespace = v,
            'S' => o.start = v,
            'T' => o.finish = v,
            'v' => o.verbose += 1,
            'w' => o.nowrap = true,
            'Z' => {
                if o.hostzone {
                    err.get_or_insert("pmlogcheck: at most one of -Z and -z allowed\n".into());
                }
                o.tz = v;
            }
            'z' => {
                if o.tz.is_some() {
                    err.get_or_insert("pmlogcheck: at most one of -Z and -z allowed\n".into());
                }
                o.hostzone = true;
            }
            'R' => o.repair = true,
            'N' => o.dry_run = true,
            'J' => o.json = true,
            'V' => return Parse::Version,
            _ => return Parse::Usage(None),
        }
    }
    if err.is_some() {
        return Parse::Usage(err);
    }
    o.archive = p.operands.into_iter().next();
    if o.archive.is_none() {
        return Parse::Usage(Some("Error: no archive specified\n\n".into()));
    }
    Parse::Run(Box::new(o))
}
