//! The metric clause's actions, as pmlogrewrite takes them: the metric (or the
//! metrics of a `domain.cluster.*` or `domain.*.*`) found in the input and
//! entered in the rules' list, then each of its clauses checked (a duplicate,
//! a change to a deleted metric and a name already taken are errors; a clause
//! that changes nothing is a warning with `-w`) and kept.

use crate::config::Config;
use crate::parse::{Stop, Val};
use crate::rules::{change, MetricSpec};
use archive_format::error::{pm_err_str, PM_ERR_NAME, PM_ERR_PMID};
use archive_format::pmns::Lookup;
use archive_format::types::{sem, vtype, PmId, Units};

/// PM_ID_NULL.
pub(crate) const NO_PMID: u32 = u32::MAX;
/// The dynamic metrics' domain.
const DYNAMIC_DOMAIN: i64 = 511;

/// Which metrics a metric rule names (pmlogrewrite's `current_star_metric`
/// and the walk it sets up).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Selection {
    /// 0: one metric; 1: `d.c.*`; 2: `d.*.*` (the last PMID read says).
    pub(crate) star: u8,
    /// The rule walks the list for a domain (and cluster).
    walk: Option<(u32, Option<u32>)>,
    /// The one metric's place in the list, where the rule names one.
    current: Option<usize>,
}

/// A type named in a rule.
fn type_code(name: &str) -> i32 {
    match name.to_ascii_uppercase().as_str() {
        "32" => vtype::I32,
        "U32" => vtype::U32,
        "64" => vtype::I64,
        "U64" => vtype::U64,
        "FLOAT" => vtype::FLOAT,
        _ => vtype::DOUBLE,
    }
}

fn sem_code(name: &str) -> i32 {
    match name.to_ascii_uppercase().as_str() {
        "COUNTER" => sem::COUNTER,
        "INSTANT" => sem::INSTANT,
        _ => sem::DISCRETE,
    }
}

/// A scale named in the units clause (`0`, or the XXX of PM_SPACE_XXX,
/// PM_TIME_XXX, `ONE` or a count scale's number).
fn scale_code(name: &str) -> i64 {
    const NAMES: [&str; 14] = [
        "BYTE", "KBYTE", "MBYTE", "GBYTE", "TBYTE", "PBYTE", "EBYTE", "NSEC", "USEC", "MSEC",
        "SEC", "MIN", "HOUR", "ONE",
    ];
    const CODES: [i64; 14] = [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 0];
    let up = name.to_ascii_uppercase();
    match NAMES.iter().position(|n| *n == up) {
        Some(i) => CODES[i],
        None => cli_common::window::strtol(name).0 as i32 as i64,
    }
}

fn is_numeric(t: i32) -> bool {
    matches!(
        t,
        vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64 | vtype::FLOAT | vtype::DOUBLE
    )
}

fn sem_str(s: i32) -> String {
    sem::name(s).map_or_else(|| format!("bad sem? {s}"), str::to_string)
}

impl Config<'_> {
    /// `start_metric`: the metric's place in the list, entered the first time
    /// (at the list's head); `None` where the input has no such metric.
    fn start_metric(&mut self, pmid: PmId, line: usize) -> Option<usize> {
        if let Some(i) = self.rules.metrics.iter().position(|m| m.old.pmid == pmid) {
            return Some(i);
        }
        let found = self.meta.and_then(|m| {
            let name = m.names(pmid).first()?.clone();
            Some((name, *m.desc(pmid)?))
        });
        let Some((name, desc)) = found else {
            if self.warnings {
                let e = pm_err_str(PM_ERR_PMID);
                self.warn(line, format!("Metric {pmid} pmNameID: {e}"));
            }
            return None;
        };
        self.rules.metrics.push(MetricSpec {
            old_name: name,
            old: desc,
            new: desc,
            new_name: None,
            flags: 0,
        });
        Some(self.rules.metrics.len() - 1)
    }

    /// The rule's metric PMID or name: its PMID (`NO_PMID` for an unknown name).
    pub(crate) fn metric_name(&mut self, name: &str, line: usize) -> Val {
        self.sel.star = 0;
        let pmid = match self.meta.map(|m| m.pmns.lookup(name)) {
            Some(Lookup::Leaf(p)) => p.0,
            _ => {
                if self.warnings {
                    let e = pm_err_str(PM_ERR_NAME);
                    self.warn(line, format!("Metric: {name}: {e}"));
                }
                NO_PMID
            }
        };
        Val::Int(i64::from(pmid))
    }

    /// `d.c.i`, `d.c.*` or `d.*.*`, checked.
    pub(crate) fn pmid_value(&mut self, text: &str, star: bool, line: usize) -> Result<Val, Stop> {
        let parts: Vec<&str> = text.split('.').collect();
        let num = |i: usize| -> Option<i64> {
            let p = parts.get(i)?;
            (!p.starts_with('*')).then(|| cli_common::window::strtol(p).0 as i32 as i64)
        };
        let domain = num(0).unwrap_or(0);
        if !(1..=DYNAMIC_DOMAIN).contains(&domain) {
            return Err(self.error(line, format!("Illegal domain field ({domain}) for pmid")));
        }
        if domain == DYNAMIC_DOMAIN {
            self.warn(
                line,
                format!("Dynamic metric domain field ({domain}) for pmid"),
            );
        }
        let (cluster, item);
        if star {
            match num(1) {
                Some(c) => {
                    if c >= 4096 {
                        return Err(
                            self.error(line, format!("Illegal cluster field ({c}) for pmid"))
                        );
                    }
                    self.sel.star = 1;
                    cluster = c;
                }
                None => {
                    self.sel.star = 2;
                    cluster = 0;
                }
            }
            item = 0;
        } else {
            let (c, i) = (num(1).unwrap_or(0), num(2).unwrap_or(0));
            if !(0..4096).contains(&c) {
                return Err(self.error(line, format!("Illegal cluster field ({c}) for pmid")));
            }
            if !(0..1024).contains(&i) {
                return Err(self.error(line, format!("Illegal item field ({i}) for pmid")));
            }
            self.sel.star = 0;
            (cluster, item) = (c, i);
        }
        let pmid = PmId::new(domain as u32, cluster as u32, item as u32);
        Ok(Val::Int(i64::from(pmid.0)))
    }

    /// The metric rule's header: its metric, or every metric of the input in
    /// the domain (and cluster) entered in the list.
    pub(crate) fn metric_begin(&mut self, pmid: u32, line: usize) {
        let pmid = PmId(pmid);
        if self.sel.star != 0 {
            let cluster = (self.sel.star == 1).then(|| pmid.cluster());
            let pmids: Vec<PmId> = match self.meta {
                Some(m) => m.descs_hash_order().iter().map(|d| d.pmid).collect(),
                None => Vec::new(),
            };
            for p in pmids {
                if p.domain() == pmid.domain() && cluster.is_none_or(|c| c == p.cluster()) {
                    self.start_metric(p, line);
                }
            }
            self.sel.walk = Some((pmid.domain(), cluster));
            self.sel.current = None;
        } else {
            self.sel.current = if pmid.0 == NO_PMID {
                None
            } else {
                self.start_metric(pmid, line)
            };
            self.sel.walk = None;
        }
    }

    /// `walk_metric`: the metrics a clause applies to, in the list's order,
    /// each checked for a clause of this kind already given (unless `dupok`)
    /// and for deletion against other changes.
    fn walk(&self, flag: u32, which: &str, dupok: bool, line: usize) -> Result<Vec<usize>, Stop> {
        let picked: Vec<usize> = match self.sel.walk {
            Some((domain, cluster)) => (0..self.rules.metrics.len())
                .rev()
                .filter(|&i| {
                    let p = self.rules.metrics[i].old.pmid;
                    p.domain() == domain && cluster.is_none_or(|c| c == p.cluster())
                })
                .collect(),
            None => self.sel.current.into_iter().collect(),
        };
        for (k, &i) in picked.iter().enumerate() {
            let m = &self.rules.metrics[i];
            // (pmlogrewrite lets the first of a walk repeat a delete)
            let dup_ok = if flag == change::DELETE {
                k == 0 && dupok
            } else {
                dupok
            };
            if !dup_ok && m.flags & flag != 0 {
                let msg = format!("Duplicate {which} clause for metric {}", m.old_name);
                return Err(self.error(line, msg));
            }
            if flag != change::DELETE && m.flags & change::DELETE != 0 {
                let msg = format!(
                    "Conflicting {which} clause for deleted metric {}",
                    m.old_name
                );
                return Err(self.error(line, msg));
            }
            if flag == change::DELETE && m.flags & !change::DELETE != 0 {
                let msg = format!(
                    "Conflicting delete and other clauses for metric {}",
                    m.old_name
                );
                return Err(self.error(line, msg));
            }
        }
        Ok(picked)
    }

    /// A clause of a metric rule (pmid, name, type, sem, units, delete).
    pub(crate) fn metric_clause(
        &mut self,
        marker: &str,
        rhs: &[Val],
        line: usize,
    ) -> Result<(), Stop> {
        let clause = marker.strip_prefix("metricopt:").unwrap_or(marker);
        match clause {
            "pmid_assign_pmid_int" => self.clause_pmid(PmId(rhs[2].int() as u32), line),
            "name_assign_gname" => self.clause_name(rhs[2].text(), line),
            "type_assign_type_name" => self.clause_type(None, type_code(rhs[2].text()), line),
            "type_if_type_name_assign_type_name" => {
                let (from, to) = (type_code(rhs[2].text()), type_code(rhs[4].text()));
                self.clause_type(Some(from), to, line)
            }
            "sem_assign_sem_name" => self.clause_sem(sem_code(rhs[2].text()), line),
            "units_assign_signnumber_comma_signnumber_comma_signnumber_comma_space_name_comma_time_name_comma_count_name_rescaleopt" => {
                let v = |i: usize| rhs[i].int();
                let dims = [v(2), v(4), v(6)];
                let scales = [scale_code(rhs[8].text()), scale_code(rhs[10].text()), scale_code(rhs[12].text())];
                self.clause_units(dims, scales, rhs[13].int() == 1, line)
            }
            "delete" => {
                for i in self.walk(change::DELETE, "delete", true, line)? {
                    self.rules.metrics[i].flags |= change::DELETE;
                }
                Ok(())
            }
            _ => Err(self.cut_short_metric(clause, line)),
        }
    }

    fn clause_pmid(&mut self, to: PmId, line: usize) -> Result<(), Stop> {
        for i in self.walk(change::PMID, "pmid", false, line)? {
            let old = self.rules.metrics[i].old.pmid;
            let pmid = match self.sel.star {
                1 => PmId::new(to.domain(), to.cluster(), old.item()),
                2 => PmId::new(to.domain(), old.cluster(), old.item()),
                _ => to,
            };
            if pmid == old {
                if self.warnings {
                    let name = self.rules.metrics[i].old_name.clone();
                    self.warn(line, format!("Metric: {name} ({old}): pmid: No change"));
                }
            } else {
                let m = &mut self.rules.metrics[i];
                m.new.pmid = pmid;
                m.flags |= change::PMID;
            }
        }
        Ok(())
    }

    fn clause_name(&mut self, to: &str, line: usize) -> Result<(), Stop> {
        for i in self.walk(change::NAME, "name", false, line)? {
            let (name, pmid) = (
                self.rules.metrics[i].old_name.clone(),
                self.rules.metrics[i].old.pmid,
            );
            if to == name {
                if self.warnings {
                    self.warn(line, format!("Metric: {name} ({pmid}): name: No change"));
                }
                continue;
            }
            if let Some(Lookup::Leaf(p)) = self.meta.map(|m| m.pmns.lookup(to)) {
                return Err(self.error(
                    line,
                    format!("Metric name {to} already assigned for PMID {p}"),
                ));
            }
            let m = &mut self.rules.metrics[i];
            m.new_name = Some(to.to_string());
            m.flags |= change::NAME;
        }
        Ok(())
    }

    fn clause_type(&mut self, only_if: Option<i32>, to: i32, line: usize) -> Result<(), Stop> {
        let dupok = only_if.is_some();
        for i in self.walk(change::TYPE, "type", dupok, line)? {
            let m = &self.rules.metrics[i];
            let (name, pmid, old) = (m.old_name.clone(), m.old.pmid, m.old.vtype);
            let unchanged = match only_if {
                Some(from) => old != from,
                None => old == to,
            };
            if unchanged {
                if self.warnings {
                    let msg = match only_if {
                        Some(_) => format!(
                            "Metric: {name} ({pmid}): type: PM_TYPE_{}: No conditional change to PM_TYPE_{}",
                            vtype::short_name(old),
                            vtype::short_name(to)
                        ),
                        None => format!(
                            "Metric: {name} ({pmid}): type: PM_TYPE_{}: No change",
                            vtype::short_name(old)
                        ),
                    };
                    self.warn(line, msg);
                }
                continue;
            }
            if !is_numeric(old) {
                let msg = format!(
                    "Old type (PM_TYPE_{}) must be numeric",
                    vtype::short_name(old)
                );
                return Err(self.error(line, msg));
            }
            let m = &mut self.rules.metrics[i];
            m.new.vtype = to;
            m.flags |= change::TYPE;
        }
        Ok(())
    }

    fn clause_sem(&mut self, to: i32, line: usize) -> Result<(), Stop> {
        for i in self.walk(change::SEM, "sem", false, line)? {
            let m = &self.rules.metrics[i];
            if m.old.sem == to {
                if self.warnings {
                    let msg = format!(
                        "Metric: {} ({}): sem: {}: No change",
                        m.old_name,
                        m.old.pmid,
                        sem_str(m.old.sem)
                    );
                    self.warn(line, msg);
                }
                continue;
            }
            let m = &mut self.rules.metrics[i];
            m.new.sem = to;
            m.flags |= change::SEM;
        }
        Ok(())
    }

    fn clause_units(
        &mut self,
        dims: [i64; 3],
        scales: [i64; 3],
        rescale: bool,
        line: usize,
    ) -> Result<(), Stop> {
        for i in self.walk(change::UNITS, "units", false, line)? {
            let m = &self.rules.metrics[i];
            let u = m.old.units;
            let same_dims = dims == [u.dim_space(), u.dim_time(), u.dim_count()].map(i64::from);
            let same_scales = scales
                == [
                    i64::from(u.scale_space()),
                    i64::from(u.scale_time()),
                    i64::from(u.scale_count()),
                ];
            if same_dims && same_scales {
                if self.warnings {
                    let msg = format!(
                        "Metric: {} ({}): units: {u}: No change",
                        m.old_name, m.old.pmid
                    );
                    self.warn(line, msg);
                }
                continue;
            }
            let (name, pmid) = (m.old_name.clone(), m.old.pmid);
            let units = Units::new(
                dims.map(|d| d as i32),
                [scales[0] as u32, scales[1] as u32],
                scales[2] as i32,
            );
            let mut flags = change::UNITS;
            if rescale {
                if same_dims {
                    flags |= change::RESCALE;
                } else if self.warnings {
                    self.warn(
                        line,
                        format!("Metric: {name} ({pmid}): Dimension changed, cannot rescale"),
                    );
                }
            } else if self.scale && same_dims {
                flags |= change::RESCALE;
            }
            let m = &mut self.rules.metrics[i];
            m.new.units = units;
            m.flags |= flags;
        }
        Ok(())
    }

    /// A metric clause cut short: what it lacks.
    fn cut_short_metric(&self, clause: &str, line: usize) -> Stop {
        let msg = match clause {
            "pmid_assign" => "Expecting <domain>.<cluster>.<item> or <domain>.<cluster>.* or <domain>.*.* in pmid clause",
            "name_assign" => "Expecting metric name in iname clause",
            "type_assign" | "type_if_type_name_assign" => "Expecting XXX (from PM_TYPE_XXX) in type clause",
            "type_if" => "Expecting XXX (from PM_TYPE_XXX) after if in type clause",
            "indom_assign" => "Expecting <domain>.<serial> or NULL in indom clause",
            "sem_assign" => "Expecting XXX (from PM_SEM_XXX) in sem clause",
            "units_assign" => "Expecting 3 numeric values for dim* fields of units",
            "units_assign_signnumber_comma_signnumber_comma_signnumber_comma" => {
                "Expecting 0 or XXX (from PM_SPACE_XXX) for scaleSpace field of units"
            }
            "units_assign_signnumber_comma_signnumber_comma_signnumber_comma_space_name_comma" => {
                "Expecting 0 or XXX (from PM_TIME_XXX) for scaleTime field of units"
            }
            "units_assign_signnumber_comma_signnumber_comma_signnumber_comma_space_name_comma_time_name_comma" => {
                "Expecting 0 or ONE for scaleCount field of units"
            }
            other => return Stop::Unsupported(format!("metricopt:{other}")),
        };
        self.error(line, msg)
    }
}
