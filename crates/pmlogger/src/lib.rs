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
mod ctl;
mod logue;
mod metaout;
pub mod optfetch;
pub mod opts;

/// The command line: options, usage, man page and completions come from it.
pub use opts::TOOL;
mod planning;
pub mod pmcpp;
mod push;
mod recording;
mod startup;
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

use ctl::*;
use logue::*;
use metaout::*;
use planning::*;
use recording::*;
use startup::*;
pub use startup::{open_source, DEFAULT_CONFIG};

const PROG: &str = "pmlogger";

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
    // %Y%m%d.%H.%M), filled in with this host's time now (not a push target's)
    if !push::is_remote(&o.archive) {
        o.archive = archive_name(&o.archive);
    }
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
            cli_common::pcpconf::hostname(),
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
    let (plan, names, access) = match configure(o, &mut *source, log) {
        Ok(c) => c,
        Err(end) => return end,
    };
    if o.check {
        return 0;
    }
    let Some(finish) = ready(o, &mut *source, &plan, log) else {
        return 1;
    };
    let tasks = timers(&plan);
    // only one primary logger (before anything is created)
    if let Some(e) = o.primary.then(control::primary_running).flatten() {
        let _ = writeln!(log, "{PROG}: ERROR: {e}");
        return 1;
    }
    // -H names the host in the label instead of pmcd's name for itself
    let host = o.labelhost.clone().unwrap_or_else(|| source.hostname());
    let (mut w, archive_path, pushed) = match open_output(o, &mut *source, &host, log) {
        Ok(made) => made,
        Err(code) => return code,
    };
    let signals = Signals::register();
    let ctl = start_control(o, &host, &archive_path, access, &signals, log);
    let mut last = sources::now();
    let logue = Logue {
        archive: archive_path,
        host: fqdn(),
        port: ctl.as_ref().map_or(0, |c| c.port),
    };
    let ids = source.pmcd_ids();
    // pushing, the prologue waits for the first sample and takes its time, as
    // PCP 7's pmlogger's does
    let put = match pushed {
        Some(_) => Ok(()),
        None => logue.put(&mut w, last, ids),
    };
    if let Err(e) = put {
        if let Some(end) = pushed.as_ref().and_then(|p| p.ended(log)) {
            return end;
        }
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
        prologue: pushed.is_some().then(|| (logue.clone(), ids)),
        push: pushed,
        ..Default::default()
    };
    let code = recording::Session::new(
        o,
        finish,
        &mut *source,
        &mut w,
        tasks,
        &mut rec,
        &mut last,
        log,
    )
    .record(&signals.stop, &signals.newvol, &signals.events);
    drop(ctl);
    if rec.prologue.is_some() {
        // pushing, and no sample came: nothing was sent, nothing is
        return code;
    }
    let ids = if rec.lost { ids } else { source.pmcd_ids() };
    match close_archive(w, &logue, last, ids) {
        Ok(()) => code,
        Err(e) => rec
            .push
            .as_ref()
            .and_then(|p| p.ended(log))
            .unwrap_or_else(|| {
                let _ = writeln!(log, "{PROG}: {e}");
                1
            }),
    }
}

/// The archive's files, or with an `http://` archive the push to pmproxy (pinged
/// first), with its full name and the push's status; the exit status where
/// neither can be had.
fn open_output(
    o: &Opts,
    source: &mut dyn Source,
    host: &str,
    log: &mut dyn Write,
) -> Result<(ArchiveWriter, String, Option<push::Status>), i32> {
    if push::is_remote(&o.archive) {
        let (remote, status) = push::Remote::connect(
            &o.archive,
            o.push_user.as_deref(),
            o.push_password_file.as_deref(),
            log,
        )?;
        let opts = WriterOptions {
            one_index_per_time: true,
            ..writer_options(o, source, host)
        };
        let w = ArchiveWriter::push(&o.archive, opts, Box::new(remote));
        return Ok((w, o.archive.clone(), Some(status)));
    }
    match create_archive(o, source, host) {
        Ok((w, path)) => {
            let _ = writeln!(log, "Archive basename: {}", o.archive);
            Ok((w, path, None))
        }
        Err(e) => {
            let _ = writeln!(log, "{PROG}: Cannot create archive \"{}\": {e}", o.archive);
            Err(1)
        }
    }
}

/// The lines that say what is recorded from where, and the checks before an
/// archive is made: the `-T` end (returned, as a time from now), and something
/// to log. `None` when the logger stops here.
fn ready(
    o: &Opts,
    source: &mut dyn Source,
    plan: &Plan,
    log: &mut dyn Write,
) -> Option<Option<std::time::Duration>> {
    let _ = writeln!(
        log,
        "Starting {}logger for host \"{}\" via \"{}\"",
        if o.primary { "primary " } else { "" },
        source.hostname(),
        o.source.as_deref().unwrap_or("local:")
    );
    let _ = writeln!(log, "{PROG}: recording from {}", source.describe());
    let finish = match o.finish.as_deref().map(|t| (t, finish_after(t))) {
        None => None,
        Some((_, Some(d))) => Some(d),
        Some((t, None)) => {
            let _ = writeln!(
                log,
                "{PROG}: illegal -T argument\n{t}\n^ -- unexpected value"
            );
            return None;
        }
    };
    if !o.primary && !o.linger && plan.tasks.is_empty() {
        let _ = writeln!(
            log,
            "Nothing to log, and not the primary logger instance ... good-bye"
        );
        return None;
    }
    Some(finish)
}

/// The control port pmlc talks to, made the primary logger's with `-P`.
fn start_control(
    o: &Opts,
    host: &str,
    archive: &str,
    access: access::Access,
    signals: &Signals,
    log: &mut dyn Write,
) -> Option<control::ControlPort> {
    let mut ctl = control::start(
        host,
        archive,
        o.note.as_deref(),
        access,
        signals.events_tx.clone(),
    );
    if o.primary {
        let made = ctl
            .as_mut()
            .map_or(Err("no control port".to_string()), |c| c.make_primary());
        if let Err(e) = made {
            let _ = writeln!(log, "{PROG}: {e}");
        }
    }
    ctl
}

/// The configuration read, parsed and planned, and its `[access]` rules, with the
/// reference's messages where they fail (the statements before a syntax error are
/// acted on first: their warnings, then the error).
fn configure(
    o: &Opts,
    source: &mut dyn Source,
    log: &mut dyn Write,
) -> Result<(Plan, HashMap<PmId, String>, access::Access), i32> {
    let Some((text, file)) = read_config(o, log) else {
        return Err(1);
    };
    let file = file.as_str();
    let cfg = match config::parse(&text, o.default_ms) {
        Ok(c) => c,
        Err(e) => {
            let _ = plan(&e.partial, source, file, log, &mut HashMap::new());
            let _ = writeln!(log, "Specification error in configuration file ({file})");
            let _ = write!(log, "[line {}] ", e.line);
            let _ = log.write_all(&config::raw(&e.message));
            let _ = writeln!(log);
            return Err(1);
        }
    };
    let mut names: HashMap<PmId, String> = HashMap::new();
    let Some(plan) = plan(&cfg.statements, source, file, log, &mut names) else {
        return Err(1);
    };
    let access = match access::Access::build(&cfg.access) {
        Ok(a) => a,
        Err(e) => {
            for m in &e.messages {
                notice(log, "Error", m);
            }
            let _ = writeln!(log, "error was on line {}", e.line);
            return Err(1);
        }
    };
    let _ = writeln!(log, "Config parsed");
    Ok((plan, names, access))
}

/// The archive, labelled with the source's zone and `host`, and its full path
/// (what the prologue and the map file name).
fn create_archive(
    o: &Opts,
    source: &mut dyn Source,
    host: &str,
) -> archive_format::Result<(ArchiveWriter, String)> {
    let opts = writer_options(o, source, host);
    let w = ArchiveWriter::create(&o.archive, opts)?;
    let path = std::path::Path::new(&o.archive);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let full = std::fs::canonicalize(dir.unwrap_or(std::path::Path::new(".")))
        .map(|d| {
            d.join(path.file_name().unwrap_or_default())
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_else(|_| o.archive.clone());
    Ok((w, full))
}

/// The archive's label: the source's zone and `host`.
fn writer_options(o: &Opts, source: &mut dyn Source, host: &str) -> WriterOptions {
    let (tz, zoneinfo) = source.timezone();
    WriterOptions {
        version: o.version,
        hostname: host.to_string(),
        timezone: tz,
        zoneinfo,
        pid: std::process::id() as i32,
        ..Default::default()
    }
}

/// The epilogue, at least 1 ms after the last record, the index entry that
/// points at it, and the archive closed.
fn close_archive(
    mut w: ArchiveWriter,
    logue: &Logue,
    last: Timestamp,
    ids: (u64, u32),
) -> archive_format::Result<()> {
    let mut end = sources::now();
    if end <= last {
        end = Timestamp::from_nanos(last.as_nanos() + 1_000_000);
    }
    // the last index entry has the epilogue's time and points at it, as PCP's
    // pmlogger steps back over its last record to write the entry
    let before = w.data_offset();
    w.set_auto_index(false);
    logue.put(&mut w, end, ids)?;
    let meta = w.meta_offset();
    w.put_index_at(end, meta, before)?;
    w.close()
}

/// What the signals set: SIGINT and SIGTERM (and SIGUSR2, to run again) stop the
/// recording, SIGHUP asks for a new volume; each also wakes the sampling loop,
/// which sleeps until its next deadline or an event (a control request too).
struct Signals {
    stop: Arc<AtomicUsize>,
    newvol: Arc<AtomicBool>,
    events_tx: std::sync::mpsc::Sender<control::Event>,
    events: std::sync::mpsc::Receiver<control::Event>,
}

impl Signals {
    fn register() -> Signals {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR2};
        let stop = Arc::new(AtomicUsize::new(0));
        let newvol = Arc::new(AtomicBool::new(false));
        for sig in [SIGINT, SIGTERM, SIGUSR2] {
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(&stop), sig as usize);
        }
        let _ = signal_hook::flag::register(SIGHUP, Arc::clone(&newvol));
        // (each flag is set before its event comes)
        let (events_tx, events) = std::sync::mpsc::channel();
        if let Ok(mut signals) =
            signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGUSR2])
        {
            let tx = events_tx.clone();
            std::thread::spawn(move || {
                for _ in signals.forever() {
                    if tx.send(control::Event::Signal).is_err() {
                        break;
                    }
                }
            });
        }
        Signals {
            stop,
            newvol,
            events_tx,
            events,
        }
    }
}
