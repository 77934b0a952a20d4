//! The metric clause's actions, as pmlogrewrite takes them: the metric (or the
//! metrics of a `domain.cluster.*` or `domain.*.*`) found in the input and
//! entered in the rules' list, then each of its clauses checked (a duplicate,
//! a change to a deleted metric and a name already taken are errors; a clause
//! that changes nothing is a warning with `-w`) and kept.

use crate::config::Config;
use crate::parse::{Stop, Val};
use crate::rules::{change, MetricSpec, Output, NO_INST};
use archive_format::error::{pm_err_str, PM_ERR_NAME, PM_ERR_PMID};
use archive_format::pmns::Lookup;
use archive_format::types::{sem, vtype, InDom, PmId, Units};

/// PM_ID_NULL.
pub(crate) const NO_PMID: u32 = u32::MAX;
/// The dynamic metrics' domain.
const DYNAMIC_DOMAIN: i64 = 511;

/// Which metrics a metric rule names (pmlogrewrite's `current_star_metric`
/// and the walk it sets up), and the instance domain clause's parts as read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// The last instance domain read was `d.*`.
    pub(crate) star_indom: bool,
    /// `OUTPUT ...` as read (back to all after each indom clause).
    output: Output,
    one_inst: i32,
    one_name: Option<String>,
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
    pub(crate) fn start_metric(&mut self, pmid: PmId, line: usize) -> Option<usize> {
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
            output: Output::All,
            one_inst: 0,
            one_name: None,
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
            "indom_assign_null_or_indom_pick" => self.clause_indom(InDom(rhs[2].int() as u32), line),
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
            let pmid = starred(to, old, self.sel.star);
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

    /// `d.s` or `d.*`, checked.
    pub(crate) fn indom_value(&mut self, text: &str, star: bool, line: usize) -> Result<Val, Stop> {
        let mut parts = text.splitn(2, '.');
        let domain = cli_common::window::strtol(parts.next().unwrap_or("")).0 as i32 as i64;
        let serial = parts.next().filter(|s| !s.is_empty() && !star);
        if !star && serial.is_none() {
            return Err(self.error(line, "Missing serial field for indom"));
        }
        if !(1..DYNAMIC_DOMAIN).contains(&domain) {
            return Err(self.error(line, format!("Illegal domain field ({domain}) for indom")));
        }
        let serial = serial.map_or(0, |s| cli_common::window::strtol(s).0 as i32 as i64);
        if !(0..4_194_304).contains(&serial) {
            return Err(self.error(line, format!("Illegal serial field ({serial}) for indom")));
        }
        self.sel.star_indom = star;
        Ok(Val::Int(i64::from(
            InDom::new(domain as u32, serial as u32).0,
        )))
    }

    /// `OUTPUT ...` of an instance domain clause.
    pub(crate) fn pick(&mut self, marker: &str, rhs: &[Val], line: usize) -> Result<(), Stop> {
        let sel = &mut self.sel;
        match marker {
            "pick:output_inst_number" => {
                (sel.output, sel.one_inst, sel.one_name) = (Output::One, rhs[2].int() as i32, None);
            }
            "pick:output_iname_string" => {
                let name = Some(rhs[2].text().to_string());
                (sel.output, sel.one_inst, sel.one_name) = (Output::One, NO_INST, name);
            }
            "pick:output_output_type" => {
                sel.output = match rhs[1].text().to_ascii_lowercase().as_str() {
                    "first" => Output::First,
                    "last" => Output::Last,
                    "min" => Output::Min,
                    "max" => Output::Max,
                    "sum" => Output::Sum,
                    _ => Output::Avg,
                };
            }
            "pick:output" => {
                return Err(self.error(
                    line,
                    "Expecting FIRST or LAST or INST or INAME or MIN or MAX or AVG for OUTPUT instance option",
                ))
            }
            _ => {}
        }
        Ok(())
    }

    fn clause_indom(&mut self, to: InDom, line: usize) -> Result<(), Stop> {
        let picked = self.walk(change::INDOM, "indom", false, line);
        let output = std::mem::take(&mut self.sel.output);
        for i in picked? {
            let m = &self.rules.metrics[i];
            let indom = if self.sel.star_indom {
                InDom::new(to.domain(), m.old.indom.serial())
            } else {
                to
            };
            if indom == m.old.indom {
                if self.warnings {
                    let msg = format!(
                        "Metric: {} ({}): indom: {}: No change",
                        m.old_name, m.old.pmid, m.old.indom
                    );
                    self.warn(line, msg);
                }
                continue;
            }
            let computed = matches!(
                output,
                Output::Min | Output::Max | Output::Sum | Output::Avg
            );
            if computed && !is_numeric(m.old.vtype) {
                let msg = format!(
                    "OUTPUT option MIN, MAX, AVG or SUM requires type to be numeric, not PM_TYPE_{}",
                    vtype::short_name(m.old.vtype)
                );
                return Err(self.error(line, msg));
            }
            let (one_inst, one_name) = (self.sel.one_inst, self.sel.one_name.clone());
            let m = &mut self.rules.metrics[i];
            m.new.indom = indom;
            m.flags |= change::INDOM;
            m.output = output;
            if output == Output::One {
                (m.one_name, m.one_inst) = (one_name, one_inst);
                if m.old.indom.is_null() {
                    // the only value, given the instance named
                    m.output = Output::First;
                }
            }
            if output == Output::All {
                // to a singular domain: the first value; from one: instance 0
                if !m.old.indom.is_null() && indom.is_null() {
                    (m.output, m.one_inst) = (Output::First, NO_INST);
                } else if m.old.indom.is_null() && !indom.is_null() {
                    (m.output, m.one_inst) = (Output::First, 0);
                }
            }
        }
        Ok(())
    }

    /// Every metric moved to an instance domain must find it in the output
    /// (pmlogrewrite's `check_indoms`, with no instance-domain rules).
    pub(crate) fn check_indoms(&self) -> Result<(), Stop> {
        for m in self.rules.metrics.iter().rev() {
            let to = m.new.indom;
            if m.flags & change::INDOM == 0 || to.is_null() || self.rules.inst_changes(m).is_some()
            {
                continue;
            }
            if !self.indom_in_output(m.old.indom, to) {
                return Err(Stop::Semantic(format!(
                    "New indom ({to}) for metric {} is not in the output archive",
                    m.old_name
                )));
            }
        }
        self.check_text_indoms()?;
        self.check_label_indoms()?;
        self.check_unique()
    }

    /// Help text moved to another instance domain must find it in the output
    /// (unless the domain's instances change).
    fn check_text_indoms(&self) -> Result<(), Stop> {
        use crate::rules::text;
        let Some(meta) = self.meta else { return Ok(()) };
        for t in self.rules.texts.iter().rev() {
            let moved = t.flags & text::CHANGE_ID != 0;
            if !moved || t.ttype & archive_format::codec::meta::text_type::INDOM == 0 {
                continue;
            }
            let (from, to) = (InDom(t.old_id), InDom(t.new_id));
            let rule = self.rules.indoms.iter().rev().find(|ip| ip.old == from);
            if rule.is_some_and(|ip| ip.insts.iter().any(|x| x.flags != 0)) {
                continue;
            }
            let found = meta.indoms_hash_order().iter().any(|&node| match rule {
                None => node == to,
                Some(ip) => ip.new != ip.old && ip.new == to,
            });
            if !found {
                return Err(Stop::Semantic(format!(
                    "New indom ({to}) for help text is not in the output archive"
                )));
            }
        }
        Ok(())
    }

    /// Within each domain of the rules, instance ids and names (to the first
    /// space) stay unique once changed.
    fn check_unique(&self) -> Result<(), Stop> {
        use crate::rules::inst;
        for ip in self.rules.indoms.iter().rev() {
            let now = |x: &crate::rules::InstSpec| {
                let id = if x.flags & inst::CHANGE_INST != 0 {
                    x.new_inst
                } else {
                    x.old_inst
                };
                let name = match (&x.new_name, x.flags & inst::CHANGE_INAME != 0) {
                    (Some(n), true) => n.clone(),
                    _ => x.old_name.clone(),
                };
                (id, name)
            };
            for (i, xi) in ip.insts.iter().enumerate() {
                let (insti, namei) = now(xi);
                for (j, xj) in ip.insts.iter().enumerate() {
                    if i == j {
                        continue;
                    }
                    let (instj, namej) = now(xj);
                    if insti == instj {
                        return Err(Stop::Semantic(format!(
                            "Duplicate instance id {insti} (\"{namei}\" and \"{namej}\") for indom {}",
                            ip.old
                        )));
                    }
                    if inst_name_eq(&namei, &namej) > 0 {
                        return Err(Stop::Semantic(format!(
                            "Duplicate instance name \"{namei}\" ({insti}) and \"{namej}\" ({instj}) for indom {}",
                            ip.old
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Each metric given one value of another instance domain: the instance
    /// named found (by the first word of its name, as PCP matches them) in the
    /// old domain, and in the new one (pmlogrewrite's `check_output`).
    pub(crate) fn check_output(&mut self) -> Result<(), Stop> {
        if self.meta.is_none() {
            return Ok(());
        }
        let line = self.line;
        for i in (0..self.rules.metrics.len()).rev() {
            let m = &self.rules.metrics[i];
            if m.flags & change::INDOM == 0 || !matches!(m.output, Output::One | Output::First) {
                continue;
            }
            let (old, new, one) = (m.old.indom, m.new.indom, m.output == Output::One);
            if !old.is_null() && one {
                if let Some(k) = self.start_indom(old, line) {
                    let list = self.inst_list(k);
                    if !self.find_instance(i, &list) && self.warnings {
                        let msg = self.not_found(i, "old", old);
                        self.warn(line, msg);
                    }
                }
            }
            if !new.is_null() {
                let Some(k) = self.start_indom(new, line) else {
                    return Err(self.error(line, format!("Botch: InDom {new} not found")));
                };
                let list = self.inst_list(k);
                if !self.find_instance(i, &list) && self.warnings {
                    let msg = self.not_found(i, "new", new);
                    self.warn(line, msg);
                }
                let m = &mut self.rules.metrics[i];
                if old.is_null() && m.one_inst == NO_INST {
                    m.one_inst = 0;
                }
            }
        }
        Ok(())
    }

    /// The instances (as the input has them) of the `k`th domain of the list.
    fn inst_list(&self, k: usize) -> Vec<(i32, String)> {
        let insts = &self.rules.indoms[k].insts;
        insts
            .iter()
            .map(|x| (x.old_inst, x.old_name.clone()))
            .collect()
    }

    /// The metric's instance looked for in `list`; once found by name, kept
    /// by number.
    fn find_instance(&mut self, i: usize, list: &[(i32, String)]) -> bool {
        let m = &mut self.rules.metrics[i];
        for (inst, name) in list {
            match &m.one_name {
                Some(want) if inst_name_eq(name, want) > 0 => {
                    (m.one_name, m.one_inst) = (None, *inst);
                    return true;
                }
                Some(_) => {}
                None if *inst == m.one_inst => return true,
                None => {}
            }
        }
        false
    }

    fn not_found(&self, i: usize, which: &str, indom: InDom) -> String {
        let m = &self.rules.metrics[i];
        match &m.one_name {
            Some(n) => {
                format!("Instance \"{n}\" from OUTPUT clause not found in {which} indom {indom}")
            }
            None => format!(
                "Instance {} from OUTPUT clause not found in {which} indom {indom}",
                m.one_inst
            ),
        }
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

/// PCP's instance-name match: equal up to the first space of either (2: the
/// whole names equal, 1: the first words, 0: different, -1: an empty name).
pub(crate) fn inst_name_eq(p: &str, q: &str) -> i32 {
    if p.is_empty() || q.is_empty() {
        return -1;
    }
    let (p, q) = (p.as_bytes(), q.as_bytes());
    let mut i = 0;
    loop {
        let (a, b) = (p.get(i).copied(), q.get(i).copied());
        if a.is_none() && b.is_none() {
            return 2;
        }
        let end = |c: Option<u8>| c.is_none() || c == Some(b' ');
        if end(a) || end(b) {
            return i32::from(end(a) && end(b));
        }
        if a != b {
            return 0;
        }
        i += 1;
    }
}

/// The PMID a rule's `to` gives `old`: whole, or (for a rule over a cluster,
/// `star` 1, or a domain, 2) with `old`'s item, and its cluster too.
pub(crate) fn starred(to: PmId, old: PmId, star: u8) -> PmId {
    match star {
        1 => PmId::new(to.domain(), to.cluster(), old.item()),
        2 => PmId::new(to.domain(), old.cluster(), old.item()),
        _ => to,
    }
}
