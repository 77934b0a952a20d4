//! pmval's command line, as PCP 6.0.3 parses it (`pmGetOptions` with pmval's own
//! options), plus our `--csv`, `--json` and `--nearest`.

use cli_common::getopt::{getopt, LongOpt};

/// The usage text PCP 6.0.3 prints (to stderr on errors, exit 1).
pub const USAGE: &str = r#"Usage: pmval [options] metricname

General options:
  -A TIME, --align=TIME align sample times on natural boundaries
  -a FILE, --archive=FILE
                        metrics source is a PCP log archive
  -g, --guimode         start in GUI mode with new time control
  -h HOST, --host=HOST  metrics source is PMCD on host
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -O TIME, --origin=TIME
                        initial sample time within the time window
  -p N, --guiport=N     port for connection to existing time control
  -S TIME, --start=TIME start of the time window
  -s N, --samples=N     terminate after this many samples
  -T TIME, --finish=TIME
                        end of the time window
  -t DELTA, --interval=DELTA
                        sampling interval
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit
  -K SPEC, --spec-local=SPEC
                        optional additional PMDA spec for local connection
  -L, --local-PMDA      metrics source is local connection to a PMDA
  --container=NAME      specify an individual container to be queried
  --derived=FILE        load derived metric definitions from FILE(s)

Reporting options:
  -d, --delay           delay, pause between updates for archive replay
  -f N, --precision=N   fixed output format with N digits precision
  -i INST, --instances=INST
                        comma-separated metrics instance list
  -r, --raw             output raw counter values (no rate conversion)
  -U FILE, --nointerp=FILE
                        non-interpolated fetching; ignores interval
  -v, --verbose         increase diagnostic output
  -w N, --width=N       set the width of each column of output
  -x VALUE, --filter=VALUE
                        store to the metric before fetching (filter)
  -X, --timestamp       include date and microseconds in reported timestamps
"#;

/// `PMAPI_OPTIONS` followed by pmval's own letters.
pub const SHORT: &str = "A:a:D:gh:n:O:p:S:s:T:t:VZ:z?df:i:K:LrU:vw:x:X";

const fn lo(name: &'static str, has_arg: bool, short: char) -> LongOpt {
    LongOpt {
        name,
        has_arg,
        short,
    }
}

pub const LONG: &[LongOpt] = &[
    lo("align", true, 'A'),
    lo("archive", true, 'a'),
    lo("debug", true, 'D'),
    lo("guimode", false, 'g'),
    lo("host", true, 'h'),
    lo("namespace", true, 'n'),
    lo("origin", true, 'O'),
    lo("guiport", true, 'p'),
    lo("start", true, 'S'),
    lo("samples", true, 's'),
    lo("finish", true, 'T'),
    lo("interval", true, 't'),
    lo("version", false, 'V'),
    lo("timezone", true, 'Z'),
    lo("hostzone", false, 'z'),
    lo("help", false, '?'),
    lo("spec-local", true, 'K'),
    lo("local-PMDA", false, 'L'),
    lo("container", true, '\u{1}'),
    lo("derived", true, '\u{2}'),
    lo("delay", false, 'd'),
    lo("precision", true, 'f'),
    lo("instances", true, 'i'),
    lo("raw", false, 'r'),
    lo("nointerp", true, 'U'),
    lo("verbose", false, 'v'),
    lo("width", true, 'w'),
    lo("filter", true, 'x'),
    lo("timestamp", false, 'X'),
    // ours
    lo("csv", false, '\u{10}'),
    lo("json", false, '\u{11}'),
    lo("nearest", false, '\u{12}'),
];

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
    pub start: Option<String>,
    pub finish: Option<String>,
    pub origin: Option<String>,
    pub align: Option<String>,
    /// `-s N`: `Some(0)` is allowed and means no samples.
    pub samples: Option<i32>,
    pub interval: Option<String>,
    pub tz: Option<String>,
    pub hostzone: bool,
    pub namespace: Option<String>,
    pub fixed: Option<i32>,
    pub instances: Vec<String>,
    pub raw: bool,
    /// `-U archive`: no interpolation, every record in turn.
    pub nointerp: bool,
    pub width: Option<i32>,
    pub xflag: u32,
    pub derived: bool,
    pub format: Format,
    pub nearest: bool,
    /// `-d`: pause for the interval between samples, as if live.
    pub delay: bool,
    pub verbose: bool,
    pub metric: String,
}

pub enum Parse {
    Run(Box<Opts>),
    Version,
    /// Print the message (if any) then the usage; exit 1.
    Usage(Option<String>),
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

pub fn parse(args: &[String]) -> Parse {
    let p = match getopt(args, SHORT, LONG) {
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
                if !cli_common::debug::debug_ok(&v) {
                    errs.push(format!("unrecognized debug options specification ({v})"));
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
            'S' => o.start = Some(v),
            's' => match v.trim().parse::<i32>() {
                Ok(n) if n >= 0 => o.samples = Some(n),
                _ => errs.push("-s requires a positive numeric argument".into()),
            },
            'T' => o.finish = Some(v),
            't' => o.interval = Some(v),
            'V' => return Parse::Version,
            'Z' => {
                if o.hostzone {
                    errs.push("at most one of -Z and -z allowed".into());
                }
                o.tz = Some(v);
            }
            'z' => {
                if o.tz.is_some() {
                    errs.push("at most one of -Z and -z allowed".into());
                }
                o.hostzone = true;
            }
            '?' => return Parse::Usage(None),
            'K' => {}
            'L' => o.local = true,
            '\u{1}' => {}
            '\u{2}' => o.derived = true,
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
            '\u{10}' => o.format = Format::Csv,
            '\u{11}' => o.format = Format::Json,
            '\u{12}' => o.nearest = true,
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
    if let Some(t) = &o.interval {
        // (an interval of 0 is read, and leaves pmval's default of a second)
        if cli_common::window::parse_interval(t).is_none() {
            let at = cli_common::window::interval_stop(t);
            return Parse::Usage(Some(format!(
                "-t argument not in pmParseHighResInterval(3) format:\n{t}\n{:at$}^ -- unexpected value\n",
                ""
            )));
        }
    }
    Parse::Run(Box::new(o))
}
