//! Where pminfo's answers come from: an archive's metadata (as at a time), or a
//! pmcd asked each question as it comes. The metric's values are fetched apart
//! ([`crate::report`]): an archive's one metric at a time from the origin, a
//! pmcd's a batch at a time.

use super::host::Host;
use archive_format::codec::meta::{label_type as lt, LabelSet};
use archive_format::error::{PM_ERR_INDOM_LOG, PM_ERR_PMID_LOG};
use archive_format::types::{Desc, InDom, PmId, Timestamp};
use archive_format::Archive;

/// pminfo's context.
pub(crate) enum Store<'a> {
    Archive(&'a Archive),
    Host(Box<Host>),
}

/// PM_IN_NULL: the identifier of the context's own labels.
const CONTEXT_IDENT: u32 = u32::MAX;

impl<'a> Store<'a> {
    /// The archive, where the context is one.
    pub(crate) fn archive(&self) -> Option<&'a Archive> {
        match self {
            Store::Archive(a) => Some(*a),
            Store::Host(_) => None,
        }
    }

    /// When the context begins (an archive's start; no time for a host, whose
    /// answers are of now).
    pub(crate) fn start(&self) -> Timestamp {
        match self {
            Store::Archive(a) => a.label().start,
            Store::Host(_) => Timestamp::default(),
        }
    }

    /// A metric's descriptor (not a derived one's).
    pub(crate) fn desc(&self, pmid: PmId) -> Result<Desc, i32> {
        match self {
            Store::Archive(a) => a.metadata().desc(pmid).copied().ok_or(PM_ERR_PMID_LOG),
            Store::Host(h) => h.desc(pmid),
        }
    }

    /// Help text of kind `ttype` (`PM_TEXT_*`, with `PMID` or `INDOM`).
    pub(crate) fn text(&self, ident: u32, ttype: u32) -> Result<String, i32> {
        match self {
            Store::Archive(a) => a.metadata().lookup_text(ident, ttype).map(str::to_string),
            Store::Host(h) => h.text(ident, ttype),
        }
    }

    /// The one label set of a kind for `ident` (in force at `t` in an archive).
    pub(crate) fn label_set(&self, ltype: u32, ident: u32, t: Timestamp) -> Option<LabelSet> {
        match self {
            Store::Archive(a) => {
                let r = a.metadata().labels_at(ltype, ident, t)?;
                r.sets.first().cloned()
            }
            Store::Host(h) => h.label_set(ltype, ident),
        }
    }

    /// The context's labels: an archive without any has its host's name.
    pub(crate) fn context_labels(&self, t: Timestamp) -> Option<LabelSet> {
        let found = self.label_set(lt::CONTEXT, CONTEXT_IDENT, t);
        match self {
            Store::Archive(a) => found.or_else(|| {
                let host = format!("\"{}\"", a.label().hostname);
                LabelSet::from_labels(-1, lt::CONTEXT as u8, &[("hostname", &host, false)])
            }),
            Store::Host(_) => found,
        }
    }

    /// The per-instance label sets of an instance domain (pmGetInstancesLabels).
    pub(crate) fn instance_sets(&self, indom: InDom, t: Timestamp) -> Vec<LabelSet> {
        match self {
            Store::Archive(a) => a
                .metadata()
                .labels_at(lt::INSTANCES, indom.0, t)
                .map(|r| r.sets.clone())
                .unwrap_or_default(),
            Store::Host(h) => h.label_sets(lt::INSTANCES, indom.0),
        }
    }

    /// The instances of an instance domain (pmGetInDom; at `t` in an archive).
    pub(crate) fn instances(&self, indom: InDom, t: Timestamp) -> Result<Vec<(i32, String)>, i32> {
        match self {
            Store::Archive(a) => a
                .metadata()
                .indom_in_force(indom, t)
                .map(|s| {
                    s.instances
                        .iter()
                        .map(|(i, n)| (*i, n.to_string()))
                        .collect()
                })
                .ok_or(PM_ERR_INDOM_LOG),
            Store::Host(h) => h.instances(indom),
        }
    }
}
