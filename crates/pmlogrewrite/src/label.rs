//! The label clause's actions, as pmlogrewrite takes them: the label records
//! of the context, or of a domain, cluster, metric, instance domain or its
//! instances (by number, name or all; by label name and value or all) entered
//! in the rules' list and marked as this rule's; each clause (`delete`,
//! `label ->`, `value ->`, a new identifier or instance, `new`) then applies to
//! the marked records, unmarking them as it goes. `new` adds a label to the
//! records of every metric or instance domain of the input it names. Where
//! pmlogrewrite 6.0.3 fails an assertion (a second clause after one record was
//! marked), ours goes on as PCP 7's does.

use crate::config::Config;
use crate::metric::inst_name_eq;
use crate::parse::{Stop, Val};
use crate::rules::{label, LabelSpec};
use archive_format::codec::meta::label_type as lt;
use archive_format::error::{pm_err_str, PM_ERR_INDOM_LOG};
use archive_format::types::{InDom, PmId};

/// `PM_ID_NULL`.
const ID_NULL: u32 = u32::MAX;

/// What the label rule being read has selected (pmlogrewrite's globals).
#[derive(Debug, Clone, Default)]
pub(crate) struct LabelSel {
    /// The label name and value selected (quoted JSON), or any.
    pub(crate) name: Option<String>,
    pub(crate) value: Option<String>,
    /// The instance of an instances rule (-1: all), or its name.
    pub(crate) instance: i32,
    pub(crate) instance_name: Option<String>,
    /// The domain, cluster, metric or instance domain the rule names.
    pub(crate) id: u32,
    /// The record marked last (or `None`, where the last lookup failed).
    pub(crate) current: Option<usize>,
    /// How many records were marked.
    pub(crate) found: usize,
}

/// What a rule selects a record's sets and labels by: an instance (-1: all)
/// or its name, a label's name and value (quoted JSON; `None`: any).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pick<'a> {
    pub(crate) instance: i32,
    pub(crate) instance_name: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
    pub(crate) value: Option<&'a str>,
}

/// A label record's owner as walk messages name it.
fn whose(lp: &LabelSpec) -> String {
    let p = PmId(lp.old_id);
    match lp.ltype {
        lt::CONTEXT => "context label".into(),
        lt::DOMAIN => format!("label for domain {}", p.domain()),
        lt::CLUSTER => format!("label for cluster {}.{}", p.domain(), p.cluster()),
        lt::ITEM => format!("label for metric {p}"),
        lt::INDOM => format!("label for indom {}", InDom(lp.old_id)),
        _ => format!("label for the instances of indom {}", InDom(lp.old_id)),
    }
}

impl Config<'_> {
    /// `start_label`: the record's place in the list (by type, identifier,
    /// instance, label name and value), entered the first time; `None` where
    /// an instance named is not in the domain.
    pub(crate) fn start_label(
        &mut self,
        ltype: u32,
        id: u32,
        pick: Pick<'_>,
        line: usize,
    ) -> Option<usize> {
        let Pick {
            mut instance,
            instance_name,
            name,
            value,
        } = pick;
        if let Some(want) = instance_name {
            let records = self.records;
            let list = self
                .instances
                .entry(InDom(id))
                .or_insert_with(|| crate::indom::archive_instances(records, InDom(id)))
                .clone();
            let Some(list) = list else {
                if self.warnings {
                    let e = pm_err_str(PM_ERR_INDOM_LOG);
                    self.warn(line, format!("Instance domain {}: {e}", InDom(id)));
                }
                return None;
            };
            match list.iter().find(|(_, n)| inst_name_eq(n, want) > 0) {
                Some((i, _)) => instance = *i,
                None => {
                    if self.warnings {
                        let d = InDom(id);
                        self.warn(
                            line,
                            format!("Instance domain {d}: no instance \"{want}\" found"),
                        );
                    }
                    return None;
                }
            }
        }
        let found = self.rules.labels.iter().rposition(|lp| {
            lp.ltype == ltype
                && lp.old_id == id
                && (instance == -1 || instance == lp.old_instance)
                && name.is_none_or(|n| lp.old_label.as_deref() == Some(n))
                && value.is_none_or(|v| lp.old_value.as_deref() == Some(v))
        });
        found.or_else(|| Some(self.create_label(ltype, id, instance, name, value)))
    }

    /// `create_label`: a new entry in the list.
    pub(crate) fn create_label(
        &mut self,
        ltype: u32,
        id: u32,
        instance: i32,
        name: Option<&str>,
        value: Option<&str>,
    ) -> usize {
        self.rules.labels.push(LabelSpec {
            ltype,
            old_id: id,
            new_id: id,
            old_instance: instance,
            new_instance: instance,
            old_label: name.map(str::to_string),
            old_value: value.map(str::to_string),
            new_label: None,
            new_value: None,
            new_labels: None,
            flags: 0,
            ip: None,
        });
        self.rules.labels.len() - 1
    }

    /// The label rule's header: the input's records of its kind it names
    /// marked (`id` is the domain, cluster, PMID or instance domain).
    pub(crate) fn label_begin(&mut self, ltype: u32, id: u32, line: usize) {
        self.lab.current = None;
        self.lab.id = id;
        self.lab.found = 0;
        let named = matches!(ltype, lt::ITEM | lt::INDOM | lt::INSTANCES);
        if named && id == ID_NULL {
            return;
        }
        let (star, star_indom) = (self.sel.star, self.sel.star_indom);
        let hit = |x: u32| -> bool {
            let (p, q) = (PmId(x), PmId(id));
            match ltype {
                lt::CONTEXT => true,
                lt::DOMAIN => x == id,
                lt::CLUSTER if star != 0 => p.domain() == q.domain(),
                lt::ITEM if star != 0 => {
                    p.domain() == q.domain() && (star == 2 || p.cluster() == q.cluster())
                }
                lt::INDOM | lt::INSTANCES if star_indom => InDom(x).domain() == InDom(id).domain(),
                _ => x == id,
            }
        };
        let ids: Vec<u32> = self
            .label_ids
            .iter()
            .filter(|(t, _)| *t == ltype)
            .flat_map(|(_, ids)| ids.iter().copied().filter(|&x| hit(x)))
            .collect();
        let (inst, iname) = match ltype {
            lt::INSTANCES => (self.lab.instance, self.lab.instance_name.clone()),
            _ => (0, None),
        };
        let (name, value) = (self.lab.name.clone(), self.lab.value.clone());
        for x in ids {
            let pick = Pick {
                instance: inst,
                instance_name: iname.as_deref(),
                name: name.as_deref(),
                value: value.as_deref(),
            };
            let i = self.start_label(ltype, x, pick, line);
            self.lab.current = i;
            if let Some(i) = i {
                self.rules.labels[i].flags |= label::ACTIVE;
                self.lab.found += 1;
            }
        }
    }

    /// `walk_label`: the marked records a clause applies to, unmarked as
    /// they are visited and checked for a clause of this kind already given
    /// and for deletion against other changes.
    pub(crate) fn label_walk(
        &mut self,
        flag: u32,
        which: &str,
        line: usize,
    ) -> Result<Vec<usize>, Stop> {
        let picked: Vec<usize> = if self.lab.found > 1 {
            (0..self.rules.labels.len())
                .rev()
                .filter(|&i| self.rules.labels[i].flags & label::ACTIVE != 0)
                .collect()
        } else {
            self.lab.current.into_iter().collect()
        };
        for &i in &picked {
            let lp = &mut self.rules.labels[i];
            lp.flags &= !label::ACTIVE;
            let msg = crate::config::walk_check(lp.flags, flag, label::DELETE, which, &whose(lp));
            if let Some(m) = msg {
                return Err(self.error(line, m));
            }
        }
        Ok(picked)
    }

    /// What a rule of a label rule does.
    pub(crate) fn label_rule(
        &mut self,
        marker: &str,
        lhs: &str,
        rhs: &[Val],
        below: &[Val],
        line: usize,
    ) -> Result<Val, Stop> {
        let text = |k: usize| rhs.get(k).map_or(String::new(), |v| v.text().to_string());
        let clause = marker.split_once(':').map_or("", |(_, c)| c);
        Ok(match lhs {
            "labelcontextspec.begin"
            | "labeldomainspec.begin"
            | "labelclusterspec.begin"
            | "labelitemspec.begin"
            | "labelindomspec.begin"
            | "labelinstancesspec.begin" => {
                let id = below
                    .len()
                    .checked_sub(2)
                    .map_or(0, |k| below[k].int() as u32);
                let (ltype, id) = match lhs {
                    "labelcontextspec.begin" => (lt::CONTEXT, ID_NULL),
                    "labeldomainspec.begin" => (lt::DOMAIN, id),
                    "labelclusterspec.begin" => (lt::CLUSTER, id),
                    "labelitemspec.begin" => (lt::ITEM, id),
                    "labelindomspec.begin" => (lt::INDOM, id),
                    _ => (lt::INSTANCES, id),
                };
                self.label_begin(ltype, id, line);
                Val::None
            }
            "optlabeldetails" => {
                match clause {
                    "jsonname_optlabelvalue" => self.lab.name = Some(text(0)),
                    "label_star_optlabelvalue" => self.lab.name = None,
                    _ => (self.lab.name, self.lab.value) = (None, None),
                }
                Val::None
            }
            "optlabelvalue" => {
                self.lab.value = (clause == "jsonvalue").then(|| text(0));
                Val::None
            }
            "optinstancelabeldetails" => {
                (self.lab.instance, self.lab.instance_name) = match clause {
                    "string_optlabeldetails" => (-1, Some(text(0))),
                    "number_optlabeldetails" => (crate::config::atoi(&text(0)) as i32, None),
                    "label_star_optlabeldetails" => (-1, None),
                    _ => {
                        (self.lab.name, self.lab.value) = (None, None);
                        (-1, None)
                    }
                };
                Val::None
            }
            "jsonname" if clause == "string" => Val::Text(format!("\"{}\"", text(0))),
            "jsonname" | "jsonvalue" => Val::Text(text(0)),
            "jsonnumber" if clause.starts_with("minus") => Val::Text(format!("-{}", text(1))),
            "jsonnumber" => Val::Text(text(0)),
            "newlabelspec" => {
                if self.lab.name.is_some() || self.lab.value.is_some() {
                    self.warn(line, "The target label name and value must both not be specified for a NEW label and will be ignored".into());
                }
                (self.lab.name, self.lab.value) = (Some(text(1)), Some(text(2)));
                Val::None
            }
            "pmid_domain" => self.domain_value(&text(0), line)?,
            "pmid_cluster" => self.cluster_value(&text(0), clause == "indom_star", line)?,
            l if l.starts_with("optlabel") && clause == "empty" => {
                self.deactivate_labels(line)?;
                Val::None
            }
            l if l.starts_with("label") && l.ends_with("opt") => {
                self.label_clause(l, clause, rhs, line)?;
                Val::None
            }
            _ => Val::None,
        })
    }

    /// `deactivate_labels`: the marked records unmarked (a deleted one is a
    /// conflict, as pmlogrewrite's walk finds it).
    pub(crate) fn deactivate_labels(&mut self, line: usize) -> Result<(), Stop> {
        self.label_walk(label::ACTIVE, "active", line).map(|_| ())
    }

    /// `domain` of a label rule, checked.
    fn domain_value(&mut self, text: &str, line: usize) -> Result<Val, Stop> {
        let d = crate::config::atoi(text);
        self.check_domain(d, line)?;
        self.sel.star = 0;
        Ok(Val::Int(d))
    }

    fn check_domain(&mut self, d: i64, line: usize) -> Result<(), Stop> {
        if !(1..=511).contains(&d) {
            return Err(self.error(line, format!("Illegal domain field ({d}) for pmid")));
        }
        if d == 511 {
            self.warn(line, format!("Dynamic metric domain field ({d}) for pmid"));
        }
        Ok(())
    }

    /// `domain.cluster` or `domain.*` of a label rule, checked.
    fn cluster_value(&mut self, text: &str, star: bool, line: usize) -> Result<Val, Stop> {
        let mut parts = text.splitn(2, '.');
        let d = crate::config::atoi(parts.next().unwrap_or(""));
        self.check_domain(d, line)?;
        let c = if star {
            0
        } else {
            let c = crate::config::atoi(parts.next().unwrap_or(""));
            if !(0..4096).contains(&c) {
                return Err(self.error(line, format!("Illegal cluster field ({c}) for pmid")));
            }
            c
        };
        self.sel.star = u8::from(star);
        Ok(Val::Int(i64::from(PmId::new(d as u32, c as u32, 0).0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use archive_format::types::Timestamp;
    use archive_format::Label;

    /// The rules read from `text` over an input whose label records are `ids`.
    fn read(
        text: &str,
        ids: Vec<(u32, Vec<u32>)>,
    ) -> (Result<(), Stop>, Vec<LabelSpec>, Vec<String>) {
        let label = Label {
            version: 3,
            pid: 1,
            start: Timestamp::new(0, 0),
            vol: 0,
            features: 0,
            hostname: "host".into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
        };
        let mut c = Config::new(&label, 3, true);
        c.file = "rules".into();
        c.label_ids = ids;
        let r = parse(text.as_bytes(), &mut c).map(|_| ());
        (r, c.rules.labels, c.said)
    }

    const D29: u32 = 29;

    #[test]
    fn a_rule_marks_its_record_and_a_clause_changes_it() {
        let ids = vec![(lt::DOMAIN, vec![D29, 30])];
        let (r, labels, _) = read("label domain 29 \"agent\" { label -> \"who\" }", ids);
        assert_eq!(r, Ok(()));
        assert_eq!(labels.len(), 1);
        let lp = &labels[0];
        assert_eq!((lp.ltype, lp.old_id), (lt::DOMAIN, D29));
        assert_eq!(lp.old_label.as_deref(), Some("\"agent\""));
        assert_eq!(lp.new_label.as_deref(), Some("\"who\""));
        assert_eq!(lp.flags, label::CHANGE_LABEL, "unmarked once applied");
    }

    #[test]
    fn a_second_rule_for_the_same_record_is_a_duplicate() {
        let ids = vec![(lt::CONTEXT, vec![ID_NULL])];
        let (r, _, _) = read("label context { delete }\nlabel context { delete }", ids);
        let Err(Stop::Error { line, message }) = r else {
            panic!("{r:?}")
        };
        assert_eq!(line, 2);
        assert_eq!(message, "Duplicate delete clause for context label");
    }

    #[test]
    fn deleting_what_another_rule_changes_conflicts() {
        let ids = vec![(lt::DOMAIN, vec![D29])];
        let (r, _, _) = read(
            "label domain 29 { domain -> 30 }\nlabel domain 29 { delete }",
            ids,
        );
        let Err(Stop::Error { message, .. }) = r else {
            panic!("{r:?}")
        };
        // pmlogrewrite names a domain's record by the domain field of its number
        assert_eq!(
            message,
            "Conflicting delete and other clauses for label for domain 0"
        );
    }

    #[test]
    fn a_second_clause_after_one_record_applies_as_pcp_7_does() {
        let ids = vec![(lt::CONTEXT, vec![ID_NULL])];
        let (r, labels, _) = read("label context { label -> \"a\" value -> 1 }", ids);
        assert_eq!(r, Ok(()));
        assert_eq!(labels[0].flags, label::CHANGE_LABEL | label::CHANGE_VALUE);
    }

    #[test]
    fn new_labels_gather_in_one_set_and_selecting_them_is_warned_of() {
        let (r, labels, said) = read(
            "label context \"x\" { new \"b\" 2 }\nlabel context { new \"a\" true }",
            Vec::new(),
        );
        assert_eq!(r, Ok(()));
        let set = labels.iter().find_map(|l| l.new_labels.clone()).unwrap();
        assert_eq!(set.json, r#"{"a":true,"b":2}"#);
        assert_eq!(set.inst, 0);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].ends_with("must both not be specified for a NEW label and will be ignored"));
    }

    #[test]
    fn a_new_label_that_is_not_json_stops_the_rules() {
        let (r, _, _) = read("label context { new \"9lives\" 1 }", Vec::new());
        let Err(Stop::Error { message, .. }) = r else {
            panic!("{r:?}")
        };
        assert_eq!(
            message,
            "Unable to add new context label {\"9lives\":1}: Invalid argument"
        );
    }
}
