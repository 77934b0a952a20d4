//! Derived metrics evaluated over testdata/archives/pmi_v2 at each interpolated
//! fetch, against the values PCP's libpcp gave them
//! (testdata/golden-derive/values.tsv, made by scripts/make-derive-values.py),
//! for the expressions evaluation takes so far.

use archive_format::derive::check::check;
use archive_format::derive::eval::{eval, num_of, supported, Operands, Values};
use archive_format::derive::parse;
use archive_format::derive::value::Num;
use archive_format::pmns::Lookup;
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::{Archive, InDom, PmId, Timestamp};
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
    let text =
        std::fs::read_to_string(format!("{root}/golden-derive/values.tsv")).expect("goldens");
    let metrics = ["pmi.load", "pmi.u32", "pmi.disk.bytes"];
    let pmids: Vec<PmId> = metrics.iter().filter_map(|m| pmid_of(m)).collect();
    let (mut same, mut all, mut diffs) = (0, 0, Vec::new());
    let mut fetches: HashMap<(u64, usize), Fetched<'_>> = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(4, '\t').collect();
        let [step, k, expr, want] = f[..] else {
            continue;
        };
        let (step, k): (u64, usize) = (step.parse().expect("step"), k.parse().expect("fetch"));
        let Ok(part) = parse(expr).map(|n| check("v", &n, &desc_of)) else {
            continue;
        };
        let Ok(part) = part else { continue };
        if supported(&part).is_err() {
            continue;
        }
        if !fetches.contains_key(&(step, k)) {
            let mut r = Replay::new(&a);
            r.set_mode(
                Mode::Interp,
                Some(a.label().start),
                Delta::from_millis(step as i64),
            );
            for n in 0..=k {
                let res = r.fetch(&pmids).expect("fetch");
                if n < k {
                    continue;
                }
                let mut values = HashMap::new();
                for (m, set) in metrics.iter().zip(&res.sets) {
                    let d = desc_of(m).expect("desc");
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
                fetches.insert(
                    (step, k),
                    Fetched {
                        values,
                        archive: &a,
                        stamp: res.stamp,
                    },
                );
            }
        }
        let got = match eval(&part, &fetches[&(step, k)]) {
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
    println!("derived-metric values: {same} of {all} identical");
    assert!(all > 500, "{all} values");
    assert!(diffs.is_empty(), "{same} of {all}:\n{}", diffs.join("\n"));
}
