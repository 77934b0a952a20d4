//! A connection to a pmlogger's control port: finding it (by port, by pid through
//! the map file, or the primary), the handshake, and one request/reply at a time.

use pdu::{decode, encode, read_frame, Pdu};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;

pub use cli_common::pcpconf::logger_map_dir as map_dir;

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
    if this_host(host) {
        "127.0.0.1"
    } else {
        host
    }
}

/// The message of a failed connection, as errno text.
fn os_text(e: &std::io::Error) -> String {
    archive_format::pm_err_str(-e.raw_os_error().unwrap_or(111))
}

/// A host spec that may use unix sockets (`local:`, `unix:`, none).
fn is_local(host: &str) -> bool {
    host.is_empty() || host.starts_with("local:") || host.starts_with("unix:")
}

/// A host spec naming this machine (the unix-socket ones, or `localhost`).
pub fn this_host(host: &str) -> bool {
    is_local(host) || host == "localhost"
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
        for path in cli_common::pcpconf::logger_socket_dirs()
            .into_iter()
            .map(|d| d.join(&name))
        {
            if let Ok(s) = UnixStream::connect(&path) {
                return handshake(Box::new(s), true, target, 0);
            }
        }
    }
    let port = match target {
        Target::Port(p) => *p,
        // a logger elsewhere: its port from that host's pmcd, as PCP's pmlc finds it
        Target::Pid(_) | Target::Primary if !this_host(host) => {
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
