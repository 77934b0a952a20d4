//! The indom clause's actions, as pmlogrewrite takes them: the instance
//! domain (or every one of a `domain.*`) entered in the rules' list with the
//! instances the input ever has, and its new identifier, the domain moved or
//! duplicated. After every file, each metric defined over a moved domain
//! moves with it (pmlogrewrite's `link_entries`), as do the domain's help
//! text.

use crate::config::Config;
use crate::metric::inst_name_eq;
use crate::parse::{Stop, Val};
use crate::rules::{change, inst, IndomSpec, InstSpec};
use archive_format::error::{pm_err_str, PM_ERR_INDOM_LOG};
use archive_format::types::InDom;

impl Config<'_> {
    /// `start_indom`: the domain's place in the list, entered the first time;
    /// `None` where the input has no such domain.
    pub(crate) fn start_indom(&mut self, indom: InDom, line: usize) -> Option<usize> {
        if let Some(i) = self.rules.indoms.iter().position(|x| x.old == indom) {
            return Some(i);
        }
        let records = self.records;
        let list = self
            .instances
            .entry(indom)
            .or_insert_with(|| archive_instances(records, indom));
        let Some(list) = list.clone() else {
            if self.warnings {
                let e = pm_err_str(PM_ERR_INDOM_LOG);
                self.warn(line, format!("Instance domain {indom}: {e}"));
            }
            return None;
        };
        let insts = list
            .into_iter()
            .map(|(i, n)| InstSpec {
                old_inst: i,
                old_name: n,
                new_inst: i,
                new_name: None,
                flags: 0,
            })
            .collect();
        self.rules.indoms.push(IndomSpec {
            old: indom,
            new: indom,
            duplicate: false,
            insts,
        });
        Some(self.rules.indoms.len() - 1)
    }

    /// The indom rule's header.
    pub(crate) fn indom_begin(&mut self, indom: u32, line: usize) {
        let indom = InDom(indom);
        if self.sel.star_indom {
            let all: Vec<InDom> = self.meta.map(|m| m.indoms_hash_order()).unwrap_or_default();
            for i in all.into_iter().filter(|i| i.domain() == indom.domain()) {
                self.start_indom(i, line);
            }
            self.indom_sel = (Some(indom.domain()), None);
        } else {
            let current = self.start_indom(indom, line);
            self.indom_sel = (None, current);
        }
    }

    /// The domains an indom clause applies to, in the list's order.
    fn indom_walk(&self) -> Vec<usize> {
        match self.indom_sel {
            (Some(domain), _) => (0..self.rules.indoms.len())
                .rev()
                .filter(|&i| self.rules.indoms[i].old.domain() == domain)
                .collect(),
            (None, current) => current.into_iter().collect(),
        }
    }

    /// A clause of an indom rule: `indom -> [duplicate] d.s`, `iname "a" ->
    /// "b"|delete`, `inst n -> m|delete`.
    pub(crate) fn indom_clause(
        &mut self,
        marker: &str,
        rhs: &[Val],
        line: usize,
    ) -> Result<(), Stop> {
        let clause = marker.strip_prefix("indomopt:").unwrap_or(marker);
        let by_name = |v: &Val| Target::Name(v.text().to_string());
        match clause {
            "indom_assign_duplicateopt_indom_int" => {}
            "iname_string_assign_string" => {
                return self.change_insts(by_name(&rhs[1]), Some(by_name(&rhs[3])), line)
            }
            "iname_string_assign_delete" => return self.change_insts(by_name(&rhs[1]), None, line),
            "inst_number_assign_number" => {
                let (a, b) = (rhs[1].int() as i32, rhs[3].int() as i32);
                return self.change_insts(Target::Inst(a), Some(Target::Inst(b)), line);
            }
            "inst_number_assign_delete" => {
                return self.change_insts(Target::Inst(rhs[1].int() as i32), None, line)
            }
            _ => return Err(self.cut_short_indom(clause, line)),
        }
        let (dup, to) = (rhs[2].int() == 1, InDom(rhs[3].int() as u32));
        for i in self.indom_walk() {
            // (pmlogrewrite looks at the list's head for a repeat)
            if let Some(head) = self.rules.indoms.last() {
                if head.new != head.old {
                    let msg = format!("Duplicate indom clause for indom {}", head.old);
                    return Err(self.error(line, msg));
                }
            }
            let old = self.rules.indoms[i].old;
            let new = if self.sel.star_indom {
                InDom::new(to.domain(), old.serial())
            } else {
                to
            };
            if new != old {
                self.rules.indoms[i].new = new;
            } else if self.warnings {
                self.warn(line, format!("Instance domain {old}: indom: No change"));
            }
            self.rules.indoms[i].duplicate |= dup;
        }
        Ok(())
    }

    /// An instance clause on each domain of the rule (pmlogrewrite's
    /// `change_inst_by_name` and `change_inst_by_inst`).
    fn change_insts(&mut self, old: Target, new: Option<Target>, line: usize) -> Result<(), Stop> {
        for k in self.indom_walk() {
            let indom = self.rules.indoms[k].old;
            let found = self.rules.indoms[k].insts.iter().position(|x| match &old {
                Target::Name(n) => inst_name_eq(&x.old_name, n) > 0,
                Target::Inst(i) => x.old_inst == *i,
            });
            let Some(i) = found else {
                if self.warnings {
                    let msg = match &old {
                        Target::Name(n) => {
                            format!("Unknown instance \"{n}\" in iname clause for indom {indom}")
                        }
                        Target::Inst(i) => {
                            format!("Unknown instance {i} in inst clause for indom {indom}")
                        }
                    };
                    self.warn(line, msg);
                }
                continue;
            };
            let x = &self.rules.indoms[k].insts[i];
            let same_kind = match old {
                Target::Name(_) => inst::CHANGE_INAME | inst::DELETE,
                Target::Inst(_) => inst::CHANGE_INST | inst::DELETE,
            };
            if (new.is_none() && x.flags != 0) || x.flags & same_kind != 0 {
                let msg = format!(
                    "Duplicate or conflicting clauses for instance [{}] \"{}\" of indom {indom}",
                    x.old_inst, x.old_name
                );
                return Err(self.error(line, msg));
            }
            let (old_inst, old_name) = (x.old_inst, x.old_name.clone());
            match new {
                None => {
                    let x = &mut self.rules.indoms[k].insts[i];
                    x.flags |= inst::DELETE;
                    x.new_name = None;
                    x.new_inst = crate::rules::NO_INST;
                }
                Some(Target::Name(ref n)) if *n == old_name => {
                    if self.warnings {
                        self.warn(
                            line,
                            format!("Instance domain {indom}: Instance: \"{n}\": No change"),
                        );
                    }
                }
                Some(Target::Name(ref n)) => {
                    let x = &mut self.rules.indoms[k].insts[i];
                    x.flags |= inst::CHANGE_INAME;
                    x.new_name = Some(n.clone());
                }
                Some(Target::Inst(n)) if n == old_inst => {
                    if self.warnings {
                        self.warn(
                            line,
                            format!("Instance domain {indom}: Instance: {n}: No change"),
                        );
                    }
                }
                Some(Target::Inst(n)) => {
                    let x = &mut self.rules.indoms[k].insts[i];
                    x.flags |= inst::CHANGE_INST;
                    x.new_inst = n;
                }
            }
        }
        Ok(())
    }

    fn cut_short_indom(&self, clause: &str, line: usize) -> Stop {
        let msg = match clause {
            "indom_assign" => "Expecting <domain>.<serial> or <domain>.* in indom clause",
            "indom" => "Expecting -> in indom clause",
            "iname_string_assign" => {
                "Expecting new external instance name string or DELETE in iname clause"
            }
            "iname_string" => "Expecting -> in iname clause",
            "iname" => "Expecting old external instance name string in iname clause",
            "inst_number_assign" => {
                "Expecting new internal instance identifier or DELETE in inst clause"
            }
            "inst_number" => "Expecting -> in inst clause",
            "inst" => "Expecting old internal instance identifier in inst clause",
            other => return Stop::Unsupported(format!("indomopt:{other}")),
        };
        self.error(line, msg)
    }

    /// Each metric over a moved domain moves with it (a metric clause moving
    /// it elsewhere is a semantic error), entering every metric of the input
    /// in the list as pmlogrewrite does; then the domain's help text.
    pub(crate) fn link_indoms(&mut self) -> Result<(), Stop> {
        let Some(meta) = self.meta else { return Ok(()) };
        let pmids: Vec<_> = meta.descs_hash_order().iter().map(|d| d.pmid).collect();
        for k in (0..self.rules.indoms.len()).rev() {
            let ip = self.rules.indoms[k].clone();
            if !ip.changes() {
                continue;
            }
            for &p in &pmids {
                let Some(i) = self.start_metric(p, self.line) else {
                    continue;
                };
                let m = &mut self.rules.metrics[i];
                if m.old.indom != ip.old || ip.new == ip.old {
                    continue;
                }
                if m.flags & change::INDOM != 0 {
                    if m.new.indom != ip.new {
                        return Err(Stop::Semantic(format!(
                            "Conflicting indom change for metric {} ({} from metric clause, {} from indom clause)",
                            m.old_name, m.new.indom, ip.new
                        )));
                    }
                } else {
                    m.flags |= change::INDOM;
                    m.new.indom = ip.new;
                }
            }
        }
        self.link_indom_texts()
    }

    /// The help text of a moved domain follows it.
    fn link_indom_texts(&mut self) -> Result<(), Stop> {
        use archive_format::codec::meta::text_type::INDOM;
        let types: Vec<u32> = self.text_ids.iter().map(|(t, _)| *t).collect();
        for k in (0..self.rules.indoms.len()).rev() {
            let ip = self.rules.indoms[k].clone();
            if !ip.changes() {
                continue;
            }
            for &t in types.iter().filter(|t| *t & INDOM != 0) {
                if !self.has_text(t, ip.old.0) {
                    continue;
                }
                let Some(i) = self.start_text(t, ip.old.0, None, self.line) else {
                    continue;
                };
                if ip.new != ip.old {
                    self.follow(i, ip.new.0, "indom", "indom")?;
                }
            }
        }
        Ok(())
    }

    /// A metric moved to another instance domain must find it in the output:
    /// a domain of the input no rule moves, or one a rule moves there.
    pub(crate) fn indom_in_output(&self, from: InDom, to: InDom) -> bool {
        let Some(meta) = self.meta else { return true };
        meta.indoms_hash_order().iter().any(|&node| {
            let ip = self
                .rules
                .indoms
                .iter()
                .rev()
                .find(|ip| ip.old == from || ip.new == to);
            match ip {
                None => node == to,
                Some(ip) => ip.new != ip.old && ip.new == to,
            }
        })
    }
}

/// An instance domain's instances: `(id, name)`.
type InstList = Vec<(i32, String)>;

/// An instance domain's sets as libpcp chains them: each record's set
/// (deltas resolved), the newest first (among sets of one time, the later
/// record first).
fn chain(
    records: &[archive_format::codec::meta::MetaRecord],
    want: InDom,
) -> Vec<(archive_format::types::Timestamp, InstList)> {
    use archive_format::codec::meta::MetaRecord;
    use archive_format::writer::delta::resolve;
    let mut sets: Vec<(archive_format::types::Timestamp, InstList)> = Vec::new();
    for r in records {
        let MetaRecord::InDom {
            kind,
            stamp,
            indom,
            instances,
        } = r
        else {
            continue;
        };
        if *indom != want {
            continue;
        }
        let (_, set) = resolve(*kind, instances, sets.last().map(|(_, s)| s));
        sets.push((*stamp, set));
    }
    sets.reverse();
    sets.sort_by_key(|x| std::cmp::Reverse(x.0));
    sets
}

/// The instance ids of each of an instance domain's sets, newest first.
pub(crate) fn archive_chain(
    records: &[archive_format::codec::meta::MetaRecord],
    want: InDom,
) -> Vec<Vec<i32>> {
    chain(records, want)
        .into_iter()
        .map(|(_, set)| set.into_iter().map(|(i, _)| i).collect())
        .collect()
}

/// An instance domain's instances as libpcp's `pmGetInDomArchive` lists
/// them: the newest set's in its order, then each older set's not yet listed;
/// `None` where the input has no such domain.
pub(crate) fn archive_instances(
    records: &[archive_format::codec::meta::MetaRecord],
    want: InDom,
) -> Option<InstList> {
    let sets = chain(records, want);
    if sets.is_empty() {
        return None;
    }
    let mut out: InstList = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (_, set) in sets {
        for (i, n) in set {
            if seen.insert(i) {
                out.push((i, n));
            }
        }
    }
    Some(out)
}

/// An instance as a clause names it.
enum Target {
    Name(String),
    Inst(i32),
}
