//! pmlogsummary's command line, as PCP 6.0.3 parses it (`pmGetOptions` with
//! pmlogsummary's own options overriding `-a -H -N -p -s`), plus our `--csv` and
//! `--json`.

use cli_common::clock::ClockOpts;
use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};
use cli_common::window::strtol;

/// pmlogsummary's options, in the order of its usage.
pub const TOOL: Tool = Tool {
    name: "pmlogsummary",
    synopsis: "[options] archive [metricname ...]",
    purpose: "calculate averages of metrics stored in a set of PCP archives",
    sections: &[Section {
        title: "Options",
        opts: &[
            pcp::DEBUG,
            Opt::flag('a', "all", "print all information (equivalent to -blmMy)"),
            Opt::short(
                'b',
                "print both stochastic and time averages for counter metrics",
            ),
            Opt::arg(
                'B',
                "bins",
                "N",
                "print value distribution across a number of bins",
            ),
            Opt::short(
                'f',
                "print using \"spreadsheet\" format (tab delimited fields)",
            ),
            Opt::short(
                'F',
                "print using \"spreadsheet\" format (comma separated values)",
            ),
            Opt::flag(
                'H',
                "header",
                "print one-line header at start showing each column",
            ),
            Opt::flag('i', "mintime", "also print timestamp for minimum value"),
            Opt::flag('I', "maxtime", "also print timestamp for maximum value"),
            Opt::flag('l', "label", "also print the archive label and time window"),
            Opt::flag('m', "minimum", "also print minimum value"),
            Opt::flag('M', "maximum", "also print maximum value"),
            pcp::NAMESPACE,
            Opt::short(
                'N',
                "suppress warnings from individual archive fetches (default)",
            ),
            Opt::arg(
                'p',
                "precision",
                "N",
                "number of digits to display after the decimal point",
            ),
            Opt::short('r', "").hidden(),
            Opt::flag(
                's',
                "sum",
                "only print the sum of all values of each metric",
            ),
            pcp::START,
            pcp::FINISH,
            Opt::flag(
                'v',
                "verbose",
                "verbose, enable warnings from individual archive fetches",
            ),
            Opt::short('x', "print only stochastic averages for counter metrics"),
            Opt::flag('y', "samples", "print sample count for each metric"),
            pcp::TIMEZONE,
            pcp::HOSTZONE,
            pcp::VERSION,
            pcp::HELP,
            Opt::flag(
                CSV,
                "csv",
                "the statistics asked for as CSV, a row per metric and instance",
            )
            .ours(),
            Opt::flag(
                JSON,
                "json",
                "the statistics asked for as JSON, an object per metric and instance a line",
            )
            .ours(),
            pcp::SKIP_DAMAGED,
        ],
    }],
    notes: "",
};

const CSV: char = '\u{10}';
const JSON: char = '\u{11}';

/// The columns asked for (PCP's output flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub stocave: bool,
    pub timeave: bool,
    pub sum: bool,
    pub min: bool,
    pub mintime: bool,
    pub max: bool,
    pub maxtime: bool,
    pub count: bool,
}

impl Columns {
    /// The statistic columns in PCP's order, by name, and whether each is asked for.
    pub fn named(&self) -> [(bool, &'static str); 8] {
        [
            (self.stocave, "stochastic_average"),
            (self.timeave, "time_average"),
            (self.sum, "sum"),
            (self.min, "minimum"),
            (self.mintime, "minimum_time"),
            (self.max, "maximum"),
            (self.maxtime, "maximum_time"),
            (self.count, "count"),
        ]
    }
}

impl Default for Columns {
    fn default() -> Columns {
        Columns {
            stocave: false,
            timeave: true,
            sum: false,
            min: false,
            mintime: false,
            max: false,
            maxtime: false,
            count: false,
        }
    }
}

/// How the statistics are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// PCP's text (its separator is `Opts::delimiter`).
    #[default]
    Text,
    Csv,
    Json,
}

#[derive(Debug)]
pub struct Opts {
    pub cols: Columns,
    pub label: bool,
    pub header: bool,
    /// `-v`: warnings about single fetches.
    pub warn: bool,
    pub delimiter: u8,
    pub nbins: u32,
    /// `-p`, as printf takes it (negative: the default of 6).
    pub precision: i32,
    pub namespace: Option<String>,
    /// `-S -T -z -Z`.
    pub clock: ClockOpts,
    pub format: Format,
    /// `--skip-damaged`: PCP 7.1.4's multi-archive contexts.
    pub skip_damaged: bool,
    pub archive: String,
    pub metrics: Vec<String>,
}

impl Default for Opts {
    fn default() -> Opts {
        Opts {
            cols: Columns::default(),
            label: false,
            header: false,
            warn: false,
            delimiter: b' ',
            nbins: 0,
            precision: 3,
            namespace: None,
            clock: ClockOpts::default(),
            format: Format::Text,
            skip_damaged: false,
            archive: String::new(),
            metrics: Vec::new(),
        }
    }
}

/// One option taken into `o`; `Err` is PCP's complaint about its argument.
fn take(o: &mut Opts, c: char, v: String) -> Result<(), String> {
    let cols = &mut o.cols;
    match c {
        'a' => {
            (cols.stocave, cols.timeave, cols.count) = (true, true, true);
            (cols.min, cols.max, cols.sum, o.label) = (true, true, false, true);
        }
        'b' => (cols.stocave, cols.timeave, cols.sum) = (true, true, false),
        'x' => (cols.stocave, cols.timeave, cols.sum) = (true, false, false),
        's' => {
            *cols = Columns {
                sum: true,
                timeave: false,
                ..Columns::default()
            };
            o.label = false;
        }
        'B' => match strtol(&v) {
            (n, "") if n as i32 >= 0 => o.nbins = n as i32 as u32,
            _ => return Err("-B requires positive numeric argument".into()),
        },
        'p' => {
            let (n, rest) = strtol(&v);
            if !rest.is_empty() {
                return Err("-p requires numeric argument".into());
            }
            o.precision = n as u32 as i32;
        }
        'f' => o.delimiter = b'\t',
        'F' => o.delimiter = b',',
        'H' => o.header = true,
        'i' => cols.mintime = true,
        'I' => cols.maxtime = true,
        'l' => o.label = true,
        'm' => cols.min = true,
        'M' => cols.max = true,
        'N' => o.warn = false,
        'v' => o.warn = true,
        'y' => cols.count = true,
        'n' => o.namespace = Some(v),
        'D' => cli_common::debug::check(&v)?,
        'S' | 'T' | 'Z' | 'z' => {
            if let Some(r) = o.clock.take(c, Some(v)) {
                r?;
            }
        }
        CSV => o.format = Format::Csv,
        JSON => o.format = Format::Json,
        pcp::SKIP_DAMAGED_KEY => o.skip_damaged = true,
        _ => {}
    }
    Ok(())
}

pub fn parse(args: &[String]) -> Parse<Box<Opts>> {
    let (p, getopt_errors) = TOOL.getopt_all(args);
    let mut said = String::new();
    for e in &getopt_errors {
        said.push_str(&format!("{}: {e}\n", TOOL.name));
    }
    let mut o = Opts::default();
    let mut errors = 0;
    for (c, v) in p.opts {
        match c {
            'V' => return Parse::Version,
            '?' => errors += 1,
            _ => {
                if let Err(e) = take(&mut o, c, v.unwrap_or_default()) {
                    said.push_str(&format!("{}: {e}\n", TOOL.name));
                    errors += 1;
                }
            }
        }
    }
    errors += getopt_errors.len();
    let mut operands = p.operands.into_iter();
    match operands.next() {
        _ if errors > 0 => Parse::UsageAfter(said),
        None => Parse::UsageAfter("Error: no archive specified\n\n".into()),
        Some(archive) => {
            o.archive = archive;
            o.metrics = operands.collect();
            Parse::Run(Box::new(o))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Parse<Box<Opts>> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&v)
    }

    fn opts(args: &[&str]) -> Box<Opts> {
        match run(args) {
            Parse::Run(o) => o,
            _ => panic!("{args:?} should parse"),
        }
    }

    #[test]
    fn later_options_override_earlier_ones_as_in_pcp() {
        let o = opts(&["-a", "arch"]);
        assert!(o.cols.stocave && o.cols.timeave && o.cols.min && o.cols.max && o.label);
        assert!(o.cols.count && !o.cols.sum);
        let o = opts(&["-a", "-s", "arch", "m1", "m2"]);
        assert!(o.cols.sum && !o.cols.timeave && !o.cols.min && !o.label);
        assert_eq!(o.metrics, ["m1", "m2"]);
        let o = opts(&["-s", "-x", "arch"]);
        assert!(o.cols.stocave && !o.cols.timeave && !o.cols.sum);
        let o = opts(&["-v", "-N", "-F", "arch"]);
        assert!(!o.warn);
        assert_eq!(o.delimiter, b',');
    }

    #[test]
    fn numbers_read_as_strtol_reads_them() {
        assert_eq!(opts(&["-p", " 5", "a"]).precision, 5);
        assert_eq!(opts(&["-p", "", "a"]).precision, 0);
        assert_eq!(opts(&["-p", "-1", "a"]).precision, -1);
        assert_eq!(opts(&["-B", "4", "a"]).nbins, 4);
        assert_eq!(opts(&["-B", "", "a"]).nbins, 0);
        match run(&["-B", "x", "-p", "1y", "a"]) {
            Parse::UsageAfter(t) => assert_eq!(
                t,
                "pmlogsummary: -B requires positive numeric argument\n\
                 pmlogsummary: -p requires numeric argument\n"
            ),
            _ => panic!("bad numbers are usage errors"),
        }
        assert!(matches!(run(&["-B", "-2", "a"]), Parse::UsageAfter(_)));
    }

    #[test]
    fn no_archive_and_version() {
        match run(&["-a"]) {
            Parse::UsageAfter(t) => assert_eq!(t, "Error: no archive specified\n\n"),
            _ => panic!("an archive is needed"),
        }
        assert!(matches!(run(&["-V"]), Parse::Version));
        assert!(matches!(run(&["-r", "x"]), Parse::Run(_)), "-r is taken");
    }
}
