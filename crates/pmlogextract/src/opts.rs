//! pmlogextract's command line, as PCP 6.0.3 parses it.

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmlogextract's options: PCP 6.0.3's, then ours.
pub const TOOL: Tool = Tool {
    name: "pmlogextract",
    synopsis: "[options] input-archive output-archive",
    purpose: "reduce, extract, concatenate and merge performance metrics archives",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::arg('c', "config", "FILE", "file to load configuration from"),
            pcp::DEBUG,
            Opt::flag('d', "desperate", "desperate, save output after fatal error"),
            Opt::flag(
                'f',
                "first",
                "use timezone from first archive [default is last]",
            ),
            Opt::flag(
                'm',
                "mark",
                "ignore prologue/epilogue records and <mark> between archives",
            ),
            pcp::START,
            Opt::arg(
                's',
                "samples",
                "NUM",
                "terminate after NUM log records have been written",
            ),
            pcp::FINISH,
            Opt::arg('V', "outputversion", "VERSION", "output archive version"),
            Opt::short_arg('v', "SAMPLES", "switch log volumes after this many samples"),
            Opt::short('w', "ignore day/month/year"),
            Opt::short('x', "skip metrics with mismatched metadata"),
            pcp::TIMEZONE,
            pcp::HOSTZONE,
            pcp::HELP,
            pcp::OUR_VERSION,
        ],
    }],
    notes: "",
};

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pub config: Option<String>,
    pub desperate: bool,
    pub first_tz: bool,
    pub always_mark: bool,
    /// `-s`: stop after this many output records.
    pub samples: Option<u64>,
    /// `-V`: output version.
    pub version: Option<u32>,
    /// `-v`: records, bytes or time per volume (PCP 6.3.2's forms; 6.0.3 takes
    /// records alone).
    pub volume: Option<cli_common::limit::Limit>,
    pub daily: bool,
    pub skip_conflicts: bool,
    /// `-S`, `-T`, `-Z`, `-z` (the zone options with pmlogextract's own
    /// messages).
    pub clock: cli_common::clock::ClockOpts,
    pub inputs: Vec<String>,
    pub output: String,
}

/// Parses the arguments (every error is said before the usage).
pub fn parse(args: &[String]) -> Parse<Opts> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts::default();
    let mut errors: Vec<String> = Vec::new();
    let mut nerr = 0;
    for (c, arg) in p.opts {
        let a = arg.unwrap_or_default();
        match c {
            'c' => {
                if std::fs::metadata(&a).is_err() {
                    errors.push(format!("pmlogextract: {a} - invalid file"));
                    nerr += 1;
                }
                o.config = Some(a);
            }
            'D' => {}
            'd' => o.desperate = true,
            'f' => o.first_tz = true,
            'm' => o.always_mark = true,
            's' => match a.parse::<i64>() {
                Ok(n) if n >= 0 => o.samples = Some(n as u64),
                _ => {
                    errors.push("pmlogextract: -s requires numeric argument".into());
                    nerr += 1;
                }
            },
            'S' => o.clock.start = Some(a),
            'T' => o.clock.finish = Some(a),
            'V' => {
                match a.parse::<i64>() {
                    Ok(n) if n >= 0 => {
                        if n != 2 && n != 3 {
                            errors.push("pmlogextract: -V value must be 2 or 3".into());
                            nerr += 1;
                        }
                        o.version = Some(n as u32);
                    }
                    _ => {
                        errors.push("pmlogextract: -V requires numeric argument".into());
                        nerr += 1;
                    }
                };
            }
            'v' => match cli_common::limit::limit(&a) {
                Some(l) => o.volume = Some(l),
                None => {
                    errors.push(format!(
                        "pmlogextract: illegal size argument '{a}' for volume size"
                    ));
                    nerr += 1;
                }
            },
            'w' => o.daily = true,
            c if c == pcp::OUR_VERSION.key => return Parse::Version,
            'x' => o.skip_conflicts = true,
            'Z' => {
                if o.clock.hostzone {
                    errors.push("pmlogextract: at most one of -Z and/or -z allowed".into());
                    nerr += 1;
                }
                o.clock.tz = Some(a);
            }
            'z' => {
                if o.clock.tz.is_some() {
                    errors.push("pmlogextract: at most one of -Z and/or -z allowed".into());
                    nerr += 1;
                }
                o.clock.hostzone = true;
            }
            _ => nerr += 1,
        }
    }
    if nerr == 0 && p.operands.len() < 2 {
        errors.push("pmlogextract: Error: insufficient arguments".into());
        nerr += 1;
    }
    if nerr > 0 {
        return Parse::UsageAfter(errors.iter().map(|e| format!("{e}\n")).collect());
    }
    let mut operands = p.operands;
    o.output = operands.pop().unwrap_or_default();
    o.inputs = operands;
    Parse::Run(o)
}
