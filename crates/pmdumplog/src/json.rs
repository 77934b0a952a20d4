//! `pmdumplog --json`: the archive as JSON Lines, so that the output streams.
//!
//! The first line is one object with `"type": "archive"`: the label (`version`,
//! `hostname`, `timezone`, `zoneinfo`, `pid`, `start`, `end`), `metrics` (pmid, names,
//! type, indom, semantics, units, help text), `instance_domains` (every full instance
//! set with the time it took effect), `labels` (label sets with their time, type,
//! identifier and parsed JSON labels) and `index` (temporal index entries).
//!
//! Then one line per data record in time order: `{"type": "record", "time": ...,
//! "values": [...]}` where each value set has `pmid`, `name` (first name or null),
//! and either `error` (the PCP error text) or `instances`: `{inst, name, value}` with
//! `inst` null for singular metrics. Numbers stay numbers (64-bit ones exact), strings
//! strings, aggregates hex strings, and event arrays lists of `{time, flags,
//! missed, params: [{pmid, name, value}]}`. Mark records are `{"type": "mark",
//! "time": ...}`. Times are RFC 3339 in UTC with the archive's resolution.
//!
//! Metric arguments and `-S`/`-T` select metrics and the window as for the text dump.

use crate::opts::Opts;
use archive_format::atom::{extract, Atom};
use archive_format::codec::event::{decode_events, FLAG_MISSED};
use archive_format::codec::meta::{label_type, text_type};
use archive_format::codec::result::{ValueSet, VAL_INSITU};
use archive_format::error::pm_err_str;
use archive_format::logfetch::{Direction, LogCursor};
use archive_format::pmns::Lookup;
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp};
use archive_format::Archive;
use cli_common::clock;
use serde::Serialize;
use serde_json::{json, Value as J};
use std::io::{self, Write};

fn time(t: Timestamp, digits: usize) -> String {
    match jiff::Timestamp::new(t.sec, t.nsec as i32) {
        Ok(ts) => {
            let secs = ts.strftime("%Y-%m-%dT%H:%M:%S").to_string();
            let frac = if digits == 6 {
                format!("{:06}", t.nsec / 1000)
            } else {
                format!("{:09}", t.nsec)
            };
            format!("{secs}.{frac}Z")
        }
        Err(_) => format!("{}.{:09}", t.sec, t.nsec),
    }
}

fn indom_str(i: InDom) -> Option<String> {
    (!i.is_null()).then(|| format!("{}.{}", i.domain(), i.serial()))
}

#[derive(Serialize)]
struct Metric<'a> {
    pmid: String,
    names: &'a [String],
    #[serde(rename = "type")]
    vtype: &'static str,
    indom: Option<String>,
    semantics: &'static str,
    units: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    one_line_help: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
}

#[derive(Serialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    version: u32,
    hostname: &'a str,
    timezone: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    zoneinfo: &'a str,
    pid: i32,
    start: String,
    end: Option<String>,
    metrics: Vec<Metric<'a>>,
    instance_domains: Vec<J>,
    labels: Vec<J>,
    index: Vec<J>,
}

fn type_name(t: i32) -> &'static str {
    match t {
        vtype::NOSUPPORT => "nosupport",
        vtype::I32 => "32",
        vtype::U32 => "u32",
        vtype::I64 => "64",
        vtype::U64 => "u64",
        vtype::FLOAT => "float",
        vtype::DOUBLE => "double",
        vtype::STRING => "string",
        vtype::AGGREGATE => "aggregate",
        vtype::AGGREGATE_STATIC => "aggregate_static",
        vtype::EVENT => "event",
        vtype::HIGHRES_EVENT => "highres_event",
        _ => "unknown",
    }
}

fn sem_name(s: i32) -> &'static str {
    match s {
        sem::COUNTER => "counter",
        sem::INSTANT => "instant",
        sem::DISCRETE => "discrete",
        _ => "unknown",
    }
}

fn label_type_name(t: u32) -> &'static str {
    match t {
        label_type::CONTEXT => "context",
        label_type::DOMAIN => "domain",
        label_type::INDOM => "indom",
        label_type::CLUSTER => "cluster",
        label_type::ITEM => "item",
        label_type::INSTANCES => "instances",
        _ => "unknown",
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn atom_json(a: Atom<'_>) -> J {
    match a {
        Atom::Bytes(b) => J::String(hex(b)),
        Atom::Float(f) if !f.is_finite() => J::String(f.to_string()),
        Atom::Float(f) => serde_json::Number::from_f64(archive_format::atom::float_as_decimal(f))
            .map_or(J::Null, J::Number),
        Atom::Double(f) if !f.is_finite() => J::String(f.to_string()),
        other => serde_json::to_value(other).unwrap_or(J::Null),
    }
}

struct Ctx<'a> {
    a: &'a Archive,
    digits: usize,
}

impl Ctx<'_> {
    fn name(&self, pmid: PmId) -> Option<&str> {
        self.a.metadata().names(pmid).first().map(String::as_str)
    }

    fn value(
        &self,
        desc: Option<&Desc>,
        valfmt: i32,
        v: &archive_format::codec::result::Value<'_>,
        base: u64,
    ) -> J {
        let Some(d) = desc else {
            return J::Null;
        };
        if (d.vtype == vtype::EVENT || d.vtype == vtype::HIGHRES_EVENT) && valfmt != VAL_INSITU {
            if let archive_format::codec::result::Value::Block { data, .. } = v {
                return match decode_events(data, base, d.vtype == vtype::HIGHRES_EVENT) {
                    Ok(evs) => J::Array(
                        evs.iter()
                            .map(|e| {
                                let params: Vec<J> = e
                                    .params
                                    .iter()
                                    .map(|p| {
                                        let pd = self.a.metadata().desc(p.pmid);
                                        let pv = archive_format::codec::result::Value::Block {
                                            vtype: p.vtype,
                                            data: p.data,
                                        };
                                        let val = match pd {
                                            Some(pd) => extract(pd.vtype, &pv).map(atom_json).unwrap_or(J::Null),
                                            None => extract(i32::from(p.vtype), &pv).map(atom_json).unwrap_or(J::Null),
                                        };
                                        json!({"pmid": p.pmid.to_string(), "name": self.name(p.pmid), "value": val})
                                    })
                                    .collect();
                                let mut o = json!({"time": time(e.stamp, self.digits), "flags": e.flags, "params": params});
                                if e.flags & FLAG_MISSED != 0 {
                                    o["missed"] = json!(e.nparams);
                                }
                                o
                            })
                            .collect(),
                    ),
                    Err(e) => json!({"error": e.to_string()}),
                };
            }
        }
        extract(d.vtype, v).map(atom_json).unwrap_or(J::Null)
    }

    fn vset(&self, vs: &ValueSet<'_>, stamp: Timestamp) -> J {
        let m = self.a.metadata();
        let mut o = json!({"pmid": vs.pmid.to_string(), "name": self.name(vs.pmid)});
        if vs.numval < 0 {
            o["error"] = J::String(pm_err_str(vs.numval));
            return o;
        }
        let desc = m.desc(vs.pmid);
        let snap = desc
            .filter(|d| !d.indom.is_null())
            .and_then(|d| m.indom_in_force(d.indom, stamp));
        let insts: Vec<J> = vs
            .values
            .iter()
            .map(|(inst, v)| {
                let singular = desc.is_none_or(|d| d.indom.is_null());
                json!({
                    "inst": if singular { J::Null } else { json!(inst) },
                    "name": snap.and_then(|s| s.name_of(*inst)),
                    "value": self.value(desc, vs.valfmt, v, 0),
                })
            })
            .collect();
        o["instances"] = J::Array(insts);
        o
    }
}

/// The archive as JSON lines: a header (label, metadata, index), then a line per
/// record of the window (of the metrics named), as pmFetchArchive reads them.
pub fn dump(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let prog = o.prog;
    let name = o.archive.clone().unwrap_or_default();
    let a = match Archive::open(&name) {
        Ok(a) => a,
        Err(e) => {
            let why = e.pm_message();
            writeln!(err, "{prog}: Cannot open archive \"{name}\": {why}")?;
            return Ok(1);
        }
    };
    let m = a.metadata();
    let mut wanted: Vec<PmId> = Vec::new();
    for n in &o.names {
        match m.pmns.lookup(n) {
            Lookup::Leaf(p) => wanted.push(p),
            Lookup::NonLeaf => wanted.extend(m.pmns.traverse(n).into_iter().map(|(_, p)| p)),
            Lookup::Unknown => writeln!(err, "{prog}: pmLookupName({n}): Unknown metric name")?,
        }
    }
    if !o.names.is_empty() && wanted.is_empty() {
        writeln!(err, "No metric names can be translated, dump abandoned")?;
        return Ok(1);
    }
    let label = a.label();
    let end = a.end_time().ok();
    let (tz, _) = clock::zone_for(
        o.clock.hostzone && o.clock.tz.is_none(),
        o.clock.tz.as_deref(),
        label,
    );
    let bounds = clock::bounds(label, end);
    let (ws, we) = match o.clock.window(bounds, &tz) {
        Ok(w) => w,
        Err(msg) => {
            writeln!(err, "{prog}: {msg}")?;
            return Ok(1);
        }
    };
    let cx = Ctx {
        a: &a,
        digits: if label.version >= 3 { 9 } else { 6 },
    };
    let selected = |p: PmId| wanted.is_empty() || wanted.contains(&p);
    serde_json::to_writer(&mut *out, &cx.header(end, &selected))?;
    writeln!(out)?;
    // the records pmdumplog would print: read as the reference's pmFetchArchive reads
    let mut cur = LogCursor::new(&a);
    cur.set_mode(Direction::Forward, ws);
    loop {
        let rec = match cur.fetch() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                out.flush()?;
                writeln!(err, "{prog}: {e}")?;
                return Ok(1);
            }
        };
        if rec.stamp > we {
            break;
        }
        let digits = cx.digits;
        let line = if rec.is_mark() {
            json!({"type": "mark", "time": time(rec.stamp, digits)})
        } else {
            let values: Vec<J> = rec
                .vsets
                .iter()
                .filter(|vs| selected(vs.pmid))
                .map(|vs| cx.vset(vs, rec.stamp))
                .collect();
            if values.is_empty() {
                continue;
            }
            json!({"type": "record", "time": time(rec.stamp, digits), "values": values})
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)?;
    }
    Ok(0)
}

impl<'a> Ctx<'a> {
    /// The first line: the label, the descriptors of the selected metrics, every
    /// instance domain, label set and index entry.
    fn header(&self, end: Option<Timestamp>, selected: &dyn Fn(PmId) -> bool) -> Header<'a> {
        let (a, digits) = (self.a, self.digits);
        let m = a.metadata();
        let label = a.label();
        let metrics = m
            .descs()
            .iter()
            .filter(|d| selected(d.pmid))
            .map(|d| Metric {
                pmid: d.pmid.to_string(),
                names: m.names(d.pmid),
                vtype: type_name(d.vtype),
                indom: indom_str(d.indom),
                semantics: sem_name(d.sem),
                units: d.units.to_string(),
                one_line_help: m.text(text_type::PMID | text_type::ONELINE, d.pmid.0),
                help: m.text(text_type::PMID | text_type::HELP, d.pmid.0),
            })
            .collect();
        let index = a
            .index()
            .iter()
            .map(|e| {
                json!({"time": time(e.stamp, digits), "volume": e.vol, "meta": e.off_meta, "data": e.off_data})
            })
            .collect();
        Header {
            kind: "archive",
            version: label.version,
            hostname: &label.hostname,
            timezone: &label.timezone,
            zoneinfo: &label.zoneinfo,
            pid: label.pid,
            start: time(label.start, digits),
            end: end.map(|e| time(e, digits)),
            metrics,
            instance_domains: m.indoms().iter().map(|&i| self.indom(i)).collect(),
            labels: m.labels().iter().map(|r| self.label_record(r)).collect(),
            index,
        }
    }

    /// An instance domain: its help text and every set of it.
    fn indom(&self, i: InDom) -> J {
        let m = self.a.metadata();
        let sets: Vec<J> = m
            .snapshots(i)
            .iter()
            .map(|s| {
                let insts: Vec<J> = s
                    .instances
                    .iter()
                    .map(|(id, n)| json!({"inst": id, "name": n}))
                    .collect();
                json!({"time": time(s.stamp, self.digits), "instances": insts})
            })
            .collect();
        json!({
            "indom": indom_str(i),
            "one_line_help": m.text(text_type::INDOM | text_type::ONELINE, i.0),
            "help": m.text(text_type::INDOM | text_type::HELP, i.0),
            "sets": sets,
        })
    }

    /// A label record: its type, identifier and sets, each set's labels as JSON.
    fn label_record(&self, r: &archive_format::metadata::LabelRecord) -> J {
        let sets: Vec<J> = r
            .sets
            .iter()
            .map(|s| {
                let parsed: J = serde_json::from_str(&s.json).unwrap_or(J::String(s.json.clone()));
                let inst = if r.ltype == label_type::INSTANCES {
                    json!(s.inst)
                } else {
                    J::Null
                };
                json!({"inst": inst, "labels": parsed})
            })
            .collect();
        json!({
            "time": time(r.stamp, self.digits),
            "type": label_type_name(r.ltype),
            "ident": r.ident,
            "sets": sets,
        })
    }
}
