//! One metric's report, as pminfo's `report()` prints it for an archive (one
//! metric a batch, each fetched from the origin forward): the fetch, the
//! descriptor, then the lines each option asks for, in PCP's order.

use super::store::Store;
use super::{text, Pminfo};
use archive_format::derive::check::Unavailable;
use archive_format::derive::context::Bound;
use archive_format::error::{
    pm_err_str, PM_ERR_BADDERIVE, PM_ERR_INST, PM_ERR_MODE, PM_ERR_PROFILE, PM_ERR_TEXT,
};
use archive_format::format::format_value;
use archive_format::logfetch::{Direction, LogCursor};
use archive_format::replay::{Delta, FetchResult, FetchedSet, Mode, Replay};
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp};
use std::io::{self, Write};

/// The one-line help after a name: ` [text]`, on its own indented line under
/// a verbose PMID or InDom, or the error.
pub(crate) fn oneline(
    out: &mut dyn Write,
    t: &Result<String, i32>,
    verbose: bool,
) -> io::Result<()> {
    match t {
        Ok(s) if verbose => write!(out, "\n    [{s}]"),
        Ok(s) => write!(out, " [{s}]"),
        Err(e) => write!(out, " One-line Help: Error: {}", pm_err_str(*e)),
    }
}

/// The long help: `Help:` then the text without its trailing newlines.
pub(crate) fn help(out: &mut dyn Write, t: &Result<String, i32>) -> io::Result<()> {
    match t {
        Ok(s) => {
            let s = s.trim_end_matches('\n');
            if s.is_empty() {
                writeln!(out, "Help: <empty entry>")
            } else {
                writeln!(out, "Help:\n{s}")
            }
        }
        Err(e) => writeln!(out, "Full Help: Error: {}", pm_err_str(*e)),
    }
}

/// pminfo's names of the data types.
fn type_str(t: i32) -> Option<&'static str> {
    match t {
        vtype::NOSUPPORT => Some("Not Supported"),
        _ => vtype::long_name(t),
    }
}

/// The descriptor block (`mydesc`).
fn desc_lines(out: &mut dyn Write, d: &Desc, full_indom: bool) -> io::Result<()> {
    match type_str(d.vtype) {
        Some(t) => write!(out, "    Data Type: {t}")?,
        None => write!(out, "    Data Type: ??? ({})", d.vtype)?,
    }
    write!(out, "  InDom: {}", d.indom)?;
    if full_indom {
        write!(out, " = {} =", d.indom.0)?;
    }
    writeln!(out, " 0x{:x}", d.indom.0)?;
    match sem::name(d.sem) {
        Some(s) => write!(out, "    Semantics: {s}")?,
        None => write!(out, "    Semantics: ??? ({})", d.sem)?,
    }
    let units = d.units.to_string();
    writeln!(
        out,
        "  Units: {}",
        if units.is_empty() { "none" } else { &units }
    )
}

/// A value set of no values: `numval` 0, or an error code.
pub(crate) fn no_values(pmid: PmId, numval: i32) -> FetchedSet {
    FetchedSet {
        pmid,
        numval,
        valfmt: 0,
        values: Vec::new(),
    }
}

/// A fetch's outcome for the metric: its value set and the result's time.
pub(crate) struct Fetched {
    pub(crate) set: FetchedSet,
    pub(crate) stamp: Timestamp,
}

impl Pminfo<'_> {
    /// One metric of an archive (a batch of one): looked up, fetched from the
    /// origin, and reported.
    pub(crate) fn report(&mut self, name: &str, out: &mut dyn Write) -> io::Result<()> {
        let Some(pmid) = self.ctx.lookup(name) else {
            return writeln!(out, "{name}: pmLookupName: Unknown metric name");
        };
        let mut fetched = None;
        if self.o.show.fetches() {
            match self.fetch(pmid) {
                Ok(f) => fetched = Some(f),
                Err(e) => return writeln!(out, "{name}: pmFetch: {}", pm_err_str(e)),
            }
        }
        self.report_one(name, pmid, fetched, out)
    }

    /// One metric's report, its values fetched where they were asked for.
    pub(crate) fn report_one(
        &mut self,
        name: &str,
        pmid: PmId,
        mut fetched: Option<Fetched>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let s = self.o.show.clone();
        let mut desc = None;
        if s.desc || s.value || s.labels || s.series || s.verify {
            match self.desc(pmid) {
                Ok(d) => desc = Some(d),
                Err(e) => return writeln!(out, "{name}: pmLookupDesc: {}", pm_err_str(e)),
            }
        }
        // labels and instance names are those of the fetched time
        let at = fetched.as_ref().map_or(self.store.start(), |f| f.stamp);
        if s.verify {
            return self.verify(name, desc, fetched.as_ref(), out);
        }
        if self.o.json {
            return self.report_json(name, pmid, desc, fetched.as_ref(), out);
        }
        if s.desc || s.help || s.value || s.labels {
            writeln!(out)?;
        }
        if let (true, Some(f), Some(d)) = (s.force, &mut fetched, &desc) {
            if f.set.numval == PM_ERR_PROFILE {
                match self.fetch_all_instances(pmid, d.indom, f.stamp) {
                    Ok(again) => *f = again,
                    Err(why) => return writeln!(out, "{name}: {why}"),
                }
            }
        }
        write!(out, "{name}")?;
        if s.pmid {
            write!(out, " PMID: {pmid}")?;
        }
        if s.full_pmid {
            write!(out, " = {} = 0x{:x}", pmid.0, pmid.0)?;
        }
        if s.oneline {
            oneline(out, &self.text(pmid, text::ONELINE), s.full_pmid)?;
        }
        writeln!(out)?;
        if let (true, Some(d)) = (s.desc, &desc) {
            desc_lines(out, d, s.full_indom)?;
        }
        if let (true, Some(d)) = (s.series, &desc) {
            self.metric_series(name, d, at, out)?;
        }
        if let (true, Some(d)) = (s.labels, &desc) {
            self.metric_labels(d, at, out)?;
        }
        if s.help {
            help(out, &self.text(pmid, text::HELP))?;
        }
        if let (true, Some(d), Some(f)) = (s.value, &desc, &fetched) {
            self.values(d, f, out)?;
        }
        if let (true, Some(d)) = (s.series, &desc) {
            self.instance_series(d.indom, at, out)?;
        }
        if let (true, Some(d)) = (s.labels, &desc) {
            self.instance_labels(d, at, out)?;
        }
        Ok(())
    }

    /// `-v`: only what is wrong.
    fn verify(
        &self,
        name: &str,
        desc: Option<Desc>,
        f: Option<&Fetched>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let (Some(d), Some(f)) = (desc, f) else {
            return Ok(());
        };
        if d.vtype == vtype::NOSUPPORT {
            writeln!(out, "{name}: Not Supported")
        } else if f.set.numval < 0 {
            writeln!(out, "{name}: {}", pm_err_str(f.set.numval))
        } else if f.set.numval == 0 {
            writeln!(out, "{name}: No value(s) available")
        } else {
            Ok(())
        }
    }

    /// The metric fetched forward from the origin (pmSetMode(PM_MODE_FORW)
    /// then pmFetch); a derived metric is bound first, as libpcp binds it. A
    /// single archive is read through the context's one file position, kept
    /// from fetch to fetch (where positioning fails, a damaged index, the next
    /// fetch reads on from the last, as libpcp's).
    fn fetch(&mut self, pmid: PmId) -> Result<Fetched, i32> {
        let a = self.store.archive().ok_or(PM_ERR_MODE)?;
        let derived = self.ctx.derived_of(pmid).map(|k| self.bind(k).ok());
        let origin = self.origin;
        let res = match (&mut self.cursor, derived) {
            (Some(c), None) => cursor_fetch(c, origin, &[pmid]),
            (Some(c), Some(Some(mut b))) => {
                cursor_fetch(c, origin, &b.operand_pmids()).map(|res| FetchResult {
                    stamp: res.stamp,
                    sets: vec![b.evaluate(&res, a.metadata())],
                })
            }
            // libpcp still reads the next record
            (Some(c), Some(None)) => cursor_fetch(c, origin, &[]).map(|res| FetchResult {
                stamp: res.stamp,
                sets: vec![no_values(pmid, PM_ERR_BADDERIVE)],
            }),
            (None, derived) => {
                let mut r = Replay::new(a);
                r.set_mode(Mode::Forw, Some(origin), Delta::from_millis(0));
                match derived {
                    None => r.fetch(&[pmid]),
                    Some(Some(mut b)) => b.fetch(&mut r),
                    Some(None) => r.fetch_archive().map(|f| FetchResult {
                        stamp: f.stamp,
                        sets: vec![no_values(pmid, PM_ERR_BADDERIVE)],
                    }),
                }
            }
        }
        .map_err(|e| e.pm_err())?;
        let stamp = res.stamp;
        let set = res.sets.into_iter().next();
        Ok(Fetched {
            set: set.unwrap_or_else(|| no_values(pmid, 0)),
            stamp,
        })
    }

    /// `-F` on a metric whose instances must be named: every instance of its
    /// domain (at the fetch's time) asked for, fetched again (from the origin,
    /// in an archive).
    fn fetch_all_instances(
        &mut self,
        pmid: PmId,
        indom: InDom,
        t: Timestamp,
    ) -> Result<Fetched, String> {
        let insts: Vec<i32> = match self.store.instances(indom, t) {
            Err(e) => return Err(format!("pmGetIndom: {}", pm_err_str(e))),
            Ok(l) if l.is_empty() => return Err("pmGetIndom: No instances?".into()),
            Ok(l) => l.iter().map(|(i, _)| *i).collect(),
        };
        let res = match &self.store {
            Store::Archive(a) => {
                let mut r = Replay::new(a);
                r.set_mode(Mode::Forw, Some(self.origin), Delta::from_millis(0));
                r.set_profile(indom, insts);
                r.fetch(&[pmid]).map_err(|e| e.pm_err())
            }
            Store::Host(h) => h.fetch(&[pmid], &[(indom, insts)]),
        }
        .map_err(|e| format!("pmFetch: {}", pm_err_str(e)))?;
        let set = res.sets.into_iter().next().ok_or("pmFetch: no value set")?;
        Ok(Fetched {
            set,
            stamp: res.stamp,
        })
    }

    /// The derived metric `k` bound to the context's metrics.
    pub(crate) fn bind(&mut self, k: usize) -> Result<Bound, Unavailable> {
        match &self.store {
            Store::Archive(_) => self.ctx.bind(k),
            Store::Host(h) => self.ctx.bind_with(k, &mut |n: &str| h.find(n)),
        }
    }

    /// The metric's descriptor (a derived metric's once bound).
    fn desc(&mut self, pmid: PmId) -> Result<Desc, i32> {
        match self.ctx.derived_of(pmid) {
            None => self.store.desc(pmid),
            Some(k) => self.bind(k).map(|b| b.desc).map_err(|_| PM_ERR_BADDERIVE),
        }
    }

    /// A metric's help text of kind `kind` (a derived metric's from its
    /// definition: its help falls back to its one-line text).
    pub(crate) fn text(&self, pmid: PmId, kind: u32) -> Result<String, i32> {
        match self.ctx.derived_of(pmid) {
            None => self.store.text(pmid.0, kind | text::PMID),
            Some(k) => {
                let d = &self.ctx.registry.metrics[k];
                let t = if kind == text::ONELINE {
                    d.oneline.as_deref()
                } else {
                    d.helptext.as_deref().or(d.oneline.as_deref())
                };
                t.map(str::to_string).ok_or(PM_ERR_TEXT)
            }
        }
    }

    /// The values fetched (`mydump`).
    fn values(&mut self, d: &Desc, f: &Fetched, out: &mut dyn Write) -> io::Result<()> {
        let set = &f.set;
        if set.numval == 0 {
            return writeln!(out, "No value(s) available!");
        }
        if set.numval < 0 {
            return writeln!(out, "Error: {}", pm_err_str(set.numval));
        }
        for (inst, v) in &set.values {
            if !d.indom.is_null() {
                match self
                    .caches
                    .instance_name(&self.store, d.indom, *inst, f.stamp)
                {
                    Some(n) => write!(out, "    inst [{inst} or \"{n}\"]")?,
                    None if self.o.show.force => {
                        writeln!(out, "    inst [{inst} \"DISAPPEARED\"]")?;
                        continue;
                    }
                    None => {
                        writeln!(
                            out,
                            "pmNameIndom: indom={} inst={inst}: {}",
                            d.indom,
                            pm_err_str(PM_ERR_INST)
                        )?;
                        write!(out, "    inst [{inst}]")?;
                    }
                }
            } else {
                write!(out, "   ")?;
            }
            let value = v.as_value();
            let highres = d.vtype == vtype::HIGHRES_EVENT;
            match (&value, d.vtype == vtype::EVENT || highres) {
                (archive_format::codec::result::Value::Block { data, .. }, true) => {
                    let text = super::events::summary(data, highres, &self.tz);
                    writeln!(out, " value {}", text.unwrap_or_default())?;
                    if self.o.show.events {
                        self.event_dump(data, highres, out)?;
                    }
                }
                _ => writeln!(out, " value {}", format_value(d.vtype, set.valfmt, &value))?,
            }
        }
        Ok(())
    }
}

/// pmFetch of `pmids` after pmSetMode(PM_MODE_FORW, origin), through libpcp's
/// file positions (the temporal index, and its fine-tuning, decide where reading
/// starts: an origin at the last record's time may find it or the end): the next
/// record holding any of them (any record but a mark where none is asked for:
/// a derived metric of constants), a set for each.
fn cursor_fetch(
    c: &mut LogCursor<'_>,
    origin: Timestamp,
    pmids: &[PmId],
) -> archive_format::Result<FetchResult> {
    c.set_mode(Direction::Forward, origin);
    loop {
        let Some(rec) = c.fetch()? else {
            let eol = archive_format::error::PM_ERR_EOL;
            return Err(archive_format::Error::pcp(eol, "end of archive"));
        };
        let has = |p: &PmId| rec.vsets.iter().any(|vs| vs.pmid == *p);
        if rec.is_mark() || !(pmids.is_empty() || pmids.iter().any(has)) {
            continue;
        }
        let set = |p: &PmId| match rec.vsets.iter().find(|vs| vs.pmid == *p) {
            Some(vs) => FetchedSet::from_set(vs),
            None => no_values(*p, 0),
        };
        return Ok(FetchResult {
            stamp: rec.stamp,
            sets: pmids.iter().map(set).collect(),
        });
    }
}
