//! Where pmlogger's values come from. Every source answers the same questions as
//! pmcd does for pmlogger: names to PMIDs, descriptors, instance domains, help text,
//! and fetches; so the pmcd wire protocol can become a third source behind the same
//! trait.
//!
//! - [`local::Local`]: this machine, read from `/proc` and `/sys` with the Linux
//!   agent's names, PMIDs, types, semantics, units and instance domains (domain 60);
//! - [`sample::Sample`]: a deterministic source of its own (domain 29, the sample
//!   agent's PMIDs for the metrics it shares) for tests.

pub mod local;
pub mod sample;

use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::OwnedValueSet;
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
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::UnknownName(n) => write!(f, "Unknown metric name: {n}"),
            SourceError::Io(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for SourceError {}

/// What pmlogger asks of pmcd.
pub trait MetricSource {
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
