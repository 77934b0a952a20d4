//! Names gathered as pminfo gathers them (`dometric`) and reported a batch at a
//! time: one metric a batch for an archive (each fetched from the origin), `-b`
//! (128) for a host, fewer where the names would pass pmcd's 64 KiB request
//! limit. A host's batch is looked up and fetched together, its derived metrics
//! computed from their operands fetched with it.

use super::report::{no_values, Fetched};
use super::store::Store;
use super::Pminfo;
use archive_format::codec::result::OwnedValueSet;
use archive_format::derive::context::Bound;
use archive_format::error::{pm_err_str, PM_ERR_BADDERIVE, PM_ERR_NAME};
use archive_format::types::{PmId, Timestamp};
use std::io::{self, Write};

/// pminfo's estimate of a PMNS_NAMES request's size: header and counts.
const PDU_START: usize = 5 * 4;
/// Where pminfo stops a batch of names short.
const PDU_LIMIT: usize = 63 * 1024;

/// The names not yet reported.
pub(crate) struct Batch {
    size: i32,
    names: Vec<String>,
    pdusize: usize,
}

impl Batch {
    pub(crate) fn new(size: i32) -> Batch {
        Batch {
            size,
            names: Vec::new(),
            pdusize: PDU_START,
        }
    }

    /// Adds a name; whether the batch is now full. For a host, the request's
    /// size counts too, and a batch cut short by it makes every later batch
    /// that short (as pminfo lowers `-b`).
    fn add(&mut self, name: &str, host: bool) -> bool {
        self.names.push(name.to_string());
        if host {
            self.pdusize += 4 + name.len().div_ceil(4) * 4;
            if self.pdusize > PDU_LIMIT {
                self.size = self.names.len() as i32;
            }
        }
        self.names.len() as i32 >= self.size
    }

    fn take(&mut self) -> Vec<String> {
        self.pdusize = PDU_START;
        std::mem::take(&mut self.names)
    }
}

impl Pminfo<'_> {
    /// A name found by a traversal: gathered, and the batch reported when full.
    pub(crate) fn dometric(&mut self, name: &str, out: &mut dyn Write) -> io::Result<()> {
        if name.is_empty() {
            return writeln!(out, "PMNS appears to be empty!");
        }
        let host = matches!(self.store, Store::Host(_));
        if self.batch.add(name, host) {
            self.flush(out)?;
        }
        Ok(())
    }

    /// Reports the names gathered.
    pub(crate) fn flush(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let names = self.batch.take();
        if matches!(self.store, Store::Host(_)) {
            return self.report_batch(&names, out);
        }
        for n in &names {
            self.report(n, out)?;
        }
        Ok(())
    }

    /// Every metric name at or below `name`: an archive's namespace with the
    /// derived names among it; pmcd's names, then the derived ones below
    /// `name` that bind (as libpcp traverses a host's namespace).
    pub(crate) fn names_below(&mut self, name: &str) -> Result<Vec<String>, i32> {
        let Store::Host(h) = &self.store else {
            return self.ctx.traverse(name).ok_or(PM_ERR_NAME);
        };
        let (mut names, missing) = match h.traverse(name) {
            Ok(n) => (n, false),
            Err(PM_ERR_NAME) => (Vec::new(), true),
            Err(e) => return Err(e),
        };
        let mut derived = 0;
        for k in 0..self.ctx.registry.metrics.len() {
            let d = &self.ctx.registry.metrics[k];
            let below = name.is_empty()
                || d.name
                    .strip_prefix(name)
                    .is_some_and(|r| r.is_empty() || r.starts_with('.'));
            if !below {
                continue;
            }
            let (dname, anon) = (d.name.clone(), d.anon);
            if self.bind(k).is_err() && !anon {
                continue;
            }
            names.push(dname);
            derived += 1;
        }
        if missing && derived == 0 {
            return Err(PM_ERR_NAME);
        }
        Ok(names)
    }

    /// Every name of a PMID (pmNameAll): pmcd's for a host's metric.
    pub(crate) fn names_of(&self, pmid: PmId) -> Result<Vec<String>, i32> {
        match &self.store {
            Store::Host(h) if self.ctx.derived_of(pmid).is_none() => h.names(pmid),
            _ => Ok(self.ctx.names(pmid)),
        }
    }

    /// The first name of a PMID (pmNameID).
    pub(crate) fn name_of(&self, pmid: PmId) -> Result<String, i32> {
        let first = self.names_of(pmid)?.into_iter().next();
        first.ok_or(match self.store {
            Store::Host(_) => PM_ERR_NAME,
            Store::Archive(_) => archive_format::error::PM_ERR_PMID,
        })
    }

    /// A host's batch: the names looked up together (pmcd's, else derived),
    /// fetched together where values are asked for, then reported in turn.
    fn report_batch(&mut self, names: &[String], out: &mut dyn Write) -> io::Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        let Store::Host(h) = &self.store else {
            return Ok(());
        };
        let found = match h.lookup(names) {
            Ok(f) => f,
            Err(e) => {
                for n in names {
                    writeln!(out, "{n}: pmLookupName: {}", pm_err_str(e))?;
                }
                return Ok(());
            }
        };
        let pmids: Vec<Option<PmId>> = names
            .iter()
            .zip(found)
            .map(|(n, p)| p.or_else(|| self.ctx.lookup(n)))
            .collect();
        let mut batch: Vec<(&String, PmId)> = Vec::new();
        for (n, p) in names.iter().zip(&pmids) {
            match p {
                Some(p) => batch.push((n, *p)),
                None => writeln!(out, "{n}: pmLookupName: {}", pm_err_str(PM_ERR_NAME))?,
            }
        }
        let mut fetched: Vec<Option<Fetched>> = batch.iter().map(|_| None).collect();
        if self.o.show.fetches() {
            let ids: Vec<PmId> = batch.iter().map(|(_, p)| *p).collect();
            match self.fetch_batch(&ids) {
                Ok((stamp, sets)) => {
                    for (slot, set) in fetched.iter_mut().zip(sets) {
                        *slot = Some(Fetched { set, stamp });
                    }
                }
                Err(e) => {
                    for (n, _) in &batch {
                        writeln!(out, "{n}: pmFetch: {}", pm_err_str(e))?;
                    }
                    return Ok(());
                }
            }
        }
        for ((n, p), f) in batch.into_iter().zip(fetched) {
            self.report_one(n, p, f, out)?;
        }
        Ok(())
    }

    /// One fetch of a host's batch: pmcd's metrics and the derived metrics'
    /// operands asked for together, each derived metric computed from them.
    fn fetch_batch(&mut self, pmids: &[PmId]) -> Result<(Timestamp, Vec<OwnedValueSet>), i32> {
        let mut ask: Vec<PmId> = Vec::new();
        let mut bound: Vec<Option<Result<Bound, ()>>> = Vec::new();
        for &p in pmids {
            match self.ctx.derived_of(p) {
                None => {
                    ask.push(p);
                    bound.push(None);
                }
                Some(k) => {
                    let b = self.bind(k).map_err(|_| ());
                    if let Ok(b) = &b {
                        for op in b.operand_pmids() {
                            if !ask.contains(&op) {
                                ask.push(op);
                            }
                        }
                    }
                    bound.push(Some(b));
                }
            }
        }
        let Store::Host(h) = &self.store else {
            return Err(archive_format::error::PM_ERR_MODE);
        };
        // derived metrics of constants alone (and the anonymous ones) need
        // nothing of pmcd
        let res = if ask.is_empty() {
            archive_format::replay::FetchResult {
                stamp: sources::now(),
                sets: Vec::new(),
            }
        } else {
            h.fetch(&ask, &[])?
        };
        let mut sets = Vec::with_capacity(pmids.len());
        for (&p, b) in pmids.iter().zip(bound) {
            let set = match b {
                None => res.sets.iter().find(|s| s.pmid == p).cloned(),
                Some(Ok(mut b)) => Some(b.evaluate_with(&res, &**h)),
                Some(Err(())) => Some(no_values(p, PM_ERR_BADDERIVE)),
            };
            sets.push(set.unwrap_or_else(|| no_values(p, 0)));
        }
        Ok((res.stamp, sets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_batch_is_one_name() {
        let mut b = Batch::new(1);
        assert!(b.add("kernel.all.load", false));
        assert_eq!(b.take(), vec!["kernel.all.load".to_string()]);
    }

    #[test]
    fn a_host_batch_stops_short_of_the_request_limit_from_then_on() {
        let mut b = Batch::new(128);
        let long = "x".repeat(1021); // 4 + 1024 bytes a name
        let mut n = 0;
        while !b.add(&long, true) {
            n += 1;
        }
        // 20 + 63 * 1028 is the first to pass 63 KiB (64512)
        assert_eq!(n + 1, 63);
        assert_eq!(b.take().len(), 63);
        // the limit stays lowered; the size estimate starts again
        assert_eq!(b.pdusize, PDU_START);
        for _ in 0..62 {
            assert!(!b.add("a.b", true));
        }
        assert!(b.add("a.b", true));
    }

    #[test]
    fn a_batch_of_zero_or_less_reports_each_name() {
        let mut b = Batch::new(0);
        assert!(b.add("a", true));
        let mut b = Batch::new(-3);
        assert!(b.add("a", true));
    }
}
