//! Derived metrics evaluated over testdata/archives/pmi_v2, fetch after fetch at
//! each interval, against the values PCP's libpcp gave them
//! (testdata/golden-derive/values.tsv, made by scripts/make-derive-values.py),
//! for the expressions evaluation takes so far.

use archive_format::derive::check::check;
use archive_format::derive::eval::{num_of, Evaluator, Operands, Values};
use archive_format::derive::parse;
use archive_format::derive::value::Num;
use archive_format::pmns::Lookup;
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp};
use std::collections::HashMap;

/// A double as Python's `float.hex()` writes it.
fn hex(d: f64) -> String {
    let bits = d.to_bits();
    let sign = if d.is_sign_negative() { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1 << 52) - 1);
    if exp == 0 && mant == 0 {
        return format!("{sign}0x0.0p+0");
    }
    let (lead, e) = if exp == 0 {
        (0, -1022)
    } else {
        (1, exp - 1023)
    };
    format!("{sign}0x{lead}.{mant:013x}p{e:+}")
}

fn shown(v: Num) -> String {
    match v {
        Num::I32(x) => x.to_string(),
        Num::U32(x) => x.to_string(),
        Num::I64(x) => x.to_string(),
        Num::U64(x) => x.to_string(),
        Num::F32(x) => hex(f64::from(x)),
        Num::F64(x) => hex(x),
    }
}

/// The operands' values at one fetch, and the archive's instance names.
struct Fetched<'a> {
    values: HashMap<String, Values>,
    archive: &'a Archive,
    stamp: Timestamp,
}

impl Operands for Fetched<'_> {
    fn values(&self, metric: &str) -> Values {
        self.values.get(metric).cloned().unwrap_or(Err(0))
    }
    fn instance(&self, indom: InDom, name: &str) -> Option<i32> {
        let snap = self.archive.metadata().indom_at(indom, self.stamp)?;
        snap.instances
            .iter()
            .find(|(_, n)| &**n == name)
            .map(|(i, _)| *i)
    }
    fn instance_name(&self, indom: InDom, inst: i32) -> Option<String> {
        let snap = self.archive.metadata().indom_at(indom, self.stamp)?;
        snap.name_of(inst).map(str::to_string)
    }
    fn stamp(&self) -> Timestamp {
        self.stamp
    }
}

const METRICS: [&str; 3] = ["pmi.load", "pmi.u32", "pmi.disk.bytes"];

/// A golden line: the fetch, the expression and what libpcp gave.
type Row = (usize, String, String);

/// The operands' values of one fetch.
fn fetched<'a>(
    a: &'a Archive,
    r: &mut Replay<'_>,
    pmids: &[PmId],
    descs: &[Desc],
) -> Result<Fetched<'a>, i32> {
    let res = r.fetch(pmids).map_err(|e| e.pm_err())?;
    let mut values = HashMap::new();
    for ((m, set), d) in METRICS.iter().zip(&res.sets).zip(descs) {
        let v: Values = if set.numval <= 0 {
            Err(set.numval)
        } else {
            Ok(set
                .values
                .iter()
                .filter_map(|(i, v)| {
                    let atom = archive_format::atom::extract(d.vtype, &v.as_value())?;
                    Some((*i, num_of(&atom)?))
                })
                .collect())
        };
        values.insert(m.to_string(), v);
    }
    Ok(Fetched {
        values,
        archive: a,
        stamp: res.stamp,
    })
}

#[test]
fn values_as_libpcp_computes_them() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata");
    let a = Archive::open(format!("{root}/archives/pmi_v2")).expect("archive");
    let meta = a.metadata();
    let pmid_of = |name: &str| match meta.pmns.lookup(name) {
        Lookup::Leaf(p) => Some(p),
        _ => None,
    };
    let desc_of = |name: &str| pmid_of(name).and_then(|p| meta.desc(p).copied());
    let pmids: Vec<PmId> = METRICS.iter().filter_map(|m| pmid_of(m)).collect();
    let descs: Vec<Desc> = METRICS.iter().filter_map(|m| desc_of(m)).collect();
    let text =
        std::fs::read_to_string(format!("{root}/golden-derive/values.tsv")).expect("goldens");
    // the goldens by interval, fetch and expression, in order
    let mut by_step: Vec<(u64, Vec<Row>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(4, '\t').collect();
        let [step, k, expr, want] = f[..] else {
            continue;
        };
        let step: u64 = step.parse().expect("step");
        if by_step.last().is_none_or(|(s, _)| *s != step) {
            by_step.push((step, Vec::new()));
        }
        let rows = &mut by_step.last_mut().expect("a step").1;
        rows.push((
            k.parse().expect("fetch"),
            expr.to_string(),
            want.to_string(),
        ));
    }
    let (mut same, mut all, mut diffs) = (0, 0, Vec::new());
    for (step, rows) in by_step {
        let mut r = Replay::new(&a);
        r.set_mode(
            Mode::Interp,
            Some(a.label().start),
            Delta::from_millis(step as i64),
        );
        let mut evaluators: HashMap<String, Option<Evaluator>> = HashMap::new();
        let mut fetch: Option<(usize, Result<Fetched<'_>, i32>)> = None;
        for (k, expr, want) in rows {
            if fetch.as_ref().is_none_or(|(n, _)| *n != k) {
                fetch = Some((k, fetched(&a, &mut r, &pmids, &descs)));
            }
            // the fetch that fails past the end (the goldens' `*` line)
            if expr == "*" {
                let got = match &fetch {
                    Some((_, Err(code))) => format!("fetch error {code}"),
                    _ => "a fetch".into(),
                };
                all += 1;
                if got == want {
                    same += 1;
                } else {
                    diffs.push(format!("{step} ms #{k}: want {want}, got {got}"));
                }
                continue;
            }
            let ev = evaluators.entry(expr.clone()).or_insert_with(|| {
                let part = check("v", &parse(&expr).ok()?, &desc_of).ok()?;
                Some(Evaluator::new(part))
            });
            let Some(ev) = ev else { continue };
            let Some((_, Ok(f))) = &fetch else { continue };
            let got = match ev.evaluate(f) {
                Ok(v) if v.is_empty() => "none".to_string(),
                Ok(v) => v
                    .iter()
                    .map(|&(i, x)| format!("{i}={}", shown(x)))
                    .collect::<Vec<_>>()
                    .join(" "),
                Err(0) => "none".into(),
                Err(e) => format!("error {e}"),
            };
            all += 1;
            if got == want {
                same += 1;
            } else if diffs.len() < 20 {
                diffs.push(format!("{step} ms #{k} {expr}: want {want}, got {got}"));
            }
        }
    }
    println!("derived-metric values: {same} of {all} identical");
    assert!(all > 1000, "{all} values");
    assert!(diffs.is_empty(), "{same} of {all}:\n{}", diffs.join("\n"));
}
