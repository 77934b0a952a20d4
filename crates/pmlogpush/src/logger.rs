//! pmproxy's `/logger` REST API, as PCP 7's pmlogger and pmlogpush use it:
//! `GET /logger/ping`, `POST /logger/label` (the archive's label; the reply names
//! the archive's id), then `POST /logger/meta/ID`, `/logger/index/ID` and
//! `/logger/volume/N/ID` with the bytes of each file. Every reply must be JSON;
//! a write's reply must be at least 10 bytes.

use crate::http::{Client, Reply, Target};
use archive_format::writer::Part;

const JSON: &str = "application/json";
const OCTETS: &str = "application/octet-stream";

/// What went wrong with one request, for the caller's own message.
#[derive(Debug)]
pub enum Failure {
    /// No exchange: the connection or the transfer failed.
    Io(std::io::Error),
    /// A status other than 2xx.
    Status(u16),
    /// A reply that is not JSON.
    Type(String),
    /// A reply too short to be pmproxy's.
    Short,
    /// A reply that does not say what was expected.
    Result(String),
}

impl Failure {
    /// The error text of a connection that failed, as libpcp's `pmErrStr` words it.
    pub fn io_text(e: &std::io::Error) -> String {
        use std::io::ErrorKind::*;
        // a connection that timed out is libpcp's ETIMEDOUT
        let code = match e.kind() {
            WouldBlock | TimedOut => Some(110),
            _ => e.raw_os_error(),
        };
        match code {
            Some(c) => archive_format::error::pm_err_str(-c),
            None => e.to_string(),
        }
    }
}

/// The password of HTTP Basic authentication: the first line of `file`, else
/// `$PCP_PUSH_PASSWORD`; `None` when neither gives one. The error is PCP's
/// message for a file that cannot be read.
pub fn password(file: Option<&str>) -> Result<Option<String>, String> {
    let Some(f) = file else {
        return Ok(std::env::var("PCP_PUSH_PASSWORD").ok());
    };
    let text = std::fs::read(f).map_err(|e| {
        format!(
            "cannot open password file \"{f}\": {}",
            Failure::io_text(&e)
        )
    })?;
    if text.is_empty() {
        return Err(format!("cannot read password from \"{f}\""));
    }
    let first = String::from_utf8_lossy(&text);
    Ok(Some(first.lines().next().unwrap_or("").to_string()))
}

/// The words for an HTTP status (`gone`: pmlogger's table, which knows 410;
/// pmlogpush's does not).
pub fn status_text(code: u16, gone: bool) -> String {
    match code {
        400 => format!("bad request ({code})"),
        409 => format!("conflict ({code}) - archive already exists"),
        410 if gone => format!("resource gone ({code}) - server timed out"),
        422 => format!("unprocessable ({code}) - bad archive label"),
        _ => format!("server error ({code})"),
    }
}

/// A connection to one pmproxy's `/logger` API.
pub struct Logger {
    client: Client,
    /// The connection as the user gave it (messages name it).
    pub conn: String,
}

impl Logger {
    /// A logger API at `conn` (`http://host:port` or `unix:/path`); `None` when
    /// that is not a URL of either kind.
    pub fn new(conn: &str, agent: &str) -> Option<Logger> {
        let target = Target::parse(conn)?;
        Some(Logger {
            client: Client::new(target, agent),
            conn: conn.to_string(),
        })
    }

    /// HTTP Basic authentication for every request from now on.
    pub fn set_credentials(&mut self, user: &str, password: &str) {
        self.client.set_credentials(user, password);
    }

    /// `GET /logger/ping`: does this server take pushed archives.
    pub fn ping(&mut self) -> Result<String, Failure> {
        let reply = self.client.get("/logger/ping").map_err(Failure::Io)?;
        let body = checked(&reply)?;
        if !body.starts_with("{\"success\":true}") {
            return Err(Failure::Result(body));
        }
        Ok(body)
    }

    /// `POST /logger/label`: the reply's body, which names the archive's id (see
    /// [`archive_id`]).
    pub fn label(&mut self, label: &[u8]) -> Result<String, Failure> {
        let reply = self
            .client
            .post("/logger/label", label, OCTETS)
            .map_err(Failure::Io)?;
        checked(&reply)
    }

    /// `POST` of some bytes of one file of archive `id`; the reply's body.
    pub fn write(&mut self, id: u32, part: Part, bytes: &[u8]) -> Result<String, Failure> {
        let reply = self
            .client
            .post(&path(id, part), bytes, OCTETS)
            .map_err(Failure::Io)?;
        let body = checked(&reply)?;
        if reply.body.len() < 10 {
            return Err(Failure::Short);
        }
        Ok(body)
    }
}

/// The path a file's bytes go to.
pub fn path(id: u32, part: Part) -> String {
    match part {
        Part::Meta => format!("/logger/meta/{id}"),
        Part::Index => format!("/logger/index/{id}"),
        Part::Volume(v) => format!("/logger/volume/{v}/{id}"),
    }
}

/// The body of a 2xx JSON reply.
fn checked(reply: &Reply) -> Result<String, Failure> {
    if !(200..300).contains(&reply.status) {
        return Err(Failure::Status(reply.status));
    }
    if reply.content_type != JSON {
        return Err(Failure::Type(reply.content_type.clone()));
    }
    Ok(String::from_utf8_lossy(&reply.body).into_owned())
}

/// The id in `{"archive":N,"success":true}` (scanned as `%u` is: digits, with an
/// optional sign and leading blanks).
pub fn archive_id(body: &str) -> Option<u32> {
    let rest = body.strip_prefix("{\"archive\":")?;
    let rest = rest.trim_start();
    let (neg, rest) = match rest.as_bytes().first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let n: u64 = rest[..digits].parse().ok()?;
    if !rest[digits..].starts_with(",\"success\":true}") {
        return None;
    }
    let n = n as u32;
    Some(if neg { n.wrapping_neg() } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_ids_scan_as_percent_u() {
        assert_eq!(archive_id("{\"archive\":7,\"success\":true}\r\n"), Some(7));
        assert_eq!(archive_id("{\"archive\": 12,\"success\":true}"), Some(12));
        assert_eq!(
            archive_id("{\"archive\":7,\"client\":\"x\",\"success\":true}"),
            None
        );
        assert_eq!(archive_id("{\"archive\":x,\"success\":true}"), None);
        assert_eq!(archive_id("{\"success\":true}"), None);
    }

    #[test]
    fn paths_and_statuses() {
        assert_eq!(path(9, Part::Volume(2)), "/logger/volume/2/9");
        assert_eq!(path(9, Part::Meta), "/logger/meta/9");
        assert_eq!(path(9, Part::Index), "/logger/index/9");
        assert_eq!(
            status_text(410, true),
            "resource gone (410) - server timed out"
        );
        assert_eq!(status_text(410, false), "server error (410)");
        assert_eq!(status_text(404, true), "server error (404)");
        let refused = std::io::Error::from_raw_os_error(111);
        assert_eq!(Failure::io_text(&refused), "Connection refused");
        let late = std::io::Error::from(std::io::ErrorKind::WouldBlock);
        assert_eq!(Failure::io_text(&late), "Connection timed out");
    }
}
