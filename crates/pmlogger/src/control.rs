//! pmlogger's control port, as PCP's: a TCP port from 4330 upward (`PMLOGGER_PORT`
//! sets the first one to try; `PMLOGGER_LOCAL=1` listens on loopback only) and the map
//! file `$PCP_TMP_DIR/pmlogger/<pid>` (port, host, archive) through which pmlc finds a
//! pmlogger by pid; and the unix socket `$PCP_RUN_DIR/pmlogger.<pid>.socket` (else
//! `$HOME/.pcp/run/...`), mode 0666, that a local pmlc tries first. Unix-socket
//! clients must run as root or as pmlogger's user.
//!
//! Each connection is served on its own thread: the handshake (an ERROR PDU from our
//! pid offering protocol version 3, then the client's CREDS), then requests one at a
//! time. A request goes to the recording loop over a channel and its reply comes
//! back the same way, so sampling is never held up by a client; a client that stalls
//! or sends garbage only ties up its own thread. One client at a time, as the
//! reference: a second one gets an ERROR PDU with -EADDRINUSE and is closed.

use pdu::{decode, encode, read_frame, Pdu, CLIENT_LIMIT};
use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// The protocol version pmlogger offers.
const IPC_VERSION: i32 = 3;
const EADDRINUSE: i32 = 98;
const PM_ERR_IPC: i32 = -12366;

/// A request from a client, and where its reply goes (the encoded reply PDU).
pub struct Request {
    pub pdu: Pdu,
    pub peer: String,
    /// What the client may do (`crate::access` bits).
    pub ops: u8,
    pub reply: mpsc::Sender<Vec<u8>>,
}

/// What wakes the sampling loop between its deadlines: a control client's
/// request, or a signal (whose flag is already set when this arrives).
pub enum Event {
    Request(Box<Request>),
    Signal,
}

/// A listening control port.
pub struct ControlPort {
    pub port: u16,
    map_file: Option<PathBuf>,
    /// The unix socket, when one could be made.
    pub socket: Option<PathBuf>,
    /// The primary logger's links, when we are it.
    links: Vec<PathBuf>,
}

impl Drop for ControlPort {
    fn drop(&mut self) {
        for f in self
            .links
            .iter()
            .chain([&self.map_file, &self.socket].into_iter().flatten())
        {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// `$PCP_TMP_DIR/pmlogger/primary`, the primary logger's link to its map file.
fn primary_link() -> PathBuf {
    cli_common::pcpconf::logger_map_dir().join("primary")
}

/// `$PCP_RUN_DIR/pmlogger.primary.socket`, the link to the primary's socket.
fn primary_socket_link() -> PathBuf {
    cli_common::pcpconf::run_dir().join("pmlogger.primary.socket")
}

/// The pid a link's target names (`.../<pid>` or `.../pmlogger.<pid>.socket`).
fn linked_pid(link: &Path) -> Option<u32> {
    let target = std::fs::read_link(link).ok()?;
    let name = target.file_name()?.to_str()?;
    let name = name
        .strip_prefix("pmlogger.")
        .and_then(|n| n.strip_suffix(".socket"))
        .unwrap_or(name);
    name.parse().ok()
}

/// Whether another primary logger is running: its description for the error, as
/// the reference's. Links left by one that died are removed (with its map file).
pub fn primary_running() -> Option<String> {
    let link = primary_link();
    std::fs::symlink_metadata(&link).ok()?;
    match linked_pid(&link) {
        Some(pid) if Path::new(&format!("/proc/{pid}")).exists() => Some(format!(
            "there is already a primary pmlogger running, pid {pid} linkfile={}",
            link.display()
        )),
        Some(pid) => {
            let _ = std::fs::remove_file(&link);
            let _ =
                std::fs::remove_file(cli_common::pcpconf::logger_map_dir().join(pid.to_string()));
            let _ = std::fs::remove_file(primary_socket_link());
            None
        }
        None => Some(format!(
            "there is already a primary pmlogger running, pid <unknown> linkfile={}",
            link.display()
        )),
    }
}

impl ControlPort {
    /// Makes this the primary logger: the links `primary` (to the map file) and
    /// `pmlogger.primary.socket` (to the unix socket), removed again at exit.
    pub fn make_primary(&mut self) -> Result<(), String> {
        let map = self
            .map_file
            .clone()
            .ok_or("error creating primary logger symbolic link: no map file")?;
        let link = primary_link();
        std::os::unix::fs::symlink(&map, &link).map_err(|e| {
            format!(
                "error creating primary logger symbolic link {}: {e}",
                link.display()
            )
        })?;
        self.links.push(link);
        if let Some(sock) = &self.socket {
            let slink = primary_socket_link();
            let _ = std::fs::remove_file(&slink);
            if std::os::unix::fs::symlink(sock, &slink).is_ok() {
                self.links.push(slink);
            }
        }
        Ok(())
    }
}

/// Who is at the other end of a connection.
enum Peer {
    Tcp(Option<IpAddr>),
    /// A unix-socket client: its user id (None when it cannot be told) and the
    /// socket's path (how the reference names such a client in its log).
    Unix(Option<u32>, String),
}

/// Makes the unix socket: `$PCP_RUN_DIR/pmlogger.<pid>.socket`, else the same name
/// under `$HOME/.pcp/run`.
fn unix_socket(pid: u32) -> Option<(UnixListener, PathBuf)> {
    let name = format!("pmlogger.{pid}.socket");
    for dir in cli_common::pcpconf::logger_socket_dirs() {
        let path = dir.join(&name);
        let _ = std::fs::remove_file(&path);
        if std::fs::create_dir_all(&dir).is_err() {
            continue;
        }
        if let Ok(l) = UnixListener::bind(&path) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666));
            return Some((l, path));
        }
    }
    None
}

/// The IPv6 listener on `port` (IPv6 only, so that the IPv4 one can share the
/// port); `Ok(None)` where the machine has no IPv6.
fn bind_v6(port: u16, local: bool) -> Result<Option<TcpListener>, rustix::io::Errno> {
    use rustix::net::{sockopt, AddressFamily, SocketType};
    let fd = match rustix::net::socket(AddressFamily::INET6, SocketType::STREAM, None) {
        Ok(fd) => fd,
        Err(_) => return Ok(None),
    };
    sockopt::set_ipv6_v6only(&fd, true)?;
    sockopt::set_socket_reuseaddr(&fd, true)?;
    let ip = if local {
        std::net::Ipv6Addr::LOCALHOST
    } else {
        std::net::Ipv6Addr::UNSPECIFIED
    };
    match rustix::net::bind(&fd, &std::net::SocketAddrV6::new(ip, port, 0, 0)) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::ADDRINUSE => return Err(e),
        Err(_) => return Ok(None),
    }
    // PMLOGGER_MAXPENDING, else 5, as the reference's backlog
    let backlog = std::env::var("PMLOGGER_MAXPENDING")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    rustix::net::listen(&fd, backlog)?;
    Ok(Some(TcpListener::from(fd)))
}

/// Opens the control port and writes the map file. `None` when no port could be
/// bound (pmlogger then runs without one, as the reference does not, but logging
/// matters more than control).
pub fn start(
    host: &str,
    archive: &str,
    note: Option<&str>,
    access: crate::access::Access,
    tx: mpsc::Sender<Event>,
) -> Option<ControlPort> {
    let first: u16 = std::env::var("PMLOGGER_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(4330);
    let local = std::env::var("PMLOGGER_LOCAL").is_ok_and(|v| v == "1");
    let addr = if local { "127.0.0.1" } else { "0.0.0.0" };
    // IPv4 and IPv6 on the same port, as the reference listens (IPv6 only where
    // the machine has it); a port either is taken on is skipped
    let mut bound = None;
    for port in first..first.saturating_add(1000) {
        match TcpListener::bind((addr, port)) {
            Ok(l) => match bind_v6(port, local) {
                Ok(v6) => {
                    bound = Some((l, v6, port));
                    break;
                }
                Err(e) if e == rustix::io::Errno::ADDRINUSE => continue,
                Err(_) => {
                    bound = Some((l, None, port));
                    break;
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => continue,
            Err(_) => return None,
        }
    }
    let (listener, listener_v6, port) = bound?;
    let pid = std::process::id();
    let busy = Arc::new(AtomicBool::new(false));
    let access = Arc::new(access);
    for listener in std::iter::once(listener).chain(listener_v6) {
        let (tx, busy, access) = (tx.clone(), Arc::clone(&busy), Arc::clone(&access));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(stream) = conn else { continue };
                let (tx, busy, access) = (tx.clone(), Arc::clone(&busy), Arc::clone(&access));
                let peer = Peer::Tcp(stream.peer_addr().map(|a| a.ip()).ok());
                std::thread::spawn(move || serve(stream, peer, pid as i32, &tx, &busy, &access));
            }
        });
    }
    let socket = unix_socket(pid).map(|(listener, path)| {
        let shown = path.to_string_lossy().into_owned();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(stream) = conn else { continue };
                let (tx, busy, access) = (tx.clone(), Arc::clone(&busy), Arc::clone(&access));
                let uid = rustix::net::sockopt::socket_peercred(&stream)
                    .ok()
                    .map(|c| c.uid.as_raw());
                let peer = Peer::Unix(uid, shown.clone());
                std::thread::spawn(move || serve(stream, peer, pid as i32, &tx, &busy, &access));
            }
        });
        path
    });
    // the map file last: once it is there, both ports answer (pmlc, and tests,
    // take its appearance for readiness)
    let map_dir = cli_common::pcpconf::logger_map_dir();
    let map_file = map_dir.join(pid.to_string());
    let wrote = std::fs::create_dir_all(&map_dir).is_ok()
        && std::fs::write(
            &map_file,
            match note {
                Some(n) => format!("{port}\n{host}\n{archive}\n{n}\n"),
                None => format!("{port}\n{host}\n{archive}\n"),
            },
        )
        .is_ok();
    Some(ControlPort {
        port,
        map_file: wrote.then_some(map_file),
        socket,
        links: Vec::new(),
    })
}

/// A control connection: a stream whose reads can be given a deadline.
pub trait Conn: Read + Write {
    fn set_timeout(&self, t: Option<Duration>);
}

impl Conn for std::net::TcpStream {
    fn set_timeout(&self, t: Option<Duration>) {
        let _ = self.set_read_timeout(t);
    }
}

impl Conn for std::os::unix::net::UnixStream {
    fn set_timeout(&self, t: Option<Duration>) {
        let _ = self.set_read_timeout(t);
    }
}

/// How long the rest of a PDU may take once its first byte is in: a client that
/// stalls in the middle of one is dropped, as the reference's PDU timeout drops
/// it, so it cannot hold the only control slot. (Between PDUs a client may wait
/// as long as it likes: pmlc waits for its user.)
const PDU_TIMEOUT: Duration = Duration::from_secs(10);

/// The answer to a client that does not speak the protocol: an IPC error.
fn refuse(s: &mut impl Write) {
    let _ = send(
        s,
        &Pdu::Error {
            from: 0,
            code: PM_ERR_IPC,
        },
    );
}

/// Reads one PDU: `Ok(None)` when the client closed the connection between PDUs.
fn read_pdu(s: &mut impl Conn) -> std::io::Result<Option<Vec<u8>>> {
    let mut first = [0u8; 1];
    s.set_timeout(None);
    loop {
        match s.read(&mut first) {
            Ok(0) => return Ok(None),
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    s.set_timeout(Some(PDU_TIMEOUT));
    let r = read_frame(&mut (&first[..]).chain(&mut *s), CLIENT_LIMIT);
    s.set_timeout(None);
    match r {
        Ok(None) => Err(std::io::ErrorKind::UnexpectedEof.into()),
        r => r,
    }
}

fn send(s: &mut impl Write, p: &Pdu) -> bool {
    s.write_all(&encode(p)).is_ok()
}

/// One client: refused when another one is connected; else the handshake, then
/// requests until it goes away or misbehaves.
fn serve(
    mut s: impl Conn,
    peer: Peer,
    pid: i32,
    tx: &mpsc::Sender<Event>,
    busy: &AtomicBool,
    access: &crate::access::Access,
) {
    if busy.swap(true, Ordering::SeqCst) {
        let _ = send(
            &mut s,
            &Pdu::Error {
                from: 0,
                code: -EADDRINUSE,
            },
        );
        return;
    }
    // the [access] rules (checked after the busy test, as the reference does);
    // a unix-socket client must also be root or pmlogger's own user
    let me = rustix::process::getuid().as_raw();
    let ops = match &peer {
        Peer::Tcp(ip) => ip.map_or(0, |ip| access.allowed(ip)),
        Peer::Unix(Some(uid), _) if *uid == 0 || *uid == me => access.allowed_unix(),
        Peer::Unix(..) => 0,
    };
    if ops == 0 {
        let _ = send(
            &mut s,
            &Pdu::Error {
                from: 0,
                code: archive_format::error::PM_ERR_PERMISSION,
            },
        );
        busy.store(false, Ordering::SeqCst);
        return;
    }
    // as the reference names the client in its log (loopback by name)
    let peer = match peer {
        Peer::Tcp(Some(a)) if a.is_loopback() => "localhost".to_string(),
        Peer::Tcp(Some(a)) => a.to_string(),
        Peer::Tcp(None) => "unknown".to_string(),
        Peer::Unix(_, path) => path,
    };
    session(&mut s, pid, tx, &peer, ops);
    busy.store(false, Ordering::SeqCst);
}

fn session(s: &mut impl Conn, pid: i32, tx: &mpsc::Sender<Event>, peer: &str, ops: u8) {
    if !send(
        s,
        &Pdu::Error {
            from: pid,
            code: IPC_VERSION,
        },
    ) {
        return;
    }
    // the client's credentials (its protocol version); nothing is sent back
    match read_pdu(s).map(|f| f.map(|b| decode(&b))) {
        Ok(Some(Ok(Pdu::Creds { .. }))) => {}
        Ok(None) => return,
        _ => {
            refuse(s);
            return;
        }
    }
    loop {
        let frame = match read_pdu(s) {
            Ok(Some(f)) => f,
            Ok(None) => return,
            Err(_) => {
                refuse(s);
                return;
            }
        };
        let pdu = match decode(&frame) {
            Ok(p @ (Pdu::LogRequest { .. } | Pdu::LogControl { .. })) => p,
            _ => {
                refuse(s);
                return;
            }
        };
        let (rtx, rrx) = mpsc::channel();
        if tx
            .send(Event::Request(Box::new(Request {
                pdu,
                peer: peer.to_string(),
                ops,
                reply: rtx,
            })))
            .is_err()
        {
            return;
        }
        let Ok(reply) = rrx.recv() else { return };
        if s.write_all(&reply).is_err() {
            return;
        }
    }
}
