//! Label records after every file is read, as pmlogrewrite's `link_entries`
//! and `check_indoms` take them: the labels of a moved instance domain, and
//! of a renumbered metric's domain, cluster and item, follow them (a label
//! rule moving them elsewhere is a semantic error); moved labels must find
//! their instance domain in the output. And what `-v` reports of the label
//! rules.

use crate::config::Config;
use crate::parse::Stop;
use crate::rules::{label, LabelSpec};
use archive_format::codec::meta::{label_type as lt, LabelSet, MetaRecord};
use archive_format::types::{InDom, PmId};

/// The type and identifier libpcp files a label record under.
fn key(ltype: u32, ident: u32) -> (u32, u32) {
    let t = ltype & !(lt::COMPOUND | lt::OPTIONAL);
    (t, if t == lt::CONTEXT { u32::MAX } else { ident })
}

/// The input's label records as libpcp's hash tables walk them: each type,
/// and each type's identifiers.
pub(crate) fn archive_label_ids(records: &[MetaRecord]) -> Vec<(u32, Vec<u32>)> {
    use archive_format::hashorder::hash_order;
    let mut types: Vec<u32> = Vec::new();
    let mut ids: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for r in records {
        if let MetaRecord::Label { ltype, ident, .. } = *r {
            let (t, id) = key(ltype, ident);
            if !types.contains(&t) {
                types.push(t);
            }
            let list = ids.entry(t).or_default();
            if !list.contains(&id) {
                list.push(id);
            }
        }
    }
    hash_order(&types)
        .into_iter()
        .map(|t| (t, hash_order(ids.get(&t).map_or(&[][..], |v| v.as_slice()))))
        .collect()
}

/// The instances of the sets of the newest record of (`ltype`, `ident`) (the
/// first of that time), as libpcp's chain begins.
fn head_insts(records: &[MetaRecord], ltype: u32, ident: u32) -> Vec<i32> {
    let mut best: Option<(archive_format::types::Timestamp, &Vec<LabelSet>)> = None;
    for r in records {
        if let MetaRecord::Label {
            stamp,
            ltype: t,
            ident: i,
            sets,
            ..
        } = r
        {
            if key(*t, *i) == (ltype, ident) && best.is_none_or(|(b, _)| *stamp > b) {
                best = Some((*stamp, sets));
            }
        }
    }
    best.map_or(Vec::new(), |(_, sets)| {
        sets.iter().map(|s| s.inst).collect()
    })
}

impl Config<'_> {
    /// The labels of each moved instance domain and renumbered metric follow
    /// them.
    pub(crate) fn link_labels(&mut self) -> Result<(), Stop> {
        let ids = self.label_ids.clone();
        for k in (0..self.rules.indoms.len()).rev() {
            let ip = self.rules.indoms[k].clone();
            if !ip.changes() {
                continue;
            }
            let change = ip.insts.iter().any(|x| x.flags != 0);
            for (t, list) in ids
                .iter()
                .filter(|(t, _)| t & (lt::INDOM | lt::INSTANCES) != 0)
            {
                if !list.contains(&ip.old.0) {
                    continue;
                }
                for inst in head_insts(self.records, *t, ip.old.0) {
                    let i = self.label_entry(*t, ip.old.0, inst);
                    if change {
                        self.rules.labels[i].ip = Some(k);
                    }
                    if ip.new != ip.old {
                        self.label_follows(i, ip.new.0, |from, _| {
                            format!("Conflicting indom change for label set ({} from text clause, {} from indom clause)", InDom(from), ip.new)
                        })?;
                    }
                }
            }
        }
        for k in (0..self.rules.metrics.len()).rev() {
            let (o, n) = (
                self.rules.metrics[k].old.pmid,
                self.rules.metrics[k].new.pmid,
            );
            if o == n {
                continue;
            }
            for (t, list) in &ids {
                let (old, new) = match *t {
                    lt::DOMAIN => (o.domain(), n.domain()),
                    lt::CLUSTER => (o.domain() | o.cluster(), n.domain() | n.cluster()),
                    lt::ITEM => (o.0, n.0),
                    _ => continue,
                };
                for _ in list.iter().filter(|&&x| x == old) {
                    let i = self.label_entry(*t, old, 0);
                    if old != new {
                        self.label_follows(i, new, |from, _| {
                            format!("Conflicting pmid change for help label ({} from label clause, {n} from pmid clause)", PmId(from))
                        })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `start_label` without a name or value to match.
    fn label_entry(&mut self, ltype: u32, id: u32, inst: i32) -> usize {
        let line = self.line;
        let pick = crate::label::Pick {
            instance: inst,
            ..Default::default()
        };
        self.start_label(ltype, id, pick, line).unwrap_or_default()
    }

    /// A label record follows its owner's new identifier.
    fn label_follows(
        &mut self,
        i: usize,
        new: u32,
        conflict: impl Fn(u32, u32) -> String,
    ) -> Result<(), Stop> {
        let lp = &mut self.rules.labels[i];
        if lp.flags & label::CHANGE_ID != 0 {
            if lp.new_id != new {
                return Err(Stop::Semantic(conflict(lp.new_id, new)));
            }
            return Ok(());
        }
        lp.flags |= label::CHANGE_ID;
        lp.new_id = new;
        Ok(())
    }

    /// Labels moved to another instance domain must find it in the output
    /// (unless the domain's instances change).
    pub(crate) fn check_label_indoms(&self) -> Result<(), Stop> {
        let indoms: Vec<InDom> = self.meta.map(|m| m.indoms_hash_order()).unwrap_or_default();
        for lp in self.rules.labels.iter().rev() {
            if lp.ip.is_some()
                || lp.ltype & (lt::INDOM | lt::INSTANCES) == 0
                || lp.flags & label::CHANGE_ID == 0
            {
                continue;
            }
            let to = InDom(lp.new_id);
            let rule = self
                .rules
                .indoms
                .iter()
                .rev()
                .find(|ip| ip.old.0 == lp.old_id);
            let found = indoms.iter().any(|&node| match rule {
                None => node == to,
                Some(ip) => ip.new != ip.old && ip.new == to,
            });
            if !found {
                return Err(Stop::Semantic(format!(
                    "New indom ({to}) for label set {} is not in the output archive",
                    ident_string(lp.new_id, lp.ltype)
                )));
            }
        }
        Ok(())
    }
}

/// `__pmLabelIdentString`.
pub(crate) fn ident_string(id: u32, ltype: u32) -> String {
    let p = PmId(id);
    match ltype & !(lt::COMPOUND | lt::OPTIONAL) {
        lt::DOMAIN => format!("Domain {id}"),
        lt::INDOM | lt::INSTANCES => format!("InDom {}", InDom(id)),
        lt::CLUSTER => {
            let s = p.to_string();
            format!(
                "Cluster {}",
                s.rsplit_once('.').map_or(s.as_str(), |(a, _)| a)
            )
        }
        lt::ITEM => format!("PMID {p}"),
        lt::CONTEXT => "Context".into(),
        _ => String::new(),
    }
}

/// pmlogrewrite's `labelIDStr`.
fn id_str(id: u32, ltype: u32) -> String {
    match ltype {
        lt::CONTEXT => String::new(),
        lt::DOMAIN => format!("Domain {id}"),
        lt::CLUSTER => format!("Cluster {}", PmId(id)),
        lt::ITEM => format!("PMID {}", PmId(id)),
        lt::INDOM => format!("Indom {}", InDom(id)),
        lt::INSTANCES => format!("Instances {}", InDom(id)),
        _ => "Unknown".into(),
    }
}

/// `pmPrintLabelSets` of one set.
fn print_set(id: u32, ltype: u32, s: &LabelSet) -> String {
    let who = ident_string(id, ltype);
    let mut out = if ltype & lt::INSTANCES != 0 {
        format!(
            "    {who}[{}] labels ({} bytes): {}\n",
            s.inst as u32,
            s.json.len(),
            s.json
        )
    } else {
        format!("    {who} labels ({} bytes): {}\n", s.json.len(), s.json)
    };
    for (i, l) in s.labels.iter().enumerate() {
        let flags = archive_format::labels::flag_string(l.flags);
        out.push_str(&format!(
            "        [{i}] name({},{}) : value({},{}) [{flags}]\n",
            l.name_off, l.name_len, l.value_off, l.value_len
        ));
    }
    out
}

/// What `-v` reports of the label rules (the last named first), and whether
/// any changes something.
pub(crate) fn report(labels: &[LabelSpec]) -> (String, bool) {
    let mut out = String::new();
    let mut change = false;
    for lp in labels.iter().rev() {
        if lp.flags != 0 {
            change = true;
            out.push_str(&format!("\nLabel: {}", ident_string(lp.old_id, lp.ltype)));
            if lp.ltype == lt::INSTANCES {
                if lp.old_instance != -1 {
                    out.push_str(&format!(", Instance: {}", lp.old_instance));
                } else {
                    out.push_str(", Instances: ALL");
                }
            }
            if let Some(l) = &lp.old_label {
                out.push_str(&format!(", Label: {l}"));
            }
            if let Some(v) = &lp.old_value {
                out.push_str(&format!(", Value: {v}"));
            }
            out.push('\n');
        }
        if let (true, Some(s)) = (lp.flags & label::NEW != 0, &lp.new_labels) {
            out.push_str("NEW:\n");
            out.push_str(&print_set(lp.new_id, lp.ltype, s));
        }
        if lp.flags & label::CHANGE_ID != 0 {
            out.push_str(&format!(
                "ID:\t\t{} -> {}\n",
                id_str(lp.old_id, lp.ltype),
                id_str(lp.new_id, lp.ltype)
            ));
        }
        let all = |o: &Option<String>| o.clone().unwrap_or_else(|| "ALL".into());
        if lp.flags & label::CHANGE_LABEL != 0 {
            let new = lp.new_label.as_deref().unwrap_or("(null)");
            out.push_str(&format!("Label:\t\t{} -> {new}\n", all(&lp.old_label)));
        }
        if lp.flags & label::CHANGE_VALUE != 0 {
            let new = lp.new_value.as_deref().unwrap_or("(null)");
            out.push_str(&format!("Value:\t\t{} -> {new}\n", all(&lp.old_value)));
        }
        if lp.flags & label::DELETE != 0 {
            out.push_str("DELETE\n");
        }
    }
    (out, change)
}
