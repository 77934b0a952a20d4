//! `--json` (ours): each metric's report as one JSON object a line, with the
//! fields its options ask for: `pmid`, `desc`, `oneline`, `help`, `labels`
//! (the merged metric labels) and `values` (instance, name, value as text).

use super::report::Fetched;
use super::{text, Pminfo};
use archive_format::error::pm_err_str;
use archive_format::format::format_value;
use archive_format::types::{sem, vtype, Desc, PmId};
use serde_json::{json, Map, Value};
use std::io::{self, Write};

fn desc_json(d: &Desc) -> Value {
    json!({
        "type": vtype::short_name(d.vtype),
        "indom": (!d.indom.is_null()).then(|| d.indom.to_string()),
        "semantics": sem::name(d.sem),
        "units": d.units.to_string(),
    })
}

fn text_json(t: &Result<String, i32>) -> Value {
    match t {
        Ok(s) => json!(s.trim_end_matches('\n')),
        Err(e) => json!({ "error": pm_err_str(*e) }),
    }
}

impl Pminfo<'_> {
    /// One metric as a JSON line.
    pub(crate) fn report_json(
        &mut self,
        name: &str,
        pmid: PmId,
        desc: Option<Desc>,
        fetched: Option<&Fetched>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let s = self.o.show.clone();
        let mut m = Map::new();
        m.insert("name".into(), json!(name));
        if s.pmid {
            m.insert("pmid".into(), json!(pmid.to_string()));
        }
        if let (true, Some(d)) = (s.desc, &desc) {
            m.insert("desc".into(), desc_json(d));
        }
        if s.oneline {
            m.insert("oneline".into(), text_json(&self.text(pmid, text::ONELINE)));
        }
        if s.help {
            m.insert("help".into(), text_json(&self.text(pmid, text::HELP)));
        }
        if let (true, Some(d), Some(f)) = (s.labels, &desc, fetched) {
            let labels = self.metric_labels_json(d, f.stamp);
            m.insert("labels".into(), labels);
        }
        if let (true, Some(d), Some(f)) = (s.value, &desc, fetched) {
            m.insert("values".into(), self.values_json(d, f));
        }
        serde_json::to_writer(&mut *out, &Value::Object(m))?;
        writeln!(out)
    }

    fn values_json(&mut self, d: &Desc, f: &Fetched) -> Value {
        if f.set.numval < 0 {
            return json!({ "error": pm_err_str(f.set.numval) });
        }
        let vals: Vec<Value> = f
            .set
            .values
            .iter()
            .map(|(inst, v)| {
                let text = format_value(d.vtype, f.set.valfmt, &v.as_value());
                if d.indom.is_null() {
                    return json!({ "value": text });
                }
                let iname = self
                    .caches
                    .instance_name(&self.store, d.indom, *inst, f.stamp);
                json!({ "inst": inst, "name": iname, "value": text })
            })
            .collect();
        Value::Array(vals)
    }
}
