//! The metadata of every input, gathered as pmlogextract 6.0.3 gathers it before
//! copying any data: one wanted record from each input in turn, descriptors checked
//! against each other, instance domains and label sets kept per identifier in the
//! order they arrive, help text keeping the latest. Then written on demand, just
//! before the first data record that needs it.

use archive_format::codec::meta::{LabelSet, MetaRecord};
use archive_format::hashorder::ChainTable;
use archive_format::types::{sem, vtype};
use archive_format::{Desc, InDom, PmId, Timestamp};
// (foldhash: these tables are looked up per record and metric; see Cargo.toml)
use foldhash::HashMap;

/// A descriptor with its names.
#[derive(Debug, Clone)]
pub struct DescEntry {
    pub desc: Desc,
    pub names: Vec<String>,
    pub written: bool,
}

/// One instance-domain record of an input, in full form.
#[derive(Debug, Clone)]
pub struct InDomRec {
    pub stamp: Timestamp,
    /// The record was a v2 one (and stays v2 in v2 output).
    pub v2: bool,
    /// Instances in the order the record holds them.
    pub instances: Vec<(i32, String)>,
    pub written: bool,
}

/// The instance-domain records of one instance domain.
#[derive(Debug, Clone, Default)]
pub struct InDomList {
    pub recs: Vec<InDomRec>,
    pub sorted: bool,
    /// Labels and help of an instance domain that has no records are looked for
    /// with every data record (they are written once anyway).
    pub virtual_written: bool,
}

/// A label-set record of an input.
#[derive(Debug, Clone)]
pub struct LabelRec {
    pub stamp: Timestamp,
    pub sets: Vec<LabelSet>,
    pub written: bool,
}

/// A help text and whether it was written.
#[derive(Debug, Clone)]
pub struct TextRec {
    pub text: String,
    pub written: bool,
}

/// Everything gathered.
#[derive(Debug, Default)]
pub struct Gathered {
    pub descs: HashMap<PmId, DescEntry>,
    names: HashMap<String, PmId>,
    pub indoms: HashMap<InDom, InDomList>,
    /// Per label type, the records in a model of the reference's hash table: only
    /// the record its search finds for an identifier is ever written.
    pub labels: HashMap<u32, ChainTable<LabelRec>>,
    /// Keyed by (ONELINE|HELP bit, PMID|INDOM bit, ident).
    pub texts: HashMap<(u32, u32), TextRec>,
    /// PMIDs dropped by -x.
    pub skipped: Vec<PmId>,
    /// Label records and texts not yet written (when none are left, data records
    /// need no lookups for them).
    pub unwritten_labels: usize,
    pub unwritten_texts: usize,
    /// Instance domain records not written yet.
    pub unwritten_indoms: usize,
}

/// What `-c` keeps: metrics (with their instances, `None` for all) and the
/// instance domains of those metrics.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub metrics: HashMap<PmId, Option<Vec<i32>>>,
    pub indoms: foldhash::HashSet<u32>,
    /// The configuration named metrics the inputs have (even when none of the
    /// instances it named exist, which leaves nothing to extract).
    pub named: bool,
}

/// A descriptor conflict: the message and whether it is fatal.
pub struct Conflict(pub String);

fn sem_word(s: i32) -> String {
    match s {
        sem::COUNTER => "counter".into(),
        sem::INSTANT => "instant".into(),
        sem::DISCRETE => "discrete".into(),
        n => format!("unknown ({n})"),
    }
}

fn type_word(t: i32) -> String {
    vtype::short_name(t).to_string()
}

impl Gathered {
    fn skip(&mut self, pmid: PmId) {
        if !self.skipped.contains(&pmid) {
            self.skipped.push(pmid);
        }
    }

    /// `update_descreclist`: a descriptor from an input. Returns the messages of any
    /// conflicts (each fatal unless `-x`, which skips the metric instead).
    pub fn add_desc(&mut self, desc: Desc, names: Vec<String>, x: bool) -> Vec<Conflict> {
        let level = if x { "Warning" } else { "Error" };
        let mut out = Vec::new();
        let mut others: Vec<PmId> = names
            .iter()
            .filter_map(|n| self.names.get(n).copied())
            .filter(|p| *p != desc.pmid)
            .collect();
        others.dedup();
        for other in others {
            let old = self.descs[&other].names.join(", ");
            out.push(Conflict(format!(
                "pmlogextract: {level}: metric {old}: PMID changed from {other} to {}!",
                desc.pmid
            )));
            self.skip(other);
            if !x {
                return out;
            }
        }
        match self.descs.get(&desc.pmid) {
            None => {
                for n in &names {
                    self.names.entry(n.clone()).or_insert(desc.pmid);
                }
                self.indoms.entry(desc.indom).or_default();
                self.descs.insert(
                    desc.pmid,
                    DescEntry {
                        desc,
                        names,
                        written: false,
                    },
                );
            }
            Some(cur) => {
                let old_names = cur.names.join(", ");
                let same_names = {
                    let a: std::collections::BTreeSet<&String> = cur.names.iter().collect();
                    let b: std::collections::BTreeSet<&String> = names.iter().collect();
                    !a.is_empty() && a == b
                };
                let old = cur.desc;
                let mut msgs = Vec::new();
                if !same_names {
                    msgs.push(format!(
                        "pmlogextract: {level}: metric PMID {}: name changed from {old_names} to {}!",
                        desc.pmid,
                        names.join(", ")
                    ));
                }
                if old.vtype != desc.vtype {
                    msgs.push(format!(
                        "pmlogextract: {level}: metric {old_names}: type changed from {} to {}!",
                        type_word(old.vtype),
                        type_word(desc.vtype)
                    ));
                }
                if old.indom != desc.indom {
                    msgs.push(format!(
                        "pmlogextract: {level}: metric {old_names}: indom changed from {} to {}!",
                        old.indom, desc.indom
                    ));
                }
                if old.sem != desc.sem {
                    msgs.push(format!(
                        "pmlogextract: {level}: metric {old_names}: semantics changed from {} to {}!",
                        sem_word(old.sem),
                        sem_word(desc.sem)
                    ));
                }
                if old.units != desc.units {
                    msgs.push(format!(
                        "pmlogextract: {level}: metric {old_names}: units changed from {} to {}!",
                        old.units, desc.units
                    ));
                }
                for m in msgs {
                    out.push(Conflict(m));
                    self.skip(desc.pmid);
                    if !x {
                        return out;
                    }
                }
            }
        }
        out
    }

    pub fn add_indom(&mut self, indom: InDom, rec: InDomRec) {
        let l = self.indoms.entry(indom).or_default();
        l.recs.push(rec);
        l.sorted = false;
    }

    /// A label-set record (every one is kept, as the reference's hash table keeps
    /// duplicate keys).
    pub fn add_label(&mut self, ltype: u32, ident: u32, stamp: Timestamp, sets: Vec<LabelSet>) {
        self.labels.entry(ltype).or_default().insert(
            ident,
            LabelRec {
                stamp,
                sets,
                written: false,
            },
        );
    }

    /// Counts what can still be written (after gathering): the label records the
    /// table lookup finds, and the texts.
    pub fn count_pending(&mut self) {
        let mut n = 0;
        for t in self.labels.values() {
            let mut keys = t.keys();
            keys.sort_unstable();
            keys.dedup();
            n += keys.len();
        }
        self.unwritten_labels = n;
        self.unwritten_texts = self.texts.len();
        self.unwritten_indoms = self.indoms.values().map(|l| l.recs.len()).sum();
    }

    pub fn add_text(&mut self, ttype: u32, ident: u32, text: String) {
        // a later text replaces an earlier one for the same thing
        self.texts.insert(
            (ttype & 0x0f, ident),
            TextRec {
                text,
                written: false,
            },
        );
    }

    /// The instance-domain record to write with a data record at `t`, as
    /// pmlogextract's `indom_closest` finds it: with one record, that one whatever
    /// its time; else the one at `t` or the latest before it.
    pub fn closest_indom(&mut self, indom: InDom, t: Timestamp) -> Option<usize> {
        let l = self.indoms.get_mut(&indom)?;
        if l.recs.is_empty() {
            return None;
        }
        if l.recs.len() == 1 {
            return Some(0);
        }
        if !l.sorted {
            l.recs.sort_by_key(|r| r.stamp);
            l.sorted = true;
        }
        let stamps: Vec<Timestamp> = l.recs.iter().map(|r| r.stamp).collect();
        binary_closest(&stamps, t)
    }
}

/// The binary search of pmlogextract's `indom_closest` (sorted stamps, at least two).
fn binary_closest(stamps: &[Timestamp], t: Timestamp) -> Option<usize> {
    let count = stamps.len() - 1;
    let (mut first, mut last) = (0usize, count);
    let mut middle = (first + last) / 2;
    let mut previous = middle;
    let mut cmp = std::cmp::Ordering::Less;
    while first <= last {
        cmp = stamps[middle].cmp(&t);
        if cmp == std::cmp::Ordering::Equal {
            return Some(middle);
        }
        previous = middle;
        if cmp == std::cmp::Ordering::Less {
            if middle == count {
                break;
            }
            first = middle + 1;
        } else {
            if middle == 0 {
                break;
            }
            last = middle - 1;
        }
        middle = (first + last) / 2;
    }
    if previous != middle {
        cmp = stamps[middle].cmp(&t);
    }
    (cmp == std::cmp::Ordering::Less).then_some(middle)
}

/// Whether a metadata record is kept under `-c` (`want`) and `-x` (`skipped`).
pub fn wanted(rec: &MetaRecord, want: Option<&Selection>, skipped: &[PmId]) -> bool {
    if let MetaRecord::Desc { desc, .. } = rec {
        if skipped.contains(&desc.pmid) {
            return false;
        }
    }
    let Some(w) = want else {
        return true;
    };
    match rec {
        MetaRecord::Desc { desc, .. } => w.metrics.contains_key(&desc.pmid),
        MetaRecord::InDom { indom, .. } => w.indoms.contains(&indom.0),
        MetaRecord::Label { ltype, ident, .. } => match *ltype {
            1 => true,
            // the reference takes the domain bits of the identifier as of a PMID,
            // which a domain label's identifier (the bare domain number) lacks
            2 => w
                .metrics
                .keys()
                .any(|p| p.domain() == PmId(*ident).domain()),
            8 => w.metrics.keys().any(|p| p.0 & !0x3ff == *ident & !0x3ff),
            0x10 => w.metrics.contains_key(&PmId(*ident)),
            _ => w.indoms.contains(ident),
        },
        MetaRecord::Text { ttype, ident, .. } => {
            if ttype & 4 != 0 {
                w.metrics.contains_key(&PmId(*ident))
            } else {
                w.indoms.contains(ident)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: i64) -> Timestamp {
        Timestamp::new(s, 0)
    }

    #[test]
    fn closest_is_exact_or_latest_before() {
        let st: Vec<Timestamp> = [10, 20, 30, 40].iter().map(|s| ts(*s)).collect();
        assert_eq!(binary_closest(&st, ts(5)), None);
        assert_eq!(binary_closest(&st, ts(10)), Some(0));
        assert_eq!(binary_closest(&st, ts(25)), Some(1));
        assert_eq!(binary_closest(&st, ts(40)), Some(3));
        assert_eq!(binary_closest(&st, ts(99)), Some(3));
    }
}
