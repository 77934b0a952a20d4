//! The copy, as pmlogrewrite makes it: each data record in turn, preceded by the
//! metadata it needs (the input's metadata read on in file order until a
//! descriptor of a metric not in the record, or an instance domain or label set
//! later than it), each rewritten by the rules; a temporal index entry where the
//! input has one at the record's time, after metadata other than descriptors,
//! at the first record and after a `<mark>`; the last record indexed at the end
//! if it was not already.

use crate::rules::{change, Rules};
use archive_format::codec::meta::{InDomKind, MetaRecord};
use archive_format::codec::result::{scan_canonical, SetOf};
use archive_format::logfetch::LogCursor;
use archive_format::types::{vtype, InDom, PmId, Timestamp};
use archive_format::writer::delta::{self, DeltaInDoms};
use archive_format::writer::{ArchiveWriter, FlushPolicy, WriterOptions};
use archive_format::Archive;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

const PROG: &str = "pmlogrewrite";

/// One rewrite: the input, where the output goes, and how.
pub(crate) struct Job<'a> {
    pub(crate) input: &'a Archive,
    /// The input as named on the command line.
    pub(crate) name: &'a str,
    /// Where the output is written (a temporary name).
    pub(crate) output: &'a str,
    /// The output as messages name it (the input with `-i`).
    pub(crate) dest: &'a str,
    pub(crate) in_place: bool,
    pub(crate) version: u32,
    pub(crate) rules: &'a Rules,
    pub(crate) desperate: bool,
}

/// A metadata record read from the input and not yet written, with its time
/// as rewritten so far.
struct Pending {
    rec: MetaRecord,
}

/// The state of the copy between records.
struct Copy<'a> {
    job: &'a Job<'a>,
    w: ArchiveWriter,
    meta: std::vec::IntoIter<MetaRecord>,
    pending: Option<Pending>,
    /// A descriptor of an event metric was met: descriptors are then written
    /// until a later instance domain or label set stops the metadata.
    seen_event: bool,
    /// Each instance domain's set as the input has it now.
    current: HashMap<InDom, Vec<(i32, String)>>,
    deltas: DeltaInDoms,
    /// How many metrics of the output each input instance domain serves.
    refs: HashMap<InDom, i64>,
    needti: bool,
    /// The metrics whose values the rules change.
    touched: HashSet<PmId>,
    /// The PMIDs of a record being checked for copying.
    scratch: Vec<PmId>,
}

impl Job<'_> {
    /// Makes the output; an error is said (what went wrong, then the partial
    /// output removed, unless `-d`) before the `Err` comes back, except where
    /// the output could not be made (the error then says it).
    /// `meta` is the input's metadata records (decoded once, for the rules
    /// and for the copy).
    pub(crate) fn run(
        &self,
        meta: archive_format::Result<Vec<MetaRecord>>,
        err: &mut dyn Write,
    ) -> io::Result<Result<(), String>> {
        let meta = match meta {
            Ok(m) => m,
            Err(e) => {
                return Ok(Err(format!(
                    "{PROG}: Error: pmaGetLog[meta {}]: {}",
                    self.name,
                    e.pm_message()
                )))
            }
        };
        let w = match ArchiveWriter::create(self.output, self.writer_options()) {
            Ok(w) => w,
            Err(e) => {
                return Ok(Err(format!(
                    "{PROG}: Error: __pmLogCreate({},v{}): {}",
                    self.dest,
                    self.version,
                    e.pm_message()
                )))
            }
        };
        let mut c = Copy {
            job: self,
            w,
            meta: meta.into_iter(),
            pending: None,
            seen_event: false,
            current: HashMap::new(),
            deltas: DeltaInDoms::default(),
            refs: self.indom_refs(),
            needti: false,
            touched: self.rules.touched(),
            scratch: Vec::new(),
        };
        let done = c.records(err)?.and_then(|()| {
            c.w.close()
                .map_err(|e| format!("{PROG}: Error: {}", e.pm_message()))
        });
        if let Err(msg) = &done {
            writeln!(err, "{msg}")?;
            self.abandon(err)?;
        }
        Ok(done.map_err(|_| String::new()))
    }

    /// The output's label: the input's, with the global clause's changes.
    fn writer_options(&self) -> WriterOptions {
        let l = self.input.label();
        let g = &self.rules.global;
        WriterOptions {
            version: self.version,
            hostname: g.hostname.clone().unwrap_or_else(|| l.hostname.clone()),
            timezone: g.timezone.clone().unwrap_or_else(|| l.timezone.clone()),
            zoneinfo: g.zoneinfo.clone().unwrap_or_else(|| l.zoneinfo.clone()),
            pid: l.pid,
            features: g.features.unwrap_or(l.features),
            flush: FlushPolicy::NoSync,
            auto_index: false,
            buffered: true,
            one_index_per_time: false,
        }
    }

    /// Each input instance domain and the number of the output's metrics
    /// defined over it (a deleted metric's domain has one fewer).
    fn indom_refs(&self) -> HashMap<InDom, i64> {
        let mut refs = HashMap::new();
        for d in self.input.metadata().descs() {
            if !d.indom.is_null() {
                *refs.entry(d.indom).or_insert(0) += 1;
            }
        }
        for m in self.rules.metrics.iter().rev() {
            let moved = m.flags & change::INDOM != 0;
            if m.flags & change::DELETE == 0 && !moved {
                continue;
            }
            if !m.old.indom.is_null() {
                if let Some(n) = refs.get_mut(&m.old.indom) {
                    *n -= 1;
                }
            }
            if moved && m.flags & change::DELETE == 0 && !m.new.indom.is_null() {
                // a domain the input lacks: the input's domain a rule moves there
                let counted = if refs.contains_key(&m.new.indom) {
                    Some(m.new.indom)
                } else {
                    let ip = self
                        .rules
                        .indoms
                        .iter()
                        .rev()
                        .find(|i| i.new == m.new.indom);
                    ip.map(|i| i.old)
                };
                if let Some(n) = counted.and_then(|i| refs.get_mut(&i)) {
                    *n += 1;
                }
            }
        }
        refs
    }

    /// What pmlogrewrite says after a fatal error (the files are then removed,
    /// or with `-d` kept).
    fn abandon(&self, err: &mut dyn Write) -> io::Result<()> {
        if self.desperate {
            return writeln!(err, "Archive \"{}\" creation truncated.", self.dest);
        }
        if !self.in_place {
            writeln!(err, "Archive \"{}\" not created.", self.dest)?;
        }
        Ok(())
    }
}

impl Copy<'_> {
    /// Every data record with the metadata before it.
    fn records(&mut self, err: &mut dyn Write) -> io::Result<Result<(), String>> {
        let a = self.job.input;
        let index = a.index();
        let mut cursor = LogCursor::new(a);
        let mut in_vol = cursor.volume();
        let mut ti = 0;
        let mut first = true;
        let mut doneti = false;
        let mut last: Option<(Timestamp, u64)> = None;
        let mut failed = None;
        loop {
            let old_meta = self.w.meta_offset();
            let read = match cursor.read_next_payload() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let (vol, rec) = (read.volume, read.record);
            if in_vol != Some(vol) {
                in_vol = Some(vol);
                let target = vol.max(self.w.volume() + 1);
                if let Err(e) = self.w.new_volume_at(target) {
                    return Ok(Err(format!("{PROG}: Error: {}", e.pm_message())));
                }
            }
            if index.get(ti).is_some_and(|e| e.stamp == rec.stamp) {
                self.needti = true;
                ti += 1;
            }
            let stamp = self.job.rules.stamp(rec.stamp);
            let pmids: Vec<_> = rec.vsets.iter().map(|v| v.pmid).collect();
            let mark = rec.vsets.is_empty();
            // a record the rules leave as it is, stored as the output would
            // store it, is copied; the others are decoded and rewritten
            let copy = !mark
                && stamp == rec.stamp
                && read.version == self.w.version()
                && !pmids.iter().any(|p| self.touched.contains(p))
                && scan_canonical(read.payload, read.version, &mut self.scratch);
            let vsets = match copy {
                true => Vec::new(),
                false => match self.rewritten(&rec) {
                    Ok(v) => v,
                    Err(msg) => return Ok(Err(msg)),
                },
            };
            if first {
                if let Err(msg) = self.new_labels(stamp) {
                    return Ok(Err(msg));
                }
            }
            if let Err(msg) = self.metadata(stamp, &pmids, err)? {
                return Ok(Err(msg));
            }
            if first {
                first = false;
                self.needti = true;
            }
            let out = (|| -> archive_format::Result<()> {
                if self.needti {
                    let data = self.w.data_offset();
                    self.w.put_index_at(stamp, old_meta, data)?;
                    self.needti = false;
                    doneti = true;
                } else {
                    doneti = false;
                }
                last = Some((stamp, self.w.data_offset()));
                if mark {
                    // a <mark>: the next record is indexed
                    self.needti = true;
                } else if copy {
                    return self.w.write_result_payload(stamp, read.payload).map(|_| ());
                } else if vsets.is_empty() {
                    // every metric of the record deleted: nothing written
                    return Ok(());
                }
                self.w.write_result(stamp, &vsets).map(|_| ())
            })();
            if let Err(e) = out {
                return Ok(Err(format!("{PROG}: Error: {}", e.pm_message())));
            }
        }
        if let Some(e) = failed {
            return Ok(Err(self.read_error(&e, cursor.reported_position())));
        }
        if first {
            return self.no_records(err);
        }
        if let (false, Some((stamp, data))) = (doneti, last) {
            let meta = self.w.meta_offset();
            if let Err(e) = self.w.put_index_at(stamp, meta, data) {
                return Ok(Err(format!("{PROG}: Error: {}", e.pm_message())));
            }
        }
        Ok(Ok(()))
    }

    /// The rules' new labels, dated as the first record, before any other
    /// metadata.
    fn new_labels(&mut self, stamp: Timestamp) -> Result<(), String> {
        crate::relabel::new_records(&self.job.rules.labels)
            .into_iter()
            .try_for_each(|p| self.w.put_labels(stamp, p.ltype, p.ident, p.sets))
            .map_err(|e| format!("{PROG}: Error: {}", e.pm_message()))
    }

    /// The record's value sets as the rules make them; where a value cannot
    /// be converted, pmlogrewrite's message and its dump of the record.
    fn rewritten<'r, 'a>(
        &self,
        rec: &'r archive_format::ResultRecord<'a>,
    ) -> Result<Vec<SetOf<'r, 'a>>, String> {
        crate::values::rewrite(self.job.rules, &self.touched, &rec.vsets).map_err(|f| {
            let dump = crate::dump::dump(rec.stamp, &f.record, self.job.input.metadata());
            format!("{}\n{dump}", f.msg)
        })
    }

    /// An input without a data record: as pmlogrewrite, the labels dated 0,
    /// one index entry whose data offset is 0, and libpcp's complaint about
    /// that offset (naming the data volume's file: its inode is this run's).
    fn no_records(&mut self, err: &mut dyn Write) -> io::Result<Result<(), String>> {
        use std::os::unix::fs::MetadataExt;
        let label = self.w.label_len();
        if let Err(e) = self.w.put_index_at(Timestamp::new(0, 0), label, 0) {
            return Ok(Err(format!("{PROG}: Error: {}", e.pm_message())));
        }
        let vol = format!("{}.{}", self.job.output, self.w.volume());
        let ino = std::fs::metadata(vol).map_or(0, |m| m.ino());
        writeln!(
            err,
            "__pmLogPutIndex: Botch: log offset == 0\n  __pmFileno=8 __pmFtell -> 0\n  __pmFstat st_size={label} st_ino={ino}"
        )?;
        Ok(Ok(()))
    }

    /// What pmlogrewrite says of a data record it cannot read: the error, and
    /// where in which file.
    fn read_error(&self, e: &archive_format::Error, place: Option<(u64, u64)>) -> String {
        let mut msg = format!(
            "{PROG}: Error: __pmLogRead[log {}]: {}",
            self.job.name,
            e.pm_message()
        );
        let (at, size) = place.unwrap_or_else(|| {
            let size = e.path().and_then(|p| std::fs::metadata(p).ok());
            (e.offset().unwrap_or(0), size.map_or(0, |m| m.len()))
        });
        msg.push_str(&format!(
            "\n{PROG}: Error occurred at byte offset {at} into a file of {size} bytes."
        ));
        if self.job.desperate {
            msg.push_str(
                "\nThe last record, and the remainder of this file will not be processed.",
            );
        }
        msg
    }

    /// The input's metadata up to the record at `stamp` (holding `pmids`).
    fn metadata(
        &mut self,
        stamp: Timestamp,
        pmids: &[archive_format::types::PmId],
        err: &mut dyn Write,
    ) -> io::Result<Result<(), String>> {
        loop {
            let mut p = match self.pending.take() {
                Some(p) => p,
                None => match self.meta.next() {
                    Some(rec) => Pending { rec },
                    None => return Ok(Ok(())),
                },
            };
            // (a held record's time is shifted again each time it is looked at,
            // as pmlogrewrite shifts it in its buffer)
            let held = match &mut p.rec {
                MetaRecord::Desc { desc, .. } => {
                    let event = desc.vtype == vtype::EVENT || desc.vtype == vtype::HIGHRES_EVENT;
                    if !self.seen_event && event {
                        self.seen_event = true;
                    }
                    !self.seen_event && !pmids.contains(&desc.pmid)
                }
                MetaRecord::InDom { stamp: s, kind, .. } => {
                    *s = self.shifted(*s, *kind == InDomKind::V2);
                    *s > stamp
                }
                MetaRecord::Label { stamp: s, v3, .. } => {
                    *s = self.shifted(*s, !*v3);
                    *s > stamp
                }
                MetaRecord::Text { .. } => false,
            };
            if held {
                self.pending = Some(p);
                return Ok(Ok(()));
            }
            if let Err(msg) = self.put(p.rec, err)? {
                return Ok(Err(msg));
            }
        }
    }

    /// A metadata time shifted by the global clause (to the microsecond in a
    /// v2 record).
    fn shifted(&self, t: Timestamp, v2: bool) -> Timestamp {
        let s = self.job.rules.stamp(t);
        if v2 {
            Timestamp::new(s.sec, s.nsec / 1000 * 1000)
        } else {
            s
        }
    }

    /// Writes one metadata record (the global clause's only: rewritten as is).
    fn put(&mut self, rec: MetaRecord, err: &mut dyn Write) -> io::Result<Result<(), String>> {
        let w = &mut self.w;
        let r = match rec {
            MetaRecord::Desc { desc, names } => {
                // names are C strings to pmlogrewrite: cut at a NUL inside
                let names: Vec<String> = names
                    .into_iter()
                    .map(|n| n.split('\0').next().unwrap_or_default().to_string())
                    .collect();
                match rewrite_desc(self.job.rules, desc, names) {
                    Ok(Some((desc, names))) => w.put_desc_record(desc, &names),
                    Ok(None) => Ok(()),
                    Err(msg) => return Ok(Err(msg)),
                }
            }
            MetaRecord::InDom {
                kind,
                stamp,
                indom,
                instances,
            } => {
                self.needti = true;
                let set = match self.undelta(kind, stamp, indom, &instances) {
                    Ok(set) => set,
                    Err(msg) => return Ok(Err(msg)),
                };
                self.current.insert(indom, set.clone());
                if set.is_empty() {
                    return Ok(Err(format!(
                        "_pmUnpackInDom: InDom {indom} dodgey: numinst=0"
                    )));
                }
                match self.refs.get(&indom) {
                    None => writeln!(err, "Botch: InDom: {indom}: not in indom_hash table")?,
                    Some(0) => return Ok(Ok(())),
                    Some(_) => {}
                }
                let rules = self.job.rules;
                match rules.indoms.iter().find(|i| i.old == indom) {
                    Some(ip) => {
                        if ip.duplicate {
                            if let Err(e) = self.put_indom(stamp, indom, &set) {
                                return Ok(Err(format!("{PROG}: Error: {}", e.pm_message())));
                            }
                        }
                        let set = instances_changed(ip, set);
                        if set.is_empty() {
                            return Ok(Ok(()));
                        }
                        self.put_indom(stamp, ip.new, &set)
                    }
                    None => self.put_indom(stamp, indom, &set),
                }
            }
            MetaRecord::Label {
                stamp,
                ltype,
                ident,
                sets,
                ..
            } => {
                self.needti = true;
                let puts = match crate::relabel::relabel(&self.job.rules.labels, ltype, ident, sets)
                {
                    Ok(p) => p,
                    Err(msg) => return Ok(Err(msg)),
                };
                puts.into_iter()
                    .try_for_each(|p| w.put_labels(stamp, p.ltype, p.ident, p.sets))
            }
            MetaRecord::Text { ttype, ident, text } => {
                self.needti = true;
                match self.job.rules.text_record(ttype, ident, &text) {
                    Some((ident, body)) => w.put_text(ttype, ident, body),
                    None => Ok(()),
                }
            }
        };
        Ok(r.map_err(|e| format!("{PROG}: Error: {}", e.pm_message())))
    }

    /// An instance-domain record made full. A delta is resolved as
    /// pmlogrewrite resolves it: the input's set in force at the record's time,
    /// a time the global clause may have moved (before the domain's first set
    /// there is none, and pmlogrewrite gives up).
    fn undelta(
        &mut self,
        kind: InDomKind,
        stamp: Timestamp,
        indom: InDom,
        instances: &[archive_format::codec::meta::Instance],
    ) -> Result<Vec<(i32, String)>, String> {
        let (_, mut set) = delta::resolve(kind, instances, self.current.get(&indom));
        if kind == InDomKind::Delta && self.job.rules.global.time.is_some() {
            let meta = self.job.input.metadata();
            let Some(snap) = meta.indom_in_force(indom, stamp) else {
                return Err(undelta_botch(indom, stamp, instances));
            };
            set = snap
                .instances
                .iter()
                .map(|(i, n)| (*i, n.to_string()))
                .collect();
        }
        self.current.insert(indom, set.clone());
        Ok(set)
    }

    /// An instance domain as the output's version writes it (v3: a delta where
    /// smaller).
    fn put_indom(
        &mut self,
        stamp: Timestamp,
        indom: InDom,
        set: &[(i32, String)],
    ) -> archive_format::Result<()> {
        if self.job.version < 3 {
            let full = delta::full(set);
            return self.w.put_indom_record(InDomKind::V2, stamp, indom, full);
        }
        let (kind, list) = self.deltas.encode(indom, set);
        self.w.put_indom_record(kind, stamp, indom, list)
    }
}

/// What libpcp says of a delta instance domain it finds no set for, then
/// pmlogrewrite: the record's instances (the names' offsets in the record).
fn undelta_botch(
    indom: InDom,
    stamp: Timestamp,
    instances: &[archive_format::codec::meta::Instance],
) -> String {
    let when = cli_common::timefmt::stamp(stamp, 9, &cli_common::zone::local());
    let mut msg = format!(
        "pmaUndeltaInDom: Botch: indom {indom} @ {when}: not found from __pmLogCtl\nInDom from archive record (numinst {}) ...",
        instances.len()
    );
    let mut idx = 0;
    for (k, i) in instances.iter().enumerate() {
        match &i.name {
            Some(n) => {
                msg.push_str(&format!("\n[{k}] {} idx={idx} add \"{n}\"", i.inst));
                idx += n.len() + 1;
            }
            None => msg.push_str(&format!("\n[{k}] {} idx=-1 del", i.inst)),
        }
    }
    msg.push_str(&format!(
        "\n_pmUnpackInDom: Botch: undelta InDom failed for InDom {indom}"
    ));
    msg
}

/// A descriptor as the metric rules rewrite it (`None`: the metric is
/// deleted): its PMID, the name it is known by, type, semantics and units.
fn rewrite_desc(
    rules: &Rules,
    mut desc: archive_format::types::Desc,
    mut names: Vec<String>,
) -> Result<Option<(archive_format::types::Desc, Vec<String>)>, String> {
    let Some(m) = rules.metric(desc.pmid) else {
        return Ok(Some((desc, names)));
    };
    if m.flags & change::DELETE != 0 {
        return Ok(None);
    }
    if m.flags & change::PMID != 0 {
        desc.pmid = m.new.pmid;
    }
    if let (true, Some(new)) = (m.flags & change::NAME != 0, &m.new_name) {
        match names.iter_mut().find(|n| **n == m.old_name) {
            Some(n) => *n = new.clone(),
            None => {
                return Err(format!(
                    "{PROG}: Botch: old name {} not found in list of {} names for pmid {} ...{}",
                    m.old_name,
                    names.len(),
                    m.old.pmid,
                    names
                        .iter()
                        .map(|n| format!(" {n}"))
                        .collect::<Vec<_>>()
                        .join(",")
                ))
            }
        }
    }
    if m.flags & change::TYPE != 0 {
        desc.vtype = m.new.vtype;
    }
    if m.flags & change::INDOM != 0 {
        desc.indom = m.new.indom;
    }
    if m.flags & change::SEM != 0 {
        desc.sem = m.new.sem;
    }
    if m.flags & change::UNITS != 0 {
        desc.units = m.new.units;
    }
    Ok(Some((desc, names)))
}

/// An instance domain's set with the rules' instance changes: deleted,
/// renumbered, renamed.
fn instances_changed(
    ip: &crate::rules::IndomSpec,
    mut set: Vec<(i32, String)>,
) -> Vec<(i32, String)> {
    use crate::rules::inst;
    for x in ip.insts.iter().filter(|x| x.flags != 0) {
        let Some(j) = set.iter().position(|(i, _)| *i == x.old_inst) else {
            continue;
        };
        if x.flags & inst::DELETE != 0 {
            set.remove(j);
            continue;
        }
        if x.flags & inst::CHANGE_INST != 0 {
            set[j].0 = x.new_inst;
        }
        if let (true, Some(n)) = (x.flags & inst::CHANGE_INAME != 0, &x.new_name) {
            set[j].1 = n.clone();
        }
    }
    set
}
