//! A connection to a pmlogger's control port: finding it (by port, by pid through
//! the map file, or the primary), the handshake, and one request/reply at a time.

use pdu::{decode, encode, read_frame, Pdu};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// A PCP directory variable: the environment, else /etc/pcp.conf, else `default`.
fn pcp_dir(var: &str, default: &str) -> PathBuf {
    let key = format!("{var}=");
    let dir = std::env::var(var).ok().or_else(|| {
        let conf = std::env::var("PCP_CONF").unwrap_or_else(|_| "/etc/pcp.conf".into());
        std::fs::read_to_string(conf).ok().and_then(|t| {
            t.lines().find_map(|l| {
                l.trim()
                    .strip_prefix(key.as_str())
                    .map(|v| v.trim().to_string())
            })
        })
    });
    PathBuf::from(dir.unwrap_or_else(|| default.into()))
}

/// `$PCP_TMP_DIR/pmlogger`, where pmloggers leave their map files.
pub fn map_dir() -> PathBuf {
    pcp_dir("PCP_TMP_DIR", "/var/lib/pcp/tmp").join("pmlogger")
}

/// Where a local pmlogger's unix socket may be: `$PCP_RUN_DIR/<name>`, then
/// `$HOME/.pcp/run/<name>`.
fn socket_paths(name: &str) -> Vec<PathBuf> {
    let mut v = vec![pcp_dir("PCP_RUN_DIR", "/run/pcp").join(name)];
    if let Some(home) = std::env::var_os("HOME") {
        v.push(Path::new(&home).join(".pcp").join("run").join(name));
    }
    v
}

/// A byte stream to a pmlogger: TCP or the unix socket.
trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

/// How a logger is named on the command line or in `connect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Primary,
    Pid(u32),
    Port(u16),
}

/// A connected pmlogger.
pub struct Conn {
    stream: Box<dyn Stream>,
    /// Reached over the unix socket (PCP's pmlc then names the logger by pid).
    pub unix: bool,
    /// The pid the logger announced.
    pub pid: i32,
    pub target: Target,
    /// The TCP port it was reached on.
    pub port: u16,
}

fn tcp_host(host: &str) -> &str {
    if host.is_empty()
        || host.starts_with("local:")
        || host.starts_with("unix:")
        || host == "localhost"
    {
        "127.0.0.1"
    } else {
        host
    }
}

/// The message of a failed connection, as errno text.
fn os_text(e: &std::io::Error) -> String {
    archive_format::pm_err_str(-e.raw_os_error().unwrap_or(111))
}

fn is_local(host: &str) -> bool {
    host.is_empty() || host.starts_with("local:") || host.starts_with("unix:")
}

/// Connects and does the handshake. Errors are the text after `...: `.
pub fn connect(target: &Target, host: &str) -> Result<Conn, String> {
    // a local logger by pid or the primary: its unix socket first
    let socket = match target {
        Target::Pid(pid) if is_local(host) => Some(format!("pmlogger.{pid}.socket")),
        Target::Primary if is_local(host) => Some("pmlogger.primary.socket".to_string()),
        _ => None,
    };
    if let Some(name) = socket {
        for path in socket_paths(&name) {
            if let Ok(s) = UnixStream::connect(&path) {
                return handshake(Box::new(s), true, target, 0);
            }
        }
    }
    let port = match target {
        Target::Port(p) => *p,
        // a logger elsewhere: its port from that host's pmcd, as PCP's pmlc finds it
        Target::Pid(_) | Target::Primary if !is_local(host) && host != "localhost" => {
            let want = match target {
                Target::Pid(pid) => *pid as i32,
                _ => 0,
            };
            let ports = crate::pmcd::Pmcd::connect(host)
                .and_then(|mut c| c.logger_ports())
                .ok_or_else(|| archive_format::pm_err_str(-111))?;
            let port = ports
                .iter()
                .find(|(pid, _)| *pid == want)
                .map(|(_, port)| *port)
                .ok_or_else(|| archive_format::pm_err_str(-111))?;
            u16::try_from(port).map_err(|_| archive_format::pm_err_str(-111))?
        }
        Target::Pid(pid) => {
            let text = std::fs::read_to_string(map_dir().join(pid.to_string()))
                .map_err(|_| archive_format::pm_err_str(-111))?;
            text.lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
                .ok_or_else(|| archive_format::pm_err_str(-111))?
        }
        Target::Primary => {
            let text = std::fs::read_to_string(map_dir().join("primary"))
                .map_err(|_| archive_format::pm_err_str(-111))?;
            text.lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
                .ok_or_else(|| archive_format::pm_err_str(-111))?
        }
    };
    let stream = TcpStream::connect((tcp_host(host), port)).map_err(|e| os_text(&e))?;
    handshake(Box::new(stream), false, target, port)
}

/// The logger's offer, then our credentials.
fn handshake(
    mut stream: Box<dyn Stream>,
    unix: bool,
    target: &Target,
    port: u16,
) -> Result<Conn, String> {
    let offer = read_frame(&mut stream, 1 << 20)
        .map_err(|e| os_text(&e))?
        .ok_or_else(|| archive_format::pm_err_str(-12368))?;
    let (from, code) = match decode(&offer) {
        Ok(Pdu::Error { from, code }) => (from, code),
        _ => return Err(archive_format::pm_err_str(-12366)),
    };
    if code < 0 {
        return Err(archive_format::pm_err_str(code));
    }
    if let Target::Pid(pid) = target {
        if from != *pid as i32 {
            return Err(archive_format::pm_err_str(-12366));
        }
    }
    let version = code.min(3) as u8;
    let creds = Pdu::Creds {
        from: std::process::id() as i32,
        creds: vec![[1, version, 0, 0]],
    };
    stream.write_all(&encode(&creds)).map_err(|e| os_text(&e))?;
    Ok(Conn {
        stream,
        unix,
        pid: from,
        target: target.clone(),
        port,
    })
}

impl Conn {
    /// Sends a request and waits for its reply; `None` when the connection is lost
    /// or the reply is not a PDU.
    pub fn call(&mut self, p: &Pdu) -> Option<Pdu> {
        self.stream.write_all(&encode(p)).ok()?;
        let frame = read_frame(&mut self.stream, 1 << 24).ok()??;
        decode(&frame).ok()
    }
}
