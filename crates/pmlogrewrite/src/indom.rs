//! The indom clause's actions, as pmlogrewrite takes them: the instance
//! domain (or every one of a `domain.*`) entered in the rules' list with the
//! instances the input ever has, and its new identifier, the domain moved or
//! duplicated. After every file, each metric defined over a moved domain
//! moves with it (pmlogrewrite's `link_entries`), as do the domain's help
//! text.

use crate::config::Config;
use crate::parse::{Stop, Val};
use crate::rules::{change, IndomSpec, TextSpec};
use archive_format::error::{pm_err_str, PM_ERR_INDOM_LOG};
use archive_format::types::InDom;

impl Config<'_> {
    /// `start_indom`: the domain's place in the list, entered the first time;
    /// `None` where the input has no such domain.
    fn start_indom(&mut self, indom: InDom, line: usize) -> Option<usize> {
        if let Some(i) = self.rules.indoms.iter().position(|x| x.old == indom) {
            return Some(i);
        }
        let known = self.meta.is_some_and(|m| m.indoms().contains(&indom));
        if !known {
            if self.warnings {
                let e = pm_err_str(PM_ERR_INDOM_LOG);
                self.warn(line, format!("Instance domain {indom}: {e}"));
            }
            return None;
        }
        self.rules.indoms.push(IndomSpec {
            old: indom,
            new: indom,
            duplicate: false,
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

    /// A clause of an indom rule (`indom -> [duplicate] d.s`; the instance
    /// clauses are refused for now).
    pub(crate) fn indom_clause(
        &mut self,
        marker: &str,
        rhs: &[Val],
        line: usize,
    ) -> Result<(), Stop> {
        let clause = marker.strip_prefix("indomopt:").unwrap_or(marker);
        if clause != "indom_assign_duplicateopt_indom_int" {
            return Err(self.cut_short_indom(clause, line));
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
            if ip.new == ip.old {
                continue;
            }
            for &p in &pmids {
                let Some(i) = self.start_metric(p, self.line) else {
                    continue;
                };
                let m = &mut self.rules.metrics[i];
                if m.old.indom != ip.old {
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
        self.link_indom_texts();
        Ok(())
    }

    /// The help text of a moved domain follows it.
    fn link_indom_texts(&mut self) {
        use archive_format::codec::meta::text_type::INDOM;
        let Some(meta) = self.meta else { return };
        let mut types: Vec<u32> = meta.texts().keys().map(|(t, _)| *t).collect();
        types.dedup();
        let types = archive_format::hashorder::hash_order(&types);
        for k in (0..self.rules.indoms.len()).rev() {
            let ip = self.rules.indoms[k].clone();
            if ip.new == ip.old {
                continue;
            }
            for &t in types.iter().filter(|t| *t & INDOM != 0) {
                let Some(text) = meta.text(t, ip.old.0) else {
                    continue;
                };
                self.rules.texts.push(TextSpec {
                    ttype: t,
                    old_id: ip.old.0,
                    new_id: ip.new.0,
                    old_text: text.to_string(),
                });
            }
        }
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
