//! The clauses of a label rule, as pmlogrewrite takes them (with its
//! messages, copied wording and all: a context's or domain's `value ->`
//! speaks of a cluster), and `new`, which adds a label to the records of
//! every metric or instance domain of the input that the rule names.

use crate::config::{atoi, Config};
use crate::labeljson::add_labels;
use crate::parse::{Stop, Val};
use crate::rules::label;
use archive_format::codec::meta::label_type as lt;
use archive_format::error::pm_err_str;
use archive_format::types::{InDom, PmId};

/// The kind of label rule a clause belongs to (its rule's name).
fn kind_of(rule: &str) -> u32 {
    match rule {
        "labelcontextopt" => lt::CONTEXT,
        "labeldomainopt" => lt::DOMAIN,
        "labelclusteropt" => lt::CLUSTER,
        "labelitemopt" => lt::ITEM,
        "labelindomopt" => lt::INDOM,
        _ => lt::INSTANCES,
    }
}

/// The messages of a `label ->` and a `value ->` clause of a rule of `kind`
/// about the record `id`: (duplicate, no change).
fn said(kind: u32, what: &str, id: u32) -> (String, String) {
    let p = PmId(id);
    let cluster = format!("cluster {}.{}", p.domain(), p.cluster());
    let (dup, nochange) = match (kind, what) {
        (lt::CONTEXT, "label") => ("context".to_string(), "context".to_string()),
        (lt::DOMAIN, "label") => (format!("domain {id}"), format!("domain {id}")),
        (lt::CONTEXT | lt::DOMAIN | lt::CLUSTER, _) => (cluster.clone(), cluster),
        (lt::ITEM, _) => (format!("metric {p}"), format!("metric {p}")),
        (lt::INDOM, _) => (
            format!("indom {}", InDom(id)),
            format!("instance domain {}", InDom(id)),
        ),
        _ => (
            format!("instances of indom {}", InDom(id)),
            format!("instances of instance domain {}", InDom(id)),
        ),
    };
    (
        format!("Duplicate {what} clause for {dup}"),
        format!("Label for {nochange}: {what}: No change"),
    )
}

impl Config<'_> {
    /// A clause of a label rule.
    pub(crate) fn label_clause(
        &mut self,
        rule: &str,
        clause: &str,
        rhs: &[Val],
        line: usize,
    ) -> Result<(), Stop> {
        let kind = kind_of(rule);
        let arg = rhs.get(2).map_or(String::new(), |v| v.text().to_string());
        match clause {
            "delete" => {
                for i in self.label_walk(label::DELETE, "delete", line)? {
                    self.rules.labels[i].flags |= label::DELETE;
                }
            }
            "label_assign_jsonname" => self.label_to(kind, "label", arg, line)?,
            "value_assign_jsonvalue" => self.label_to(kind, "value", arg, line)?,
            "newlabelspec" => self.new_label(kind, line)?,
            "instance_assign_number" => self.label_to_instance(atoi(&arg) as i32, line)?,
            _ => self.label_to_id(kind, rhs.get(2).map_or(0, Val::int) as u32, &arg, line)?,
        }
        Ok(())
    }

    /// `label -> "name"` or `value -> value`.
    fn label_to(&mut self, kind: u32, what: &str, new: String, line: usize) -> Result<(), Stop> {
        let flag = if what == "label" {
            label::CHANGE_LABEL
        } else {
            label::CHANGE_VALUE
        };
        for i in self.label_walk(flag, what, line)? {
            let lp = &self.rules.labels[i];
            let (dup, nochange) = said(kind, what, lp.old_id);
            let (old, new_now) = if what == "label" {
                (&lp.old_label, &lp.new_label)
            } else {
                (&lp.old_value, &lp.new_value)
            };
            if new_now.is_some() {
                return Err(self.error(line, dup));
            }
            if old.as_deref() == Some(new.as_str()) {
                if self.warnings {
                    self.warn(line, nochange);
                }
                continue;
            }
            let lp = &mut self.rules.labels[i];
            if what == "label" {
                lp.new_label = Some(new.clone());
            } else {
                lp.new_value = Some(new.clone());
            }
            lp.flags |= flag;
        }
        Ok(())
    }

    /// `domain ->`, `cluster ->`, `item ->`, `indom ->` or `instances ->`:
    /// the records reassociated (a `*` of the rule keeps each one's own
    /// part).
    fn label_to_id(&mut self, kind: u32, to: u32, text: &str, line: usize) -> Result<(), Stop> {
        let star = self.sel.star;
        let star_indom = self.sel.star_indom;
        for i in self.label_walk(label::CHANGE_ID, "id", line)? {
            let lp = &self.rules.labels[i];
            let old = lp.old_id;
            let (p, q) = (PmId(old), PmId(to));
            let new = match kind {
                lt::DOMAIN => atoi(text) as i32 as u32,
                lt::CLUSTER if star != 0 => PmId::new(q.domain(), p.cluster(), u32::MAX).0,
                lt::CLUSTER => PmId::new(q.domain(), q.cluster(), u32::MAX).0,
                lt::ITEM if star == 1 => PmId::new(q.domain(), q.cluster(), p.item()).0,
                lt::ITEM if star == 2 => PmId::new(q.domain(), p.cluster(), p.item()).0,
                lt::ITEM => to,
                _ => {
                    if lp.new_id != lp.old_id {
                        let of = if kind == lt::INDOM {
                            ""
                        } else {
                            "instances of "
                        };
                        let m = format!("Duplicate label clause for {of}indom {}", InDom(old));
                        return Err(self.error(line, m));
                    }
                    if star_indom {
                        InDom::new(InDom(to).domain(), InDom(old).serial()).0
                    } else {
                        to
                    }
                }
            };
            if new == old {
                if self.warnings {
                    let m = match kind {
                        lt::DOMAIN => format!("Label for metric domain: {old}: No change"),
                        lt::CLUSTER => format!(
                            "Label for cluster: {}.{}: No change",
                            p.domain(),
                            p.cluster()
                        ),
                        lt::ITEM => format!("Label for metric: {p}: item: No change"),
                        _ => format!("Label for instance domain {}: indom: No change", InDom(old)),
                    };
                    self.warn(line, m);
                }
                continue;
            }
            let lp = &mut self.rules.labels[i];
            lp.new_id = new;
            lp.flags |= label::CHANGE_ID;
        }
        Ok(())
    }

    /// `instance -> n` of an instances rule.
    fn label_to_instance(&mut self, to: i32, line: usize) -> Result<(), Stop> {
        for i in self.label_walk(label::CHANGE_ID, "id", line)? {
            let lp = &self.rules.labels[i];
            let d = InDom(lp.old_id);
            if lp.new_instance != lp.old_instance {
                let m = format!("Duplicate label clause for instances of indom {d}");
                return Err(self.error(line, m));
            }
            if to == lp.old_instance {
                if self.warnings {
                    let m =
                        format!("Label for instance domain {d} instance {to}: instance: No change");
                    self.warn(line, m);
                }
                continue;
            }
            let lp = &mut self.rules.labels[i];
            lp.new_instance = to;
            lp.flags |= label::CHANGE_INSTANCE;
        }
        Ok(())
    }

    /// `new "name" value`: the marked records unmarked, and the label added
    /// to the rule's own entry for each record of the input it names.
    fn new_label(&mut self, kind: u32, line: usize) -> Result<(), Stop> {
        self.deactivate_labels(line)?;
        let text = format!(
            "{{{}:{}}}",
            self.lab.name.as_deref().unwrap_or("(null)"),
            self.lab.value.as_deref().unwrap_or("(null)")
        );
        let targets = self.new_targets(kind);
        if targets.is_empty() && kind != lt::CONTEXT {
            let what = match kind {
                lt::DOMAIN => "domain",
                lt::CLUSTER => "cluster",
                lt::ITEM => "metric",
                lt::INDOM => "indom",
                _ => "indom instance",
            };
            self.warn(line, format!("No matching {what} for new label {text}"));
        }
        for (id, inst) in targets {
            let i = self.new_entry(kind, id, inst);
            let lp = &self.rules.labels[i];
            match add_labels(lp.new_labels.as_ref(), &text, kind as u8) {
                Ok(mut set) => {
                    set.inst = inst;
                    let lp = &mut self.rules.labels[i];
                    lp.new_labels = Some(set);
                    lp.flags |= label::NEW;
                }
                Err(e) => {
                    let what = match kind {
                        lt::CONTEXT => "context",
                        lt::DOMAIN => "domain",
                        lt::CLUSTER => "cluster",
                        lt::ITEM => "metric item",
                        lt::INDOM => "indom",
                        _ => "indom instance",
                    };
                    let m = format!("Unable to add new {what} label {text}: {}", pm_err_str(e));
                    return Err(self.error(line, m));
                }
            }
        }
        Ok(())
    }

    /// The records a `new` clause adds its label to: (identifier, instance)
    /// in pmlogrewrite's order (the input's metrics and instance domains as
    /// libpcp's hash tables walk them).
    fn new_targets(&self, kind: u32) -> Vec<(u32, i32)> {
        let id = self.lab.id;
        let (star, star_indom) = (self.sel.star, self.sel.star_indom);
        let pmids: Vec<PmId> = self
            .meta
            .map(|m| m.descs_hash_order().iter().map(|d| d.pmid).collect())
            .unwrap_or_default();
        let indoms: Vec<InDom> = self.meta.map(|m| m.indoms_hash_order()).unwrap_or_default();
        let q = PmId(id);
        let mut out: Vec<(u32, i32)> = Vec::new();
        match kind {
            lt::CONTEXT => out.push((u32::MAX, 0)),
            lt::DOMAIN => {
                if pmids.iter().any(|p| p.domain() == id) {
                    out.push((id, 0));
                }
            }
            lt::CLUSTER | lt::ITEM => {
                for p in pmids {
                    let hit = p.domain() == q.domain()
                        && match kind {
                            lt::CLUSTER => star != 0 || p.cluster() == q.cluster(),
                            _ => star == 2 || p.cluster() == q.cluster() && (star != 0 || p == q),
                        };
                    if !hit {
                        continue;
                    }
                    let x = if kind == lt::CLUSTER {
                        PmId::new(p.domain(), p.cluster(), 0).0
                    } else {
                        p.0
                    };
                    out.push((x, 0));
                    if star == 0 {
                        break;
                    }
                }
            }
            _ => {
                let d = InDom(id);
                for x in indoms {
                    if x.domain() != d.domain() || !star_indom && x.serial() != d.serial() {
                        continue;
                    }
                    if kind == lt::INDOM {
                        out.push((x.0, 0));
                    } else {
                        let want = self.lab.instance;
                        for set in crate::indom::archive_chain(self.records, x) {
                            for i in set.into_iter().filter(|&i| want == -1 || i == want) {
                                out.push((x.0, i));
                            }
                        }
                    }
                    if !star_indom {
                        break;
                    }
                }
            }
        }
        out
    }

    /// The rule's own entry for a record a `new` label goes to (one without
    /// a label name selected), entered where there is none. An instance
    /// domain's is looked for with instance -1, which none entered here has.
    fn new_entry(&mut self, kind: u32, id: u32, inst: i32) -> usize {
        let want = match kind {
            lt::INDOM => -1,
            lt::INSTANCES => inst,
            _ => 0,
        };
        let found = self.rules.labels.iter().rposition(|lp| {
            lp.ltype == kind
                && lp.old_label.is_none()
                && match kind {
                    lt::CONTEXT => true,
                    lt::CLUSTER => {
                        let (a, b) = (PmId(lp.old_id), PmId(id));
                        a.domain() == b.domain() && a.cluster() == b.cluster()
                    }
                    _ => lp.old_id == id,
                }
                && (!matches!(kind, lt::INDOM | lt::INSTANCES) || lp.old_instance == want)
        });
        found.unwrap_or_else(|| self.create_label(kind, id, inst, None, None))
    }
}
