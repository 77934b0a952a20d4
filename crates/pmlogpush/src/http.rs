//! The HTTP/1.1 client of PCP 7's archive push, sending what libpcp's
//! `pmhttpClientGet`/`pmhttpClientPost` send: one persistent connection (TCP, or a
//! Unix socket for `unix:/PATH`, TLS for `https://`), requests with `Host`,
//! `User-Agent`, for a POST `content-type` and `content-length`, and
//! `Authorization` when credentials are set; a one-second timeout to connect (a
//! reply is waited for as long as it takes, as libpcp's blocking `recv`), and the
//! request sent again on a new connection when the server had closed the kept one.
//! Responses are parsed by `httparse`; bodies are read by length, chunks, or to the
//! end of the connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// libpcp's client timeout, for connecting only.
const TIMEOUT: Duration = Duration::from_secs(1);
/// Header lines a response may have.
const MAX_HEADERS: usize = 64;

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Tcp {
        host: String,
        port: u16,
        /// `https://`: the connection is secured with TLS.
        tls: bool,
    },
    Unix(String),
}

impl Target {
    /// `http://host[:port][/...]`, `https://...` or `unix:/path`, as libpcp takes
    /// them.
    pub fn parse(url: &str) -> Option<Target> {
        if let Some(path) = url.strip_prefix("unix:") {
            return (!path.is_empty()).then(|| Target::Unix(path.to_string()));
        }
        let (rest, tls) = match url.strip_prefix("https://") {
            Some(r) => (r, true),
            None => (url.strip_prefix("http://")?, false),
        };
        let hostport = rest.split('/').next().unwrap_or_default();
        let (host, port) = match hostport.strip_prefix('[') {
            Some(v6) => {
                let (h, after) = v6.split_once(']')?;
                (h, after.strip_prefix(':'))
            }
            None => match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            },
        };
        let port = match port {
            Some(p) => p.parse().ok()?,
            None if tls => 443,
            None => 80,
        };
        (!host.is_empty()).then(|| Target::Tcp {
            host: host.to_string(),
            port,
            tls,
        })
    }

    /// The `Host` header's value (libpcp's: the host alone, `localhost` for a socket).
    fn host(&self) -> &str {
        match self {
            Target::Tcp { host, .. } => host,
            Target::Unix(_) => "localhost",
        }
    }
}

/// A server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    /// The `content-type` header's value (empty when there is none).
    pub content_type: String,
    pub body: Vec<u8>,
}

trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// One kept connection to one server.
pub struct Client {
    target: Target,
    /// `User-Agent`: program/version.
    agent: String,
    conn: Option<BufReader<Box<dyn Stream>>>,
    /// The `Authorization` header's line, when credentials are set.
    auth: String,
    /// The TLS set-up of `https://` targets, read at the first connection.
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
}

impl Client {
    pub fn new(target: Target, agent: &str) -> Client {
        Client {
            target,
            agent: agent.to_string(),
            conn: None,
            auth: String::new(),
            tls: None,
        }
    }

    /// HTTP Basic authentication for every request from now on.
    pub fn set_credentials(&mut self, user: &str, password: &str) {
        use base64::Engine;
        let pair = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        self.auth = format!("Authorization: Basic {pair}\r\n");
    }

    /// Secures `https://` connections with `config` instead of PCP's TLS
    /// configuration file.
    pub fn set_tls(&mut self, config: std::sync::Arc<rustls::ClientConfig>) {
        self.tls = Some(config);
    }

    pub fn get(&mut self, path: &str) -> std::io::Result<Reply> {
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {}\r\n{}\r\n",
            self.target.host(),
            self.agent,
            self.auth
        );
        self.exchange(head.as_bytes(), &[])
    }

    pub fn post(&mut self, path: &str, body: &[u8], content_type: &str) -> std::io::Result<Reply> {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n{}\r\n",
            self.target.host(),
            self.agent,
            body.len(),
            self.auth
        );
        self.exchange(head.as_bytes(), body)
    }

    /// Sends a request and reads its reply; a kept connection the server closed is
    /// replaced once and the request sent again, as libpcp's client does.
    fn exchange(&mut self, head: &[u8], body: &[u8]) -> std::io::Result<Reply> {
        let kept = self.conn.is_some();
        match self.try_exchange(head, body) {
            Err(e) if kept && closed(&e) => {
                self.conn = None;
                self.try_exchange(head, body)
            }
            other => other,
        }
    }

    fn try_exchange(&mut self, head: &[u8], body: &[u8]) -> std::io::Result<Reply> {
        if self.conn.is_none() {
            let stream = connect(&self.target)?;
            let stream = match (&self.target, stream) {
                (
                    Target::Tcp {
                        host, tls: true, ..
                    },
                    Plain::Tcp(tcp),
                ) => {
                    let config = match &self.tls {
                        Some(c) => c.clone(),
                        None => crate::tls::client_config(&crate::tls::Settings::load())?,
                    };
                    self.tls = Some(config.clone());
                    Box::new(crate::tls::connect(tcp, host, config)?) as Box<dyn Stream>
                }
                (_, s) => s.boxed(),
            };
            self.conn = Some(BufReader::new(stream));
        }
        let Some(conn) = self.conn.as_mut() else {
            return Err(std::io::ErrorKind::NotConnected.into());
        };
        let sent = send(conn.get_mut(), head, body);
        let reply = sent.and_then(|()| read_reply(conn));
        match &reply {
            Ok((_, keep)) if *keep => {}
            _ => self.conn = None,
        }
        reply.map(|(r, _)| r)
    }
}

/// Whether an error means the server had closed the connection before answering.
fn closed(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        UnexpectedEof | BrokenPipe | ConnectionReset | ConnectionAborted
    )
}

/// A connection before any TLS.
enum Plain {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Plain {
    fn boxed(self) -> Box<dyn Stream> {
        match self {
            Plain::Tcp(s) => Box::new(s),
            Plain::Unix(s) => Box::new(s),
        }
    }
}

fn connect(target: &Target) -> std::io::Result<Plain> {
    match target {
        Target::Unix(path) => {
            let s = UnixStream::connect(path)?;
            Ok(Plain::Unix(s))
        }
        Target::Tcp { host, port, .. } => {
            let mut last = std::io::Error::from(std::io::ErrorKind::AddrNotAvailable);
            for addr in (host.as_str(), *port).to_socket_addrs()? {
                match TcpStream::connect_timeout(&addr, TIMEOUT) {
                    Ok(s) => {
                        s.set_nodelay(true)?;
                        return Ok(Plain::Tcp(s));
                    }
                    Err(e) => last = e,
                }
            }
            Err(last)
        }
    }
}

fn send(conn: &mut dyn Stream, head: &[u8], body: &[u8]) -> std::io::Result<()> {
    let mut whole = Vec::with_capacity(head.len() + body.len());
    whole.extend_from_slice(head);
    whole.extend_from_slice(body);
    conn.write_all(&whole)?;
    conn.flush()
}

/// A whole reply held in memory (what a fuzzer feeds the parser).
pub fn parse_reply(bytes: &[u8]) -> std::io::Result<Reply> {
    read_reply(&mut std::io::Cursor::new(bytes)).map(|(r, _)| r)
}

/// A reply, and whether the connection may be kept.
fn read_reply(conn: &mut impl BufRead) -> std::io::Result<(Reply, bool)> {
    let head = read_head(conn)?;
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let parsed = resp.parse(&head).map_err(invalid)?;
    if parsed.is_partial() {
        return Err(invalid("incomplete response head"));
    }
    let status = resp.code.unwrap_or(0);
    let header = |name: &str| {
        resp.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
    };
    let content_type = header("content-type").unwrap_or_default();
    let close = header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"))
        || resp.version == Some(0);
    let chunked =
        header("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    let length = header("content-length").and_then(|l| l.parse::<u64>().ok());
    let (body, keep) = if chunked {
        (read_chunked(conn)?, !close)
    } else if let Some(n) = length {
        let mut body = Vec::new();
        conn.take(n).read_to_end(&mut body)?;
        if (body.len() as u64) < n {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        (body, !close)
    } else {
        let mut body = Vec::new();
        conn.read_to_end(&mut body)?;
        (body, false)
    };
    let reply = Reply {
        status,
        content_type,
        body,
    };
    Ok((reply, keep))
}

/// The status line and headers, through the blank line.
fn read_head(conn: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    loop {
        let n = conn.read_until(b'\n', &mut head)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n") {
            return Ok(head);
        }
        if head.len() > 64 << 10 {
            return Err(invalid("response head too long"));
        }
    }
}

fn read_chunked(conn: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut line = String::new();
        if conn.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let size = line.trim().split(';').next().unwrap_or_default();
        let n = u64::from_str_radix(size, 16).map_err(|_| invalid("bad chunk size"))?;
        if n == 0 {
            // trailers, to the blank line
            loop {
                line.clear();
                if conn.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let before = body.len() as u64;
        conn.take(n).read_to_end(&mut body)?;
        if body.len() as u64 - before < n {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        line.clear();
        conn.read_line(&mut line)?;
    }
}

fn invalid(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn targets_parse_as_libpcp_takes_them() {
        let tcp = |h: &str, p| Target::Tcp {
            host: h.into(),
            port: p,
            tls: false,
        };
        assert_eq!(Target::parse("http://a.b:44322"), Some(tcp("a.b", 44322)));
        assert_eq!(Target::parse("http://host/x"), Some(tcp("host", 80)));
        assert_eq!(Target::parse("http://[::1]:8"), Some(tcp("::1", 8)));
        assert_eq!(
            Target::parse("unix://run/p.sock"),
            Some(Target::Unix("//run/p.sock".into()))
        );
        let tls = Target::Tcp {
            host: "a".into(),
            port: 443,
            tls: true,
        };
        assert_eq!(Target::parse("https://a"), Some(tls));
        assert_eq!(Target::parse("ftp://a"), None);
        assert_eq!(Target::parse("http://:9"), None);
        assert_eq!(Target::parse("http://a:x"), None);
    }

    #[test]
    fn replies_by_length_chunks_and_close() {
        let by_len = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\nabcdNEXT";
        let mut c = Cursor::new(&by_len[..]);
        let (r, keep) = read_reply(&mut c).expect("reply");
        assert_eq!(
            (r.status, r.content_type.as_str(), &r.body[..], keep),
            (200, "application/json", &b"abcd"[..], true)
        );
        let chunked = b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        let (r, keep) = read_reply(&mut Cursor::new(&chunked[..])).expect("reply");
        assert_eq!((r.status, &r.body[..], keep), (409, &b"abcde"[..], false));
        let to_end = b"HTTP/1.0 200 OK\r\n\r\nrest";
        let (r, keep) = read_reply(&mut Cursor::new(&to_end[..])).expect("reply");
        assert_eq!((&r.body[..], keep), (&b"rest"[..], false));
    }

    #[test]
    fn short_replies_are_errors() {
        for bad in [
            &b""[..],
            b"HTTP/1.1 200 OK\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc",
            b"junk\r\n\r\n",
        ] {
            assert!(read_reply(&mut Cursor::new(bad)).is_err(), "{bad:?}");
        }
        let e = read_reply(&mut Cursor::new(&b""[..])).expect_err("eof");
        assert!(closed(&e));
    }

    /// A server that answers one request per connection and closes it: the kept
    /// connection is found closed and the request goes again on a new one.
    #[test]
    fn a_closed_connection_is_replaced() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let server = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for _ in 0..2 {
                let (s, _) = listener.accept().expect("accept");
                let mut r = BufReader::new(s);
                let head = read_head(&mut r).expect("head");
                seen.push(String::from_utf8_lossy(&head).into_owned());
                let reply = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
                r.get_mut().write_all(reply).expect("reply");
            }
            seen
        });
        let mut c = Client::new(
            Target::Tcp {
                host: "127.0.0.1".into(),
                port,
                tls: false,
            },
            "t/1",
        );
        assert_eq!(c.get("/a").expect("first").body, b"{}");
        assert_eq!(c.get("/b").expect("second").body, b"{}");
        let seen = server.join().expect("server");
        assert_eq!(
            seen[0],
            "GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: t/1\r\n\r\n"
        );
        assert!(seen[1].starts_with("GET /b HTTP/1.1\r\n"));
    }
}
