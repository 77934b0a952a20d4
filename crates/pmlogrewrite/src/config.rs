//! The rules' actions, as pmlogrewrite takes each clause when its rule is
//! reduced: the global clause's changes (each checked against the input's
//! label, a clause that changes nothing a warning with `-w`), the time shift's
//! forms, and PCP's messages for clauses cut short; the clauses of instance
//! domains, metrics, help text and labels are in their own modules.

use crate::metric::Selection;
use crate::parse::{Actions, Stop, Val};
use crate::rules::{Global, Rules, Shift};
use archive_format::codec::label::Label;
use archive_format::metadata::Metadata;
use archive_format::types::InDom;
use std::collections::HashMap;

/// What reading the rules knows of the run, and what it has made so far.
pub(crate) struct Config<'a> {
    pub(crate) label: &'a Label,
    /// The input's metadata (none: every metric is unknown).
    pub(crate) meta: Option<&'a Metadata>,
    /// The input's metadata records, whose instance domains an indom clause
    /// looks up.
    pub(crate) records: &'a [archive_format::codec::meta::MetaRecord],
    /// Each instance domain's instances as libpcp lists the archive's
    /// (`pmGetInDomArchive`), made the first time a clause asks for it.
    pub(crate) instances: HashMap<InDom, Option<Vec<(i32, String)>>>,
    /// The input's help text: each type (libpcp's hash order) and its
    /// identifiers (in the order of its hash table).
    pub(crate) text_ids: Vec<(u32, Vec<u32>)>,
    /// The input's label records: each type (libpcp's hash order) and its
    /// identifiers (in the order of its hash table).
    pub(crate) label_ids: Vec<(u32, Vec<u32>)>,
    /// What the label rule being read selects.
    pub(crate) lab: crate::label::LabelSel,
    /// The text rule being read: its one record, or (`true`) the records of a
    /// walk.
    pub(crate) text_sel: (Option<usize>, bool),
    /// `-s`: rescale values where only the units' scale changes.
    pub(crate) scale: bool,
    /// The metrics the metric rule being read applies to.
    pub(crate) sel: Selection,
    /// The domains the indom rule being read applies to: every one of a
    /// domain number, or one (its place in the list).
    pub(crate) indom_sel: (Option<u32>, Option<usize>),
    /// The output's version.
    pub(crate) version: u32,
    /// `-w`: warnings for rules that change nothing.
    pub(crate) warnings: bool,
    /// The file being read, as messages name it.
    pub(crate) file: String,
    /// The line the last file's scan ended on (what messages after the parse
    /// name).
    pub(crate) line: usize,
    pub(crate) rules: Rules,
    /// The time clause's shift as parsed (seconds signed, as pmlogrewrite
    /// keeps it), before the clause is taken.
    time: (i64, i64),
    /// Warnings said, in order (for standard error).
    pub(crate) said: Vec<String>,
}

/// C's `atoi`.
pub(crate) fn atoi(s: &str) -> i64 {
    cli_common::window::strtol(s).0 as i32 as i64
}

/// C's `atof` of a digits-and-point number.
fn atof(s: &str) -> f64 {
    s.parse().unwrap_or(0.0)
}

impl<'a> Config<'a> {
    pub(crate) fn new(label: &'a Label, version: u32, warnings: bool) -> Config<'a> {
        Config {
            label,
            meta: None,
            records: &[],
            instances: HashMap::new(),
            text_ids: Vec::new(),
            label_ids: Vec::new(),
            lab: Default::default(),
            text_sel: (None, false),
            scale: false,
            sel: Selection::default(),
            indom_sel: (None, None),
            version,
            warnings,
            file: String::new(),
            line: 0,
            rules: Rules::default(),
            time: (0, 0),
            said: Vec::new(),
        }
    }

    pub(crate) fn error(&self, line: usize, message: impl Into<String>) -> Stop {
        Stop::Error {
            line,
            message: message.into(),
        }
    }

    pub(crate) fn warn(&mut self, line: usize, message: String) {
        self.said
            .push(format!("Warning [{}, line {line}]\n{message}", self.file));
    }

    /// A global clause that changes a label field: duplicates are errors, a
    /// value the input already has changes nothing.
    fn label_field(
        &mut self,
        line: usize,
        what: &str,
        current: &str,
        new: String,
        pick: fn(&mut Global) -> &mut Option<String>,
    ) -> Result<(), Stop> {
        if pick(&mut self.rules.global).is_some() {
            return Err(self.error(line, format!("Duplicate global {what} clause")));
        }
        if current == new {
            if self.warnings {
                self.warn(line, format!("Global {what} ({current}): No change"));
            }
            return Ok(());
        }
        *pick(&mut self.rules.global) = Some(new);
        Ok(())
    }

    fn global(&mut self, marker: &str, rhs: &[Val], line: usize) -> Result<Val, Stop> {
        let needs_v3 = |what: &str| {
            format!("Global {what} clause requires output archive version of 3 or greater")
        };
        match marker {
            "globalopt:hostname_assign_hname" => {
                let current = self.label.hostname.clone();
                self.label_field(line, "hostname", &current, rhs[2].text().into(), |g| {
                    &mut g.hostname
                })?;
            }
            "globalopt:timezone_assign_string" => {
                let current = self.label.timezone.clone();
                self.label_field(line, "timezone", &current, rhs[2].text().into(), |g| {
                    &mut g.timezone
                })?;
            }
            "globalopt:zoneinfo_assign_string" => {
                if self.rules.global.zoneinfo.is_some() {
                    return Err(self.error(line, "Duplicate global zoneinfo clause"));
                }
                if self.version < 3 {
                    return Err(self.error(line, needs_v3("zoneinfo")));
                }
                let current = self.label.zoneinfo.clone();
                self.label_field(line, "zoneinfo", &current, rhs[2].text().into(), |g| {
                    &mut g.zoneinfo
                })?;
            }
            "globalopt:features_assign_feature_bits" => {
                if self.rules.global.features.is_some() {
                    return Err(self.error(line, "Duplicate global features clause"));
                }
                if self.version < 3 {
                    return Err(self.error(line, needs_v3("features")));
                }
                let bits = rhs[2].int() as u32;
                if bits == self.label.features {
                    if self.warnings {
                        let f = self.label.features as i32;
                        self.warn(line, format!("Global features ({f}): No change"));
                    }
                } else {
                    self.rules.global.features = Some(bits);
                }
            }
            "globalopt:time_assign_signtime" => {
                if self.rules.global.time.is_some() {
                    return Err(self.error(line, "Duplicate global time clause"));
                }
                let (sec, nsec) = self.time;
                if sec == 0 && nsec == 0 {
                    if self.warnings {
                        self.warn(line, "Global time: No change".into());
                    }
                } else {
                    self.rules.global.time = Some(Shift {
                        negative: sec < 0,
                        sec: sec.abs(),
                        nsec: nsec as u32,
                    });
                }
            }
            m => return self.cut_short(m, line),
        }
        Ok(Val::None)
    }

    /// A global clause cut short: what it lacks.
    fn cut_short(&self, marker: &str, line: usize) -> Result<Val, Stop> {
        let msg = match marker {
            "globalopt:hostname_assign" => "Expecting hostname in hostname clause",
            "globalopt:hostname" => "Expecting -> in hostname clause",
            "globalopt:timezone_assign" => "Expecting timezone string in timezone clause",
            "globalopt:timezone" => "Expecting -> in timezone clause",
            "globalopt:zoneinfo_assign" => "Expecting zoneinfo string in zoneinfo clause",
            "globalopt:zoneinfo" => "Expecting -> in zoneinfo clause",
            "globalopt:features_assign" => "Expecting features value in features clause",
            "globalopt:features" => "Expecting -> in features clause",
            "globalopt:time_assign" => {
                "Expecting delta of the form [+-][HH:[MM:]]SS[.d...] in time clause"
            }
            "globalopt:time" => "Expecting -> in time clause",
            "feature_bits:bits_lparen_bits_list" => {
                "Expecting ) after \"bits(\" in features clause"
            }
            "feature_bits:bits_lparen" => {
                "Expecting list of bit numbers after \"bits(\" in features clause"
            }
            "feature_bits:bits" => "Expecting ( after \"bits\" in features clause",
            m => return Err(Stop::Unsupported(m.to_string())),
        };
        Err(self.error(line, msg))
    }

    /// A bit number of `bits(...)`.
    fn bit(&self, text: &str, line: usize) -> Result<i64, Stop> {
        let b = atoi(text);
        if !(0..=31).contains(&b) {
            return Err(self.error(line, format!("Bit \"{text}\" not in the range 0..31")));
        }
        Ok(1i64 << b)
    }

    /// The time clause's forms: the shift kept, and minutes or seconds over
    /// 59 warned of (always).
    fn time(&mut self, marker: &str, rhs: &[Val], line: usize) {
        let frac = |s: f64| ((1e9 * (s - s.trunc())) + 0.5) as i32 as i64;
        let minutes = |c: &mut Self, m: i64| {
            if m > 59 {
                c.warn(line, format!("Minutes ({m}) in time clause more than 59"));
            }
        };
        let secs_f = |c: &mut Self, s: f64| {
            if s > 59.0 {
                c.warn(
                    line,
                    format!("Seconds ({s:.6}) in time clause more than 59"),
                );
            }
        };
        let secs = |c: &mut Self, s: i64| {
            if s > 59 {
                c.warn(line, format!("Seconds ({s}) in time clause more than 59"));
            }
        };
        match marker {
            "time:number_colon_number_colon_float" => {
                let (h, m, s) = (rhs[0].int(), rhs[2].int(), rhs[4].float());
                minutes(self, m);
                secs_f(self, s);
                self.time = (h * 3600 + m * 60 + s as i64, frac(s));
            }
            "time:number_colon_number_colon_number" => {
                let (h, m, s) = (rhs[0].int(), rhs[2].int(), rhs[4].int());
                minutes(self, m);
                secs(self, s);
                self.time.0 = h * 3600 + m * 60 + s;
            }
            "time:number_colon_float" => {
                let (m, s) = (rhs[0].int(), rhs[2].float());
                minutes(self, m);
                secs_f(self, s);
                self.time = (m * 60 + s as i64, frac(s));
            }
            "time:number_colon_number" => {
                let (m, s) = (rhs[0].int(), rhs[2].int());
                minutes(self, m);
                secs(self, s);
                self.time.0 = m * 60 + s;
            }
            "time:float" => {
                let s = rhs[0].float();
                secs_f(self, s);
                self.time = (s as i64, frac(s));
            }
            _ => {
                let s = rhs[0].int();
                secs(self, s);
                self.time = (s, 0);
            }
        }
    }
}

/// What pmlogrewrite says as a clause reaches a record its rule marked (with
/// `flags`): a clause of this kind (`flag`) given twice, a change to what is
/// deleted, or a deletion of what changes (`delete` is the kind's delete bit).
pub(crate) fn walk_check(
    flags: u32,
    flag: u32,
    delete: u32,
    which: &str,
    subject: &str,
) -> Option<String> {
    if flags & flag != 0 {
        Some(format!("Duplicate {which} clause for {subject}"))
    } else if flag != delete && flags & delete != 0 {
        Some(format!("Conflicting {which} clause for deleted {subject}"))
    } else if flag == delete && flags & !delete != 0 {
        Some(format!(
            "Conflicting delete and other clauses for {subject}"
        ))
    } else {
        None
    }
}

/// Whether a rule belongs to the global clause or the values it is made of.
fn global_part(lhs: &str) -> bool {
    matches!(
        lhs,
        "globalopt"
            | "feature_bits"
            | "bits_list"
            | "hname"
            | "signnumber"
            | "number"
            | "float"
            | "signtime"
            | "time"
    )
}

/// Rules that only join others (lists, the file, the clauses' frames).
fn structural(lhs: &str) -> bool {
    matches!(
        lhs,
        "config"
            | "speclist"
            | "spec"
            | "globalspec"
            | "globaloptlist"
            | "optmetricoptlist"
            | "metricoptlist"
            | "optindomopt"
            | "indomoptlist"
    ) || lhs.starts_with("metricspec:metric_")
        || lhs.starts_with("indomspec:indom_")
}

/// The label rule's parts.
fn label_part(lhs: &str) -> bool {
    lhs.starts_with("label")
        || lhs.starts_with("optlabel")
        || lhs.starts_with("json")
        || matches!(
            lhs,
            "optinstancelabeldetails" | "newlabelspec" | "pmid_domain" | "pmid_cluster"
        )
}

/// The metric rule's parts.
fn metric_part(lhs: &str) -> bool {
    matches!(
        lhs,
        "metricspec.begin"
            | "metricspec"
            | "pmid_or_name"
            | "pmid_int"
            | "metricopt"
            | "rescaleopt"
            | "indom_int"
            | "null_or_indom"
            | "pick"
    )
}

impl Config<'_> {
    /// What a rule of a text rule does.
    fn text_rule(
        &mut self,
        marker: &str,
        lhs: &str,
        rhs: &[Val],
        below: &[Val],
        line: usize,
    ) -> Result<Val, Stop> {
        match lhs {
            "textmetricspec.begin" | "textindomspec.begin" => {
                let n = below.len();
                let at = |k: usize| below.get(n.wrapping_sub(k)).cloned().unwrap_or(Val::None);
                let id = at(3).int() as u32;
                let types = at(2).int() as u32;
                let body = match at(1) {
                    Val::Text(t) => Some(t),
                    _ => None,
                };
                let kind = crate::text::rule_kind(lhs);
                self.text_begin(kind, id, types, body, line);
                Ok(Val::None)
            }
            "opttexttypes" | "texttypes" | "texttype" => Ok(crate::text::kinds(marker, rhs)),
            "textstring" => Ok(Val::Text(rhs[0].text().to_string())),
            "opttextvalue" => Ok(if marker.ends_with(":empty") {
                Val::None
            } else {
                rhs[0].clone()
            }),
            "textmetricopt" | "textindomopt" => {
                self.text_clause(marker, rhs, line)?;
                Ok(Val::None)
            }
            "opttextmetricoptlist" | "opttextindomoptlist" if marker.ends_with(":empty") => {
                self.text_clause(marker, rhs, line)?;
                Ok(Val::None)
            }
            _ => Ok(Val::None),
        }
    }

    /// What a rule of a metric rule does.
    fn metric_rule(
        &mut self,
        marker: &str,
        rhs: &[Val],
        below: &[Val],
        line: usize,
    ) -> Result<Val, Stop> {
        let first = rhs
            .first()
            .map(|v| v.text().to_string())
            .unwrap_or_default();
        Ok(match marker {
            "metricspec.begin" => {
                let pmid = below.last().map_or(0, Val::int) as u32;
                self.metric_begin(pmid, line);
                Val::None
            }
            "metricspec:metric" => return Err(self.error(
                line,
                "Expecting metric name or <domain>.<cluster>.<item> or <domain>.<cluster>.* or <domain>.*.* in metric rule",
            )),
            "pmid_or_name:pmid_int" => rhs[0].clone(),
            "pmid_or_name:gname" => self.metric_name(&first, line),
            "pmid_int:pmid_int" => self.pmid_value(&first, false, line)?,
            "pmid_int:pmid_star" => self.pmid_value(&first, true, line)?,
            "rescaleopt:rescale" => Val::Int(1),
            "rescaleopt:empty" => Val::Int(0),
            "indom_int:float" => self.indom_value(&first, false, line)?,
            "indom_int:indom_star" => self.indom_value(&first, true, line)?,
            "null_or_indom:indom_int" => rhs[0].clone(),
            "null_or_indom:null_int" => Val::Int(i64::from(u32::MAX)),
            m if m.starts_with("pick:") => {
                self.pick(m, rhs, line)?;
                Val::None
            }
            m => {
                self.metric_clause(m, rhs, line)?;
                Val::None
            }
        })
    }
}

impl Actions for Config<'_> {
    fn reduce(
        &mut self,
        marker: &str,
        rhs: &mut [Val],
        below: &[Val],
        line: usize,
    ) -> Result<Val, Stop> {
        let lhs = marker.split(':').next().unwrap_or("");
        if structural(marker) || structural(lhs) {
            return Ok(Val::None);
        }
        if metric_part(lhs) {
            return self.metric_rule(marker, rhs, below, line);
        }
        if lhs.starts_with("text") || lhs.starts_with("opttext") {
            return self.text_rule(marker, lhs, rhs, below, line);
        }
        if label_part(lhs) {
            return self.label_rule(marker, lhs, rhs, below, line);
        }
        match lhs {
            "indomspec.begin" => {
                let indom = below.last().map_or(0, Val::int) as u32;
                self.indom_begin(indom, line);
                return Ok(Val::None);
            }
            "indomspec" => {
                return Err(self.error(
                    line,
                    "Expecting <domain>.<serial> or <domain>.* in indom rule",
                ))
            }
            "duplicateopt" => return Ok(Val::Int(i64::from(marker.ends_with(":duplicate")))),
            "indomopt" => {
                self.indom_clause(marker, rhs, line)?;
                return Ok(Val::None);
            }
            _ => {}
        }
        if !global_part(lhs) {
            return Err(Stop::Unsupported(marker.to_string()));
        }
        let first = rhs
            .first()
            .map(|v| v.text().to_string())
            .unwrap_or_default();
        Ok(match marker {
            "hname:hname" | "hname:gname" | "hname:number" | "hname:float" => Val::Text(first),
            "number:number" => Val::Int(atoi(&first)),
            "float:float" => Val::Float(atof(&first)),
            "signnumber:plus_number" => Val::Int(atoi(rhs[1].text())),
            "signnumber:minus_number" => Val::Int(-atoi(rhs[1].text())),
            "signnumber:number" => Val::Int(atoi(&first)),
            "feature_bits:number" => {
                Val::Int(cli_common::window::strtol(&first).0 as u64 as u32 as i64)
            }
            "feature_bits:bits_lparen_bits_list_rparen" => rhs[2].clone(),
            "bits_list:number" => Val::Int(self.bit(&first, line)?),
            "bits_list:bits_list_comma_number" => {
                Val::Int(rhs[0].int() | self.bit(rhs[2].text(), line)?)
            }
            "signtime:minus_time" => {
                self.time.0 = -self.time.0;
                Val::None
            }
            "signtime:plus_time" | "signtime:time" => Val::None,
            m if m.starts_with("time:") => {
                self.time(m, rhs, line);
                Val::None
            }
            m => return self.global(m, rhs, line),
        })
    }
}

impl Config<'_> {
    /// After every file: each help text of a renumbered metric follows it
    /// (pmlogrewrite's `link_entries`, for metrics).
    pub(crate) fn link(&mut self) -> Result<(), Stop> {
        self.link_indoms()?;
        self.link_texts()?;
        self.link_labels()?;
        self.check_indoms()?;
        self.check_output()
    }

    /// Each help text of a renumbered metric follows it (a text rule moving
    /// it elsewhere is a semantic error).
    fn link_texts(&mut self) -> Result<(), Stop> {
        use archive_format::codec::meta::text_type::PMID;
        let types: Vec<u32> = self.text_ids.iter().map(|(t, _)| *t).collect();
        for k in (0..self.rules.metrics.len()).rev() {
            let (old, new) = (
                self.rules.metrics[k].old.pmid.0,
                self.rules.metrics[k].new.pmid.0,
            );
            if new == old {
                continue;
            }
            for &t in types.iter().filter(|t| *t & PMID != 0) {
                if !self.has_text(t, old) {
                    continue;
                }
                let Some(i) = self.start_text(t, old, None, self.line) else {
                    continue;
                };
                self.follow(i, new, "pmid", "pmid")?;
            }
        }
        Ok(())
    }
}

/// What `-v` (and `-C`) print of the rules: each change (the global clause's).
pub(crate) fn report(rules: &Rules, label: &Label) -> String {
    let g = &rules.global;
    let mut out = String::from("PCP Archive Log Rewrite Specifications Summary\n");
    let mut change = false;
    if let Some(h) = &g.hostname {
        out.push_str(&format!("Hostname:\t{} -> {h}\n", label.hostname));
        change = true;
    }
    if let Some(tz) = &g.timezone {
        out.push_str(&format!("Timezone:\t{} -> {tz}\n", label.timezone));
        change = true;
    }
    if let Some(z) = &g.zoneinfo {
        out.push_str(&format!("Zoneinfo:\t{} -> {z}\n", label.zoneinfo));
        change = true;
    }
    if let Some(f) = g.features {
        out.push_str(&format!(
            "Features:\t{} -> {}\n",
            label.features as i32, f as i32
        ));
        change = true;
    }
    if let Some(s) = &g.time {
        let sign = if s.negative { "-" } else { "" };
        let (h, m, sec) = (s.sec / 3600, s.sec / 60 % 60, s.sec % 60);
        let hours = if h < 10 {
            format!("{h:02}")
        } else {
            h.to_string()
        };
        out.push_str(&format!(
            "Delta:\t\t-> {sign}{hours}:{m:02}:{sec:02}.{:09}\n",
            s.nsec
        ));
        change = true;
    }
    for ip in rules.indoms.iter().rev() {
        change |= indom_report(ip, &mut out);
    }
    for m in rules.metrics.iter().rev() {
        change |= metric_report(m, rules.inst_changes(m).map(|i| i.old), &mut out);
    }
    for t in rules.texts.iter().rev() {
        change |= text_report(t, &mut out);
    }
    let (labels, changed) = crate::labellink::report(&rules.labels);
    out.push_str(&labels);
    change |= changed;
    if !change {
        out.push_str("No changes\n");
    }
    out
}

/// Which value a metric moved to another instance domain keeps, as the
/// report says it.
fn output_report(m: &crate::rules::MetricSpec, out: &mut String) {
    use crate::rules::{Output, NO_INST};
    let many = !m.old.indom.is_null();
    let inst = m.one_inst;
    let line = match m.output {
        Output::All => return,
        Output::One if many => {
            let mut s = String::from("value for instance");
            if inst != NO_INST {
                s.push_str(&format!(" {inst}"));
            }
            if let Some(n) = &m.one_name {
                s.push_str(&format!(" \"{n}\""));
            }
            s
        }
        Output::One => format!("the only value (output instance {inst})"),
        Output::First if many => "first value".into(),
        Output::First if inst != NO_INST => {
            format!("first and only value (output instance {inst})")
        }
        Output::First => format!(
            "first and only value (output instance \"{}\")",
            m.one_name.as_deref().unwrap_or("(null)")
        ),
        Output::Last if many => "last value".into(),
        Output::Last => format!("last and only value (output instance {inst})"),
        Output::Min if many => "smallest value".into(),
        Output::Min => format!("smallest and only value (output instance {inst})"),
        Output::Max if many => "largest value".into(),
        Output::Max => format!("largest and only value (output instance {inst})"),
        Output::Sum if many => format!("sum value (output instance {inst})"),
        Output::Sum => format!("sum and only value (output instance {inst})"),
        Output::Avg if many => format!("average value (output instance {inst})"),
        Output::Avg => format!("average and only value (output instance {inst})"),
    };
    out.push_str(&format!("Output:\t\t{line}\n"));
}

/// A help text record's part of the report; whether it changes anything.
fn text_report(t: &crate::rules::TextSpec, out: &mut String) -> bool {
    use crate::rules::text;
    use archive_format::codec::meta::text_type::{ONELINE, PMID};
    use archive_format::types::PmId;
    if t.flags == 0 {
        return false;
    }
    let kind = if t.ttype & ONELINE != 0 {
        "One Line"
    } else {
        "full"
    };
    let pmid = t.ttype & PMID != 0;
    let id = |x: u32| {
        if pmid {
            PmId(x).to_string()
        } else {
            InDom(x).to_string()
        }
    };
    let what = if pmid { "pmID" } else { "pmInDom" };
    out.push_str(&format!("\nHelp Text: {kind} {what} ({})\n", id(t.old_id)));
    if t.flags & text::CHANGE_ID != 0 {
        out.push_str(&format!("ID:\t\t{} -> {}\n", id(t.old_id), id(t.new_id)));
    }
    if let (true, Some(n)) = (t.flags & text::CHANGE_TEXT != 0, &t.new_text) {
        out.push_str(&format!(
            "Text:\t\t\"{}\"\n\t\t->\n\t\t\"{n}\"\n",
            t.old_text
        ));
    }
    if t.flags & text::DELETE != 0 {
        out.push_str("DELETE\n");
    }
    true
}

/// An instance domain's part of the report; whether it changes anything.
fn indom_report(ip: &crate::rules::IndomSpec, out: &mut String) -> bool {
    use crate::rules::inst;
    let header = format!("\nInstance Domain: {}\n", ip.old);
    let mut said = false;
    if ip.new != ip.old {
        out.push_str(&header);
        out.push_str(&format!("pmInDom:\t-> {}\n", ip.new));
        said = true;
    }
    for x in ip.insts.iter().filter(|x| x.flags != 0) {
        if !said {
            out.push_str(&header);
            said = true;
        }
        out.push_str(&format!(
            "Instance:\t[{}] \"{}\" -> ",
            x.old_inst, x.old_name
        ));
        if x.flags & inst::DELETE != 0 {
            out.push_str("DELETE\n");
            continue;
        }
        let id = if x.flags & inst::CHANGE_INST != 0 {
            x.new_inst
        } else {
            x.old_inst
        };
        let name = match (&x.new_name, x.flags & inst::CHANGE_INAME != 0) {
            (Some(n), true) => n.as_str(),
            _ => x.old_name.as_str(),
        };
        out.push_str(&format!("[{id}] \"{name}\"\n"));
    }
    said
}

/// A metric's part of the report (`insts`: the domain whose instance
/// changes its values take); whether it changes anything.
fn metric_report(m: &crate::rules::MetricSpec, insts: Option<InDom>, out: &mut String) -> bool {
    use crate::rules::change as c;
    use archive_format::types::{sem, vtype};
    if m.flags == 0 && insts.is_none() {
        return false;
    }
    let sem_str = |s: i32| sem::name(s).map_or_else(|| format!("bad sem? {s}"), str::to_string);
    out.push_str(&format!("\nMetric: {} ({})\n", m.old_name, m.old.pmid));
    if m.flags & c::PMID != 0 {
        out.push_str(&format!("pmID:\t\t{} -> {}\n", m.old.pmid, m.new.pmid));
    }
    if let (true, Some(n)) = (m.flags & c::NAME != 0, &m.new_name) {
        out.push_str(&format!("Name:\t\t{} -> {n}\n", m.old_name));
    }
    if m.flags & c::TYPE != 0 {
        let (a, b) = (
            vtype::short_name(m.old.vtype),
            vtype::short_name(m.new.vtype),
        );
        out.push_str(&format!("Type:\t\t{a} -> {b}\n"));
    }
    if m.flags & c::INDOM != 0 {
        out.push_str(&format!("InDom:\t\t{} -> {}\n", m.old.indom, m.new.indom));
        output_report(m, out);
    }
    if let Some(indom) = insts {
        out.push_str(&format!("Inst Changes:\t<- InDom {indom}\n"));
    }
    if m.flags & c::SEM != 0 {
        let (a, b) = (sem_str(m.old.sem), sem_str(m.new.sem));
        out.push_str(&format!("Semantics:\t{a} -> {b}\n"));
    }
    if m.flags & c::UNITS != 0 {
        let rescale = if m.flags & c::RESCALE != 0 {
            " (rescale)"
        } else {
            ""
        };
        out.push_str(&format!(
            "Units:\t\t{} -> {}{rescale}\n",
            m.old.units, m.new.units
        ));
    }
    if m.flags & c::DELETE != 0 {
        out.push_str("DELETE\n");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn label() -> Label {
        Label {
            version: 3,
            pid: 1,
            start: archive_format::types::Timestamp::new(0, 0),
            vol: 0,
            features: 0,
            hostname: "host".into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
        }
    }

    fn read(text: &str, version: u32) -> (Result<(), Stop>, Rules, Vec<String>) {
        let l = label();
        let mut c = Config::new(&l, version, true);
        c.file = "rules".into();
        let r = parse(text.as_bytes(), &mut c).map(|_| ());
        (r, c.rules, c.said)
    }

    #[test]
    fn the_global_clause_changes_the_label_and_the_time() {
        let (r, rules, said) = read(
            "GLOBAL {\n hostname -> a.b\n tz -> \"AEST-10\"\n features -> bits(0, 2)\n time -> -1:02:03.5\n}\n",
            3,
        );
        assert_eq!(r, Ok(()));
        assert!(said.is_empty(), "{said:?}");
        let g = &rules.global;
        assert_eq!(g.hostname.as_deref(), Some("a.b"));
        assert_eq!(g.timezone.as_deref(), Some("AEST-10"));
        assert_eq!(g.features, Some(5));
        let t = g.time.expect("a shift");
        assert!(t.negative);
        assert_eq!((t.sec, t.nsec), (3723, 500_000_000));
    }

    #[test]
    fn clauses_that_change_nothing_are_warned_of() {
        let (r, rules, said) = read("global { hostname -> host time -> 0 }", 3);
        assert_eq!(r, Ok(()));
        assert!(!rules.any_change());
        assert_eq!(
            said,
            [
                "Warning [rules, line 1]\nGlobal hostname (host): No change",
                "Warning [rules, line 1]\nGlobal time: No change"
            ]
        );
    }

    #[test]
    fn mistakes_name_their_line() {
        let err = |text: &str, version: u32| read(text, version).0.err();
        let at = |line: usize, m: &str| {
            Some(Stop::Error {
                line,
                message: m.into(),
            })
        };
        assert_eq!(
            err("global {\n hostname\n}\n", 3),
            at(3, "Expecting -> in hostname clause")
        );
        assert_eq!(
            err("global { zoneinfo -> \":UTC\" }", 2),
            at(
                1,
                "Global zoneinfo clause requires output archive version of 3 or greater"
            )
        );
        assert_eq!(
            err("global { features -> bits(40) }", 3),
            at(1, "Bit \"40\" not in the range 0..31")
        );
        assert_eq!(err("global {\n\n foo }", 3), at(3, "syntax error"));
        assert_eq!(err("global { % }", 3), at(1, "Unexpected character '%'"));
        assert_eq!(
            err("global { tz -> \"a\" tz -> \"b\" }", 3),
            at(1, "Duplicate global timezone clause")
        );
    }

    #[test]
    fn the_report_says_each_change() {
        let (_, rules, _) = read("global { hostname -> new time -> 25:00:01 }", 3);
        assert_eq!(
            report(&rules, &label()),
            "PCP Archive Log Rewrite Specifications Summary\nHostname:\thost -> new\nDelta:\t\t-> 25:00:01.000000000\n"
        );
        assert_eq!(
            report(&Rules::default(), &label()),
            "PCP Archive Log Rewrite Specifications Summary\nNo changes\n"
        );
    }
}
