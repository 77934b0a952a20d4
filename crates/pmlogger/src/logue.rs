//! The prologue and epilogue: the record pmlogger writes first and last
//! (`pmcd.pmlogger.host/port/archive`, `pmcd.pid`, `pmcd.seqnum`).

use super::*;

/// The prologue/epilogue metrics pmlogger writes (pmcd's domain 2).
pub(crate) use archive_format::pmids::{
    PMCD_PID, PMCD_SEQNUM, PMLOGGER_ARCHIVE as PM_ARCHIVE, PMLOGGER_HOST as PM_HOST,
    PMLOGGER_INDOM, PMLOGGER_PORT as PM_PORT,
};

pub(crate) fn string_block(s: &str) -> OwnedValue {
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
pub(crate) fn put_logue(
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

/// This host's fully qualified name, as libpcp's pmlogger finds it for
/// `pmcd.pmlogger.host`: its name resolved (getaddrinfo), then the first of its
/// addresses that looks up to a name (getnameinfo, which gives the address itself
/// where no name is known); the name alone where it does not resolve.
pub(crate) fn fqdn() -> String {
    let host = cli_common::pcpconf::hostname();
    let hints = dns_lookup::AddrInfoHints {
        flags: libc::AI_ADDRCONFIG,
        ..Default::default()
    };
    let Ok(addrs) = dns_lookup::getaddrinfo(Some(&host), None, Some(hints)) else {
        return host;
    };
    addrs
        .flatten()
        .find_map(|a| {
            dns_lookup::getnameinfo(&a.sockaddr, 0)
                .ok()
                .map(|(name, _)| name)
        })
        .unwrap_or(host)
}

/// What the prologue and epilogue name: the archive's full path (or the push
/// target), this host's name and the control port.
#[derive(Clone)]
pub(crate) struct Logue {
    pub(crate) archive: String,
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl Logue {
    /// The record at `stamp`, with pmcd's pid and sequence number `ids`.
    pub(crate) fn put(
        &self,
        w: &mut ArchiveWriter,
        stamp: Timestamp,
        ids: (u64, u32),
    ) -> archive_format::Result<()> {
        put_logue(w, stamp, &self.archive, &self.host, self.port, ids)
    }
}
