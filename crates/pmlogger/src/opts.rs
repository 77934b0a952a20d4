//! pmlogger's command line, as PCP 6.0.3's: every option of its man page, its
//! usage text and error messages, and the forms its arguments take (sizes,
//! sample counts and times for `-s`/`-v`, PCPIntro times for `-T`,
//! `pmParseInterval` for `-t`).

use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

pub use cli_common::limit::{limit, Limit};

/// The parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opts {
    pub config: Option<String>,
    /// `-C`: parse the configuration and exit.
    pub check: bool,
    /// `-h`: a pmcd host specification or a built-in source (`@builtin`,
    /// `@sample`); `None`: the local pmcd, else the built-in source.
    pub source: Option<String>,
    /// `-H`: the host name written into the label.
    pub labelhost: Option<String>,
    pub log: Option<String>,
    pub samples: Option<Limit>,
    /// `-T` as given (resolved once the log is open, where its errors go).
    pub finish: Option<String>,
    /// The `default` interval in milliseconds, computed as the reference computes
    /// it (a negative or huge value is refused by the configuration parser).
    pub default_ms: i64,
    pub version: u32,
    pub volsize: Option<Limit>,
    pub report: bool,
    pub note: Option<String>,
    pub primary: bool,
    /// `-L`: run even with nothing to log.
    pub linger: bool,
    /// `-p`: stop when this process is gone.
    pub pid: Option<i32>,
    /// `-o`: no pmcd; record from the built-in source.
    pub local: bool,
    /// `-N`: tell systemd when ready.
    pub notify: bool,
    /// `-n`: an ASCII PMNS for names.
    pub pmns: Option<String>,
    /// `--push-user` (PCP 7): HTTP Basic authentication of an `https://` push.
    pub push_user: Option<String>,
    /// `--push-password-file` (PCP 7): where that user's password is.
    pub push_password_file: Option<String>,
    pub archive: String,
}

/// pmlogger's options, as PCP 6.0.3's (its usage text's typos included), and the
/// sources and version that are ours.
pub const TOOL: Tool = Tool {
    name: "pmlogger",
    synopsis: "[options] archive",
    purpose: "create archive of performance metrics",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::arg('c', "config", "FILE", "file to load configuration from"),
            Opt::flag('C', "check", "parse configuration and exit"),
            pcp::DEBUG,
            Opt::short('f', "run in the foreground").hidden(),
            pcp::HOST,
            Opt::arg(
                'H',
                "labelhost",
                "LABELHOST",
                "override the hostname written into the label",
            ),
            Opt::arg(
                'I',
                "pmlc-ipc-version",
                "VERSION",
                "set IPC version for pmlc port [defaily LOG_PDU_VERSION]",
            ),
            Opt::arg('l', "log", "FILE", "redirect diagnostics and trace output"),
            Opt::flag(
                'L',
                "linger",
                "run even if not primary logger instance and nothing to log",
            ),
            Opt::arg(
                'm',
                "note",
                "MSG",
                "descriptive note to be added to the port map file",
            ),
            pcp::SPECLOCAL,
            Opt::flag(
                'o',
                "local-PMDA",
                "metrics sourced without connecting to pmcd",
            ),
            pcp::NAMESPACE,
            Opt::flag(
                'N',
                "notify",
                "notify service manager (if any) when started and ready",
            ),
            Opt::arg(
                'p',
                "PID",
                "PID",
                "Log specified metric for the lifetime of the pid",
            ),
            Opt::flag('P', "primary", "execute as primary logger instance"),
            Opt::flag('r', "report", "report record sizes and archive growth rate"),
            Opt::arg(
                's',
                "size",
                "SIZE",
                "terminate after endsize has been accumulated",
            ),
            Opt::arg(
                't',
                "interval",
                "DELTA",
                "default logging interval [default 60.0 seconds]",
            ),
            pcp::FINISH,
            Opt::short('u', "output is unbuffered [default now, so -u is a no-op]"),
            Opt::arg(
                'U',
                "username",
                "USER",
                "in daemon mode, run as named user [default pcp]",
            ),
            Opt::arg(
                'v',
                "volsize",
                "SIZE",
                "switch log volumes after size has been accumulated",
            ),
            Opt::arg(
                'V',
                "version",
                "NUM",
                "version for archive (default and only version is 2)",
            ),
            Opt::short_arg(
                'x',
                "FD",
                "control file descriptor for running from pmRecordControl(3)",
            ),
            Opt::short(
                'y',
                "set timezone for times to local time rather than from PMCD host",
            ),
            pcp::HELP,
            Opt::arg(
                '\u{1}',
                "push-user",
                "USER",
                "user name for HTTP Basic authentication when pushing",
            )
            .later(),
            Opt::arg(
                '\u{2}',
                "push-password-file",
                "FILE",
                "file holding the HTTP Basic auth password",
            )
            .later(),
        ],
    }],
    notes: "
Sources of pcp-archive-rs (not in PCP 6.0.3):
  -h @builtin           record this machine from /proc and /sys, without pmcd
                        (the default where no local pmcd answers; also -o)
  -h @sample            a deterministic built-in source, for tests
  -V 3                  archive version 3 (the default where pcp.conf sets none)
",
};

/// Why the command line was refused: a message (may be empty) for stderr, then
/// the usage text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

/// `pmParseInterval` as the reference reads `-t`: numbers as `strtod` takes them
/// (`nan`, `1e-9`), each with an optional unit, summed; the result in whole
/// milliseconds computed from a `timeval` as pmlogger does (so `nan` gives the
/// reference's huge negative value, and anything below a millisecond 0, "once").
/// `Err(position)`: where the text stops being an interval.
pub fn interval_ms(s: &str) -> Result<i64, usize> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut secs = 0.0f64;
    let mut any = false;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        let rest = &s[i..];
        let lower = rest.to_ascii_lowercase();
        let num: f64 = if lower.starts_with("nan") {
            i += 3;
            f64::NAN
        } else if lower.starts_with("inf") {
            i += if lower.starts_with("infinity") { 8 } else { 3 };
            f64::INFINITY
        } else {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            s[start..i].parse().map_err(|_| start)?
        };
        let ustart = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let mult = match s[ustart..i].to_ascii_lowercase().as_str() {
            "" | "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
            "msec" | "msecs" | "millisecond" | "milliseconds" => 0.001,
            "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
            "d" | "day" | "days" => 86400.0,
            _ => return Err(ustart),
        };
        secs += num * mult;
        any = true;
    }
    if !any {
        return Err(0);
    }
    // struct timeval as cvttsd2si fills it: out of range and nan become i64::MIN
    let trunc = |x: f64| {
        if x.is_finite() && x.abs() < 9.2e18 {
            x as i64
        } else {
            i64::MIN
        }
    };
    let sec = trunc(secs);
    let usec = if sec == i64::MIN {
        i64::MIN
    } else {
        trunc((secs - sec as f64) * 1e6)
    };
    Ok(sec.wrapping_mul(1000).wrapping_add(usec / 1000))
}

/// The `default` interval before `-t`: `$PMLOGGER_INTERVAL` seconds, else 60.
fn default_interval_ms() -> i64 {
    std::env::var("PMLOGGER_INTERVAL")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|s| *s > 0)
        .map_or(60_000, |s| s.saturating_mul(1000))
}

/// Parses the command line.
///
/// Long on purpose: a dispatch table, an arm per option of pmlogger(1).
pub fn parse(args: &[String]) -> Result<Opts, UsageError> {
    let p = TOOL.getopt(args).map_err(UsageError)?;
    let mut o = Opts {
        config: None,
        check: false,
        source: None,
        labelhost: None,
        log: None,
        samples: None,
        finish: None,
        default_ms: default_interval_ms(),
        // PCP_ARCHIVE_VERSION from the environment or pcp.conf, as PCP's pmlogger;
        // v3 where none is set
        version: match cli_common::pcpconf::setting("PCP_ARCHIVE_VERSION").as_deref() {
            Some("2") => 2,
            _ => 3,
        },
        volsize: None,
        report: false,
        note: None,
        primary: false,
        linger: false,
        pid: None,
        local: false,
        notify: false,
        pmns: None,
        push_user: None,
        push_password_file: None,
        archive: String::new(),
    };
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'c' => o.config = Some(v),
            'C' => o.check = true,
            'h' => o.source = Some(v),
            // the option parser keeps 63 characters of the label's host name
            'H' => o.labelhost = Some(v.chars().take(63).collect()),
            'l' => o.log = Some(v),
            'L' => o.linger = true,
            'm' => o.note = Some(v),
            'n' => o.pmns = Some(v),
            'N' => o.notify = true,
            'o' => o.local = true,
            'p' => {
                o.pid = Some(v.trim().parse().map_err(|_| {
                    UsageError(format!("pmlogger: invalid process identifier ({v})"))
                })?)
            }
            'P' => o.primary = true,
            '\u{1}' => o.push_user = Some(v),
            '\u{2}' => o.push_password_file = Some(v),
            'r' => o.report = true,
            's' => {
                o.samples = Some(limit(&v).ok_or_else(|| {
                    UsageError(format!(
                        "pmlogger: illegal size argument '{v}' for exit size"
                    ))
                })?)
            }
            'v' => {
                o.volsize = Some(limit(&v).ok_or_else(|| {
                    UsageError(format!(
                        "pmlogger: illegal size argument '{v}' for volume size"
                    ))
                })?)
            }
            't' => match interval_ms(&v) {
                Ok(ms) if !v.trim_start().starts_with('-') => o.default_ms = ms,
                Ok(_) | Err(_) => {
                    let at = match interval_ms(&v) {
                        Err(at) => at,
                        Ok(_) => 0,
                    };
                    return Err(UsageError(format!(
                        "pmlogger: illegal -t argument\n{v}\n{}^ -- unexpected value",
                        " ".repeat(at)
                    )));
                }
            },
            'T' => o.finish = Some(v),
            'V' => {
                o.version = match v.as_str() {
                    "2" => 2,
                    "3" => 3,
                    _ => {
                        return Err(UsageError(format!(
                            "pmlogger: -V requires a version number (2 or 3), not \"{v}\""
                        )))
                    }
                }
            }
            'I' => {
                if !matches!(v.trim(), "1" | "2" | "3") {
                    return Err(UsageError(format!(
                        "pmlogger: -I requires a version number, not \"{v}\""
                    )));
                }
            }
            // accepted as the reference accepts them: debug flags, unbuffered
            // output (always), DSO specs for -o, the daemon user, the recording
            // session descriptor, local time for -T (ours always is)
            'D' | 'f' | 'u' | 'K' | 'U' | 'x' | 'y' => {}
            _ => return Err(UsageError(String::new())),
        }
    }
    if o.local && o.source.is_some() {
        return Err(UsageError(
            "pmlogger: -o and -h are mutually exclusive".into(),
        ));
    }
    if o.primary && o.source.is_some() {
        return Err(UsageError(
            "pmlogger: -P and -h are mutually exclusive".into(),
        ));
    }
    match p.operands.as_slice() {
        [a] => o.archive = a.clone(),
        [] if o.check => {}
        [] => return Err(UsageError("pmlogger: insufficient arguments".into())),
        _ => return Err(UsageError("pmlogger: too many arguments".into())),
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// The `default` interval as the reference computes it (checked against it:
    /// nan is refused by the configuration parser, 1e-9 logs once, 1e12 is too
    /// big).
    #[test]
    fn intervals_as_the_reference() {
        assert_eq!(interval_ms("0.3"), Ok(300));
        assert_eq!(interval_ms("10mins"), Ok(600_000));
        assert_eq!(interval_ms("1h30m"), Ok(5_400_000));
        assert_eq!(interval_ms("1e-9"), Ok(0));
        assert_eq!(interval_ms("1e12"), Ok(1_000_000_000_000_000));
        assert_eq!(interval_ms("nan"), Ok(-9_223_372_036_854_775));
        assert_eq!(interval_ms("5 parsecs"), Err(2));
        assert!(interval_ms("").is_err());
    }

    #[test]
    fn command_lines() {
        let o = parse(&args("-c cfg -s 8kb -v 3 -T +10sec -t 2 -H myhost -L arch")).expect("ok");
        assert_eq!(o.samples, Some(Limit::Bytes(8192)));
        assert_eq!(o.volsize, Some(Limit::Samples(3)));
        assert_eq!(o.finish.as_deref(), Some("+10sec"));
        assert_eq!(o.default_ms, 2000);
        assert_eq!((o.labelhost.as_deref(), o.linger), (Some("myhost"), true));
        let e = |s: &str| parse(&args(s)).expect_err(s).0;
        assert_eq!(
            e("-s bogus a"),
            "pmlogger: illegal size argument 'bogus' for exit size"
        );
        assert_eq!(
            e("-v 0 a"),
            "pmlogger: illegal size argument '0' for volume size"
        );
        assert_eq!(
            e("-t -1 a"),
            "pmlogger: illegal -t argument\n-1\n^ -- unexpected value"
        );
        assert_eq!(e(""), "pmlogger: insufficient arguments");
        assert_eq!(e("-Z a"), "invalid option -- 'Z'"); // run() adds "pmlogger: "
        assert!(parse(&args("-C -c cfg")).is_ok());
        assert!(parse(&args("-P -h host a")).is_err());
    }
}
