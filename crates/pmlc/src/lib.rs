//! pmlc: control a running pmlogger (ours or PCP's) through its control port, with
//! PCP 6.0.3's command language and output.
//!
//! Metric names are resolved as PCP's pmlc resolves them: against the namespace
//! of the pmcd on the host the pmlogger logs from (or a `-n` namespace file),
//! with descriptors and instances from that pmcd. Where there is no pmcd (our
//! pmlogger reading its built-in sources, PCP not installed) the built-in sources'
//! namespaces answer: this machine's Linux metrics as the Linux agent names them,
//! and the sample metrics.

pub mod client;
mod lang;
pub mod pmcd;

use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};
use client::{connect, Conn, Target};
use lang::{Fault, Freq, Spec, Stmt};
use pdu::{control, request, state, Pdu, ValueList};
use sources::MetricSource;
use std::io::{BufRead, Write};

const PROG: &str = "pmlc";

/// pmlc's options: PCP 6.0.3's, then ours.
pub const TOOL: Tool = Tool {
    name: "pmlc",
    synopsis: "[options] [pid]",
    purpose: "configure active pmloggers interactively",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::short_arg('D', "DBG", "set debug options").hidden(),
            Opt::flag('e', "echo", "echo input"),
            Opt::arg(
                'h',
                "host",
                "HOST",
                "connect to pmlogger using host specification",
            ),
            Opt::flag('i', "interactive", "be interactive and prompt"),
            pcp::NAMESPACE,
            Opt::flag('P', "primary", "connect to primary pmlogger"),
            Opt::arg('p', "port", "N", "connect to pmlogger on this TCP/IP port"),
            pcp::TIMEZONE,
            Opt::flag(
                'z',
                "logzone",
                "set reporting timezone to local time for pmlogger",
            ),
            pcp::HELP,
            Opt::flag(
                PCP_EXIT_STATUS,
                "pcp-exit-status",
                "exit 0 whatever failed, as PCP's pmlc (ours exits 1)",
            )
            .ours(),
            pcp::OUR_VERSION,
        ],
    }],
    notes: "",
};

/// The key of `--pcp-exit-status`.
const PCP_EXIT_STATUS: char = '\u{1}';

pub const HELP: &str = "
pmlc commands

  show loggers [@<host>]             display <pid>s of running pmloggers
  connect _logger_id [@<host>]       connect to designated pmlogger
  status                             information about connected pmlogger
  query metric-list                  show logging state of metrics
  new volume                         start a new log volume
  disconnect                         disconnect from pmlogger

  log { mandatory | advisory } on <interval> _metric-list
  log { mandatory | advisory } off _metric-list
  log mandatory maybe _metric-list

  timezone local|logger|'<timezone>' change reporting timezone
  help                               print this help message
  sleep <n>                          pause for <n> milliseconds
  quit                               exit from pmlc

  _logger_id   is  primary | <pid> | port <n>
  _metric-list is  _metric-spec | { _metric-spec ... }
  _metric-spec is  <metric-name> | <metric-name> [ <instance> ... ]

";

/// Which zone status times are shown in.
enum Zone {
    Local,
    Logger,
    Tz(String),
}

struct Session<'o> {
    out: &'o mut dyn Write,
    err: &'o mut dyn Write,
    conn: Option<Conn>,
    host: String,
    zone: Zone,
    local: sources::local::Local,
    sample: sources::sample::Sample,
    /// The pmcd of the logged host, for names: `None` until first needed after a
    /// connection, `Some(None)` when there is none (the built-in sources answer).
    pmcd: Option<Option<pmcd::Pmcd>>,
    /// A namespace from `-n`, in place of pmcd's.
    pmns: Option<archive_format::pmns::Pmns>,
    /// The hint about instances has been given (once per run, as PCP's pmlc).
    inst_hint: bool,
    /// A command failed (for the exit status; PCP's pmlc always exits 0).
    failed: bool,
}

/// What the command line asks of pmlc.
struct Args {
    echo: bool,
    interactive: bool,
    host: Option<String>,
    target: Option<Target>,
    zone: Zone,
    /// Ours: a failed command makes the exit status 1 (PCP's pmlc always exits 0;
    /// `--pcp-exit-status` keeps that).
    strict: bool,
    pmns: Option<archive_format::pmns::Pmns>,
}

/// The command line as PCP's pmlc reads it; `Err(status)` once it has said why
/// it will not run (or printed its version). As PCP's, it goes on after a
/// mistake: glibc's messages come first, then pmlc's own (its operand is checked
/// even after a bad option), then the usage.
fn parse_args(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Result<Args, i32> {
    let (p, glibc) = TOOL.getopt_all(args);
    let mut a = Args {
        echo: false,
        interactive: false,
        host: None,
        target: None,
        zone: Zone::Local,
        strict: true,
        pmns: None,
    };
    for m in &glibc {
        let _ = writeln!(err, "{PROG}: {m}");
    }
    let mut said: Vec<&str> = Vec::new();
    let mut errors = glibc.len();
    let mut socket = Socket::default();
    const AT_MOST_ONE: &str = "at most one of -P, -p, unix socket, or PID may be specified";
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'e' => a.echo = true,
            'i' => a.interactive = true,
            'h' => {
                socket = Socket::of(&v);
                a.host = Some(v);
            }
            'n' => match cli_common::pmns::load(PROG, &v, err) {
                Ok(Some(p)) => a.pmns = Some(p),
                _ => return Err(1),
            },
            'D' => {}
            'P' if a.target.is_some() || (socket.unix && socket.path) => {
                said.push(AT_MOST_ONE);
                errors += 1;
            }
            'P' => a.target = Some(Target::Primary),
            'p' if a.target.is_some() || socket.unix => {
                said.push(AT_MOST_ONE);
                errors += 1;
            }
            // a port that is not one still counts as given
            'p' => match v.parse::<u16>() {
                Ok(n) if n > 0 => a.target = Some(Target::Port(n)),
                _ => {
                    a.target = Some(Target::Port(0));
                    said.push("port must be numeric and greater than 0");
                    errors += 1;
                }
            },
            'Z' => a.zone = Zone::Tz(v),
            'z' => a.zone = Zone::Logger,
            PCP_EXIT_STATUS => a.strict = false,
            c if c == pcp::OUR_VERSION.key => {
                let _ = write!(out, "{}", cli_common::about::version(PROG));
                return Err(0);
            }
            _ => errors += 1,
        }
    }
    match p.operands.as_slice() {
        [] => {}
        [_] if a.target.is_some() || (socket.unix && socket.path) => {
            said.push(AT_MOST_ONE);
            errors += 1;
        }
        [pid] => match pid.parse::<u32>() {
            Ok(n) if n > 0 && n <= i32::MAX as u32 => a.target = Some(Target::Pid(n)),
            _ => {
                said.push("PID must be a numeric process ID and greater than 0");
                errors += 1;
            }
        },
        _ => errors += 1,
    }
    if errors == 0 && a.host.is_some() && a.target.is_none() && !socket.path {
        said.push("-h may not be used without -P or -p or a socket path or a PID");
        errors += 1;
    }
    if errors > 0 {
        for m in said {
            let _ = writeln!(err, "{PROG}: {m}");
        }
        return Err(cli_common::shell::usage(&TOOL, args, err));
    }
    Ok(a)
}

/// What `-h` says of a local socket: a `unix:` URL, and a path in a `unix:` or
/// `local:` one.
#[derive(Default)]
struct Socket {
    unix: bool,
    path: bool,
}

impl Socket {
    fn of(host: &str) -> Socket {
        let (unix, local) = (host.starts_with("unix:"), host.starts_with("local:"));
        let rest = host.split_once(':').map_or("", |(_, r)| r);
        Socket {
            unix,
            path: (unix || local) && !rest.trim_start_matches('/').is_empty(),
        }
    }
}

/// Runs pmlc over `input`; returns the exit status.
pub fn run(
    args: &[String],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let a = match parse_args(args, out, err) {
        Ok(a) => a,
        Err(status) => return status,
    };
    let mut s = Session {
        out,
        err,
        conn: None,
        host: a.host.unwrap_or_else(|| "local:".into()),
        zone: a.zone,
        local: sources::local::Local::default(),
        sample: sources::sample::Sample::new(),
        pmcd: None,
        pmns: a.pmns,
        inst_hint: false,
        failed: false,
    };
    if a.interactive {
        let _ = writeln!(
            s.out,
            "Performance Co-Pilot Logger Control (pmlc), Version 6.0.3"
        );
        let _ = write!(s.out, "{HELP}");
    }
    if let Some(t) = a.target {
        s.connect(&t, true);
    }
    s.statements(input, a.echo, a.interactive);
    if a.strict && s.failed {
        1
    } else {
        0
    }
}

impl Session<'_> {
    /// Reads statements (a `{` list may span lines) and carries each out, with
    /// PCP's parser's messages and its recovery after an error.
    fn statements(&mut self, input: &mut dyn BufRead, echo: bool, interactive: bool) {
        let mut line_no = 0usize;
        let mut pending = String::new();
        let mut swallow = false;
        let mut depth = 0i32;
        loop {
            if interactive {
                let _ = write!(self.out, "{}", if depth > 0 { "? " } else { "pmlc> " });
                let _ = self.out.flush();
            }
            let mut line = String::new();
            if matches!(input.read_line(&mut line), Ok(0) | Err(_)) {
                if interactive {
                    let _ = writeln!(self.out);
                }
                break;
            }
            line_no += 1;
            if echo {
                let _ = write!(self.out, "{line}");
            }
            let code = line.split('#').next().unwrap_or("");
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            pending.push_str(code);
            pending.push(' ');
            if depth > 0 {
                continue;
            }
            depth = 0;
            let text = std::mem::take(&mut pending);
            if text.trim().is_empty() {
                continue;
            }
            // after an illegal character PCP's parser, recovering, takes the next
            // statement as a syntax error
            if swallow {
                swallow = false;
                let _ = writeln!(self.err, "Error [<stdin>, line {line_no}]\nsyntax error");
                continue;
            }
            match lang::parse(&text) {
                Ok(Stmt::Quit) => {
                    let _ = writeln!(self.out, "Goodbye");
                    break;
                }
                Ok(stmt) => self.exec(stmt, line_no),
                Err(fault) => swallow = self.fault(fault, line_no),
            }
        }
        // the parser's recovery was still waiting for the statement it would lose:
        // the end of the input is that syntax error, on the line after the last
        if swallow {
            let _ = writeln!(
                self.err,
                "Error [<stdin>, line {}]\nsyntax error",
                line_no + 1
            );
        }
    }

    /// A statement PCP's parser refuses, said as it says it; whether its recovery
    /// then loses the next statement.
    fn fault(&mut self, fault: Fault, line_no: usize) -> bool {
        self.failed = true;
        let at = format!("Error [<stdin>, line {line_no}]");
        match fault {
            Fault::BadChar(c, whole) => {
                // a metric list closed before the character: its names were looked
                // up (and any failure reported) as they were read
                if let Some(Stmt::Query(specs) | Stmt::Log(_, _, _, specs)) = whole.map(|b| *b) {
                    if self.conn.is_some() {
                        let _ = self.resolve(&specs, line_no);
                    }
                }
                let _ = writeln!(self.err, "{at}\nUnexpected character '{c}'");
                true
            }
            Fault::Syntax(after) => {
                let _ = writeln!(self.err, "{at}\nsyntax error");
                // the character PCP's lexer read past the refused token is lexed
                // after its recovery has skipped the rest of the line
                match after {
                    // a token no statement starts with
                    Some(c) if "{}[],@".contains(c) => {
                        let _ = writeln!(self.err, "{at}\nsyntax error");
                        false
                    }
                    // a word that runs on into the next line
                    Some(c) if c.is_ascii_alphanumeric() || c == '"' || c == '?' => true,
                    Some(c) if !c.is_whitespace() => {
                        let _ = writeln!(self.err, "{at}\nUnexpected character '{c}'");
                        false
                    }
                    _ => false,
                }
            }
        }
    }
}

impl Session<'_> {
    fn where_(&self, t: &Target) -> String {
        match t {
            Target::Primary => "primary pmlogger".into(),
            Target::Pid(p) => format!("pmlogger pid {p}"),
            Target::Port(p) => format!("pmlogger on port {p}"),
        }
    }

    fn connect(&mut self, t: &Target, announce: bool) {
        self.conn = None;
        self.pmcd = None;
        match connect(t, &self.host) {
            Ok(c) => {
                if announce {
                    // reached over TCP, PCP's pmlc names the port even for a pid
                    let how = match t {
                        Target::Pid(_) if !c.unix => format!("pmlogger on port {}", c.port),
                        _ => self.where_(t),
                    };
                    let _ = writeln!(self.out, "Connected to {how} at {}", self.host);
                }
                self.conn = Some(c);
            }
            Err(e) => {
                let _ = writeln!(
                    self.err,
                    "Unable to connect to {} at {}: {e}",
                    self.where_(t),
                    self.host
                );
                self.failed = true;
            }
        }
    }

    fn not_connected(&mut self, line: usize) {
        let _ = writeln!(
            self.err,
            "Error [<stdin>, line {line}]\nNot connected to any pmlogger instance"
        );
        self.failed = true;
    }

    fn call(&mut self, p: &Pdu) -> Option<Pdu> {
        let c = self.conn.as_mut()?;
        match c.call(p) {
            Some(r) => Some(r),
            None => {
                let _ = writeln!(self.err, "Lost connection to the pmlogger instance");
                self.conn = None;
                self.failed = true;
                None
            }
        }
    }

    fn exec(&mut self, stmt: Stmt, line: usize) {
        match stmt {
            Stmt::Quit => {}
            Stmt::Help => {
                // the text without the blank line that follows the banner
                let _ = write!(self.out, "{}", HELP.strip_prefix('\n').unwrap_or(HELP));
            }
            Stmt::Sleep(ms) => std::thread::sleep(std::time::Duration::from_millis(ms)),
            Stmt::Connect(t, host) => {
                if let Some(h) = host {
                    self.host = h;
                }
                self.connect(&t, false);
            }
            Stmt::Disconnect => self.conn = None,
            Stmt::Timezone(z) => {
                self.zone = match z.as_str() {
                    "local" => Zone::Local,
                    "logger" => Zone::Logger,
                    tz => Zone::Tz(tz.to_string()),
                }
            }
            Stmt::ShowLoggers(host) => self.show_loggers(host),
            Stmt::NewVolume | Stmt::Flush | Stmt::Status if self.conn.is_none() => {
                self.not_connected(line)
            }
            Stmt::NewVolume => {
                if let Some(Pdu::Error { code, .. }) = self.call(&Pdu::LogRequest {
                    from: 0,
                    request: request::NEWVOLUME,
                }) {
                    if code >= 0 {
                        let _ = writeln!(self.err, "New log volume {code}");
                    } else {
                        let _ = writeln!(self.err, "Error: {}", archive_format::pm_err_str(code));
                        self.failed = true;
                    }
                }
            }
            Stmt::Flush => {
                let _ = self.call(&Pdu::LogRequest {
                    from: 0,
                    request: request::SYNC,
                });
            }
            Stmt::Status => self.status(),
            Stmt::Query(specs) | Stmt::Log(_, _, _, specs) if self.conn.is_none() => {
                let _ = specs;
                self.not_connected(line)
            }
            Stmt::Query(specs) => {
                let Some(metrics) = self.resolve(&specs, line) else {
                    return;
                };
                if let Some(reply) = self.control(control::ENQUIRE, state::OFF, 0, &metrics) {
                    self.print_query(&metrics, &reply);
                }
            }
            Stmt::Log(ctl, st, freq, specs) => {
                let Some(metrics) = self.resolve(&specs, line) else {
                    return;
                };
                let delta = match freq {
                    Freq::Once => 0,
                    Freq::Millis(ms) => {
                        if ms > 0x0fff_ffff {
                            let _ = writeln!(
                                self.err,
                                "Error [<stdin>, line {line}]\nLogging delta ({ms} msec) cannot be bigger than 268435455 msec"
                            );
                            self.failed = true;
                            return;
                        }
                        ms as i32
                    }
                };
                if let Some(reply) = self.control(ctl, st, delta, &metrics) {
                    self.check_log(ctl, st, delta, &metrics, &reply);
                }
            }
        }
    }

    fn show_loggers(&mut self, host: Option<String>) {
        let host = host.unwrap_or_else(|| self.host.clone());
        let dir = client::map_dir();
        let mut pids: Vec<u32> = std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                    .filter(|p: &u32| std::path::Path::new(&format!("/proc/{p}")).exists())
                    .collect()
            })
            .unwrap_or_default();
        pids.sort_unstable();
        let primary: Option<u32> = std::fs::read_link(dir.join("primary"))
            .ok()
            .and_then(|l| l.file_name()?.to_str()?.parse().ok());
        if pids.is_empty() {
            let _ = writeln!(self.out, "No pmloggers running on {host}");
            return;
        }
        let _ = write!(
            self.out,
            "The following pmloggers are running on {host}:\n    "
        );
        if let Some(p) = primary {
            let _ = write!(self.out, "primary ({p})");
        }
        for p in pids {
            let _ = write!(self.out, " {p}");
        }
        let _ = writeln!(self.out);
    }

    fn status(&mut self) {
        let Some(Pdu::LogStatus { status, .. }) = self.call(&Pdu::LogRequest {
            from: 0,
            request: request::STATUS,
        }) else {
            return;
        };
        let pid = self.conn.as_ref().map_or(0, |c| c.pid);
        let primary = matches!(self.conn.as_ref().map(|c| &c.target), Some(Target::Primary));
        let label_host = status.strings[0].clone().unwrap_or_default();
        let fqdn = status.strings[1].clone().unwrap_or_default();
        let pmcd_host = if fqdn.is_empty()
            || fqdn == "localhost"
            || fqdn.starts_with("local:")
            || fqdn.starts_with("unix:")
        {
            label_host.clone()
        } else {
            fqdn
        };
        let (tz, zname) = match &self.zone {
            Zone::Local => (cli_common::zone::local(), "local".to_string()),
            Zone::Logger => (
                cli_common::zone::parse_tz(status.strings[4].as_deref().unwrap_or("UTC")),
                "pmlogger".to_string(),
            ),
            Zone::Tz(t) => (cli_common::zone::parse_tz(t), t.clone()),
        };
        let when = |s: archive_format::Timestamp| {
            let c = cli_common::timefmt::ctime(s.sec, &tz);
            // "Sun Nov 22 03:39:15 2026" -> with nanoseconds before the year
            let (head, year) = c.rsplit_once(' ').unwrap_or((c.as_str(), ""));
            format!("{head}.{:09} {year}", s.nsec)
        };
        let who = if primary {
            "primary".to_string()
        } else {
            pid.to_string()
        };
        let _ = writeln!(
            self.out,
            "pmlogger [{who}] on host {} is logging metrics from host {label_host}",
            self.host
        );
        let _ = writeln!(self.out, "PMCD host        {pmcd_host}");
        if status.state == 0 {
            let _ = writeln!(self.out, "logging hasn't started yet");
            return;
        }
        let _ = writeln!(
            self.out,
            "log started      {} (times in {zname} time)",
            when(status.start)
        );
        let _ = writeln!(self.out, "last log entry   {}", when(status.last));
        let _ = writeln!(self.out, "current time     {}", when(status.now));
        let _ = writeln!(self.out, "log volume       {}", status.vol);
        let _ = writeln!(self.out, "log size         {}", status.size);
    }

    /// Metrics of the specs: `(name, pmid, indom, instances)`; `None` after errors.
    fn resolve(&mut self, specs: &[Spec], line: usize) -> Option<Vec<Resolved>> {
        let mut out = Vec::new();
        let mut bad = false;
        for spec in specs {
            // the -n namespace; else pmcd, and the built-in sources
            let found = if self.pmns.is_some() {
                self.pmns_lookup(&spec.name)
            } else {
                match self.pmcd_lookup(&spec.name) {
                    Some(found) if !found.is_empty() => found,
                    _ => self.builtin_lookup(&spec.name),
                }
            };
            if found.is_empty() {
                let _ = writeln!(
                    self.err,
                    "Warning [<stdin>, line {line}]\nProblem with lookup for metric \"{}\" ...\nReason: Unknown metric name",
                    spec.name
                );
                bad = true;
                continue;
            }
            self.resolve_insts(spec, found, &mut out, &mut bad);
        }
        if bad {
            let _ = writeln!(self.err, "Logging statement ignored due to error(s)");
            self.failed = true;
            return None;
        }
        Some(out)
    }

    /// The pmcd to resolve names with: that of the host the logger logs from, as
    /// its status says, unless the logger reads one of our built-in sources.
    fn pmcd(&mut self) -> Option<&mut pmcd::Pmcd> {
        if self.pmcd.is_none() {
            let status = self.call(&Pdu::LogRequest {
                from: 0,
                request: request::STATUS,
            });
            let spec = match status {
                Some(Pdu::LogStatus { status, .. }) => {
                    status.strings[1].clone().unwrap_or_default()
                }
                _ => String::new(),
            };
            let c = if spec.starts_with("sample") {
                None
            } else if spec.is_empty() || spec.starts_with("local:") || spec.starts_with("unix:") {
                pmcd::Pmcd::connect(&self.host)
            } else {
                pmcd::Pmcd::connect(&spec)
            };
            self.pmcd = Some(c);
        }
        self.pmcd.as_mut().and_then(|c| c.as_mut())
    }

    /// A name (leaf or subtree) in the `-n` namespace, with descriptors from pmcd
    /// (or the built-in sources).
    fn pmns_lookup(&mut self, name: &str) -> Vec<(String, archive_format::Desc)> {
        let leaves = self
            .pmns
            .as_ref()
            .map(|p| p.traverse(name))
            .unwrap_or_default();
        let mut out = Vec::new();
        for (n, pmid) in leaves {
            let from_pmcd = self.pmcd().and_then(|c| c.desc(pmid.0));
            let desc = from_pmcd.or_else(|| {
                self.local
                    .metric(pmid)
                    .or_else(|| self.sample.metric(pmid))
                    .map(|m| m.desc)
            });
            if let Some(d) = desc {
                out.push((n, d));
            }
        }
        out
    }

    /// A name (leaf or subtree) in the built-in sources: @builtin's, else
    /// @sample's.
    fn builtin_lookup(&self, name: &str) -> Vec<(String, archive_format::Desc)> {
        let found = match self.local.lookup(name) {
            Ok(v) => v,
            Err(_) => self.sample.lookup(name).unwrap_or_default(),
        };
        found
            .into_iter()
            .map(|m| (m.name.to_string(), m.desc))
            .collect()
    }

    /// A name (leaf or subtree) through pmcd: `None` without a pmcd.
    fn pmcd_lookup(&mut self, name: &str) -> Option<Vec<(String, archive_format::Desc)>> {
        let c = self.pmcd()?;
        let names = c.traverse(name)?;
        if names.is_empty() {
            return Some(Vec::new());
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let ids = c.lookup(&refs)?;
        let mut out = Vec::new();
        for (n, id) in names.iter().zip(ids) {
            let Some(id) = id else { continue };
            let Some(d) = c.desc(id) else { continue };
            out.push((n.clone(), d));
        }
        Some(out)
    }

    /// The instances a spec names, checked against the metric's instance domain.
    fn resolve_insts(
        &mut self,
        spec: &Spec,
        found: Vec<(String, archive_format::Desc)>,
        out: &mut Vec<Resolved>,
        bad: &mut bool,
    ) {
        {
            for (name, desc) in found {
                let mut insts = Vec::new();
                for i in &spec.instances {
                    if desc.indom.is_null() {
                        let _ = writeln!(
                            self.err,
                            "Error: {name} has no instance domain but an instance was specified"
                        );
                        *bad = true;
                        break;
                    }
                    let all = self.instances(desc.indom);
                    let hit = match i {
                        lang::Inst::Id(n) => all.iter().find(|(id, _)| *id == *n),
                        lang::Inst::Name(s) => {
                            all.iter().find(|(_, nm)| nm.eq_ignore_ascii_case(s))
                        }
                    };
                    match hit {
                        Some((id, _)) => insts.push(*id),
                        None => {
                            match i {
                                lang::Inst::Id(n) => {
                                    let _ = writeln!(
                                        self.err,
                                        "Error: metric {name} currently has no instance number {n}"
                                    );
                                }
                                lang::Inst::Name(s) => {
                                    let _ = writeln!(
                                        self.err,
                                        "Error: metric {name} currently has no instance named {s}"
                                    );
                                }
                            }
                            if !self.inst_hint {
                                let _ = write!(
                                    self.err,
                                    "    - you may only specify metric instances active now.  However if no\n      instances are specified, pmlogger will use all of the instances\n      available at the time the metric is logged\n"
                                );
                                self.inst_hint = true;
                            }
                            *bad = true;
                        }
                    }
                }
                out.push(Resolved { name, desc, insts });
            }
        }
    }

    fn instances(&mut self, indom: archive_format::InDom) -> Vec<(i32, String)> {
        if let Some(list) = self.pmcd().and_then(|c| c.instances(indom.0)) {
            return list;
        }
        if indom.domain() == 29 {
            self.sample.instances(indom)
        } else {
            self.local.instances(indom)
        }
    }

    fn control(
        &mut self,
        ctl: i32,
        st: i32,
        delta: i32,
        metrics: &[Resolved],
    ) -> Option<Vec<ValueList>> {
        let list = metrics
            .iter()
            .map(|m| {
                if m.desc.indom.is_null() {
                    ValueList {
                        pmid: m.desc.pmid.0,
                        numval: 1,
                        values: vec![(-1, 0)],
                    }
                } else {
                    ValueList {
                        pmid: m.desc.pmid.0,
                        numval: m.insts.len() as i32,
                        values: m.insts.iter().map(|i| (*i, 0)).collect(),
                    }
                }
            })
            .collect();
        match self.call(&Pdu::LogControl {
            from: 0,
            control: ctl,
            state: st,
            delta,
            metrics: list,
        })? {
            Pdu::Result { vsets, .. } => Some(vsets),
            Pdu::Error { code, .. } => {
                // __pmControlLog turns an error PDU into its return value
                let _ = writeln!(
                    self.err,
                    "Error receiving response from pmlogger: {}",
                    archive_format::pm_err_str(code)
                );
                self.failed = true;
                None
            }
            _ => None,
        }
    }

    fn inst_label(&mut self, indom: archive_format::InDom, inst: i32) -> String {
        let name = self
            .instances(indom)
            .into_iter()
            .find(|(i, _)| *i == inst)
            .map(|(_, n)| n)
            .unwrap_or_else(|| "???".into());
        format!("[{inst} or \"{name}\"]")
    }

    fn print_query(&mut self, metrics: &[Resolved], reply: &[ValueList]) {
        for (m, vs) in metrics.iter().zip(reply) {
            let _ = writeln!(self.out, "{}", m.name);
            if vs.numval < 0 {
                let _ = writeln!(self.out, "    {}", archive_format::pm_err_str(vs.numval));
            } else if vs.values.is_empty() {
                let _ = writeln!(self.out, "    (no instances)");
            }
            for (inst, word) in &vs.values {
                let st = state_text(*word);
                if m.desc.indom.is_null() {
                    let _ = writeln!(self.out, "    {st}");
                } else {
                    let label = self.inst_label(m.desc.indom, *inst);
                    let _ = writeln!(self.out, "    {st} {label}");
                }
            }
            for want in &m.insts {
                if !vs.values.iter().any(|(i, _)| i == want) {
                    let _ = writeln!(self.out, "                  [{want}] (not found)");
                }
            }
            let _ = writeln!(self.out);
        }
    }

    /// `log ...` is silent when every metric ended up as requested.
    fn check_log(
        &mut self,
        ctl: i32,
        st: i32,
        delta: i32,
        metrics: &[Resolved],
        reply: &[ValueList],
    ) {
        let mut header = false;
        for (m, vs) in metrics.iter().zip(reply) {
            let ok_word = |w: u32| {
                let on = w & 1 != 0;
                let mand = w & 2 != 0;
                let d = (w >> 4) & 0x0fff_ffff;
                if st == state::MAYBE {
                    return !mand;
                }
                mand == (ctl == control::MANDATORY)
                    && on == (st == state::ON)
                    && (!on || d == delta as u32)
            };
            let bad: Vec<i32> = vs
                .values
                .iter()
                .filter(|(_, w)| !ok_word(*w))
                .map(|(i, _)| *i)
                .collect();
            if vs.numval >= 0 && bad.is_empty() {
                continue;
            }
            if !header {
                let _ = writeln!(self.out, "Warning: unable to change logging state for:");
                header = true;
            }
            if vs.numval < 0 {
                let _ = writeln!(
                    self.out,
                    "{}:{}",
                    m.name,
                    archive_format::pm_err_str(vs.numval)
                );
            } else if m.desc.indom.is_null() {
                let _ = writeln!(self.out, "{}\n", m.name);
            } else {
                let _ = writeln!(self.out, "{} instance(s):", m.name);
                for i in bad {
                    let label = self.inst_label(m.desc.indom, i);
                    let _ = writeln!(self.out, "    {label}");
                }
                let _ = writeln!(self.out);
            }
        }
    }
}

/// A metric a statement names.
struct Resolved {
    name: String,
    desc: archive_format::Desc,
    insts: Vec<i32>,
}

/// pmlc's `PrintState`: control, switch, archive presence, and the interval.
pub fn state_text(w: u32) -> String {
    let on = w & 1 != 0;
    let mut s = String::from(if w & 2 != 0 { "mand " } else { "adv  " });
    s.push_str(if on { "on  " } else { "off " });
    s.push_str(match (w & 8 != 0, w & 4 != 0) {
        (true, true) => "   ",
        (true, false) => "na ",
        (false, _) => "nl ",
    });
    let delta = (w >> 4) & 0x0fff_ffff;
    if !on {
        s.push_str(&" ".repeat(12));
    } else if delta == 0 {
        s.push_str("        once");
    } else {
        let mut v = delta as f64;
        let mut unit = "msec";
        if v >= 1000.0 {
            v /= 1000.0;
            unit = "sec ";
            if v >= 60.0 {
                v /= 60.0;
                unit = "min ";
                if v >= 60.0 {
                    v /= 60.0;
                    unit = "hour";
                    if v >= 24.0 {
                        v /= 24.0;
                    }
                }
            }
        }
        let milli = (v * 1000.0).round() as u64;
        let j = if milli.is_multiple_of(1000) {
            0
        } else if milli.is_multiple_of(100) {
            1
        } else if milli.is_multiple_of(10) {
            2
        } else {
            3
        };
        s.push_str(&format!("{:>w$.j$} {unit}", v, w = 7 - j, j = j));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_print_as_pmlc_does() {
        // as PCP's pmlc prints them (see ../shared/docs, pmlc output formats)
        assert_eq!(
            state_text(1 | 2 | 4 | 8 | 200 << 4),
            "mand on         200 msec"
        );
        assert_eq!(
            state_text(1 | 4 | 8 | 2000 << 4),
            "adv  on           2 sec "
        );
        assert_eq!(state_text(1 | 2 | 1000 << 4), "mand on  nl       1 sec ");
        assert_eq!(
            state_text(1 | 2 | 4 | 8 | 90_000 << 4),
            "mand on        1.5 min "
        );
        assert_eq!(state_text(4), "adv  off nl             ");
        assert_eq!(state_text(1 | 4 | 8), "adv  on             once");
    }
}
