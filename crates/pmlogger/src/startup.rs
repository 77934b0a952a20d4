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
    let now = ctime_now();
    let stamp = now.get(..now.len().saturating_sub(5)).unwrap_or(&now);
    let _ = writeln!(
        log,
        "[{stamp}] {PROG}({}) {kind}: {msg}",
        std::process::id()
    );
}

pub(crate) fn local_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
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
