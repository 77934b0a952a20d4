//! A minimal pmcd client: what pmlc needs to resolve metric names against the
//! namespace of the host a pmlogger logs from (names and subtrees to PMIDs,
//! descriptors, instance domains). Transport as libpcp's: `local:` is the unix
//! socket `$PCP_RUN_DIR/pmcd.socket` (`PMCD_SOCKET` overrides), then TCP to the
//! local host; any other host is TCP, port 44321 (`PMCD_PORT`).

use archive_format::Desc;
use pdu::pmcd::{self as p, Reply};
use pdu::{encode, read_frame, Pdu};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

/// A connection to a pmcd.
pub struct Pmcd {
    s: Box<dyn Stream>,
}

/// Replies larger than this are refused (a whole namespace traversal fits).
const REPLY_LIMIT: usize = 64 << 20;

fn port() -> u16 {
    std::env::var("PMCD_PORT")
        .ok()
        .and_then(|p| p.split(',').next().and_then(|p| p.trim().parse().ok()))
        .unwrap_or(44321)
}

impl Pmcd {
    /// Connects to the pmcd of `host` and does the handshake; `None` when there is
    /// no pmcd to talk to.
    pub fn connect(host: &str) -> Option<Pmcd> {
        let local = crate::client::this_host(host);
        let mut s: Option<Box<dyn Stream>> = None;
        if local {
            let sock = std::env::var("PMCD_SOCKET")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|_| cli_common::pcpconf::run_dir().join("pmcd.socket"));
            if let Ok(u) = UnixStream::connect(sock) {
                let _ = u.set_read_timeout(Some(Duration::from_secs(10)));
                s = Some(Box::new(u));
            }
        }
        if s.is_none() {
            let h = if local { "127.0.0.1" } else { host };
            let t = TcpStream::connect((h, port())).ok()?;
            let _ = t.set_read_timeout(Some(Duration::from_secs(10)));
            s = Some(Box::new(t));
        }
        let mut c = Pmcd { s: s? };
        // greeting: an error PDU with code 0 and pmcd's features
        match c.reply()? {
            Reply::Error { code: 0, .. } => {}
            _ => return None,
        }
        let creds = Pdu::Creds {
            from: std::process::id() as i32,
            creds: vec![[1, 2, 0, 0]],
        };
        c.s.write_all(&encode(&creds)).ok()?;
        Some(c)
    }

    fn reply(&mut self) -> Option<Reply> {
        let f = read_frame(&mut self.s, REPLY_LIMIT).ok()??;
        p::decode_reply(&f).ok()
    }

    fn call(&mut self, req: &[u8]) -> Option<Reply> {
        self.s.write_all(req).ok()?;
        self.reply()
    }

    /// The leaf names at or below `name` (itself when it is a leaf); empty when
    /// pmcd knows no such name.
    pub fn traverse(&mut self, name: &str) -> Option<Vec<String>> {
        match self.call(&p::traverse_req(name))? {
            Reply::Names(n) => Some(n),
            Reply::Error { .. } => Some(Vec::new()),
            _ => None,
        }
    }

    /// PMIDs of names (None where unknown).
    pub fn lookup(&mut self, names: &[&str]) -> Option<Vec<Option<u32>>> {
        match self.call(&p::names_req(names))? {
            Reply::Ids(ids) if ids.len() == names.len() => Some(
                ids.into_iter()
                    .map(|i| (i != p::PM_ID_NULL).then_some(i))
                    .collect(),
            ),
            Reply::Error { .. } => Some(vec![None; names.len()]),
            _ => None,
        }
    }

    pub fn desc(&mut self, pmid: u32) -> Option<Desc> {
        match self.call(&p::desc_req(pmid))? {
            Reply::Desc(d) if d.pmid.0 == pmid => Some(d),
            _ => None,
        }
    }

    /// The control ports of the pmloggers on pmcd's host (`pmcd.pmlogger.port`):
    /// `(pid, port)`, the primary as pid 0.
    pub fn logger_ports(&mut self) -> Option<Vec<(i32, u32)>> {
        let pmid = self.lookup(&["pmcd.pmlogger.port"])?.first().copied()??;
        self.s.write_all(&p::profile_all_req()).ok()?;
        match self.call(&p::fetch_req(&[pmid]))? {
            Reply::Result { vsets, .. } => Some(
                vsets
                    .into_iter()
                    .filter(|vs| vs.pmid.0 == pmid && vs.numval > 0)
                    .flat_map(|vs| vs.values)
                    .filter_map(|(inst, v)| match v {
                        archive_format::codec::result::OwnedValue::Insitu(port) => {
                            Some((inst, port))
                        }
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The instances of an instance domain now.
    pub fn instances(&mut self, indom: u32) -> Option<Vec<(i32, String)>> {
        match self.call(&p::instances_req(indom))? {
            Reply::Instances { list, .. } => Some(list),
            _ => None,
        }
    }
}
