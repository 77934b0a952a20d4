//! The text clause's actions, as pmlogrewrite takes them: the help text
//! records of a metric (or of a cluster or domain of metrics) or of an
//! instance domain, of the types and with the text the rule names, entered in
//! the rules' list and marked as this rule's; each clause (`delete`, `text ->`,
//! `metric ->` or `indom ->`) then applies to the marked records, unmarking
//! them as it goes (pmlogrewrite's walk: a second clause in a rule finds them
//! unmarked).

use crate::config::Config;
use crate::parse::{Stop, Val};
use crate::rules::{text, TextSpec};
use archive_format::codec::meta::text_type::{HELP, INDOM, ONELINE, PMID};
use archive_format::error::pm_err_str;
use archive_format::types::{InDom, PmId};

/// The two kinds of text.
const KINDS: u32 = ONELINE | HELP;

/// pmlogrewrite's `textTypeStr` of a text record's type (its kind bits with
/// the identifier's: none of its cases, so always "unknown").
fn type_str(t: u32) -> &'static str {
    match t {
        ONELINE => "one line",
        HELP => "help",
        _ => "unknown",
    }
}

/// A text's identifier as messages show it.
fn id_str(ttype: u32, id: u32) -> String {
    if ttype & PMID != 0 {
        PmId(id).to_string()
    } else {
        InDom(id).to_string()
    }
}

impl Config<'_> {
    /// Whether the input has help text of type `ttype` for `id`.
    pub(crate) fn has_text(&self, ttype: u32, id: u32) -> bool {
        self.text_ids
            .iter()
            .any(|(t, ids)| *t == ttype && ids.contains(&id))
    }

    /// `start_text`: the record's place in the list (by type, identifier and,
    /// where given, text), entered the first time with the text the input's
    /// lookup gives; `None` where there is none.
    pub(crate) fn start_text(
        &mut self,
        ttype: u32,
        id: u32,
        body: Option<&str>,
        line: usize,
    ) -> Option<usize> {
        let found = self.rules.texts.iter().rposition(|t| {
            t.ttype == ttype && t.old_id == id && body.is_none_or(|b| t.old_text == b)
        });
        if found.is_some() {
            return found;
        }
        let old_text = match body {
            Some(b) => b.to_string(),
            None => {
                let looked = self.meta.map(|m| m.lookup_text(id, ttype));
                match looked {
                    Some(Ok(t)) => t.to_string(),
                    other => {
                        if self.warnings {
                            let e =
                                pm_err_str(other.map_or(archive_format::error::PM_ERR_TEXT, |r| {
                                    r.err().unwrap_or(0)
                                }));
                            let f = if ttype & PMID != 0 {
                                "pmLookupText"
                            } else {
                                "pmLookupInDomText"
                            };
                            self.warn(line, format!("Text {}: {f}: {e}", id_str(ttype, id)));
                        }
                        return None;
                    }
                }
            }
        };
        self.rules.texts.push(TextSpec {
            ttype,
            old_id: id,
            new_id: id,
            old_text,
            new_text: None,
            flags: 0,
        });
        Some(self.rules.texts.len() - 1)
    }

    /// A record follows its metric's or domain's new identifier; a text rule
    /// moving it elsewhere is a semantic error.
    pub(crate) fn follow(&mut self, i: usize, new: u32, what: &str, by: &str) -> Result<(), Stop> {
        let t = &mut self.rules.texts[i];
        if t.flags & text::CHANGE_ID != 0 {
            if t.new_id != new {
                return Err(Stop::Semantic(format!(
                    "Conflicting {what} change for help text ({} from text clause, {} from {by} clause)",
                    id_str(t.ttype, t.new_id),
                    id_str(t.ttype, new)
                )));
            }
            return Ok(());
        }
        t.flags |= text::CHANGE_ID;
        t.new_id = new;
        Ok(())
    }

    /// The text rule's header: the records it names marked. `id` is the
    /// metric's PMID or the domain (`u32::MAX`: not in the input), `star` the
    /// walk over a cluster or domain.
    pub(crate) fn text_begin(
        &mut self,
        kind: u32,
        id: u32,
        types: u32,
        body: Option<String>,
        line: usize,
    ) {
        self.text_sel = (None, false);
        if id == u32::MAX {
            return;
        }
        let star = if kind == PMID {
            self.sel.star
        } else {
            u8::from(self.sel.star_indom)
        };
        let matches = |x: u32| -> bool {
            if kind == PMID {
                let (p, q) = (PmId(x), PmId(id));
                p.domain() == q.domain() && (star == 2 || p.cluster() == q.cluster())
            } else {
                InDom(x).domain() == InDom(id).domain()
            }
        };
        let mut target = kind | types;
        let mut found = 0;
        let mut current = None;
        let lists = self.text_ids.clone();
        'types: for (this, ids) in &lists {
            if this & target != *this {
                continue;
            }
            for &x in ids {
                let hit = if star != 0 { matches(x) } else { x == id };
                if !hit {
                    continue;
                }
                if let Some(i) = self.start_text(*this, x, body.as_deref(), line) {
                    self.rules.texts[i].flags |= text::ACTIVE;
                    current = Some(i);
                    found += 1;
                }
                if star == 0 {
                    target ^= this & KINDS;
                    if target & KINDS == 0 {
                        break 'types;
                    }
                }
            }
        }
        self.text_sel = (current, found > 1);
    }

    /// `walk_text`: the marked records a clause applies to, unmarked as they
    /// are visited and checked for a clause of this kind already given and for
    /// deletion against other changes.
    fn text_walk(&mut self, flag: u32, which: &str, line: usize) -> Result<Vec<usize>, Stop> {
        let picked: Vec<usize> = match self.text_sel {
            (_, true) => (0..self.rules.texts.len())
                .rev()
                .filter(|&i| self.rules.texts[i].flags & text::ACTIVE != 0)
                .collect(),
            (Some(i), false) if self.rules.texts[i].flags & text::ACTIVE != 0 => vec![i],
            _ => Vec::new(),
        };
        for &i in &picked {
            let t = &mut self.rules.texts[i];
            t.flags &= !text::ACTIVE;
            let (kind, id) = (type_str(t.ttype), id_str(t.ttype, t.old_id));
            let owner = if t.ttype & PMID != 0 {
                "metric"
            } else {
                "indom"
            };
            let subject = format!("{kind} text for {owner} {id}");
            let msg = crate::config::walk_check(t.flags, flag, text::DELETE, which, &subject);
            if let Some(m) = msg {
                return Err(self.error(line, m));
            }
        }
        Ok(picked)
    }

    /// A clause of a text rule.
    pub(crate) fn text_clause(
        &mut self,
        marker: &str,
        rhs: &[Val],
        line: usize,
    ) -> Result<(), Stop> {
        let clause = marker.split_once(':').map_or(marker, |(_, c)| c);
        match clause {
            "delete" => {
                for i in self.text_walk(text::DELETE, "delete", line)? {
                    self.rules.texts[i].flags |= text::DELETE;
                }
            }
            "text_assign_textstring" => {
                let new = rhs[2].text().to_string();
                for i in self.text_walk(text::CHANGE_TEXT, "text", line)? {
                    let t = &self.rules.texts[i];
                    if let Some(n) = &t.new_text {
                        let m = if *n == new {
                            "Duplicate text change clause"
                        } else {
                            "Conflicting text change clause"
                        };
                        return Err(self.error(line, m));
                    }
                    if t.old_text == new {
                        if self.warnings {
                            self.warn(line, "Help text: No change".into());
                        }
                        continue;
                    }
                    let t = &mut self.rules.texts[i];
                    t.new_text = Some(new.clone());
                    t.flags |= text::CHANGE_TEXT;
                }
            }
            "metric_assign_pmid_int" => self.text_to_metric(PmId(rhs[2].int() as u32), line)?,
            "indom_assign_indom_int" => self.text_to_indom(InDom(rhs[2].int() as u32), line)?,
            "empty" => {
                // the rule's records unmarked
                self.text_walk(text::ACTIVE, "active", line)?;
            }
            _ => return Err(Stop::Unsupported(marker.to_string())),
        }
        Ok(())
    }

    fn text_to_metric(&mut self, to: PmId, line: usize) -> Result<(), Stop> {
        for i in self.text_walk(text::CHANGE_ID, "id", line)? {
            let old = PmId(self.rules.texts[i].old_id);
            let pmid = crate::metric::starred(to, old, self.sel.star);
            if pmid == old {
                if self.warnings {
                    self.warn(line, format!("Text for metric: {old}: metric: No change"));
                }
                continue;
            }
            let ttype = self.rules.texts[i].ttype;
            let clash = self.rules.texts.iter().enumerate().any(|(j, t)| {
                j != i && t.flags & text::CHANGE_ID != 0 && t.ttype == ttype && t.new_id == pmid.0
            });
            if clash {
                return Err(self.error(
                    line,
                    format!("Text for metric: {old}: metric: Conflicting metric change"),
                ));
            }
            let t = &mut self.rules.texts[i];
            t.new_id = pmid.0;
            t.flags |= text::CHANGE_ID;
        }
        Ok(())
    }

    fn text_to_indom(&mut self, to: InDom, line: usize) -> Result<(), Stop> {
        for i in self.text_walk(text::CHANGE_ID, "id", line)? {
            let t = &self.rules.texts[i];
            let old = InDom(t.old_id);
            if t.new_id != t.old_id {
                return Err(self.error(line, format!("Duplicate text clause for indom {old}")));
            }
            let indom = if self.sel.star_indom {
                InDom::new(to.domain(), old.serial())
            } else {
                to
            };
            if indom == old {
                if self.warnings {
                    self.warn(
                        line,
                        format!("Text for instance domain {old}: indom: No change"),
                    );
                }
                continue;
            }
            let t = &mut self.rules.texts[i];
            t.new_id = indom.0;
            t.flags |= text::CHANGE_ID;
        }
        Ok(())
    }
}

/// The kinds of text a rule names (`*`, `help`, `oneline`; one line by default).
pub(crate) fn kinds(marker: &str, rhs: &[Val]) -> Val {
    Val::Int(match marker {
        "texttype:text_star" => i64::from(KINDS),
        "texttype:help" => i64::from(HELP),
        "texttype:oneline" => i64::from(ONELINE),
        "opttexttypes:empty" => i64::from(ONELINE),
        "texttypes:texttype_texttypes" => rhs[0].int() | rhs[1].int(),
        _ => rhs[0].int(),
    })
}

/// The identifier bit of a text rule's records.
pub(crate) fn rule_kind(marker: &str) -> u32 {
    if marker.starts_with("textmetricspec") {
        PMID
    } else {
        INDOM
    }
}

/// The input's help text as libpcp's hash tables walk it: each type, and each
/// type's identifiers.
pub(crate) fn archive_text_ids(
    records: &[archive_format::codec::meta::MetaRecord],
) -> Vec<(u32, Vec<u32>)> {
    use archive_format::codec::meta::MetaRecord;
    use archive_format::hashorder::hash_order;
    let mut types: Vec<u32> = Vec::new();
    let mut ids: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for r in records {
        if let MetaRecord::Text { ttype, ident, .. } = *r {
            if !types.contains(&ttype) {
                types.push(ttype);
            }
            if seen.insert((ttype, ident)) {
                ids.entry(ttype).or_default().push(ident);
            }
        }
    }
    hash_order(&types)
        .into_iter()
        .map(|t| (t, hash_order(ids.get(&t).map_or(&[][..], |v| v.as_slice()))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use archive_format::types::Timestamp;
    use archive_format::Label;

    /// The rules read from `text` over an input whose help text is `ids`.
    fn read(text: &str, ids: Vec<(u32, Vec<u32>)>) -> (Result<(), Stop>, Vec<TextSpec>) {
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
        c.text_ids = ids;
        let r = parse(text.as_bytes(), &mut c).map(|_| ());
        (r, c.rules.texts)
    }

    const M: u32 = (29 << 22) | 6;

    #[test]
    fn a_rule_with_its_text_changes_only_that_record() {
        let ids = vec![(PMID | ONELINE, vec![M]), (PMID | HELP, vec![M])];
        let (r, texts) = read(
            "text metric 29.0.6 oneline \"old\" { text -> \"new\" }",
            ids,
        );
        assert_eq!(r, Ok(()));
        assert_eq!(texts.len(), 1, "{texts:?}");
        let t = &texts[0];
        assert_eq!(
            (t.ttype, t.old_id, t.old_text.as_str()),
            (PMID | ONELINE, M, "old")
        );
        assert_eq!(t.new_text.as_deref(), Some("new"));
        assert_eq!(t.flags, text::CHANGE_TEXT);
    }

    #[test]
    fn a_second_clause_of_a_kind_is_a_duplicate() {
        let ids = vec![(PMID | HELP, vec![M])];
        let (r, _) = read(
            "text metric 29.0.6 help \"h\" { delete }\ntext metric 29.0.6 help \"h\" { delete }",
            ids,
        );
        let Err(Stop::Error { line, message }) = r else {
            panic!("{r:?}")
        };
        // "unknown": PCP names the kind from the type word with its PMID bit.
        assert_eq!(line, 2);
        assert_eq!(
            message,
            "Duplicate delete clause for unknown text for metric 29.0.6"
        );
    }

    #[test]
    fn kinds_combine_and_default_to_one_line() {
        assert_eq!(kinds("opttexttypes:empty", &[]).int(), i64::from(ONELINE));
        let both = [Val::Int(i64::from(HELP)), Val::Int(i64::from(ONELINE))];
        assert_eq!(
            kinds("texttypes:texttype_texttypes", &both).int(),
            i64::from(KINDS)
        );
        assert_eq!(rule_kind("textmetricspec:x"), PMID);
        assert_eq!(rule_kind("textindomspec:x"), INDOM);
    }
}
