//! A pmcd as a metric source: PCP's client protocol (the `pdu` crate's codecs)
//! over a unix socket or TCP, as libpcp's host contexts speak it.
//!
//! Host specifications as PCP 6.0.3 takes them (`pmNewContext(PM_CONTEXT_HOST)`):
//! `local:` (the unix socket, then TCP to this host), `unix:` and `unix:/path`
//! (a unix socket only), `HOST`, `HOST:PORT[,PORT...]`, `[IPv6]` and
//! `[IPv6]:PORT`, `pcp://HOST[:PORT]`; attributes after `?` are accepted and
//! ignored. Ports come from `PMCD_PORT` (a comma-separated list, the first that
//! answers) when the specification names none; the socket from `PMCD_SOCKET`,
//! else `$PCP_RUN_DIR/pmcd.socket`.
//!
//! A connection that fails in the middle of a request is dropped and reported as
//! [`SourceError::Lost`]; [`Source::reconnect`] tries again, and the caches of
//! names and descriptors are kept (pmcd's namespace does not change with a
//! restart of pmcd, and when it does pmcd says so).

use crate::{Fetched, Source, SourceError};
use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::OwnedValue;
use archive_format::types::{Desc, InDom, PmId};
use pdu::pmcd::{self as p, feature, Reply};
use pdu::{encode, read_frame, Pdu};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

/// pmcd's well-known port.
pub const PMCD_PORT: u16 = 44321;
/// How long a connection attempt may take (libpcp's PMCD_CONNECT_TIMEOUT).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a reply may take (libpcp's PMCD_REQUEST_TIMEOUT).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Replies larger than this are refused (a whole namespace traversal fits).
const REPLY_LIMIT: usize = 64 << 20;
/// pmcd refuses client PDUs larger than this; name lookups are split to fit.
const REQUEST_LIMIT: usize = 60 * 1024;

/// Where a pmcd is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// `local:`: the unix socket, then TCP to this host.
    Local(PathBuf),
    /// `unix:`: the unix socket only.
    Unix(PathBuf),
    /// A host and the ports to try in order.
    Tcp { host: String, ports: Vec<u16> },
}

/// A parsed host specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSpec {
    /// The specification as given.
    pub spec: String,
    /// The host's name as pmlogger's prologue records it (`localhost` for the
    /// local forms).
    pub host: String,
    pub transport: Transport,
}

fn default_socket() -> PathBuf {
    std::env::var_os("PMCD_SOCKET")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| cli_common::pcpconf::run_dir().join("pmcd.socket"))
}

fn default_ports() -> Vec<u16> {
    let ports: Vec<u16> = std::env::var("PMCD_PORT")
        .ok()
        .map(|v| v.split(',').filter_map(|p| p.trim().parse().ok()).collect())
        .unwrap_or_default();
    if ports.is_empty() {
        vec![PMCD_PORT]
    } else {
        ports
    }
}

fn parse_ports(s: &str, spec: &str) -> Result<Vec<u16>, String> {
    s.split(',')
        .map(|p| {
            p.trim()
                .parse::<u16>()
                .map_err(|_| format!("invalid port \"{p}\" in host specification \"{spec}\""))
        })
        .collect()
}

/// Parses a PCP host specification.
pub fn parse_host_spec(spec: &str) -> Result<HostSpec, String> {
    let bad = || format!("invalid host specification \"{spec}\"");
    // attributes (?user=...&container=...) do not change where pmcd is
    let body = spec.split('?').next().unwrap_or("");
    let body = body
        .strip_prefix("pcp://")
        .or_else(|| body.strip_prefix("pcps://"))
        .unwrap_or(body);
    let local = |transport| HostSpec {
        spec: spec.to_string(),
        host: "localhost".into(),
        transport,
    };
    if let Some(rest) = body.strip_prefix("local:") {
        let path = rest.trim_start_matches("//");
        return Ok(local(Transport::Local(if path.is_empty() {
            default_socket()
        } else {
            PathBuf::from(format!("/{}", path.trim_start_matches('/')))
        })));
    }
    if let Some(rest) = body.strip_prefix("unix:") {
        let path = rest.trim_start_matches("//");
        return Ok(local(Transport::Unix(if path.is_empty() {
            default_socket()
        } else {
            PathBuf::from(format!("/{}", path.trim_start_matches('/')))
        })));
    }
    // a proxy (host@proxy) is not supported: the host part is used directly
    let body = body.split('@').next().unwrap_or("");
    let (host, ports) = if let Some(rest) = body.strip_prefix('[') {
        let (h, after) = rest.split_once(']').ok_or_else(bad)?;
        match after.strip_prefix(':') {
            Some(p) => (h.to_string(), parse_ports(p, spec)?),
            None if after.is_empty() => (h.to_string(), default_ports()),
            None => return Err(bad()),
        }
    } else if body.matches(':').count() > 1 {
        // a bare IPv6 address
        (body.to_string(), default_ports())
    } else if let Some((h, p)) = body.split_once(':') {
        (h.to_string(), parse_ports(p, spec)?)
    } else {
        (body.to_string(), default_ports())
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%');
    if host.is_empty() || !host.chars().all(valid) {
        return Err(bad());
    }
    Ok(HostSpec {
        spec: spec.to_string(),
        host: host.clone(),
        transport: Transport::Tcp { host, ports },
    })
}

trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// A pmcd, as pmlogger's source.
pub struct Pmcd {
    spec: HostSpec,
    /// `--container`'s name, sent at every connection.
    container: Option<String>,
    conn: Option<Box<dyn Stream>>,
    /// pmcd's feature bits (from its greeting).
    features: u32,
    /// The last profile sent (pmcd keeps it per connection).
    profile: Option<Vec<(u32, Vec<i32>)>>,
    descs: HashMap<PmId, Desc>,
    names: HashMap<PmId, Vec<String>>,
    hostname: Option<String>,
    /// Failed reconnection attempts since the connection was lost, and when the
    /// next may be made (libpcp's back-off).
    failures: usize,
    retry_at: Option<std::time::Instant>,
    /// The buffer fetch replies are read into (handed back by [`Source::recycle`]).
    buf: Vec<u8>,
}

/// libpcp's reconnection back-off: the delays after each failed attempt, from
/// `PMCD_RECONNECT_TIMEOUT` (whole seconds, comma-separated; a list with anything
/// else in it is ignored, as libpcp ignores it), else 5, 10, 20, 40, 80.
fn backoff() -> Vec<Duration> {
    let parsed: Option<Vec<Duration>> =
        std::env::var("PMCD_RECONNECT_TIMEOUT").ok().and_then(|v| {
            v.split(',')
                .map(|t| t.trim().parse::<u64>().ok().map(Duration::from_secs))
                .collect()
        });
    match parsed {
        Some(p) if !p.is_empty() => p,
        _ => [5, 10, 20, 40, 80].map(Duration::from_secs).to_vec(),
    }
}

fn connect(t: &Transport) -> Result<Box<dyn Stream>, String> {
    let unix = |path: &PathBuf| -> Result<Box<dyn Stream>, String> {
        let s = UnixStream::connect(path).map_err(|e| format!("{}: {e}", path.display()))?;
        s.set_read_timeout(Some(REQUEST_TIMEOUT))
            .map_err(|e| e.to_string())?;
        Ok(Box::new(s))
    };
    let tcp = |host: &str, ports: &[u16]| -> Result<Box<dyn Stream>, String> {
        let mut last = String::from("no port to try");
        for port in ports {
            let addrs = match (host, *port).to_socket_addrs() {
                Ok(a) => a,
                Err(e) => {
                    last = format!("{host}: {e}");
                    continue;
                }
            };
            for a in addrs {
                match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
                    Ok(s) => {
                        s.set_read_timeout(Some(REQUEST_TIMEOUT))
                            .map_err(|e| e.to_string())?;
                        let _ = s.set_nodelay(true);
                        return Ok(Box::new(s));
                    }
                    Err(e) => last = format!("{a}: {e}"),
                }
            }
        }
        Err(last)
    };
    match t {
        Transport::Unix(path) => unix(path),
        Transport::Local(path) => unix(path).or_else(|_| tcp("localhost", &default_ports())),
        Transport::Tcp { host, ports } => tcp(host, ports),
    }
}

fn read_reply(s: &mut dyn Stream) -> Result<Reply, SourceError> {
    let frame = read_frame(&mut &mut *s, REPLY_LIMIT)
        .map_err(|e| SourceError::Lost(e.to_string()))?
        .ok_or_else(|| SourceError::Lost("End of File".into()))?;
    p::decode_reply(&frame).map_err(|e| SourceError::Lost(format!("bad reply from pmcd: {e}")))
}

/// Connects and does the handshake: pmcd's greeting (an error PDU carrying its
/// features), then our credentials (PDU version 2, no features wanted beyond
/// what pmcd requires).
///
/// With a container name, the container feature is asked for (pmcd must offer
/// it: else EOPNOTSUPP, as libpcp) and the name sent as an attribute.
fn handshake(
    t: &Transport,
    container: Option<&str>,
) -> Result<(Box<dyn Stream>, u32), SourceError> {
    let mut s = connect(t).map_err(SourceError::Lost)?;
    let features = match read_reply(&mut *s)? {
        Reply::Error { code: 0, datum } => datum.unwrap_or(0),
        Reply::Error { code, .. } => return Err(SourceError::Pcp(code)),
        r => return Err(SourceError::Lost(format!("unexpected greeting {r:?}"))),
    };
    let mut wanted = (features & feature::CREDS_REQD) as u16;
    if container.is_some() {
        if features & feature::CONTAINER == 0 {
            return Err(SourceError::Pcp(-libc_eopnotsupp()));
        }
        wanted |= feature::CONTAINER as u16;
    }
    let creds = Pdu::Creds {
        from: std::process::id() as i32,
        creds: vec![[1, 2, (wanted >> 8) as u8, wanted as u8]],
    };
    let mut req = encode(&creds);
    if let Some(name) = container {
        req.extend(p::attr_req(p::ATTR_CONTAINER, name.as_bytes()));
    }
    s.write_all(&req)
        .map_err(|e| SourceError::Lost(e.to_string()))?;
    Ok((s, features))
}

/// EOPNOTSUPP on Linux.
const fn libc_eopnotsupp() -> i32 {
    95
}

impl Pmcd {
    /// Connects to the pmcd a host specification names.
    pub fn connect(spec: &str) -> Result<Pmcd, SourceError> {
        Self::connect_in(spec, None)
    }

    /// Connects to the pmcd a host specification names, for the metrics of a
    /// container where one is named.
    pub fn connect_in(spec: &str, container: Option<&str>) -> Result<Pmcd, SourceError> {
        let spec = parse_host_spec(spec).map_err(SourceError::Io)?;
        let (conn, features) = handshake(&spec.transport, container)?;
        Ok(Pmcd {
            spec,
            container: container.map(str::to_string),
            conn: Some(conn),
            features,
            profile: None,
            descs: HashMap::new(),
            names: HashMap::new(),
            hostname: None,
            failures: 0,
            retry_at: None,
            buf: Vec::new(),
        })
    }

    /// The specification this source was made from.
    pub fn spec(&self) -> &HostSpec {
        &self.spec
    }

    /// Sends a request and reads its reply; a failed exchange drops the connection.
    fn call(&mut self, req: &[u8]) -> Result<Reply, SourceError> {
        let s = self
            .conn
            .as_mut()
            .ok_or_else(|| SourceError::Lost("not connected".into()))?;
        let r = s
            .write_all(req)
            .map_err(|e| SourceError::Lost(e.to_string()))
            .and_then(|_| read_reply(&mut **s));
        if let Err(SourceError::Lost(_)) = &r {
            self.conn = None;
            self.profile = None;
        }
        r
    }

    fn send(&mut self, req: &[u8]) -> Result<(), SourceError> {
        let s = self
            .conn
            .as_mut()
            .ok_or_else(|| SourceError::Lost("not connected".into()))?;
        if let Err(e) = s.write_all(req) {
            self.conn = None;
            self.profile = None;
            return Err(SourceError::Lost(e.to_string()));
        }
        Ok(())
    }

    fn error(r: Reply) -> SourceError {
        match r {
            Reply::Error { code, .. } if code < 0 => SourceError::Pcp(code),
            r => SourceError::Lost(format!("unexpected reply from pmcd: {r:?}")),
        }
    }

    /// PMIDs of names (`None` where pmcd knows no such name), in batches that fit
    /// pmcd's request limit.
    pub fn lookup_names(&mut self, names: &[String]) -> Result<Vec<Option<PmId>>, SourceError> {
        let mut out = Vec::with_capacity(names.len());
        let mut start = 0;
        while start < names.len() {
            let mut end = start;
            let mut bytes = 24;
            while end < names.len()
                && (end == start || bytes + names[end].len() + 8 < REQUEST_LIMIT)
            {
                bytes += names[end].len() + 8;
                end += 1;
            }
            let batch: Vec<&str> = names[start..end].iter().map(String::as_str).collect();
            match self.call(&p::names_req(&batch))? {
                Reply::Ids(ids) if ids.len() == batch.len() => out.extend(
                    ids.into_iter()
                        .map(|i| (i != p::PM_ID_NULL).then_some(PmId(i))),
                ),
                Reply::Error { code, .. } if code == archive_format::error::PM_ERR_NAME => {
                    out.extend(std::iter::repeat_n(None, batch.len()))
                }
                r => return Err(Self::error(r)),
            }
            start = end;
        }
        Ok(out)
    }

    /// Values of singular metrics by name (pmcd.hostname and friends), with the
    /// profile left as it was.
    fn fetch_named(&mut self, names: &[&str]) -> Result<Vec<Option<OwnedValue>>, SourceError> {
        let owned: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let ids = self.lookup_names(&owned)?;
        let known: Vec<PmId> = ids.iter().flatten().copied().collect();
        if known.is_empty() {
            return Ok(vec![None; names.len()]);
        }
        let keep = self.profile.clone().unwrap_or_default();
        let got = self.fetch_raw(&known, &keep)?.owned()?;
        Ok(ids
            .iter()
            .map(|id| {
                let id = (*id)?;
                let vs = got.iter().find(|v| v.pmid == id)?;
                (vs.numval > 0).then(|| vs.values.first().map(|(_, v)| v.clone()))?
            })
            .collect())
    }

    fn fetch_raw(
        &mut self,
        pmids: &[PmId],
        only: &[(u32, Vec<i32>)],
    ) -> Result<Fetched, SourceError> {
        if self.profile.as_deref() != Some(only) {
            self.send(&p::profile_req(only))?;
            self.profile = Some(only.to_vec());
        }
        let raw: Vec<u32> = pmids.iter().map(|p| p.0).collect();
        let req = if self.features & feature::HIGHRES != 0 {
            p::highres_fetch_req(&raw)
        } else {
            p::fetch_req(&raw)
        };
        let mut changes = 0;
        self.send(&req)?;
        loop {
            let frame = {
                let s = self
                    .conn
                    .as_mut()
                    .ok_or_else(|| SourceError::Lost("not connected".into()))?;
                let mut frame = std::mem::take(&mut self.buf);
                match pdu::read_frame_into(&mut &mut **s, REPLY_LIMIT, &mut frame) {
                    Ok(true) => frame,
                    Ok(false) => {
                        self.conn = None;
                        self.profile = None;
                        return Err(SourceError::Lost("End of File".into()));
                    }
                    Err(e) => {
                        self.conn = None;
                        self.profile = None;
                        return Err(SourceError::Lost(e.to_string()));
                    }
                }
            };
            // the values stay in the PDU: a logger writes them from there
            if let Ok(Some((stamp, vlist_at, numpmid))) = p::result_layout(&frame) {
                return Ok(Fetched {
                    stamp,
                    vsets: Vec::new(),
                    raw: Some(crate::RawResult {
                        pdu: frame,
                        vlist_at,
                        numpmid,
                    }),
                    changes,
                });
            }
            match p::decode_reply(&frame) {
                // what changed in pmcd comes first, as positive error codes
                Ok(Reply::Error { code, .. }) if code > 0 => changes |= code,
                Ok(r) => return Err(Self::error(r)),
                Err(e) => {
                    self.conn = None;
                    self.profile = None;
                    return Err(SourceError::Lost(format!("bad reply from pmcd: {e}")));
                }
            }
        }
    }

    /// The leaf names at or below `name` (pmTraversePMNS), in pmcd's order.
    pub fn traverse(&mut self, name: &str) -> Result<Vec<String>, SourceError> {
        match self.call(&p::traverse_req(name))? {
            Reply::Names(n) => Ok(n),
            r => Err(Self::error(r)),
        }
    }

    /// Help text as pmLookupText asks for it (`ttype` as given: an agent may
    /// answer a missing full text with the one-line one).
    pub fn text_of(&mut self, ident: u32, ttype: u32) -> Result<String, SourceError> {
        match self.call(&p::text_req(ident, ttype as i32))? {
            Reply::Text { text, .. } => Ok(text),
            r => Err(Self::error(r)),
        }
    }

    /// The label sets of one kind of an identifier, or pmcd's error.
    pub fn label_sets(&mut self, ltype: u8, ident: u32) -> Result<Vec<LabelSet>, SourceError> {
        if self.features & feature::LABELS == 0 {
            return Ok(Vec::new());
        }
        match self.call(&p::label_req(ident, ltype as i32))? {
            Reply::Labels { sets, .. } => Ok(sets),
            r => Err(Self::error(r)),
        }
    }

    fn string_value(v: Option<OwnedValue>) -> Option<String> {
        match v? {
            OwnedValue::Block { data, .. } => Some(
                String::from_utf8_lossy(data.split(|b| *b == 0).next().unwrap_or(&[])).into_owned(),
            ),
            OwnedValue::Insitu(_) => None,
        }
    }
}

impl Source for Pmcd {
    fn describe(&self) -> String {
        format!("pmcd at {}", self.spec.spec)
    }

    fn hostname(&mut self) -> String {
        if let Some(h) = &self.hostname {
            return h.clone();
        }
        let h = self
            .fetch_named(&["pmcd.hostname"])
            .ok()
            .and_then(|mut v| Self::string_value(v.pop().flatten()))
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| self.spec.host.clone());
        self.hostname = Some(h.clone());
        h
    }

    fn host_spec(&self) -> String {
        self.spec.host.clone()
    }

    fn timezone(&mut self) -> (String, String) {
        match self.fetch_named(&["pmcd.timezone", "pmcd.zoneinfo"]) {
            Ok(mut v) => {
                let zoneinfo = Self::string_value(v.pop().flatten()).unwrap_or_default();
                let tz = Self::string_value(v.pop().flatten()).unwrap_or_else(|| "UTC".into());
                (tz, zoneinfo)
            }
            Err(_) => crate::local_timezone(),
        }
    }

    fn lookup(&mut self, name: &str) -> Result<Vec<(String, PmId)>, SourceError> {
        let leaves = match self.traverse(name) {
            Ok(n) => n,
            Err(SourceError::Pcp(code)) if code == archive_format::error::PM_ERR_NAME => {
                return Err(SourceError::UnknownName(name.into()))
            }
            Err(e) => return Err(e),
        };
        let ids = self.lookup_names(&leaves)?;
        let found: Vec<(String, PmId)> = leaves
            .into_iter()
            .zip(ids)
            .filter_map(|(n, id)| id.map(|id| (n, id)))
            .collect();
        if found.is_empty() {
            return Err(SourceError::UnknownName(name.into()));
        }
        Ok(found)
    }

    fn desc(&mut self, pmid: PmId) -> Result<Desc, SourceError> {
        if let Some(d) = self.descs.get(&pmid) {
            return Ok(*d);
        }
        let d = match self.call(&p::desc_req(pmid.0))? {
            Reply::Desc(d) if d.pmid == pmid => d,
            r => return Err(Self::error(r)),
        };
        self.descs.insert(pmid, d);
        Ok(d)
    }

    fn names(&mut self, pmid: PmId) -> Result<Vec<String>, SourceError> {
        if let Some(n) = self.names.get(&pmid) {
            return Ok(n.clone());
        }
        let n = match self.call(&p::names_of_req(pmid.0))? {
            Reply::Names(n) => n,
            r => return Err(Self::error(r)),
        };
        self.names.insert(pmid, n.clone());
        Ok(n)
    }

    fn instances(&mut self, indom: InDom) -> Result<Vec<(i32, String)>, SourceError> {
        match self.call(&p::instances_req(indom.0))? {
            Reply::Instances { list, .. } => Ok(list),
            r => Err(Self::error(r)),
        }
    }

    fn text(&mut self, ident: u32, ttype: u32) -> Option<String> {
        // PM_TEXT_DIRECT: no one-line text in place of a missing full one
        match self.call(&p::text_req(ident, (ttype | 16) as i32)).ok()? {
            Reply::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    fn labels(&mut self, ltype: u8, ident: u32) -> Vec<LabelSet> {
        self.label_sets(ltype, ident).unwrap_or_default()
    }

    fn fetch(
        &mut self,
        pmids: &[PmId],
        only: &[(InDom, Vec<i32>)],
    ) -> Result<Fetched, SourceError> {
        let only: Vec<(u32, Vec<i32>)> = only.iter().map(|(d, i)| (d.0, i.clone())).collect();
        self.fetch_raw(pmids, &only)
    }

    fn pmcd_ids(&mut self) -> (u64, u32) {
        use archive_format::pmids::{PMCD_PID, PMCD_SEQNUM};
        let keep = self.profile.clone().unwrap_or_default();
        let Ok(got) = self
            .fetch_raw(&[PMCD_PID, PMCD_SEQNUM], &keep)
            .and_then(|f| f.owned())
        else {
            return (0, 0);
        };
        let value = |pmid: PmId| {
            got.iter()
                .find(|v| v.pmid == pmid && v.numval > 0)
                .and_then(|v| v.values.first())
                .map(|(_, v)| match v {
                    OwnedValue::Insitu(x) => u64::from(*x),
                    OwnedValue::Block { data, .. } => data
                        .get(..8)
                        .and_then(|b| b.try_into().ok())
                        .map_or(0, u64::from_be_bytes),
                })
                .unwrap_or(0)
        };
        (value(PMCD_PID), value(PMCD_SEQNUM) as u32)
    }

    fn recycle(&mut self, f: Fetched) {
        if let Some(r) = f.raw {
            self.buf = r.pdu;
        }
    }

    fn reconnect(&mut self) -> bool {
        if self.conn.is_some() {
            return true;
        }
        let now = std::time::Instant::now();
        if self.retry_at.is_some_and(|t| now < t) {
            return false;
        }
        match handshake(&self.spec.transport, self.container.as_deref()) {
            Ok((conn, features)) => {
                self.conn = Some(conn);
                self.features = features;
                self.profile = None;
                self.failures = 0;
                self.retry_at = None;
                // pmcd may have come back with other agents: ask again
                self.descs.clear();
                self.names.clear();
                true
            }
            Err(_) => {
                let delays = backoff();
                let d = delays[self.failures.min(delays.len() - 1)];
                self.failures += 1;
                self.retry_at = Some(now + d);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_specs() {
        let t = |s: &str| parse_host_spec(s).map(|h| (h.host, h.transport));
        assert!(matches!(t("local:"), Ok((h, Transport::Local(_))) if h == "localhost"));
        assert!(
            matches!(t("unix:/tmp/x.sock"), Ok((_, Transport::Unix(p))) if p == std::path::Path::new("/tmp/x.sock"))
        );
        assert_eq!(
            t("example.com:4000,4001"),
            Ok((
                "example.com".into(),
                Transport::Tcp {
                    host: "example.com".into(),
                    ports: vec![4000, 4001]
                }
            ))
        );
        assert_eq!(
            t("[::1]:44322"),
            Ok((
                "::1".into(),
                Transport::Tcp {
                    host: "::1".into(),
                    ports: vec![44322]
                }
            ))
        );
        assert!(
            matches!(t("pcp://127.0.0.1:5000?user=me"), Ok((h, Transport::Tcp { ports, .. })) if h == "127.0.0.1" && ports == vec![5000])
        );
        assert!(matches!(t("fe80::1"), Ok((h, _)) if h == "fe80::1"));
        assert!(t("host:notaport").is_err());
        assert!(t("@builtin").is_err());
        assert!(t("").is_err());
    }
}
