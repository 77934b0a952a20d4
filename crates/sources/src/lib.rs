//! Where pmlogger's values come from. Every source answers the questions pmlogger
//! asks pmcd ([`Source`]): names to PMIDs and back, descriptors, instance domains,
//! help text, label sets, and fetches of instance subsets.
//!
//! - [`pmcd::Pmcd`]: a pmcd, local or remote, over PCP's wire protocol (any agent,
//!   any host);
//! - [`local::Local`]: the built-in source: this machine, read from `/proc` and
//!   `/sys` with the Linux agent's names, PMIDs, types, semantics, units and
//!   instance domains (domain 60), for machines without pmcd;
//! - [`sample::Sample`]: a deterministic source of its own (domain 29, the sample
//!   agent's PMIDs for the metrics it shares) for tests.
//!
//! The two built-in sources describe a fixed table of metrics ([`MetricSource`]);
//! every such table is a [`Source`].

pub mod local;
pub mod pmcd;
pub mod sample;

use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::{decode_value_sets, OwnedValueSet, ValueSet};
use archive_format::types::{Desc, InDom, PmId, Timestamp};

/// A metric a source offers.
#[derive(Debug, Clone)]
pub struct Metric {
    pub name: &'static str,
    pub desc: Desc,
    /// One-line help text.
    pub help: &'static str,
}

/// Why a source could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// No metric of that name (PM_ERR_NAME).
    UnknownName(String),
    /// The source failed to read its data.
    Io(String),
    /// The source answered with a PCP error code (pmcd's PDU_ERROR).
    Pcp(i32),
    /// The connection to pmcd is gone (it may come back: [`Source::reconnect`]).
    Lost(String),
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::UnknownName(n) => write!(f, "Unknown metric name: {n}"),
            SourceError::Io(e) => f.write_str(e),
            SourceError::Pcp(code) => f.write_str(&archive_format::error::pm_err_str(*code)),
            SourceError::Lost(e) => write!(f, "lost connection to pmcd: {e}"),
        }
    }
}

impl SourceError {
    /// The PCP error code this error stands for (pmErrStr gives its text).
    pub fn code(&self) -> i32 {
        match self {
            SourceError::UnknownName(_) => archive_format::error::PM_ERR_NAME,
            SourceError::Pcp(c) => *c,
            SourceError::Io(_) | SourceError::Lost(_) => archive_format::error::PM_ERR_IPC,
        }
    }
}

/// One fetch's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    pub stamp: Timestamp,
    /// One value set per PMID asked for (pmcd's order), unless `raw` holds them.
    pub vsets: Vec<OwnedValueSet>,
    /// pmcd's RESULT PDU as it came, values not decoded (a logger can write it
    /// out almost as it is).
    pub raw: Option<RawResult>,
    /// What pmcd reported as changed since the last fetch ([`pdu::pmcd::change`]
    /// bits: agents, labels, names); 0 for the built-in sources.
    pub changes: i32,
}

/// A RESULT or HIGHRES_RESULT PDU and where its value lists are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawResult {
    pub pdu: Vec<u8>,
    pub vlist_at: usize,
    pub numpmid: i32,
}

impl Fetched {
    /// The value sets, borrowed (decoded from the PDU where there is one; a PDU
    /// that does not decode is an error naming where).
    pub fn views(&self) -> Result<Vec<ValueSet<'_>>, SourceError> {
        match &self.raw {
            Some(r) => decode_value_sets(&r.pdu, r.vlist_at, r.numpmid, 0, 0, |_| true)
                .map_err(|e| SourceError::Lost(format!("bad result from pmcd: {e}"))),
            None => Ok(self.vsets.iter().map(OwnedValueSet::view).collect()),
        }
    }

    /// The value sets, owned.
    pub fn owned(&self) -> Result<Vec<OwnedValueSet>, SourceError> {
        match &self.raw {
            Some(_) => Ok(self.views()?.iter().map(OwnedValueSet::from_set).collect()),
            None => Ok(self.vsets.clone()),
        }
    }
}

/// What pmlogger asks of where its values come from, as it asks pmcd.
pub trait Source {
    /// What records, for the log: `pmcd at local:`, `the built-in source`.
    fn describe(&self) -> String;
    /// The host name the archive's label carries (pmcd.hostname).
    fn hostname(&mut self) -> String;
    /// The name pmlogger's prologue gives the pmcd host (`pmcd.pmlogger.host`).
    fn host_spec(&self) -> String;
    /// The source's time zone as a POSIX TZ string, and its zoneinfo name (may be
    /// empty).
    fn timezone(&mut self) -> (String, String);
    /// The leaves at or below `name`, `(name, PMID)` in namespace order.
    fn lookup(&mut self, name: &str) -> Result<Vec<(String, PmId)>, SourceError>;
    fn desc(&mut self, pmid: PmId) -> Result<Desc, SourceError>;
    /// Every name of a PMID (pmNameAll).
    fn names(&mut self, pmid: PmId) -> Result<Vec<String>, SourceError>;
    /// The current instances of an instance domain, `(id, name)`.
    fn instances(&mut self, indom: InDom) -> Result<Vec<(i32, String)>, SourceError>;
    /// Help text: `ttype` is `PM_TEXT_ONELINE`/`HELP` with `PM_TEXT_PMID`/`INDOM`,
    /// no fallback from one kind to the other. `None`: the source has none.
    fn text(&mut self, ident: u32, ttype: u32) -> Option<String>;
    /// The label sets of one kind ([`label`]) of an identifier, as pmcd gives
    /// them; empty: nothing to record.
    fn labels(&mut self, ltype: u8, ident: u32) -> Vec<LabelSet>;
    /// Fetches `pmids`; instance domains in `only` give just the listed instances.
    fn fetch(&mut self, pmids: &[PmId], only: &[(InDom, Vec<i32>)])
        -> Result<Fetched, SourceError>;
    /// pmcd's pid and the seqnum of its agent configuration (the prologue's
    /// `pmcd.pid` and `pmcd.seqnum`).
    fn pmcd_ids(&mut self) -> (u64, u32);
    /// After [`SourceError::Lost`]: tries to reach the source again.
    fn reconnect(&mut self) -> bool {
        true
    }
    /// Hands a fetch's buffers back once its values are written, for the next
    /// fetch to reuse.
    fn recycle(&mut self, _f: Fetched) {}
}

impl<T: MetricSource> Source for T {
    fn describe(&self) -> String {
        format!("the built-in source {}", self.name())
    }
    fn hostname(&mut self) -> String {
        MetricSource::hostname(self)
    }
    fn host_spec(&self) -> String {
        MetricSource::hostname(self)
    }
    fn timezone(&mut self) -> (String, String) {
        MetricSource::timezone(self)
    }
    fn lookup(&mut self, name: &str) -> Result<Vec<(String, PmId)>, SourceError> {
        MetricSource::lookup(self, name).map(|found| {
            found
                .iter()
                .map(|m| (m.name.to_string(), m.desc.pmid))
                .collect()
        })
    }
    fn desc(&mut self, pmid: PmId) -> Result<Desc, SourceError> {
        self.metric(pmid)
            .map(|m| m.desc)
            .ok_or(SourceError::Pcp(archive_format::error::PM_ERR_PMID))
    }
    fn names(&mut self, pmid: PmId) -> Result<Vec<String>, SourceError> {
        self.metric(pmid)
            .map(|m| vec![m.name.to_string()])
            .ok_or(SourceError::Pcp(archive_format::error::PM_ERR_PMID))
    }
    fn instances(&mut self, indom: InDom) -> Result<Vec<(i32, String)>, SourceError> {
        Ok(MetricSource::instances(self, indom))
    }
    fn text(&mut self, ident: u32, ttype: u32) -> Option<String> {
        use archive_format::codec::meta::text_type::{HELP, INDOM, ONELINE, PMID};
        if ttype & PMID != 0 {
            let m = self.metric(PmId(ident))?;
            if m.help.is_empty() {
                return None;
            }
            if ttype & ONELINE != 0 {
                Some(m.help.to_string())
            } else {
                Some(self.long_help(PmId(ident)).to_string())
            }
        } else if ttype & INDOM != 0 {
            let (one, full) = self.indom_help(InDom(ident))?;
            Some(if ttype & HELP != 0 { full } else { one }.to_string())
        } else {
            None
        }
    }
    fn labels(&mut self, ltype: u8, ident: u32) -> Vec<LabelSet> {
        MetricSource::labels(self, ltype, ident)
    }
    fn fetch(
        &mut self,
        pmids: &[PmId],
        only: &[(InDom, Vec<i32>)],
    ) -> Result<Fetched, SourceError> {
        let (stamp, mut vsets) = MetricSource::fetch(self, pmids)?;
        if !only.is_empty() {
            for vs in &mut vsets {
                let Some(indom) = self.metric(vs.pmid).map(|m| m.desc.indom) else {
                    continue;
                };
                if let Some((_, keep)) = only.iter().find(|(d, _)| *d == indom) {
                    vs.values.retain(|(i, _)| keep.contains(i));
                    if vs.numval > 0 {
                        vs.numval = vs.values.len() as i32;
                        if vs.numval == 0 {
                            vs.valfmt = 0;
                        }
                    }
                }
            }
        }
        Ok(Fetched {
            stamp,
            vsets,
            raw: None,
            changes: 0,
        })
    }
    fn pmcd_ids(&mut self) -> (u64, u32) {
        (u64::from(std::process::id()), 0)
    }
}

impl std::error::Error for SourceError {}

/// A built-in source: a fixed table of metrics it reads itself.
pub trait MetricSource {
    /// How the source is named on the command line (`@builtin`, `@sample`).
    fn name(&self) -> &'static str;
    /// The host the values describe (the archive label's host name).
    fn hostname(&self) -> String;
    /// The source's time zone as a POSIX TZ string, and its zoneinfo name (may be
    /// empty).
    fn timezone(&self) -> (String, String);
    /// Every metric the source offers, in namespace order.
    fn metrics(&self) -> &[Metric];
    /// The current instances of an instance domain, `(id, name)` sorted by id.
    fn instances(&mut self, indom: InDom) -> Vec<(i32, String)>;
    /// Fetches values of `pmids` now; one value set per PMID, in order.
    fn fetch(&mut self, pmids: &[PmId]) -> Result<(Timestamp, Vec<OwnedValueSet>), SourceError>;

    /// The full help text of a metric (its one-line text is [`Metric::help`]); empty
    /// when the source has none beyond the one line.
    fn long_help(&self, _pmid: PmId) -> &'static str {
        ""
    }

    /// One-line and full help text of an instance domain, if the source has any.
    fn indom_help(&self, _indom: InDom) -> Option<(&'static str, &'static str)> {
        None
    }

    /// The label sets of one kind, as pmGetLabels and friends give them: `ltype` is a
    /// `PM_LABEL_*` type ([`label`]) and `ident` the domain, instance domain, cluster
    /// (a PMID with item 0), PMID or (for [`label::INSTANCES`]) the instance domain
    /// whose current instances are labelled, one set each. Empty: nothing to record.
    /// The default gives the context labels of this host and nothing else.
    fn labels(&mut self, ltype: u8, _ident: u32) -> Vec<LabelSet> {
        if ltype == label::CONTEXT {
            context_labels(&self.hostname()).into_iter().collect()
        } else {
            Vec::new()
        }
    }

    /// The metrics a name denotes: the leaf itself, or every leaf under it.
    fn lookup(&self, name: &str) -> Result<Vec<&Metric>, SourceError> {
        let prefix = format!("{name}.");
        let found: Vec<&Metric> = self
            .metrics()
            .iter()
            .filter(|m| m.name == name || m.name.starts_with(&prefix))
            .collect();
        if found.is_empty() {
            Err(SourceError::UnknownName(name.into()))
        } else {
            Ok(found)
        }
    }

    fn metric(&self, pmid: PmId) -> Option<&Metric> {
        self.metrics().iter().find(|m| m.desc.pmid == pmid)
    }
}

/// `PM_LABEL_*` types.
pub mod label {
    pub const CONTEXT: u8 = 0x01;
    pub const DOMAIN: u8 = 0x02;
    pub const INDOM: u8 = 0x04;
    pub const CLUSTER: u8 = 0x08;
    pub const ITEM: u8 = 0x10;
    pub const INSTANCES: u8 = 0x20;
}

/// The context labels pmcd gives a client of this machine: domain name, host name,
/// machine id, and the (optional) user and group ids of the client.
pub fn context_labels(hostname: &str) -> Option<LabelSet> {
    let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_string());
    let domain = read("/proc/sys/kernel/domainname")
        .ok()
        .filter(|d| !d.is_empty() && d != "(none)")
        .unwrap_or_else(|| "localdomain".into());
    let (uid, gid) = ids();
    let mut labels = vec![
        ("domainname", json_string(&domain), false),
        ("groupid", gid.to_string(), true),
        ("hostname", json_string(hostname), false),
        ("userid", uid.to_string(), true),
    ];
    if let Ok(id) = read("/etc/machine-id") {
        if !id.is_empty() {
            labels.push(("machineid", json_string(&id), false));
        }
    }
    let borrowed: Vec<(&str, &str, bool)> = labels
        .iter()
        .map(|(n, v, o)| (*n, v.as_str(), *o))
        .collect();
    LabelSet::from_labels(-1, label::CONTEXT, &borrowed)
}

/// A label value that is a JSON string.
pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Effective user and group ids of this process, from /proc/self/status.
fn ids() -> (u32, u32) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("Uid:"), field("Gid:"))
}

/// The current time as an archive timestamp.
pub fn now() -> Timestamp {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp::new(d.as_secs() as i64, d.subsec_nanos())
}

/// PCP's "squashed" local time zone when `$TZ` is unset: the zone's abbreviation and
/// its offset in hours west, POSIX style (`AEST-10`, `UTC`); `$TZ` itself when set.
pub fn local_timezone() -> (String, String) {
    if let Ok(tz) = std::env::var("TZ") {
        if !tz.starts_with(':') && !tz.is_empty() {
            return (tz, String::new());
        }
    }
    let zoneinfo = std::fs::read_link("/etc/localtime")
        .ok()
        .and_then(|p| {
            let s = p.to_string_lossy().into_owned();
            s.split("zoneinfo/").nth(1).map(|z| format!(":{z}"))
        })
        .unwrap_or_default();
    // derive the abbreviation and offset from the zone the process runs in
    let (abbr, west) = local_abbrev_and_west();
    let tz = if west == 0 {
        abbr
    } else if west % 3600 == 0 {
        format!("{abbr}{:+}", west / 3600)
    } else {
        format!("{abbr}{:+}:{:02}", west / 3600, (west.abs() % 3600) / 60)
    };
    (tz, zoneinfo)
}

fn local_abbrev_and_west() -> (String, i64) {
    // /etc/timezone or /etc/localtime names; without a date library here, UTC is
    // the answer for machines configured as UTC (the common server setup)
    let name = std::fs::read_to_string("/etc/timezone")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    if name.is_empty() || name == "Etc/UTC" || name == "UTC" {
        ("UTC".into(), 0)
    } else {
        (name, 0)
    }
}

/// Value-set helpers for sources: each builds one value list, with no allocation
/// per value (blocks of up to 8 bytes are kept inline).
pub mod vs {
    use archive_format::codec::result::{
        BlockData, OwnedValue, OwnedValueSet, VAL_DPTR, VAL_INSITU,
    };
    use archive_format::types::{vtype, PmId};

    /// One 32-bit value, of no instance.
    pub fn u32(pmid: PmId, v: u32) -> OwnedValueSet {
        u32s(pmid, [(-1, v)])
    }
    pub fn u32s(pmid: PmId, vals: impl IntoIterator<Item = (i32, u32)>) -> OwnedValueSet {
        set(
            pmid,
            VAL_INSITU,
            vals.into_iter()
                .map(|(i, v)| (i, OwnedValue::Insitu(v)))
                .collect(),
        )
    }
    /// One 64-bit value, of no instance.
    pub fn u64(pmid: PmId, v: u64) -> OwnedValueSet {
        u64s(pmid, [(-1, v)])
    }
    pub fn u64s(pmid: PmId, vals: impl IntoIterator<Item = (i32, u64)>) -> OwnedValueSet {
        blocks(
            pmid,
            vtype::U64,
            vals.into_iter()
                .map(|(i, v)| (i, BlockData::from_slice(&v.to_be_bytes()))),
        )
    }
    pub fn f32s(pmid: PmId, vals: impl IntoIterator<Item = (i32, f32)>) -> OwnedValueSet {
        blocks(
            pmid,
            vtype::FLOAT,
            vals.into_iter()
                .map(|(i, v)| (i, BlockData::from_slice(&v.to_bits().to_be_bytes()))),
        )
    }
    pub fn f64s(pmid: PmId, vals: impl IntoIterator<Item = (i32, f64)>) -> OwnedValueSet {
        blocks(
            pmid,
            vtype::DOUBLE,
            vals.into_iter()
                .map(|(i, v)| (i, BlockData::from_slice(&v.to_bits().to_be_bytes()))),
        )
    }
    /// Strings, stored with their terminating NUL as the agents send them.
    pub fn strings<S: AsRef<str>>(
        pmid: PmId,
        vals: impl IntoIterator<Item = (i32, S)>,
    ) -> OwnedValueSet {
        blocks(
            pmid,
            vtype::STRING,
            vals.into_iter().map(|(i, s)| {
                let s = s.as_ref().as_bytes();
                let mut b = BlockData::with_capacity(s.len() + 1);
                b.extend_from_slice(s);
                b.push(0);
                (i, b)
            }),
        )
    }
    /// One value of type `ty` and no instance, its bytes as given.
    pub fn block(pmid: PmId, ty: i32, bytes: &[u8]) -> OwnedValueSet {
        blocks(
            pmid,
            ty,
            std::iter::once((-1, BlockData::from_slice(bytes))),
        )
    }
    fn blocks(pmid: PmId, ty: i32, vals: impl Iterator<Item = (i32, BlockData)>) -> OwnedValueSet {
        let vtype = ty as u8;
        set(
            pmid,
            VAL_DPTR,
            vals.map(|(i, data)| (i, OwnedValue::Block { vtype, data }))
                .collect(),
        )
    }
    fn set(pmid: PmId, valfmt: i32, values: Vec<(i32, OwnedValue)>) -> OwnedValueSet {
        OwnedValueSet {
            pmid,
            numval: values.len() as i32,
            valfmt: if values.is_empty() { 0 } else { valfmt },
            values,
        }
    }
    /// A metric the source has no value for right now.
    pub fn none(pmid: PmId) -> OwnedValueSet {
        OwnedValueSet {
            pmid,
            numval: 0,
            valfmt: 0,
            values: Vec::new(),
        }
    }
}
