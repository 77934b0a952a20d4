//! Start-up: the source `-h` names, the configuration found and read as PCP's
//! pmlogger finds it, the archive's name, the log's notices, and running again
//! after SIGUSR2.

use super::*;

/// The configuration used when none is given: this machine's essentials every 10 s.
pub const DEFAULT_CONFIG: &str = "\
# pmlogger default configuration: the essentials of this machine
log mandatory on once { hinv.ncpu hinv.ndisk mem.physmem kernel.uname }
log mandatory on default {
    kernel.all.load kernel.all.cpu kernel.percpu.cpu
    kernel.all.pswitch kernel.all.intr kernel.all.running kernel.all.blocked
    kernel.all.nprocs kernel.all.uptime
    mem.util swap disk.dev disk.all network.interface proc.nprocs
}
";

/// The source `-h` names: `@builtin` or `@sample`, else a pmcd by PCP's host
/// specification; without `-h`, the local pmcd, or the built-in source where
/// none answers (the log says which records).
pub fn open_source(spec: Option<&str>, log: &mut dyn Write) -> Result<Box<dyn Source>, String> {
    match spec {
        Some("@builtin") => Ok(Box::new(sources::local::Local::default())),
        Some("@sample") => Ok(Box::new(sources::sample::Sample::new())),
        Some(s) if s.starts_with('@') => Err(format!(
            "unknown built-in source \"{s}\" (there are @builtin and @sample)"
        )),
        Some(s) => sources::pmcd::Pmcd::connect(s)
            .map(|p| Box::new(p) as Box<dyn Source>)
            .map_err(|e| format!("Cannot connect to PMCD on host \"{s}\": {}", pmcd_err(&e))),
        None => match sources::pmcd::Pmcd::connect("local:") {
            Ok(p) => Ok(Box::new(p)),
            Err(e) => {
                let _ = writeln!(
                    log,
                    "{PROG}: no pmcd on this host ({}): recording from the built-in source @builtin",
                    pmcd_err(&e)
                );
                Ok(Box::new(sources::local::Local::default()))
            }
        },
    }
}

/// A connection failure as libpcp words it (the system's text for the socket
/// error, e.g. "Connection refused").
pub(crate) fn pmcd_err(e: &SourceError) -> String {
    match e {
        SourceError::Lost(m) => m
            .rsplit(": ")
            .next()
            .map(|t| t.split(" (os error").next().unwrap_or(t).to_string())
            .unwrap_or_else(|| m.clone()),
        e => e.to_string(),
    }
}

/// The archive name with its strftime(3) conversions done in this host's zone
/// (left as it is when it has none, or one that cannot be done).
pub(crate) fn archive_name(name: &str) -> String {
    if !name.contains('%') {
        return name.to_string();
    }
    let now = jiff::Timestamp::now().to_zoned(cli_common::zone::local());
    jiff::fmt::strtime::format(name, &now).unwrap_or_else(|_| name.to_string())
}

/// SIGUSR2: this program again, with `-mreexec` before the archive name (the
/// last argument), as the reference does; returns only if that fails.
pub(crate) fn reexec(args: &[String], log: &mut dyn Write) -> i32 {
    use std::os::unix::process::CommandExt;
    let mut again: Vec<String> = args.to_vec();
    if !again.iter().any(|a| a == "-mreexec") {
        let at = again.len().saturating_sub(1);
        again.insert(at, "-mreexec".into());
    }
    let exe = std::env::current_exe()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| PROG.into());
    let _ = writeln!(
        log,
        "\n=== {PROG}: reexec cmdlne: {exe} {}",
        again.join(" ")
    );
    let _ = log.flush();
    let e = std::process::Command::new(&exe).args(&again).exec();
    let _ = writeln!(log, "{PROG}: reexec failed: {e}");
    1
}

/// `[Tue Nov 24 00:59:51] pmlogger(PID) Info: message`, as the reference's
/// notices look in its log.
pub(crate) fn info(log: &mut dyn Write, msg: &str) {
    notice(log, "Info", msg);
}

/// A notice of the given kind (`Info`, `Error`), as pmNotifyErr writes it.
pub(crate) fn notice(log: &mut dyn Write, kind: &str, msg: &str) {
    cli_common::notify::notice(log, PROG, kind, msg);
}

/// The configuration: `-c FILE` (else `$PCP_VAR_DIR/config/pmlogger/FILE`), run
/// through PCP's preprocessing; without `-c`, the standard input when it is not a
/// terminal and holds something, else this pmlogger's default configuration.
/// Returns the text and the name messages give it.
pub(crate) fn read_config(o: &Opts, log: &mut dyn Write) -> Option<(String, String)> {
    let Some(f) = &o.config else {
        use std::io::{IsTerminal, Read};
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            let mut bytes = Vec::new();
            if stdin.lock().read_to_end(&mut bytes).is_ok() && !bytes.is_empty() {
                let text = config::decode(&bytes);
                return match pmcpp::expand(&text, "<stdin>", &config_dirs()) {
                    Ok(t) => Some((t, "<stdin>".into())),
                    Err(e) => {
                        let _ = writeln!(log, "{PROG}: {e}");
                        None
                    }
                };
            }
        }
        let _ = writeln!(
            log,
            "{PROG}: no configuration given: using the built-in default configuration"
        );
        return Some((DEFAULT_CONFIG.to_string(), "default config".into()));
    };
    let mut path = std::path::PathBuf::from(f);
    if !path.exists() {
        let alt = cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp")
            .join("config/pmlogger")
            .join(f);
        if alt.exists() {
            path = alt;
        }
    }
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(
                log,
                "{PROG}: Cannot open config file \"{f}\": {}",
                io_text(&e)
            );
            return None;
        }
    };
    let text = config::decode(&bytes);
    match pmcpp::expand(&text, f, &config_dirs()) {
        Ok(t) => Some((t, f.clone())),
        Err(e) => {
            let _ = writeln!(log, "{PROG}: {e}");
            None
        }
    }
}

/// Where `%include` looks: the configuration's directory, then pmlogger's.
pub(crate) fn config_dirs() -> Vec<std::path::PathBuf> {
    vec![
        std::path::PathBuf::from("."),
        cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp").join("config/pmlogger"),
    ]
}

/// An I/O error as strerror words it (no "(os error N)").
pub(crate) fn io_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

/// `-T`: an interval from now (`10sec`, `+10sec`) or a time (`@12:29:21`, a date),
/// in this host's zone; `None` when it is neither.
pub(crate) fn finish_after(spec: &str) -> Option<Duration> {
    let t = spec.trim();
    if let Some(ns) = cli_common::window::parse_interval(t.trim_start_matches('+')) {
        return (ns >= 0).then(|| Duration::from_nanos(ns.min(u64::MAX as i128) as u64));
    }
    let tz = cli_common::zone::local();
    let at = cli_common::window::parse_absolute(t, &tz, Some(sources::now()))?;
    let now = sources::now();
    Some(Duration::from_nanos(
        (at.as_nanos() - now.as_nanos()).clamp(0, u64::MAX as i128) as u64,
    ))
}

/// Removes the files of an archive that got no record (a failure before the first
/// record leaves nothing behind).
pub(crate) fn remove_archive(base: &str) {
    for suffix in ["0", "meta", "index"] {
        let _ = std::fs::remove_file(format!("{base}.{suffix}"));
    }
}

/// `-N`: tells systemd the logger is ready (`READY=1` to `$NOTIFY_SOCKET`).
pub(crate) fn notify_ready() {
    let Ok(path) = std::env::var("NOTIFY_SOCKET") else {
        return;
    };
    if path.starts_with('/') {
        if let Ok(s) = std::os::unix::net::UnixDatagram::unbound() {
            let _ = s.send_to(b"READY=1", &path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts_with_config(path: &str) -> Opts {
        let args: Vec<String> = ["-c", path, "out"].iter().map(|s| s.to_string()).collect();
        opts::parse(&args).expect("options")
    }

    #[test]
    fn built_in_sources_by_name() {
        let mut log = Vec::new();
        let mut s = open_source(Some("@sample"), &mut log).expect("sample");
        assert_eq!(s.hostname(), "sample");
        assert!(open_source(Some("@builtin"), &mut log).is_ok());
        let e = open_source(Some("@nothing"), &mut log)
            .err()
            .expect("refused");
        assert!(e.contains("unknown built-in source \"@nothing\""), "{e}");
        assert!(log.is_empty(), "nothing logged for a named source");
    }

    #[test]
    fn a_lost_connection_in_libpcp_words() {
        let e =
            SourceError::Lost("connect to 127.0.0.1:1: Connection refused (os error 111)".into());
        assert_eq!(pmcd_err(&e), "Connection refused");
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(io_text(&e), "No such file or directory");
    }

    #[test]
    fn archive_names_with_and_without_conversions() {
        assert_eq!(archive_name("plain/name"), "plain/name");
        // the year this host's zone says (read on both sides of the call, in
        // case the year turns between)
        let year = || {
            jiff::Timestamp::now()
                .to_zoned(cli_common::zone::local())
                .year()
        };
        let before = year();
        let named = archive_name("a-%Y");
        let after = year();
        assert!(
            named == format!("a-{before}") || named == format!("a-{after}"),
            "{named}"
        );
    }

    #[test]
    fn the_end_of_the_recording() {
        assert_eq!(finish_after("10sec"), Some(Duration::from_secs(10)));
        assert_eq!(finish_after(" +2min "), Some(Duration::from_secs(120)));
        assert_eq!(finish_after("no such time"), None);
        // a time that has passed: at once
        assert_eq!(finish_after("@1 Jan 2000"), Some(Duration::ZERO));
    }

    #[test]
    fn the_configuration_named_by_c_is_preprocessed() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("cfg");
        std::fs::write(
            &p,
            "%define WHAT 'sample.long.one'\nlog mandatory on once { %WHAT }\n",
        )
        .expect("config");
        let mut log = Vec::new();
        let name = p.to_string_lossy().into_owned();
        let (text, shown) = read_config(&opts_with_config(&name), &mut log).expect("read");
        assert_eq!(shown, name);
        assert!(text.contains("{ sample.long.one }"), "{text}");
        assert!(log.is_empty());
        // a file that is not there: the reference's message, and no configuration
        let gone = d.path().join("gone").to_string_lossy().into_owned();
        assert!(read_config(&opts_with_config(&gone), &mut log).is_none());
        let log = String::from_utf8_lossy(&log);
        assert_eq!(
            log,
            format!("pmlogger: Cannot open config file \"{gone}\": No such file or directory\n")
        );
    }

    #[test]
    fn notices_as_pmnotifyerr_writes_them() {
        let mut log = Vec::new();
        info(&mut log, "Start");
        let line = String::from_utf8_lossy(&log).into_owned();
        let want = format!("] pmlogger({}) Info: Start\n", std::process::id());
        assert!(line.starts_with('[') && line.ends_with(&want), "{line}");
        // "[Tue Nov 24 00:59:51]": ctime without the year
        assert_eq!(line.find(']'), Some(20), "{line}");
    }

    #[test]
    fn an_archive_without_records_is_removed() {
        let d = tempfile::tempdir().expect("tempdir");
        let base = d.path().join("a").to_string_lossy().into_owned();
        for s in ["0", "meta", "index"] {
            std::fs::write(format!("{base}.{s}"), b"x").expect("file");
        }
        std::fs::write(format!("{base}.1"), b"kept").expect("file");
        remove_archive(&base);
        for (s, left) in [("0", false), ("meta", false), ("index", false), ("1", true)] {
            let there = std::path::Path::new(&format!("{base}.{s}")).exists();
            assert_eq!(there, left, "{base}.{s}");
        }
    }
}
