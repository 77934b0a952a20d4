//! pmlogger: records metrics from a source into an archive, as PCP 6.0.3's pmlogger
//! does. Sources: a pmcd (`-h` takes PCP's host specifications; without `-h`, the
//! local pmcd), or where no pmcd answers the built-in source (`@builtin`: this
//! machine, read from /proc and /sys); `@sample` is a deterministic source for
//! tests. Names that start with `@` cannot be PCP host specifications.
//!
//! The archive starts with pmlogger's prologue (`pmcd.pmlogger.host/port/archive`,
//! `pmcd.pid`, `pmcd.seqnum`) and ends with the same record as epilogue. Each logging
//! interval has its own timer with absolute deadlines, so intervals do not drift.
//! SIGINT and SIGTERM end the run cleanly; SIGHUP starts a new volume.

pub mod access;
pub mod config;
pub mod control;
pub mod optfetch;
pub mod opts;

/// The command line: options, usage, man page and completions come from it.
pub use opts::TOOL;
pub mod pmcpp;
pub mod state;

use archive_format::codec::result::{
    BlockData, OwnedValue, OwnedValueSet, Value, VAL_DPTR, VAL_INSITU,
};
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp, Units};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use config::{Every, Statement};
use opts::{Limit, Opts};
use sources::{label, Source, SourceError};
use state::{Plan, Switch};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PROG: &str = "pmlogger";

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
fn pmcd_err(e: &SourceError) -> String {
    match e {
        SourceError::Lost(m) => m
            .rsplit(": ")
            .next()
            .map(|t| t.split(" (os error").next().unwrap_or(t).to_string())
            .unwrap_or_else(|| m.clone()),
        e => e.to_string(),
    }
}

/// The prologue/epilogue metrics pmlogger writes (pmcd's domain 2).
const PM_HOST: PmId = PmId((2 << 22) | (3 << 10) | 3);
const PM_PORT: PmId = PmId((2 << 22) | (3 << 10));
const PM_ARCHIVE: PmId = PmId((2 << 22) | (3 << 10) | 2);
const PMCD_PID: PmId = PmId((2 << 22) | 23);
const PMCD_SEQNUM: PmId = PmId((2 << 22) | 24);
const PMLOGGER_INDOM: InDom = InDom((2 << 22) | 1);

fn string_block(s: &str) -> OwnedValue {
    let mut b = BlockData::from_slice(s.as_bytes());
    b.push(0);
    OwnedValue::Block {
        vtype: vtype::STRING as u8,
        data: b,
    }
}

/// Writes the prologue or epilogue record (with its descriptors the first time):
/// this pmlogger's host, port and archive as pmcd exports them, and pmcd's pid and
/// agent seqnum.
fn put_logue(
    w: &mut ArchiveWriter,
    stamp: Timestamp,
    archive: &str,
    host: &str,
    port: u16,
    (pmcd_pid, seqnum): (u64, u32),
) -> archive_format::Result<()> {
    let pid = std::process::id() as i32;
    let d = |pmid: PmId, t: i32, indom: InDom| Desc {
        pmid,
        vtype: t,
        indom,
        sem: sem::DISCRETE,
        units: Units(0),
    };
    w.begin_fetch();
    w.put_desc(
        d(PM_HOST, vtype::STRING, PMLOGGER_INDOM),
        &["pmcd.pmlogger.host".into()],
    )?;
    w.put_indom(stamp, PMLOGGER_INDOM, &[(pid, pid.to_string())])?;
    w.put_desc(
        d(PM_PORT, vtype::U32, PMLOGGER_INDOM),
        &["pmcd.pmlogger.port".into()],
    )?;
    w.put_desc(
        d(PM_ARCHIVE, vtype::STRING, PMLOGGER_INDOM),
        &["pmcd.pmlogger.archive".into()],
    )?;
    w.put_desc(d(PMCD_PID, vtype::U64, InDom::NULL), &["pmcd.pid".into()])?;
    w.put_desc(
        d(PMCD_SEQNUM, vtype::U32, InDom::NULL),
        &["pmcd.seqnum".into()],
    )?;
    let one = |pmid: PmId, inst: i32, v: OwnedValue, fmt: i32| OwnedValueSet {
        pmid,
        numval: 1,
        valfmt: fmt,
        values: vec![(inst, v)],
    };
    let vsets = vec![
        one(PM_HOST, pid, string_block(host), VAL_DPTR),
        one(PM_PORT, pid, OwnedValue::Insitu(port as u32), VAL_INSITU),
        one(PM_ARCHIVE, pid, string_block(archive), VAL_DPTR),
        one(
            PMCD_PID,
            -1,
            OwnedValue::Block {
                vtype: vtype::U64 as u8,
                data: BlockData::from_slice(&pmcd_pid.to_be_bytes()),
            },
            VAL_DPTR,
        ),
        one(PMCD_SEQNUM, -1, OwnedValue::Insitu(seqnum), VAL_INSITU),
    ];
    w.put_result(stamp, &vsets)
}

/// A task's timer: when it fires next.
struct Timer {
    task: usize,
    /// The task's interval (`None`: once).
    every: Option<Duration>,
    next: Instant,
    /// `-r`: its size has been reported.
    reported: bool,
}

/// Runs pmlogger; returns the exit status. Diagnostics go to `err` (or `-l file`).
pub fn run(args: &[String], err: &mut dyn Write) -> i32 {
    let mut o = match opts::parse(args) {
        Ok(o) => o,
        Err(opts::UsageError(m)) => {
            if !m.is_empty() {
                let m = if m.starts_with("pmlogger:") {
                    m
                } else {
                    format!("{PROG}: {m}")
                };
                let _ = writeln!(err, "{m}");
            }
            return cli_common::shell::usage(&opts::TOOL, args, err);
        }
    };
    // the archive's name may hold strftime(3) conversions (pmlogger_daily's
    // %Y%m%d.%H.%M), filled in with this host's time now
    o.archive = archive_name(&o.archive);
    // after SIGUSR2 the logger runs again with -mreexec, and its log goes on
    let reexeced = o.note.as_deref() == Some("reexec");
    // the log: pmlogger.log in the current directory unless -l says otherwise
    // (`-l -`: the standard error of this process)
    let mut logfile;
    // (with -C the reference logs to its standard error, without the header)
    let path = if o.check {
        "-".to_string()
    } else {
        o.log.clone().unwrap_or_else(|| "pmlogger.log".into())
    };
    let log: &mut dyn Write = if path == "-" {
        err
    } else {
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(f) => {
                logfile = std::io::BufWriter::with_capacity(0, f);
                &mut logfile
            }
            Err(e) => {
                let _ = writeln!(err, "{PROG}: cannot open log file \"{path}\": {e}");
                return 1;
            }
        }
    };
    if !o.check && !reexeced {
        let _ = writeln!(
            log,
            "Log for pmlogger on {} started {}\n",
            local_hostname(),
            ctime_now()
        );
    }
    info(log, "Start");
    let code = run_logged(&o, log);
    if REEXEC.load(Ordering::SeqCst) {
        return reexec(args, log);
    }
    if !o.check {
        let _ = writeln!(log, "\nLog finished {}", ctime_now());
    }
    code
}

/// Set when SIGUSR2 ended the recording: the archive is closed and the logger
/// runs itself again, with the same arguments, into a new archive.
static REEXEC: AtomicBool = AtomicBool::new(false);

/// The archive name with its strftime(3) conversions done in this host's zone
/// (left as it is when it has none, or one that cannot be done).
fn archive_name(name: &str) -> String {
    if !name.contains('%') {
        return name.to_string();
    }
    let now = jiff::Timestamp::now().to_zoned(cli_common::zone::local());
    jiff::fmt::strtime::format(name, &now).unwrap_or_else(|_| name.to_string())
}

/// SIGUSR2: this program again, with `-mreexec` before the archive name (the
/// last argument), as the reference does; returns only if that fails.
fn reexec(args: &[String], log: &mut dyn Write) -> i32 {
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
fn info(log: &mut dyn Write, msg: &str) {
    notice(log, "Info", msg);
}

/// A notice of the given kind (`Info`, `Error`), as pmNotifyErr writes it.
fn notice(log: &mut dyn Write, kind: &str, msg: &str) {
    let now = ctime_now();
    let stamp = now.get(..now.len().saturating_sub(5)).unwrap_or(&now);
    let _ = writeln!(
        log,
        "[{stamp}] {PROG}({}) {kind}: {msg}",
        std::process::id()
    );
}

fn local_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

/// The configuration: `-c FILE` (else `$PCP_VAR_DIR/config/pmlogger/FILE`), run
/// through PCP's preprocessing; without `-c`, the standard input when it is not a
/// terminal and holds something, else this pmlogger's default configuration.
/// Returns the text and the name messages give it.
fn read_config(o: &Opts, log: &mut dyn Write) -> Option<(String, String)> {
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
fn config_dirs() -> Vec<std::path::PathBuf> {
    vec![
        std::path::PathBuf::from("."),
        cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp").join("config/pmlogger"),
    ]
}

/// An I/O error as strerror words it (no "(os error N)").
fn io_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

/// `-T`: an interval from now (`10sec`, `+10sec`) or a time (`@12:29:21`, a date),
/// in this host's zone; `None` when it is neither.
fn finish_after(spec: &str) -> Option<Duration> {
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
fn remove_archive(base: &str) {
    for suffix in ["0", "meta", "index"] {
        let _ = std::fs::remove_file(format!("{base}.{suffix}"));
    }
}

/// `-N`: tells systemd the logger is ready (`READY=1` to `$NOTIFY_SOCKET`).
fn notify_ready() {
    let Ok(path) = std::env::var("NOTIFY_SOCKET") else {
        return;
    };
    if path.starts_with('/') {
        if let Ok(s) = std::os::unix::net::UnixDatagram::unbound() {
            let _ = s.send_to(b"READY=1", &path);
        }
    }
}

fn run_logged(o: &Opts, log: &mut dyn Write) -> i32 {
    let spec = if o.local {
        Some("@builtin")
    } else {
        o.source.as_deref()
    };
    let mut source = match open_source(spec, log) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(log, "{PROG}: {e}");
            return 1;
        }
    };
    let Some((text, file)) = read_config(o, log) else {
        return 1;
    };
    let file = file.as_str();
    let cfg = match config::parse(&text, o.default_ms) {
        Ok(c) => c,
        Err(e) => {
            // the statements before the error are acted on first (their
            // warnings), then the error, in the reference's words
            let mut names = HashMap::new();
            let _ = plan(&e.partial, &mut *source, file, log, &mut names);
            let _ = writeln!(log, "Specification error in configuration file ({file})");
            let _ = write!(log, "[line {}] ", e.line);
            let _ = log.write_all(&config::raw(&e.message));
            let _ = writeln!(log);
            return 1;
        }
    };
    let mut names: HashMap<PmId, String> = HashMap::new();
    let Some(plan) = plan(&cfg.statements, &mut *source, file, log, &mut names) else {
        return 1;
    };
    let access = match access::Access::build(&cfg.access) {
        Ok(a) => a,
        Err(e) => {
            for m in &e.messages {
                notice(log, "Error", m);
            }
            let _ = writeln!(log, "error was on line {}", e.line);
            return 1;
        }
    };
    let _ = writeln!(log, "Config parsed");
    if o.check {
        return 0;
    }
    let _ = writeln!(
        log,
        "Starting {}logger for host \"{}\" via \"{}\"",
        if o.primary { "primary " } else { "" },
        source.hostname(),
        o.source.as_deref().unwrap_or("local:")
    );
    // -H names the host in the label instead of pmcd's name for itself
    let host = o.labelhost.clone().unwrap_or_else(|| source.hostname());
    let _ = writeln!(log, "{PROG}: recording from {}", source.describe());
    let finish = match &o.finish {
        None => None,
        Some(t) => match finish_after(t) {
            Some(d) => Some(d),
            None => {
                let _ = writeln!(
                    log,
                    "{PROG}: illegal -T argument\n{t}\n^ -- unexpected value"
                );
                return 1;
            }
        },
    };

    if !o.primary && !o.linger && plan.tasks.is_empty() {
        let _ = writeln!(
            log,
            "Nothing to log, and not the primary logger instance ... good-bye"
        );
        return 1;
    }
    let tasks = timers(&plan);

    // only one primary logger (before anything is created)
    if o.primary {
        if let Some(e) = control::primary_running() {
            let _ = writeln!(log, "{PROG}: ERROR: {e}");
            return 1;
        }
    }
    let (tz, zoneinfo) = source.timezone();
    let mut w = match ArchiveWriter::create(
        &o.archive,
        WriterOptions {
            version: o.version,
            hostname: host.clone(),
            timezone: tz,
            zoneinfo,
            pid: std::process::id() as i32,
            ..Default::default()
        },
    ) {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(log, "{PROG}: Cannot create archive \"{}\": {e}", o.archive);
            return 1;
        }
    };
    let _ = writeln!(log, "Archive basename: {}", o.archive);
    let archive_path = std::fs::canonicalize(
        std::path::Path::new(&o.archive)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new(".")),
    )
    .map(|d| {
        d.join(
            std::path::Path::new(&o.archive)
                .file_name()
                .unwrap_or_default(),
        )
        .to_string_lossy()
        .into_owned()
    })
    .unwrap_or_else(|_| o.archive.clone());

    let stop = Arc::new(AtomicUsize::new(0));
    let newvol = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_usize(sig, Arc::clone(&stop), sig as usize);
    }
    // SIGUSR2 ends this recording to start another (see reexec)
    let _ = signal_hook::flag::register_usize(
        signal_hook::consts::SIGUSR2,
        Arc::clone(&stop),
        signal_hook::consts::SIGUSR2 as usize,
    );
    let _ = signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&newvol));
    // the sampling loop sleeps until its next deadline or an event: a control
    // request, or one of those signals (its flag is set before the event comes)
    let (events_tx, events) = std::sync::mpsc::channel();
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
        signal_hook::consts::SIGUSR2,
    ]) {
        let tx = events_tx.clone();
        std::thread::spawn(move || {
            for _ in signals.forever() {
                if tx.send(control::Event::Signal).is_err() {
                    break;
                }
            }
        });
    }

    let mut ctl = control::start(&host, &archive_path, o.note.as_deref(), access, events_tx);
    if o.primary {
        let made = ctl
            .as_mut()
            .map_or(Err("no control port".to_string()), |c| c.make_primary());
        if let Err(e) = made {
            let _ = writeln!(log, "{PROG}: {e}");
        }
    }
    let port = ctl.as_ref().map_or(0, |c| c.port);
    let mut last = sources::now();
    let logue_host = source.host_spec();
    let ids = source.pmcd_ids();
    if let Err(e) = put_logue(&mut w, last, &archive_path, &logue_host, port, ids) {
        let _ = writeln!(log, "{PROG}: {e}");
        drop(w);
        remove_archive(&o.archive);
        return 1;
    }
    if o.notify {
        notify_ready();
    }
    let mut rec = Recorder {
        names,
        plan,
        ..Default::default()
    };
    let code = record(
        o,
        finish,
        &mut *source,
        &mut w,
        tasks,
        &stop,
        &newvol,
        &mut last,
        &mut rec,
        &events,
        log,
    );
    drop(ctl);
    // epilogue, at least 1 ms after the last record
    let ids = if rec.lost { ids } else { source.pmcd_ids() };
    let mut end = sources::now();
    if end <= last {
        end = Timestamp::from_nanos(last.as_nanos() + 1_000_000);
    }
    if let Err(e) = put_logue(&mut w, end, &archive_path, &logue_host, port, ids) {
        let _ = writeln!(log, "{PROG}: {e}");
        return 1;
    }
    if let Err(e) = w.put_index(end) {
        let _ = writeln!(log, "{PROG}: {e}");
        return 1;
    }
    if let Err(e) = w.close() {
        let _ = writeln!(log, "{PROG}: {e}");
        return 1;
    }
    code
}

/// Turns the configuration into PCP's tasks and requests ([`state::Plan`]),
/// reporting unknown names and instances and incompatible requests as the
/// reference does; `names` gets the name each PMID was configured by.
fn plan(
    stmts: &[Statement],
    source: &mut dyn Source,
    file: &str,
    log: &mut dyn Write,
    names: &mut HashMap<PmId, String>,
) -> Option<Plan> {
    let mut p = Plan::default();
    for s in stmts {
        let state = state::state_of(s.control, s.switch);
        let delta = if state & state::ON == 0 {
            0
        } else {
            match s.every {
                Every::Once => 0,
                Every::Millis(ms) => ms.min(u32::MAX as u64) as u32,
            }
        };
        let task = p.statement_task(state, delta);
        for m in &s.metrics {
            let found = match source.lookup(&m.name) {
                Ok(f) => f,
                Err(SourceError::Lost(e)) => {
                    let _ = writeln!(log, "{PROG}: lost connection to pmcd: {e}");
                    return None;
                }
                Err(e) => {
                    let _ = writeln!(
                        log,
                        "Warning [{file}, line {}]\nProblem with lookup for metric \"{}\" ... logging not activated\nReason: {}",
                        s.line,
                        m.name,
                        pm_err_str(e.code())
                    );
                    continue;
                }
            };
            for (name, pmid) in found {
                let desc = match source.desc(pmid) {
                    Ok(d) => d,
                    Err(e) => {
                        let _ = writeln!(
                            log,
                            "Warning [{file}, line {}]\nDescription unavailable for metric \"{name}\" ... not logged\nReason: {}",
                            s.line,
                            pm_err_str(e.code())
                        );
                        continue;
                    }
                };
                names.entry(pmid).or_insert_with(|| name.clone());
                // instances by name (pmLookupInDom) or by number (pmNameInDom); the
                // ones the metric does not have now are dropped with a warning
                let mut ids = Vec::new();
                if !m.instances.is_empty() {
                    let now = if desc.indom.is_null() {
                        Vec::new()
                    } else {
                        source.instances(desc.indom).unwrap_or_default()
                    };
                    for i in &m.instances {
                        let hit = match i.parse::<i32>() {
                            Ok(n) => now.iter().find(|(id, _)| *id == n),
                            Err(_) => now.iter().find(|(_, n)| names_instance(i, n)),
                        };
                        match hit {
                            Some((id, _)) => ids.push((*id, i.clone())),
                            None => {
                                let _ = writeln!(
                                    log,
                                    "Warning [{file}, line {}]\nInstance \"{i}\" is not defined for the metric \"{name}\"",
                                    s.line
                                );
                            }
                        }
                    }
                    if ids.is_empty() {
                        continue;
                    }
                }
                let list: Vec<i32> = ids.iter().map(|(id, _)| *id).collect();
                let refused = p.configure(
                    task,
                    pmid,
                    desc.indom,
                    (!m.instances.is_empty()).then_some(list.as_slice()),
                );
                for (inst, state::Refusal::Incompatible(why)) in refused {
                    match inst.and_then(|i| ids.iter().find(|(id, _)| *id == i)) {
                        Some((_, spec)) => {
                            let _ = writeln!(
                                log,
                                "Warning [{file}, line {}]\nIncompatible request for metric \"{name}\" and instance \"{spec}\"\n{why}",
                                s.line
                            );
                        }
                        None => {
                            let _ = writeln!(
                                log,
                                "Warning [{file}, line {}]\nIncompatible request for metric \"{name}\"",
                                s.line
                            );
                        }
                    }
                }
            }
        }
        p.end_statement(task);
    }
    p.end_config();
    Some(p)
}

/// Timers for the tasks the configuration runs: once-only tasks fire at once,
/// periodic ones 20 ms after setup.
fn timers(p: &Plan) -> Vec<Timer> {
    let start = Instant::now();
    p.runnable()
        .into_iter()
        .map(|task| {
            let d = p.tasks[task].delta_ms;
            Timer {
                task,
                every: (d > 0).then(|| Duration::from_millis(d as u64)),
                next: if d == 0 {
                    start
                } else {
                    start + Duration::from_millis(20)
                },
                reported: false,
            }
        })
        .collect()
}

fn pm_err_str(code: i32) -> String {
    archive_format::error::pm_err_str(code)
}

/// A metric the recording has seen: its descriptor (in the archive), and the
/// instances its last fetch returned.
struct Seen {
    desc: Desc,
    /// The instances of its last fetch, those of every fetch so far (pmlc's
    /// "available" and "in log"), and whether it was fetched at all.
    returned: Vec<i32>,
    ever: std::collections::BTreeSet<i32>,
    fetched: bool,
    /// The generation of its instance domain's snapshot that was found to hold
    /// every instance of `returned` (0: not known to).
    checked: u64,
}

impl Seen {
    fn new(desc: Desc) -> Seen {
        Seen {
            desc,
            returned: Vec::new(),
            ever: Default::default(),
            fetched: false,
            checked: 0,
        }
    }
}

/// A map looked up for every metric of every fetch: integer keys, fast hash.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the recording remembers between fetches.
#[derive(Default)]
struct Recorder {
    /// The name each PMID was configured (or requested) by.
    names: HashMap<PmId, String>,
    /// Label kinds and help texts the archive has, by type and identifier.
    seen: HashSet<(u32, u32)>,
    /// The instances of each instance domain in its latest snapshot (sorted),
    /// and the snapshot's generation (counted from 1 by `snapshots`).
    snapshot: FastMap<InDom, (u64, Vec<i32>)>,
    snapshots: u64,
    /// The connection to pmcd is lost: fetches wait for it to come back.
    lost: bool,
    /// What is logged: tasks and their requests.
    plan: Plan,
    /// The record being made from pmcd's PDU (reused).
    payload: Vec<u8>,
    /// What each task fetches (worked out again when pmlc changes the plan).
    fetches: HashMap<usize, Vec<state::Fetch>>,
    /// Per metric seen in a fetch: its descriptor and what the last fetch had.
    metrics: FastMap<PmId, Seen>,
}

impl Recorder {
    /// The history flags of a metric-instance.
    fn hist_flags(&self, pmid: PmId, inst: i32, singular: bool) -> u32 {
        let Some(h) = self.metrics.get(&pmid).filter(|m| m.fetched) else {
            return 0;
        };
        let (ever, avail) = if singular {
            (!h.ever.is_empty(), !h.returned.is_empty())
        } else {
            (h.ever.contains(&inst), h.returned.contains(&inst))
        };
        if !ever {
            return 0;
        }
        state::INLOG | if avail { state::AVAIL } else { 0 }
    }

    fn name(&self, pmid: PmId) -> String {
        self.names
            .get(&pmid)
            .cloned()
            .unwrap_or_else(|| pmid.to_string())
    }
}

#[allow(clippy::too_many_arguments)]
fn record(
    o: &Opts,
    finish: Option<Duration>,
    source: &mut dyn Source,
    w: &mut ArchiveWriter,
    mut timers: Vec<Timer>,
    stop: &AtomicUsize,
    newvol: &AtomicBool,
    last: &mut Timestamp,
    rec: &mut Recorder,
    events: &std::sync::mpsc::Receiver<control::Event>,
    log: &mut dyn Write,
) -> i32 {
    let began = Instant::now();
    // -T, and -s as a time: whichever comes first
    let finish = match (finish, o.samples) {
        (Some(a), Some(Limit::Time(b))) => Some(a.min(b)),
        (a, Some(Limit::Time(b))) => a.or(Some(b)),
        (a, _) => a,
    };
    let mut samples = 0u64;
    let mut since_vol = 0u64;
    let mut vol_started = Instant::now();
    let done = |log: &mut dyn Write, why: &str| {
        info(log, &format!("{PROG}: {why}, exiting"));
        0
    };
    loop {
        let sig = stop.load(Ordering::Relaxed);
        if sig == signal_hook::consts::SIGUSR2 as usize {
            REEXEC.store(true, Ordering::SeqCst);
            info(log, &format!("{PROG}: Caught signal {sig}, reexec"));
            return 0;
        }
        if sig != 0 {
            return done(log, &format!("Caught signal {sig}"));
        }
        if let Some(pid) = o.pid {
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                return done(log, "process from -p has vanished");
            }
        }
        let switch_time = matches!(o.volsize, Some(Limit::Time(d)) if vol_started.elapsed() >= d);
        if newvol.swap(false, Ordering::Relaxed) || switch_time {
            match w.new_volume() {
                Ok(v) => {
                    vol_started = Instant::now();
                    since_vol = 0;
                    let _ = writeln!(
                        log,
                        "New log volume {v}, via {} at {}",
                        if switch_time { "sample time" } else { "SIGHUP" },
                        ctime_now()
                    );
                }
                Err(e) => {
                    let _ = writeln!(log, "{PROG}: {e}");
                    return 1;
                }
            }
        }
        if let Some(f) = finish {
            if began.elapsed() >= f {
                return done(log, "End of run time");
            }
        }
        // the earliest deadline; with nothing to log, pmlogger waits for pmlc
        // (or a signal) as the reference does
        let now = Instant::now();
        let k = (0..timers.len()).min_by_key(|&k| timers[k].next);
        let due = k.is_some_and(|k| timers[k].next <= now);
        if !due {
            // no polling: the wait ends at the next deadline (a sample, the end
            // of the run, a volume switch by time), or at an event; only -p's
            // process is looked for every 100 ms
            let mut wait = k.map_or(Duration::from_secs(3600), |k| timers[k].next - now);
            if let Some(f) = finish {
                wait = wait.min(f.saturating_sub(began.elapsed()));
            }
            if let Some(Limit::Time(d)) = o.volsize {
                wait = wait.min(d.saturating_sub(vol_started.elapsed()));
            }
            if o.pid.is_some() {
                wait = wait.min(Duration::from_millis(100));
            }
            match events.recv_timeout(wait) {
                Ok(control::Event::Request(req)) => {
                    let mut ctx = Ctl {
                        source: &mut *source,
                        w: &mut *w,
                        timers: &mut timers,
                        rec: &mut *rec,
                        last: *last,
                        log: &mut *log,
                    };
                    let reply = ctx.handle(&req);
                    let _ = req.reply.send(reply);
                }
                Ok(control::Event::Signal) | Err(RecvTimeoutError::Timeout) => {}
                // no sender left (cannot happen while the signal thread runs)
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
            }
            continue;
        }
        let Some(k) = k else {
            continue;
        };
        // pmcd went away: each firing tries to reach it again, and the gap is
        // marked in the archive when it is back
        if rec.lost && source.reconnect() {
            rec.lost = false;
            let _ = writeln!(
                log,
                "{PROG}: re-established connection to PMCD on \"{}\" at {}",
                source.hostname(),
                ctime_now()
            );
            if let Err(e) = validate(source, rec, log) {
                let _ = writeln!(log, "{e}");
                return 1;
            }
            let mark = Timestamp::from_nanos(last.as_nanos() + 1_000_000);
            if let Err(e) = w.put_mark(mark) {
                let _ = writeln!(log, "{PROG}: {e}");
                return 1;
            }
            *last = mark;
        }
        // fetch this task's metrics, one fetch and one record per fetch group (a
        // task whose requests were all turned off fetches nothing, and still
        // counts as a sample)
        let t = &mut timers[k];
        let before = w.data_offset();
        let mut all_pmids = Vec::new();
        let groups = rec
            .fetches
            .remove(&t.task)
            .unwrap_or_else(|| rec.plan.fetch(t.task));
        for what in &groups {
            if rec.lost {
                break;
            }
            let mut f = match source.fetch(&what.pmids, &what.only) {
                Ok(f) => f,
                Err(SourceError::Lost(e)) => {
                    rec.lost = true;
                    if e == "End of File" || e.contains("reset by peer") {
                        let _ = writeln!(log, "myFetch: End of File: PMCD exited?");
                    }
                    let _ = writeln!(
                        log,
                        "{PROG}: Error: {}",
                        pm_err_str(archive_format::error::PM_ERR_IPC)
                    );
                    let _ = writeln!(
                        log,
                        "{PROG}: Lost connection to PMCD on \"{}\" at {}",
                        source.hostname(),
                        ctime_now()
                    );
                    break;
                }
                Err(e) => {
                    let _ = writeln!(log, "{PROG}: fetch failed: {e}");
                    continue;
                }
            };
            if let Err(e) = write_fetch(w, source, &mut f, rec, log) {
                let _ = writeln!(log, "{PROG}: {e}");
                return 1;
            }
            *last = f.stamp;
            source.recycle(f);
            all_pmids.extend(&what.pmids);
        }
        rec.fetches.insert(t.task, groups);
        if o.report && !t.reported && !all_pmids.is_empty() {
            t.reported = true;
            let bytes = w.data_offset().saturating_sub(before);
            let _ = write!(log, "{}", report(t.every, &all_pmids, rec, bytes));
        }
        match t.every {
            None => {
                timers.remove(k);
            }
            Some(d) => {
                // absolute deadlines: no drift; skip missed slots
                t.next += d;
                let now = Instant::now();
                while t.next <= now {
                    t.next += d;
                }
            }
        }
        samples += 1;
        since_vol += 1;
        let switch = match o.volsize {
            Some(Limit::Samples(n)) => since_vol >= n,
            Some(Limit::Bytes(n)) => w.data_offset() >= n,
            _ => false,
        };
        if switch {
            since_vol = 0;
            vol_started = Instant::now();
            match w.new_volume() {
                Ok(v) => {
                    let how = if matches!(o.volsize, Some(Limit::Bytes(_))) {
                        "sample byte size"
                    } else {
                        "sample counter"
                    };
                    let _ = writeln!(log, "New log volume {v}, via {how} at {}", ctime_now());
                }
                Err(e) => {
                    let _ = writeln!(log, "{PROG}: {e}");
                    return 1;
                }
            }
        }
        match o.samples {
            Some(Limit::Samples(n)) if samples >= n => return done(log, "Sample limit reached"),
            Some(Limit::Bytes(n)) if w.total_bytes() >= n => {
                return done(log, "Byte limit reached")
            }
            _ => {}
        }
    }
}

/// After pmcd came back: every configured metric must still have its PMID and
/// descriptor (`validate_metrics`), else the archive cannot go on.
fn validate(source: &mut dyn Source, rec: &Recorder, log: &mut dyn Write) -> Result<(), String> {
    let _ = writeln!(
        log,
        "{PROG}: Validating metrics after PMCD state changed at {}",
        ctime_now()
    );
    let mut names: Vec<(&PmId, &String)> = rec.names.iter().collect();
    names.sort();
    let mut errors = 0;
    for (pmid, name) in names {
        let Some(old) = rec.metrics.get(pmid).map(|m| &m.desc) else {
            continue;
        };
        match source
            .lookup(name)
            .ok()
            .and_then(|l| l.first().map(|x| x.1))
        {
            Some(p) if p == *pmid => {}
            Some(p) => {
                let _ = writeln!(
                    log,
                    "PMID of metric \"{name}\" has changed from {pmid} to {p}"
                );
                errors += 1;
                continue;
            }
            None => {
                let _ = writeln!(log, "Error looking up {name}: Reason: Unknown metric name");
                errors += 1;
                continue;
            }
        }
        match source.desc(*pmid) {
            Ok(d) if d == *old => {}
            Ok(_) => {
                let _ = writeln!(log, "Descriptor of metric \"{name}\" has changed");
                errors += 1;
            }
            Err(e) => {
                let _ = writeln!(log, "Description unavailable for metric \"{name}\": {e}");
                errors += 1;
            }
        }
    }
    if errors > 0 {
        return Err(
            "One or more configured metrics have changed after pmcd state change. Exiting".into(),
        );
    }
    Ok(())
}

fn ctime_now() -> String {
    cli_common::timefmt::ctime(sources::now().sec, &cli_common::zone::local())
}

/// Whether a configuration's instance `spec` names the instance called `name`: by
/// the whole name or the name up to its first space (as pmLookupInDom).
fn names_instance(spec: &str, name: &str) -> bool {
    spec == name || name.split(' ').next() == Some(spec)
}

/// `-r`: what a group of metrics costs, in the reference's words (the size is our
/// record's, where the reference counts the PDU pmcd sent it).
fn report(every: Option<Duration>, pmids: &[PmId], rec: &Recorder, bytes: u64) -> String {
    let mut s = if pmids.len() > 1 {
        let mut s = format!("\nGroup [{} metrics] {{\n", pmids.len());
        for p in pmids {
            s.push_str(&format!("\t{}\n", rec.name(*p)));
        }
        s.push('}');
        s
    } else {
        format!(
            "\nMetric {}",
            pmids.first().map(|p| rec.name(*p)).unwrap_or_default()
        )
    };
    s.push_str(" logged ");
    match every {
        None => s.push_str(&format!("once: {bytes} bytes\n")),
        Some(d) => {
            let secs = d.as_secs_f64();
            if d.subsec_micros() == 0 {
                s.push_str(&format!("every {} sec: {bytes} bytes ", d.as_secs()));
            } else {
                s.push_str(&format!("every {secs:.3} sec: {bytes} bytes "));
            }
            let per_day = bytes as f64 * 86400.0 / (1024.0 * 1024.0 * secs);
            s.push_str(&format!("or {per_day:.2} Mbytes/day\n"));
        }
    }
    s
}

/// PM_TEXT_* bits of help-text records.
const TEXT_ONELINE: u32 = 1;
const TEXT_HELP: u32 = 2;
const TEXT_PMID: u32 = 4;
const TEXT_INDOM: u32 = 8;

/// The label sets a newly described metric brings (`seen` holds what the archive
/// has already: label kinds by type and identifier), each kind once per archive,
/// in the reference pmlogger's order: context, domain, instance domain, cluster,
/// item, instances.
fn write_labels(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    stamp: Timestamp,
    desc: &Desc,
    seen: &mut HashSet<(u32, u32)>,
) -> archive_format::Result<()> {
    let pmid = desc.pmid.0;
    let mut kinds = vec![(label::CONTEXT, u32::MAX), (label::DOMAIN, pmid >> 22)];
    if !desc.indom.is_null() {
        kinds.push((label::INDOM, desc.indom.0));
    }
    kinds.push((label::CLUSTER, pmid & !0x3ff));
    kinds.push((label::ITEM, pmid));
    if !desc.indom.is_null() {
        kinds.push((label::INSTANCES, desc.indom.0));
    }
    for (ltype, ident) in kinds {
        if !seen.insert((ltype as u32, ident)) {
            continue;
        }
        let sets = source.labels(ltype, ident);
        if !sets.is_empty() {
            w.put_labels(stamp, ltype as u32, ident, sets)?;
        }
    }
    Ok(())
}

/// Help text of a newly described metric and its instance domain, in the reference
/// pmlogger's order: one-line texts, then full texts; each only where the source
/// has it, an instance domain's with the first metric that uses it.
fn write_help(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    desc: &Desc,
    seen: &mut HashSet<(u32, u32)>,
) -> archive_format::Result<()> {
    let pmid = desc.pmid.0;
    let indom = desc.indom;
    let with_indom = !indom.is_null() && seen.insert((TEXT_INDOM << 8, indom.0));
    let mut texts = vec![(TEXT_ONELINE | TEXT_PMID, pmid)];
    if with_indom {
        texts.push((TEXT_ONELINE | TEXT_INDOM, indom.0));
    }
    texts.push((TEXT_HELP | TEXT_PMID, pmid));
    if with_indom {
        texts.push((TEXT_HELP | TEXT_INDOM, indom.0));
    }
    for (ttype, ident) in texts {
        if let Some(t) = source.text(ident, ttype) {
            w.put_text(ttype, ident, &t)?;
        }
    }
    Ok(())
}

/// A descriptor with every name the source gives its PMID, and the configured
/// name where the source does not list it.
fn put_desc(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    desc: Desc,
    rec: &Recorder,
) -> archive_format::Result<()> {
    let mut names = source.names(desc.pmid).unwrap_or_default();
    if let Some(n) = rec.names.get(&desc.pmid) {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    if names.is_empty() {
        names.push(desc.pmid.to_string());
    }
    w.put_desc(desc, &names)
}

/// Writes one fetch: metadata first (descriptors, labels, help, the descriptors of
/// event parameters, changed instance domains), then the values, so a reader never
/// sees a value before what describes it.
fn write_fetch(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    f: &mut sources::Fetched,
    rec: &mut Recorder,
    log: &mut dyn Write,
) -> Result<(), String> {
    let stamp = f.stamp;
    w.begin_fetch();
    if f.changes & pdu::pmcd::change::LABEL != 0 {
        // pmcd's context labels changed: the archive gets them again
        let sets = source.labels(label::CONTEXT, u32::MAX);
        if !sets.is_empty() {
            w.put_labels(stamp, label::CONTEXT as u32, u32::MAX, sets)
                .map_err(|e| e.to_string())?;
        }
    }
    // the record first (pmcd's PDU copied, or the built-in source's values
    // encoded), then its value sets read in place for what they bring
    let v = w.version();
    let mut encoded = std::mem::take(&mut rec.payload);
    let payload: &[u8] = match &mut f.raw {
        // pmcd's PDU becomes the payload where it lies
        Some(r) => {
            let at = archive_format::codec::result::payload_in_pdu(
                &mut r.pdu, r.vlist_at, r.numpmid, stamp, v,
            )
            .map_err(|e| format!("bad result from pmcd: {e}"))?;
            &r.pdu[at..]
        }
        None => {
            let stamp = if v >= 3 {
                stamp
            } else {
                Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
            };
            encoded = archive_format::codec::result::encode_result(stamp, &f.vsets, v);
            &encoded
        }
    };
    let sets = archive_format::codec::result::raw_value_sets(payload, v)
        .map_err(|e| format!("bad result: {e}"))?;
    // each instance domain is asked for and written at most once per fetch
    let mut asked: Vec<InDom> = Vec::new();
    for vs in &sets {
        let desc = match rec.metrics.get(&vs.pmid) {
            Some(m) => m.desc,
            None => {
                let Ok(desc) = source.desc(vs.pmid) else {
                    continue;
                };
                if !w.has_desc(vs.pmid) {
                    put_desc(w, source, desc, rec).map_err(|e| e.to_string())?;
                    write_labels(w, source, stamp, &desc, &mut rec.seen)
                        .map_err(|e| e.to_string())?;
                    write_help(w, source, &desc, &mut rec.seen).map_err(|e| e.to_string())?;
                }
                rec.metrics.insert(vs.pmid, Seen::new(desc));
                desc
            }
        };
        let Some(m) = rec.metrics.get_mut(&vs.pmid) else {
            continue;
        };
        // pmlc's history: what this fetch had (looked through only on change)
        let same = vs.insts_eq(&m.returned);
        if !same {
            m.returned.clear();
            m.returned.extend(vs.insts());
            m.ever.extend(vs.insts());
            m.checked = 0;
        }
        m.fetched = true;
        if vs.numval <= 0 {
            continue;
        }
        if desc.vtype == vtype::EVENT || desc.vtype == vtype::HIGHRES_EVENT {
            describe_event_params(w, source, &desc, vs, log).map_err(|e| e.to_string())?;
        }
        if desc.indom.is_null() {
            continue;
        }
        // the instance domain is asked for when this fetch shows instances the
        // latest snapshot lacks, or other instances than the metric's last fetch
        // (the same instances as last time, found in the same snapshot then,
        // need no looking through)
        let changed = !same
            || match rec.snapshot.get(&desc.indom) {
                None => true,
                Some((gen, _)) if *gen == m.checked => false,
                Some((gen, k)) => {
                    let missing = vs.insts().any(|i| k.binary_search(&i).is_err());
                    if !missing {
                        m.checked = *gen;
                    }
                    missing
                }
            };
        if changed && !asked.contains(&desc.indom) {
            asked.push(desc.indom);
            let mut all = match source.instances(desc.indom) {
                Ok(a) => a,
                Err(_) => continue,
            };
            all.sort_by_key(|(i, _)| *i);
            w.put_indom(stamp, desc.indom, &all)
                .map_err(|e| e.to_string())?;
            rec.snapshots += 1;
            rec.snapshot.insert(
                desc.indom,
                (rec.snapshots, all.iter().map(|(i, _)| *i).collect()),
            );
        }
    }
    drop(sets);
    let stamp = if v >= 3 {
        stamp
    } else {
        Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
    };
    let wrote = w.write_result_payload(stamp, payload);
    rec.payload = encoded;
    wrote.map(|_| ()).map_err(|e| e.to_string())
}

/// The descriptors of the parameters in a fetch's event records, each the first
/// time it appears, as the reference's pmlogger finds them: instance by instance,
/// stopping at the first instance without records (its loop returns there, so
/// the parameters of later instances wait for another fetch). A parameter pmcd
/// has no name for is named `event_param.D.C.I`, and one without a descriptor
/// gets an aggregate one, with the reference's warnings.
fn describe_event_params(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    desc: &Desc,
    vs: &archive_format::codec::result::RawValueSet<'_>,
    log: &mut dyn Write,
) -> archive_format::Result<()> {
    let highres = desc.vtype == vtype::HIGHRES_EVENT;
    for v in vs.values() {
        let Ok((_, Value::Block { data, .. })) = v else {
            return Ok(());
        };
        let Ok(events) = archive_format::codec::event::decode_events(data, 0, highres) else {
            return Ok(());
        };
        if events.is_empty() {
            return Ok(());
        }
        for r in &events {
            for p in &r.params {
                if w.has_desc(p.pmid) {
                    continue;
                }
                let mut names = source.names(p.pmid).unwrap_or_default();
                if names.is_empty() {
                    let name = format!("event_param.{}", p.pmid);
                    let _ = writeln!(log, "Warning: metric {} has no name, using {name}", p.pmid);
                    names.push(name);
                }
                let d = match source.desc(p.pmid) {
                    Ok(d) => d,
                    Err(_) => {
                        let _ = writeln!(
                            log,
                            "Warning: metric {} ({}) has no descriptor, using a default one",
                            names[0], p.pmid
                        );
                        Desc {
                            pmid: p.pmid,
                            vtype: vtype::AGGREGATE,
                            indom: InDom::NULL,
                            sem: sem::DISCRETE,
                            units: Units(0),
                        }
                    }
                };
                w.put_desc(d, &names)?;
            }
        }
    }
    Ok(())
}

/// What a control request may look at and change: the recording in progress.
struct Ctl<'a> {
    source: &'a mut dyn Source,
    w: &'a mut ArchiveWriter,
    timers: &'a mut Vec<Timer>,
    rec: &'a mut Recorder,
    last: Timestamp,
    log: &'a mut dyn Write,
}

fn pdu_stamp(t: Timestamp) -> pdu::Stamp {
    pdu::Stamp {
        sec: t.sec,
        nsec: t.nsec,
    }
}

impl Ctl<'_> {
    /// A PMID's names as pmNameAll gives them, joined as the reference's log
    /// joins them.
    fn all_names(&mut self, pmid: PmId) -> String {
        match self.source.names(pmid) {
            Ok(n) if !n.is_empty() => n.join(" or "),
            _ => pmid.to_string(),
        }
    }

    /// Carries out one request; returns the encoded reply.
    fn handle(&mut self, req: &control::Request) -> Vec<u8> {
        use pdu::{control as c, request as r, state as s, Pdu};
        let denied = || {
            pdu::encode(&Pdu::Error {
                from: 0,
                code: archive_format::error::PM_ERR_PERMISSION,
            })
        };
        // what the [access] rules must allow: status and enquire need nothing
        // beyond being let in, as in the reference
        if matches!(&req.pdu, Pdu::LogRequest { request, .. } if *request == r::NEWVOLUME)
            && req.ops & access::MANDATORY == 0
        {
            return denied();
        }
        let reply = match &req.pdu {
            Pdu::LogRequest { request, .. } => match *request {
                r::STATUS => self.status(),
                r::NEWVOLUME => match self.w.new_volume() {
                    Ok(v) => {
                        let _ = writeln!(
                            self.log,
                            "New log volume {v}, via pmlc request at {}",
                            ctime_now()
                        );
                        Pdu::Error {
                            from: 0,
                            code: v as i32,
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(self.log, "{PROG}: {e}");
                        Pdu::Error { from: 0, code: -5 }
                    }
                },
                r::SYNC => Pdu::Error {
                    from: 0,
                    code: self.w.flush().map_or(-5, |_| 0),
                },
                _ => Pdu::Error {
                    from: 0,
                    code: archive_format::error::PM_ERR_IPC,
                },
            },
            Pdu::LogControl {
                control,
                state,
                delta,
                metrics,
                ..
            } => {
                let change = match (*control, *state) {
                    (c::ENQUIRE, _) => None,
                    (c::MANDATORY, st) | (c::ADVISORY, st) => {
                        let ctl = if *control == c::MANDATORY {
                            state::Control::Mandatory
                        } else {
                            state::Control::Advisory
                        };
                        let sw = match st {
                            s::ON => Switch::On,
                            s::OFF => Switch::Off,
                            _ => Switch::Maybe,
                        };
                        Some((ctl, sw, (*delta).max(0) as u32))
                    }
                    _ => {
                        let _ = writeln!(self.log, "Bad control PDU type {control}");
                        return pdu::encode(&Pdu::Error {
                            from: 0,
                            code: archive_format::error::PM_ERR_IPC,
                        });
                    }
                };
                if let Some((ctl, sw, d)) = change {
                    let _ = writeln!(
                        self.log,
                        "\n{}\npmlc request from {}: {} {}",
                        ctime_now(),
                        req.peer,
                        if ctl == state::Control::Mandatory {
                            "mandatory"
                        } else {
                            "advisory"
                        },
                        match sw {
                            Switch::On if d == 0 => "on once".to_string(),
                            Switch::On => format!("on {} sec", secs(d)),
                            Switch::Off => "off".into(),
                            Switch::Maybe => "maybe".into(),
                        }
                    );
                    let need = if ctl == state::Control::Mandatory {
                        access::MANDATORY
                    } else {
                        access::ADVISORY
                    };
                    if req.ops & need == 0 {
                        let _ = writeln!(
                            self.log,
                            "Error: {}",
                            pm_err_str(archive_format::error::PM_ERR_PERMISSION)
                        );
                        return denied();
                    }
                    self.apply(ctl, sw, d, metrics);
                }
                self.reply(change, metrics)
            }
            _ => Pdu::Error {
                from: 0,
                code: archive_format::error::PM_ERR_IPC,
            },
        };
        pdu::encode(&reply)
    }

    fn status(&mut self) -> pdu::Pdu {
        let now = sources::now();
        let start = self.w.start();
        let (tz, _) = self.source.timezone();
        let (local_tz, _) = sources::local_timezone();
        pdu::Pdu::LogStatus {
            from: 0,
            status: pdu::LogStatus {
                start: start.map(pdu_stamp).unwrap_or_default(),
                last: pdu_stamp(self.last),
                now: pdu_stamp(now),
                state: start.is_some() as i32,
                vol: self.w.volume() as i32,
                size: self.w.data_offset() as i64,
                strings: [
                    Some(self.source.hostname()),
                    Some(self.source.host_spec()),
                    Some(tz),
                    None,
                    Some(local_tz),
                    None,
                ],
            },
        }
    }

    /// A logging request: the tasks and requests change as the reference's do,
    /// and a task it makes that is on gets a timer.
    fn apply(
        &mut self,
        ctl: state::Control,
        sw: Switch,
        delta_ms: u32,
        metrics: &[pdu::ValueList],
    ) {
        let mut list = Vec::with_capacity(metrics.len());
        for m in metrics {
            if m.numval < 0 {
                continue;
            }
            let pmid = PmId(m.pmid);
            let Ok(desc) = self.source.desc(pmid) else {
                continue;
            };
            self.rec.names.entry(pmid).or_insert_with(|| {
                self.source
                    .names(pmid)
                    .ok()
                    .and_then(|n| n.into_iter().next())
                    .unwrap_or_else(|| pmid.to_string())
            });
            let insts = m.values.iter().map(|(i, _)| *i).collect();
            list.push((pmid, desc.indom, insts));
        }
        // what the tasks fetch is worked out again
        self.rec.fetches.clear();
        if let Some(task) = self.rec.plan.control(ctl, sw, delta_ms, &list) {
            let t = &self.rec.plan.tasks[task];
            if t.state & state::ON != 0 {
                let d = t.delta_ms;
                self.timers.push(Timer {
                    task,
                    every: (d > 0).then(|| Duration::from_millis(d as u64)),
                    next: Instant::now() + Duration::from_millis(d as u64),
                    reported: false,
                });
            }
        }
    }

    /// The reply to a LOG_CONTROL: each metric-instance's state word (its task's
    /// state and interval, and the history flags). Instances: those of the
    /// request, else the instance domain now (and, for an enquiry, the instances
    /// logged before that it no longer has). A logging request also goes to the
    /// log, metric by metric, with "[request failed]" where the state is not what
    /// was asked.
    fn reply(
        &mut self,
        change: Option<(state::Control, Switch, u32)>,
        metrics: &[pdu::ValueList],
    ) -> pdu::Pdu {
        let mut vsets = Vec::with_capacity(metrics.len());
        for m in metrics {
            let pmid = PmId(m.pmid);
            if change.is_some() {
                let names = self.all_names(pmid);
                let _ = write!(self.log, "  metric: {names}");
            }
            let desc = self.source.desc(pmid);
            let insts: Vec<i32> = if m.numval > 0 {
                m.values.iter().map(|(i, _)| *i).collect()
            } else {
                match &desc {
                    Err(e) => {
                        if change.is_some() {
                            let _ = writeln!(self.log);
                        }
                        vsets.push(pdu::ValueList {
                            pmid: m.pmid,
                            numval: e.code(),
                            values: Vec::new(),
                        });
                        continue;
                    }
                    Ok(d) if d.indom.is_null() => vec![-1],
                    Ok(d) => {
                        let mut v: Vec<i32> = self
                            .source
                            .instances(d.indom)
                            .unwrap_or_default()
                            .into_iter()
                            .map(|(i, _)| i)
                            .collect();
                        if change.is_none() {
                            if let Some(h) = self.rec.metrics.get(&pmid) {
                                for i in &h.ever {
                                    if !v.contains(i) {
                                        v.push(*i);
                                    }
                                }
                            }
                        }
                        v
                    }
                }
            };
            let indom = desc.as_ref().map_or(InDom::NULL, |d| d.indom);
            let names: Vec<(i32, String)> = if change.is_some() && !indom.is_null() {
                self.source.instances(indom).unwrap_or_default()
            } else {
                Vec::new()
            };
            let mut values = Vec::with_capacity(insts.len());
            for (j, inst) in insts.iter().enumerate() {
                let word = self.rec.plan.word(pmid, *inst)
                    | self.rec.hist_flags(pmid, *inst, indom.is_null());
                values.push((*inst, word));
                let Some((ctl, sw, d)) = change else {
                    continue;
                };
                let covered = self.rec.plan.requests(pmid).next().is_some();
                if !indom.is_null() && covered || insts.len() > 1 || *inst != -1 {
                    if j == 0 {
                        let _ = writeln!(self.log);
                    }
                    match names.iter().find(|(i, _)| i == inst) {
                        Some((_, n)) => {
                            let _ = write!(self.log, "    instance: {n}");
                        }
                        None => {
                            let _ = write!(self.log, "    instance: #{inst}");
                        }
                    }
                }
                // the state asked for, and the bits that say whether it holds
                let (want, mask) = match sw {
                    Switch::Maybe => (0, state::MAND),
                    _ => (state::state_of(ctl, sw) & 0x3, state::MAND | state::ON),
                };
                let want_delta = if want & state::ON != 0 { d } else { 0 };
                if word & mask != want || (word >> 4) != want_delta {
                    let _ = write!(self.log, " [request failed]");
                }
                let _ = writeln!(self.log);
            }
            vsets.push(pdu::ValueList {
                pmid: m.pmid,
                numval: values.len() as i32,
                values,
            });
        }
        pdu::Pdu::Result {
            from: 0,
            sec: 0,
            usec: 0,
            vsets,
        }
    }
}

/// Milliseconds as seconds, without trailing zeros (`500` -> `0.5`).
/// An interval in seconds as the reference logs it (one decimal, single precision).
fn secs(ms: u32) -> String {
    format!("{:.1}", ms as f32 / 1000.0)
}
