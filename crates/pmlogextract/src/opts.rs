//! pmlogextract's command line, as PCP 6.0.3 parses it.

use cli_common::getopt::{getopt, LongOpt};

pub const SHORT: &str = "c:D:dfmS:s:T:V:v:wxZ:z?";

const fn lo(name: &'static str, has_arg: bool, short: char) -> LongOpt {
    LongOpt {
        name,
        has_arg,
        short,
    }
}

pub const LONG: &[LongOpt] = &[
    lo("config", true, 'c'),
    lo("debug", true, 'D'),
    lo("desperate", false, 'd'),
    lo("first", false, 'f'),
    lo("mark", false, 'm'),
    lo("start", true, 'S'),
    lo("samples", true, 's'),
    lo("finish", true, 'T'),
    lo("outputversion", true, 'V'),
    lo("timezone", true, 'Z'),
    lo("hostzone", false, 'z'),
    lo("help", false, '?'),
    // ours (PCP's pmlogextract has no --version)
    lo("version", false, cli_common::about::VERSION_OPT),
];

pub const USAGE: &str = "Usage: pmlogextract [options] input-archive output-archive

Options:
  -c FILE, --config=FILE
                        file to load configuration from
  -d, --desperate       desperate, save output after fatal error
  -f, --first           use timezone from first archive [default is last]
  -m, --mark            ignore prologue/epilogue records and <mark> between archives
  -S TIME, --start=TIME start of the time window
  -s NUM, --samples=NUM terminate after NUM log records have been written
  -T TIME, --finish=TIME
                        end of the time window
  -V VERSION, --outputversion=VERSION
                        output archive version
  -v SAMPLES            switch log volumes after this many samples
  -w                    ignore day/month/year
  -x                    skip metrics with mismatched metadata
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -?, --help            show this usage message and exit
";

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// `--version` (ours): say what this is and stop.
    pub about: bool,
    pub config: Option<String>,
    pub desperate: bool,
    pub first_tz: bool,
    pub always_mark: bool,
    pub start: Option<String>,
    pub finish: Option<String>,
    /// `-s`: stop after this many output records.
    pub samples: Option<u64>,
    /// `-V`: output version.
    pub version: Option<u32>,
    /// `-v`: records per volume.
    pub volume_samples: Option<u64>,
    pub daily: bool,
    pub skip_conflicts: bool,
    pub tz: Option<String>,
    pub hostzone: bool,
    pub inputs: Vec<String>,
    pub output: String,
}

/// Parses the arguments; on error returns the messages to print before the usage.
pub fn parse(args: &[String]) -> Result<Opts, Vec<String>> {
    let p = match getopt(args, SHORT, LONG) {
        Ok(p) => p,
        Err(msg) => return Err(vec![format!("pmlogextract: {msg}")]),
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
            'S' => o.start = Some(a),
            'T' => o.finish = Some(a),
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
            'v' => match a.parse::<i64>() {
                Ok(n) if n > 0 => o.volume_samples = Some(n as u64),
                _ => {
                    errors.push(format!(
                        "pmlogextract: illegal size argument '{a}' for volume size"
                    ));
                    nerr += 1;
                }
            },
            'w' => o.daily = true,
            c if c == cli_common::about::VERSION_OPT => {
                o.about = true;
                return Ok(o);
            }
            'x' => o.skip_conflicts = true,
            'Z' => {
                if o.hostzone {
                    errors.push("pmlogextract: at most one of -Z and/or -z allowed".into());
                    nerr += 1;
                }
                o.tz = Some(a);
            }
            'z' => {
                if o.tz.is_some() {
                    errors.push("pmlogextract: at most one of -Z and/or -z allowed".into());
                    nerr += 1;
                }
                o.hostzone = true;
            }
            _ => nerr += 1,
        }
    }
    if nerr == 0 && p.operands.len() < 2 {
        errors.push("pmlogextract: Error: insufficient arguments".into());
        nerr += 1;
    }
    if nerr > 0 {
        return Err(errors);
    }
    let mut operands = p.operands;
    o.output = operands.pop().unwrap_or_default();
    o.inputs = operands;
    Ok(o)
}
