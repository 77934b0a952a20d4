//! The metadata of an archive (`.meta`), loaded into memory as libpcp does:
//! descriptors with their names, instance domains (deltas resolved into full
//! snapshots), label sets and help text.

use crate::codec::meta::{decode_meta, label_type, InDomKind, Instance, LabelSet, MetaRecord};
use crate::codec::record::frame_at;
use crate::error::{
    DecodeError, DecodeErrorKind, PM_ERR_LOGCHANGEINDOM, PM_ERR_LOGCHANGESEM, PM_ERR_LOGCHANGETYPE,
    PM_ERR_LOGCHANGEUNITS,
};
use crate::pmns::Pmns;
use crate::types::{Desc, InDom, PmId, Timestamp};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// An instance-domain record as stored on disk (for `pmdumplog -I`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct InDomRecord {
    pub kind: InDomKind,
    pub stamp: Timestamp,
    pub indom: InDom,
    pub instances: Vec<Instance>,
}

/// The full instance set of an instance domain from a given time on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Snapshot {
    pub stamp: Timestamp,
    /// `(instance id, name)`, sorted by id.
    pub instances: Instances,
}

impl Snapshot {
    pub fn name_of(&self, inst: i32) -> Option<&str> {
        self.instances.find(inst).map(|(_, n)| &**n)
    }
}

/// Instances kept in one run at most.
const RUN: usize = 64;

/// An instance: its id and name.
type Entry = (i32, Arc<str>);

/// A run of an [`Instances`], shared by the sets that hold it.
type Run = Arc<[Entry]>;

/// An instance set, sorted by id, held as runs of at most 64 instances (`RUN`). An
/// instance domain written again at each change (the processes of a host, say)
/// mostly repeats the set before it, so a run the set before it holds whole is
/// shared with it rather than copied, and a name is held once for every set that
/// has it: a set that changed in a few places costs the runs that changed.
#[derive(Clone, Default)]
pub struct Instances {
    runs: Vec<Run>,
    len: usize,
}

impl Instances {
    /// `set` (sorted by id) as runs, sharing those of `like` that it holds whole.
    fn build(set: &[Entry], like: Option<&Instances>) -> Instances {
        let starts: HashMap<i32, &Run> = like
            .map(|l| {
                l.runs
                    .iter()
                    .filter_map(|r| Some((r.first()?.0, r)))
                    .collect()
            })
            .unwrap_or_default();
        let same = |a: &Entry, b: &Entry| a.0 == b.0 && (Arc::ptr_eq(&a.1, &b.1) || a.1 == b.1);
        let mut runs = Vec::new();
        let mut pos = 0;
        while pos < set.len() {
            if let Some(r) = starts.get(&set[pos].0) {
                let end = pos + r.len();
                if set
                    .get(pos..end)
                    .is_some_and(|s| s.iter().zip(r.iter()).all(|(a, b)| same(a, b)))
                {
                    runs.push(Arc::clone(r));
                    pos = end;
                    continue;
                }
            }
            // a new run, up to the next instance that starts a run of `like`
            let mut end = pos + 1;
            while end < set.len() && end - pos < RUN && !starts.contains_key(&set[end].0) {
                end += 1;
            }
            runs.push(Arc::from(&set[pos..end]));
            pos = end;
        }
        runs.shrink_to_fit();
        Instances {
            runs,
            len: set.len(),
        }
    }

    /// The number of instances.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The instances in id order.
    pub fn iter(&self) -> impl Iterator<Item = &(i32, Arc<str>)> + '_ {
        self.runs.iter().flat_map(|r| r.iter())
    }

    /// The instances as one list.
    pub fn to_vec(&self) -> Vec<(i32, Arc<str>)> {
        self.iter().cloned().collect()
    }

    /// Instance `inst`, if the set has it.
    pub fn find(&self, inst: i32) -> Option<&(i32, Arc<str>)> {
        let k = self
            .runs
            .partition_point(|r| r.first().is_some_and(|f| f.0 <= inst));
        let run = self.runs.get(k.checked_sub(1)?)?;
        run.binary_search_by_key(&inst, |(i, _)| *i)
            .ok()
            .map(|j| &run[j])
    }
}

impl From<Vec<(i32, Arc<str>)>> for Instances {
    /// `set`, which must be sorted by id.
    fn from(set: Vec<(i32, Arc<str>)>) -> Instances {
        Instances::build(&set, None)
    }
}

impl<'a> IntoIterator for &'a Instances {
    type Item = &'a (i32, Arc<str>);
    type IntoIter =
        std::iter::FlatMap<std::slice::Iter<'a, Run>, &'a [Entry], fn(&'a Run) -> &'a [Entry]>;
    fn into_iter(self) -> Self::IntoIter {
        self.runs.iter().flat_map(|r| &r[..])
    }
}

impl PartialEq for Instances {
    fn eq(&self, other: &Instances) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Instances {}

impl std::fmt::Debug for Instances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Instances {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A label-set record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LabelRecord {
    pub stamp: Timestamp,
    /// `PM_LABEL_*` type (COMPOUND/OPTIONAL masked off).
    pub ltype: u32,
    pub ident: u32,
    pub sets: Vec<LabelSet>,
}

/// Everything in `.meta`.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    descs: Vec<Desc>,
    desc_idx: HashMap<PmId, usize>,
    /// Names per descriptor as listed in its (first) record.
    pub pmns: Pmns,
    snapshots: HashMap<InDom, Vec<Snapshot>>,
    /// Every instance name of the snapshots, once.
    inst_names: Names,
    indom_order: Vec<InDom>,
    labels: Vec<LabelRecord>,
    texts: BTreeMap<(u32, u32), String>,
}

fn rec_err(off: u64, code: i32, what: &'static str) -> DecodeError {
    DecodeError::new(off, DecodeErrorKind::Pcp(code, what))
}

/// Instance names held once (a fast hasher: a large `.meta` has millions of them).
type Names = HashSet<Arc<str>, foldhash::fast::RandomState>;

/// The shared copy of `name`.
fn intern(names: &mut Names, name: String) -> Arc<str> {
    if let Some(n) = names.get(name.as_str()) {
        return n.clone();
    }
    let n: Arc<str> = Arc::from(name);
    names.insert(n.clone());
    n
}

/// Calls `f` with each record of a `.meta` file after its label (`start`) and
/// the record's offset, in file order, as libpcp reads them: a record's length
/// and type are read together, so fewer than those 8 bytes left after a record
/// is a clean end (a record cut 1 to 7 bytes in is not read); straight after
/// the label it is a corrupted record.
pub fn each_record(
    file: &[u8],
    start: u64,
    mut f: impl FnMut(u64, MetaRecord) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let mut off = start;
    let mut records = 0usize;
    while (file.len() as u64).saturating_sub(off) >= 8 {
        let Some(frame) = frame_at(file, off)? else {
            break;
        };
        f(
            frame.start,
            decode_meta(frame.payload(file), frame.payload_start())?,
        )?;
        off = frame.end();
        records += 1;
    }
    if records == 0 && (file.len() as u64) > off {
        return Err(DecodeError::new(
            off,
            DecodeErrorKind::Record("partial record after the label"),
        ));
    }
    Ok(())
}

/// What a `.meta` file holds, from the heads of its records alone (see
/// [`crate::archive::meta_profile`]): what holding its metadata costs, and whether
/// its instance domains can be read as a stream in time order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MetaProfile {
    /// Bytes of every record after the label.
    pub bytes: u64,
    /// Bytes of the instance-domain records.
    pub indom_bytes: u64,
    /// The largest record of each instance domain, summed: about what holding
    /// one set of each domain at a time costs.
    pub current_bytes: u64,
    /// Instance-domain records come in time order (none earlier than the one
    /// before it), so the set in force at a time is the last one read up to it.
    pub in_time_order: bool,
    /// The file ended at a record's end (a damaged or cut file is read whole,
    /// where its error is told as the whole is decoded).
    pub clean: bool,
}

impl MetaProfile {
    /// The bytes of records a reader holds that takes the instance domains as
    /// a stream: every other record, and one set of each domain.
    pub fn streamed_bytes(&self) -> u64 {
        (self.bytes - self.indom_bytes.min(self.bytes)).saturating_add(self.current_bytes)
    }

    /// Whether the instance domains may be read as a stream.
    pub fn streamable(&self) -> bool {
        self.clean && self.in_time_order
    }
}

/// Builds a [`MetaProfile`] from the records' lengths and heads, in file order.
#[derive(Debug, Default)]
pub struct ProfileBuilder {
    p: MetaProfile,
    largest: HashMap<InDom, u64>,
    last: Option<Timestamp>,
    disordered: bool,
}

impl ProfileBuilder {
    /// A record of `len` bytes (framing included); `indom` its time and domain
    /// when it is an instance-domain record.
    pub fn record(&mut self, len: u64, indom: Option<(Timestamp, InDom)>) {
        self.p.bytes = self.p.bytes.saturating_add(len);
        let Some((stamp, indom)) = indom else {
            return;
        };
        self.p.indom_bytes = self.p.indom_bytes.saturating_add(len);
        let l = self.largest.entry(indom).or_default();
        *l = (*l).max(len);
        if self.last.is_some_and(|t| stamp < t) {
            self.disordered = true;
        }
        self.last = Some(stamp);
    }

    /// The profile; `clean` when the file ended at a record's end.
    pub fn finish(mut self, clean: bool) -> MetaProfile {
        self.p.current_bytes = self.largest.values().sum();
        self.p.in_time_order = !self.disordered;
        self.p.clean = clean;
        self.p
    }
}

impl Metadata {
    /// Loads every record of a `.meta` file; `start` is the offset after its label.
    pub fn load(file: &[u8], start: u64) -> Result<Metadata, DecodeError> {
        Self::load_reporting(file, start, true, |_| {})
    }

    /// [`Metadata::load`], telling `read_up_to` after each record that the bytes
    /// before the next one are done with (a caller reading a memory map lets their
    /// pages go, so a large `.meta` is not held beside what it decodes to).
    ///
    /// Without `instances`, the instance domains' records are checked as they are
    /// read but not kept, so [`Metadata::snapshots`] and the lookups by instance
    /// domain find nothing: for a reader that takes them in time order as it goes
    /// ([`crate::instances`]), whose memory is then what one set of each domain
    /// holds, not their history.
    pub fn load_reporting(
        file: &[u8],
        start: u64,
        instances: bool,
        mut read_up_to: impl FnMut(u64),
    ) -> Result<Metadata, DecodeError> {
        let mut m = Metadata::default();
        each_record(file, start, |off, rec| {
            if instances || !matches!(rec, MetaRecord::InDom { .. }) {
                m.add(rec, off)?;
            }
            read_up_to(off);
            Ok(())
        })?;
        m.pmns.finish();
        m.drop_repeated_labels();
        Ok(m)
    }

    /// Drops label sets that only repeat the previous label record of the same type
    /// and identifier, as libpcp does after loading an archive's metadata: per
    /// (type, identifier), newest record first (records with equal times in file
    /// order), each record loses the sets that also appear in the record just older
    /// than it, and a record left with no sets goes (the oldest one stays).
    fn drop_repeated_labels(&mut self) {
        let mut chains: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        for (i, l) in self.labels.iter().enumerate() {
            chains.entry((l.ltype, l.ident)).or_default().push(i);
        }
        let mut gone = vec![false; self.labels.len()];
        for chain in chains.values_mut() {
            if chain.len() < 2 {
                continue;
            }
            // newest first; the sort is stable, so equal times keep file order
            chain.sort_by(|&a, &b| self.labels[b].stamp.cmp(&self.labels[a].stamp));
            for w in 0..chain.len() - 1 {
                let (newer, older) = (chain[w], chain[w + 1]);
                let keep: Vec<LabelSet> = self.labels[newer]
                    .sets
                    .iter()
                    .filter(|s| !self.labels[older].sets.iter().any(|o| same_label_set(s, o)))
                    .cloned()
                    .collect();
                if keep.is_empty() {
                    gone[newer] = true;
                }
                self.labels[newer].sets = keep;
            }
        }
        let mut i = 0;
        self.labels.retain(|_| {
            i += 1;
            !gone[i - 1]
        });
    }

    fn add(&mut self, rec: MetaRecord, off: u64) -> Result<(), DecodeError> {
        match rec {
            MetaRecord::Desc { desc, names } => self.add_desc(desc, &names, off)?,
            MetaRecord::InDom {
                kind,
                stamp,
                indom,
                instances,
            } => self.add_indom(kind, stamp, indom, instances),
            MetaRecord::Label {
                stamp,
                ltype,
                ident,
                sets,
                ..
            } => {
                self.labels.push(LabelRecord {
                    stamp,
                    ltype,
                    ident,
                    sets,
                });
            }
            MetaRecord::Text { ttype, ident, text } => {
                use crate::codec::meta::text_type as tt;
                if ttype & (tt::ONELINE | tt::HELP) != 0 && ttype & (tt::PMID | tt::INDOM) != 0 {
                    self.texts.insert((ttype, ident), text);
                }
            }
        }
        Ok(())
    }

    /// A descriptor and its names; one that changes a known metric's type,
    /// semantics, instance domain or units is an error at `off`.
    fn add_desc(&mut self, desc: Desc, names: &[String], off: u64) -> Result<(), DecodeError> {
        if let Some(&i) = self.desc_idx.get(&desc.pmid) {
            let old = self.descs[i];
            let changed = if old.vtype != desc.vtype {
                Some((PM_ERR_LOGCHANGETYPE, "metric type changed"))
            } else if old.sem != desc.sem {
                Some((PM_ERR_LOGCHANGESEM, "metric semantics changed"))
            } else if old.indom != desc.indom {
                Some((PM_ERR_LOGCHANGEINDOM, "metric instance domain changed"))
            } else if old.units != desc.units {
                Some((PM_ERR_LOGCHANGEUNITS, "metric units changed"))
            } else {
                None
            };
            if let Some((code, what)) = changed {
                return Err(rec_err(off, code, what));
            }
        } else {
            self.desc_idx.insert(desc.pmid, self.descs.len());
            self.descs.push(desc);
        }
        for n in names {
            // libpcp takes a name as a C string: it ends at the first NUL
            let n = n.split('\0').next().unwrap_or_default();
            self.pmns.insert(n, desc.pmid);
        }
        Ok(())
    }

    /// An instance domain record: a full set, or a delta on the latest snapshot
    /// at or before its time.
    fn add_indom(
        &mut self,
        kind: InDomKind,
        stamp: Timestamp,
        indom: InDom,
        instances: Vec<crate::codec::meta::Instance>,
    ) {
        if instances.is_empty() {
            return;
        }
        let snaps = self.snapshots.entry(indom).or_default();
        if snaps.is_empty() && !self.indom_order.contains(&indom) {
            self.indom_order.push(indom);
        }
        // the latest snapshot at or before this time: a delta applies to
        // it, and a full set shares the runs it holds of it
        let base = snaps
            .iter()
            .rev()
            .find(|s| s.stamp <= stamp)
            .or(snaps.last());
        let mut set: Vec<(i32, Arc<str>)> = if kind == InDomKind::Delta {
            let mut set = base.map(|s| s.instances.to_vec()).unwrap_or_default();
            for i in instances {
                set.retain(|(id, _)| *id != i.inst);
                if let Some(n) = i.name {
                    set.push((i.inst, intern(&mut self.inst_names, n)));
                }
            }
            set
        } else {
            let names = &mut self.inst_names;
            instances
                .into_iter()
                .map(|i| (i.inst, intern(names, i.name.unwrap_or_default())))
                .collect()
        };
        set.sort_by_key(|(i, _)| *i);
        let snap = Snapshot {
            stamp,
            instances: Instances::build(&set, base.map(|s| &s.instances)),
        };
        // libpcp keeps an indom's records newest first; a record goes to the
        // head of its time slot (records with the same timestamp), so among
        // equal timestamps the later record counts as the newer one, and a
        // duplicate of a record of that slot is not added but moved to the
        // slot's head. Here the order is ascending: the head is the slot's end.
        let lo = snaps.partition_point(|s| s.stamp < stamp);
        let hi = snaps.partition_point(|s| s.stamp <= stamp);
        let snap = match snaps[lo..hi].iter().position(|s| *s == snap) {
            Some(j) => snaps.remove(lo + j),
            None => snap,
        };
        let hi = snaps.partition_point(|s| s.stamp <= stamp);
        snaps.insert(hi, snap);
    }

    /// Adds a later archive's metadata, as libpcp merges the archives of a
    /// multi-archive context: descriptors and names not yet known, every instance
    /// domain record (snapshots kept in time order), label sets and help text not
    /// yet known. A metric whose type, semantics, instance domain or units differ
    /// is an error, as within one archive.
    pub fn merge(&mut self, other: Metadata) -> Result<(), DecodeError> {
        for d in &other.descs {
            let names = other.names(d.pmid).to_vec();
            self.add(MetaRecord::Desc { desc: *d, names }, 0)?;
        }
        self.pmns.finish();
        for (indom, snaps) in other.snapshots {
            if !self.snapshots.contains_key(&indom) {
                self.indom_order.push(indom);
            }
            let v = self.snapshots.entry(indom).or_default();
            v.extend(snaps);
            v.sort_by_key(|s| s.stamp);
        }
        self.labels.extend(other.labels);
        self.drop_repeated_labels();
        for (k, t) in other.texts {
            self.texts.entry(k).or_insert(t);
        }
        Ok(())
    }

    /// Descriptors in the order their PMIDs were first seen.
    pub fn descs(&self) -> &[Desc] {
        &self.descs
    }
    pub fn desc(&self, pmid: PmId) -> Option<&Desc> {
        self.desc_idx.get(&pmid).map(|&i| &self.descs[i])
    }
    /// Descriptors in libpcp's hash-table order (as `pmdumplog -d` prints them).
    pub fn descs_hash_order(&self) -> Vec<&Desc> {
        let keys: Vec<u32> = self.descs.iter().map(|d| d.pmid.0).collect();
        crate::hashorder::hash_order(&keys)
            .into_iter()
            .filter_map(|k| self.desc(PmId(k)))
            .collect()
    }
    /// All names of a metric, in libpcp's order.
    pub fn names(&self, pmid: PmId) -> &[String] {
        self.pmns.names(pmid)
    }
    /// Instance domains in the order first seen.
    pub fn indoms(&self) -> &[InDom] {
        &self.indom_order
    }
    /// Instance domains in libpcp's hash-table order (as `pmdumplog -i` prints them).
    pub fn indoms_hash_order(&self) -> Vec<InDom> {
        let keys: Vec<u32> = self.indom_order.iter().map(|d| d.0).collect();
        crate::hashorder::hash_order(&keys)
            .into_iter()
            .map(InDom)
            .collect()
    }
    /// Every snapshot of an instance domain, oldest first.
    pub fn snapshots(&self, indom: InDom) -> &[Snapshot] {
        self.snapshots
            .get(&indom)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }
    /// The instance domain in force at `t`: the newest snapshot at or before `t`, or the
    /// oldest one if `t` precedes them all.
    pub fn indom_at(&self, indom: InDom, t: Timestamp) -> Option<&Snapshot> {
        self.indom_in_force(indom, t)
            .or_else(|| self.snapshots.get(&indom)?.first())
    }
    /// The instance domain in force at `t` as libpcp looks it up for a record: the
    /// newest snapshot at or before `t`, none before the first.
    pub fn indom_in_force(&self, indom: InDom, t: Timestamp) -> Option<&Snapshot> {
        let s = self.snapshots.get(&indom)?;
        let k = s.partition_point(|x| x.stamp <= t);
        k.checked_sub(1).and_then(|k| s.get(k))
    }
    /// Every instance ever in the domain (newest name wins), sorted by id.
    pub fn indom_union(&self, indom: InDom) -> Vec<(i32, Arc<str>)> {
        let mut m: BTreeMap<i32, Arc<str>> = BTreeMap::new();
        // a run shared by several sets is looked at once (its newest holder's)
        let mut seen: HashSet<*const Entry, foldhash::fast::RandomState> = HashSet::default();
        for s in self.snapshots(indom).iter().rev() {
            for run in &s.instances.runs {
                if !seen.insert(run.as_ptr()) {
                    continue;
                }
                for (i, n) in run.iter() {
                    m.entry(*i).or_insert_with(|| n.clone());
                }
            }
        }
        m.into_iter().collect()
    }
    /// Label-set records in file order.
    pub fn labels(&self) -> &[LabelRecord] {
        &self.labels
    }
    /// Help text keyed by `(PM_TEXT_* type, identifier)`.
    pub fn texts(&self) -> &BTreeMap<(u32, u32), String> {
        &self.texts
    }
    /// Help text of one kind for one PMID or InDom.
    pub fn text(&self, ttype: u32, ident: u32) -> Option<&str> {
        self.texts.get(&(ttype, ident)).map(|s| s.as_str())
    }
    /// Help text as libpcp's `pmLookupText` finds it in an archive: `ttype` is
    /// `PM_TEXT_ONELINE` or `PM_TEXT_HELP` with `PM_TEXT_PMID` or
    /// `PM_TEXT_INDOM`; help that is missing or empty falls back to the one-line
    /// text. `Err(PM_ERR_NOTHOST)` where the archive has no text of the kind at
    /// all, `Err(PM_ERR_TEXT)` where it has none for `ident`.
    pub fn lookup_text(&self, ident: u32, ttype: u32) -> Result<&str, i32> {
        use crate::codec::meta::text_type as tt;
        let find = |ty: u32| -> Result<&str, i32> {
            if !self.texts.keys().any(|&(t, _)| t == ty) {
                return Err(crate::error::PM_ERR_NOTHOST);
            }
            self.text(ty, ident).ok_or(crate::error::PM_ERR_TEXT)
        };
        match find(ttype) {
            Ok(s) if !s.is_empty() || ttype & tt::HELP == 0 => Ok(s),
            Err(e) if ttype & tt::HELP == 0 => Err(e),
            _ => find((ttype & !tt::HELP) | tt::ONELINE),
        }
    }
    /// Labels of one kind for an identifier at time `t` (newest record at or before).
    pub fn labels_at(&self, ltype: u32, ident: u32, t: Timestamp) -> Option<&LabelRecord> {
        self.labels
            .iter()
            .filter(|l| l.ltype == ltype && l.ident == ident && l.stamp <= t)
            .max_by_key(|l| l.stamp)
    }
}

/// Label type name as pmdumplog prints a label's class.
pub fn label_class(flags: u8) -> &'static str {
    match flags as u32 & !(label_type::COMPOUND | label_type::OPTIONAL) {
        label_type::CONTEXT => "context",
        label_type::DOMAIN => "domain",
        label_type::INDOM => "indom",
        label_type::CLUSTER => "cluster",
        label_type::ITEM => "pmid",
        label_type::INSTANCES => "instances",
        _ => "?",
    }
}

/// libpcp's test for a repeated label set: same instance, same number of labels, and
/// each label's name found in the other set with the same value.
fn same_label_set(a: &LabelSet, b: &LabelSet) -> bool {
    if a.inst != b.inst || a.nlabels != b.nlabels {
        return false;
    }
    fn part(s: &LabelSet, off: u16, len: usize) -> &[u8] {
        s.json
            .as_bytes()
            .get(off as usize..off as usize + len)
            .unwrap_or_default()
    }
    a.labels.iter().all(|la| {
        let name = part(a, la.name_off, la.name_len as usize);
        match b.labels.iter().find(|lb| {
            lb.name_len == la.name_len && part(b, lb.name_off, lb.name_len as usize) == name
        }) {
            Some(lb) => {
                lb.value_len == la.value_len
                    && part(b, lb.value_off, lb.value_len as usize)
                        == part(a, la.value_off, la.value_len as usize)
            }
            None => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Labels<'a> = &'a [(&'a str, &'a str, bool)];

    /// A sorted instance set from ids (names made from the ids, interned).
    fn set_of(ids: &[i32], names: &mut Names) -> Vec<Entry> {
        let mut ids = ids.to_vec();
        ids.sort();
        ids.iter()
            .map(|&i| (i, intern(names, format!("inst {i}"))))
            .collect()
    }

    proptest! {
        /// A set held as runs reads back as the set, finds what a binary search
        /// of it finds, and shares every run of the set it is built like that
        /// it holds whole.
        #[test]
        fn instance_runs_read_back_and_share(
            before in proptest::collection::vec(0i32..3000, 0..400),
            gone in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
            added in proptest::collection::vec(0i32..3000, 0..6),
            probes in proptest::collection::vec(-5i32..3005, 0..40),
        ) {
            let mut names = Names::default();
            let old = set_of(&before, &mut names);
            let like = Instances::build(&old, None);
            prop_assert_eq!(like.to_vec(), old.clone());
            prop_assert_eq!(like.len(), old.len());
            // the next set: a few instances gone, a few come
            let mut ids = before.clone();
            for g in &gone {
                if !ids.is_empty() {
                    ids.remove(g.index(ids.len()));
                }
            }
            ids.extend(&added);
            let new = set_of(&ids, &mut names);
            let next = Instances::build(&new, Some(&like));
            prop_assert_eq!(next.to_vec(), new.clone());
            prop_assert_eq!(&next, &Instances::from(new.clone()));
            for p in probes {
                let want = new.binary_search_by_key(&p, |(i, _)| *i).is_ok();
                prop_assert_eq!(next.find(p).is_some(), want);
                if let Some((i, n)) = next.find(p) {
                    prop_assert_eq!(*i, p);
                    let want = format!("inst {p}");
                    prop_assert_eq!(&**n, want.as_str());
                }
            }
            // (sharing is looked for by a run's first id: an instance domain has
            // each id once, except in a damaged archive)
            let unique = new.windows(2).all(|w| w[0].0 != w[1].0);
            // the same set again shares all of its runs
            let again = Instances::build(&new, Some(&next));
            prop_assert_eq!(again.to_vec(), new.clone());
            if unique {
                prop_assert_eq!(again.runs.len(), next.runs.len());
                for (a, b) in again.runs.iter().zip(&next.runs) {
                    prop_assert!(Arc::ptr_eq(a, b));
                }
            }
            // a set that changed in a few places shares the rest of the runs of the
            // one before: a change costs a run or two
            let old_unique = old.windows(2).all(|w| w[0].0 != w[1].0);
            if unique && old_unique {
                let fresh = next
                    .runs
                    .iter()
                    .filter(|r| !like.runs.iter().any(|l| Arc::ptr_eq(r, l)))
                    .count();
                prop_assert!(fresh <= 2 * (gone.len() + added.len()) + 1, "{} new runs", fresh);
            }
            // the union of the sets, newest name first, as a naive one
            let mut m = Metadata::default();
            let dom = InDom(7);
            m.snapshots.insert(dom, vec![
                Snapshot { stamp: Timestamp::new(1, 0), instances: like.clone() },
                Snapshot { stamp: Timestamp::new(2, 0), instances: next.clone() },
                Snapshot { stamp: Timestamp::new(3, 0), instances: again.clone() },
            ]);
            let mut naive: BTreeMap<i32, Arc<str>> = BTreeMap::new();
            for (i, n) in again.iter().chain(next.iter()).chain(like.iter()) {
                naive.entry(*i).or_insert_with(|| n.clone());
            }
            prop_assert_eq!(m.indom_union(dom), naive.into_iter().collect::<Vec<_>>());
            // an unchanged set shares every run of the one before
            if unique && gone.is_empty() && added.is_empty() {
                prop_assert!(next.runs.iter().zip(&like.runs).all(|(a, b)| Arc::ptr_eq(a, b)));
            }
        }
    }

    fn rec(sec: i64, ident: u32, sets: &[(i32, Labels<'_>)]) -> LabelRecord {
        LabelRecord {
            stamp: Timestamp::new(sec, 0),
            ltype: label_type::INSTANCES,
            ident,
            sets: sets
                .iter()
                .map(|(inst, l)| LabelSet::from_labels(*inst, 0x20, l).expect("labels"))
                .collect(),
        }
    }

    #[test]
    fn repeated_label_sets_go_as_libpcp_drops_them() {
        let mut m = Metadata::default();
        let a: Labels<'_> = &[("k", "\"a\""), ("n", "1")].map(|(x, y)| (x, y, false));
        let b: Labels<'_> = &[("k", "\"b\"", false)];
        m.labels = vec![
            rec(10, 7, &[(1, a), (2, b)]),
            // a later record repeating both sets: dropped whole
            rec(20, 7, &[(2, b), (1, a)]),
            // a change for one instance: only that set stays
            rec(30, 7, &[(1, b), (2, b)]),
            // another identifier is its own chain
            rec(40, 8, &[(1, a)]),
        ];
        m.drop_repeated_labels();
        let got: Vec<(i64, u32, Vec<i32>)> = m
            .labels
            .iter()
            .map(|l| {
                (
                    l.stamp.sec,
                    l.ident,
                    l.sets.iter().map(|s| s.inst).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![(10, 7, vec![1, 2]), (30, 7, vec![1]), (40, 8, vec![1])]
        );
    }
}
