//! pminfo's questions put to a pmcd (`-h`, and the local pmcd by default), as
//! libpcp puts them for a host context: each answer asked for when needed, and
//! PCP's error code where pmcd gives one.

use archive_format::codec::meta::LabelSet;
use archive_format::derive::context::InstanceNames;
use archive_format::error::PM_ERR_IPC;
use archive_format::replay::{FetchResult, FetchedSet};
use archive_format::types::{Desc, InDom, PmId, Timestamp};
use sources::pmcd::Pmcd;
use sources::{Source, SourceError};
use std::cell::RefCell;
use std::collections::HashMap;

/// An instance domain's instances, or pmcd's error.
type Instances = Result<Vec<(i32, String)>, i32>;

/// A connection to pmcd, and the instance domains derived metrics have read.
pub(crate) struct Host {
    pmcd: RefCell<Pmcd>,
    indoms: RefCell<HashMap<InDom, Instances>>,
}

/// The PCP error code of a source's error.
fn code(e: SourceError) -> i32 {
    match e {
        SourceError::Lost(_) | SourceError::Io(_) => PM_ERR_IPC,
        e => e.code(),
    }
}

/// What a failed connection met, as libpcp says it: the system's error, and
/// EHOSTUNREACH for a host name that does not resolve.
fn connect_code(e: SourceError) -> i32 {
    let SourceError::Lost(m) = &e else {
        return code(e);
    };
    if m.contains("failed to lookup") {
        return -113;
    }
    let errno = m
        .rsplit_once("(os error ")
        .and_then(|(_, n)| n.trim_end_matches(')').parse::<i32>().ok());
    errno.map_or(PM_ERR_IPC, |n| -n)
}

impl Host {
    /// Connects (with `container`'s name where one is given).
    pub(crate) fn connect(spec: &str, container: Option<&str>) -> Result<Host, i32> {
        let pmcd = Pmcd::connect_in(spec, container).map_err(connect_code)?;
        Ok(Host {
            pmcd: RefCell::new(pmcd),
            indoms: RefCell::new(HashMap::new()),
        })
    }

    /// pmcd's leaf names at or below `name`.
    pub(crate) fn traverse(&self, name: &str) -> Result<Vec<String>, i32> {
        self.pmcd.borrow_mut().traverse(name).map_err(code)
    }

    /// PMIDs of names (`None` where pmcd has none).
    pub(crate) fn lookup(&self, names: &[String]) -> Result<Vec<Option<PmId>>, i32> {
        self.pmcd.borrow_mut().lookup_names(names).map_err(code)
    }

    /// The names of a PMID (pmNameAll).
    pub(crate) fn names(&self, pmid: PmId) -> Result<Vec<String>, i32> {
        self.pmcd.borrow_mut().names(pmid).map_err(code)
    }

    pub(crate) fn desc(&self, pmid: PmId) -> Result<Desc, i32> {
        self.pmcd.borrow_mut().desc(pmid).map_err(code)
    }

    /// A name's descriptor, for binding a derived metric.
    pub(crate) fn find(&self, name: &str) -> Option<Desc> {
        let pmid = self.lookup(&[name.to_string()]).ok()?.pop()??;
        self.desc(pmid).ok()
    }

    /// Help text as pmLookupText gives it: a full text that is missing or
    /// empty asked for again as the one-line text.
    pub(crate) fn text(&self, ident: u32, ttype: u32) -> Result<String, i32> {
        use archive_format::codec::meta::text_type::{HELP, ONELINE};
        let got = self.pmcd.borrow_mut().text_of(ident, ttype).map_err(code);
        match got {
            Ok(t) if !t.is_empty() => Ok(t),
            _ if ttype & HELP != 0 => self.text(ident, (ttype & !HELP) | ONELINE),
            other => other,
        }
    }

    /// The first label set of a kind of an identifier (none on an error).
    pub(crate) fn label_set(&self, ltype: u32, ident: u32) -> Option<LabelSet> {
        let sets = self.pmcd.borrow_mut().label_sets(ltype as u8, ident).ok()?;
        sets.into_iter().next()
    }

    /// Every label set of a kind of an identifier (the instances' sets).
    pub(crate) fn label_sets(&self, ltype: u32, ident: u32) -> Vec<LabelSet> {
        let sets = self.pmcd.borrow_mut().label_sets(ltype as u8, ident);
        sets.unwrap_or_default()
    }

    /// The instances of an instance domain now (pmGetInDom).
    pub(crate) fn instances(&self, indom: InDom) -> Instances {
        self.pmcd.borrow_mut().instances(indom).map_err(code)
    }

    /// One fetch of `pmids`, instance domains in `only` limited to the listed
    /// instances: one value set per PMID, in the order asked.
    pub(crate) fn fetch(
        &self,
        pmids: &[PmId],
        only: &[(InDom, Vec<i32>)],
    ) -> Result<FetchResult, i32> {
        let mut pmcd = self.pmcd.borrow_mut();
        let got = pmcd.fetch(pmids, only).map_err(code)?;
        let sets: Vec<FetchedSet> = {
            let views = got.views().map_err(code)?;
            views.iter().map(FetchedSet::from_set).collect()
        };
        let stamp = got.stamp;
        pmcd.recycle(got);
        Ok(FetchResult { stamp, sets })
    }

    /// An instance domain's instances, asked for once.
    fn cached(&self, indom: InDom) -> Option<Vec<(i32, String)>> {
        let mut c = self.indoms.borrow_mut();
        let e = c.entry(indom).or_insert_with(|| self.instances(indom));
        e.as_ref().ok().cloned()
    }
}

impl InstanceNames for Host {
    fn instance(&self, indom: InDom, name: &str, _t: Timestamp) -> Option<i32> {
        let list = self.cached(indom)?;
        list.iter().find(|(_, n)| n == name).map(|(i, _)| *i)
    }
    fn instance_name(&self, indom: InDom, inst: i32, _t: Timestamp) -> Option<String> {
        let list = self.cached(indom)?;
        list.into_iter().find(|(i, _)| *i == inst).map(|(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_failures_are_the_system_errors_libpcp_reports() {
        let refused = SourceError::Lost("127.0.0.1:1: Connection refused (os error 111)".into());
        assert_eq!(connect_code(refused), -111);
        let unknown = SourceError::Lost(
            "nosuch.invalid: failed to lookup address information: Name or service not known"
                .into(),
        );
        assert_eq!(connect_code(unknown), -113);
        assert_eq!(connect_code(SourceError::Pcp(-12357)), -12357);
        assert_eq!(connect_code(SourceError::Lost("odd".into())), PM_ERR_IPC);
    }

    #[test]
    fn an_unreachable_pmcd_is_said_as_libpcp_says_it() {
        let port = test_support::free_port();
        let e = Host::connect(&format!("localhost:{port}"), None).err();
        assert_eq!(e, Some(-111));
    }
}
