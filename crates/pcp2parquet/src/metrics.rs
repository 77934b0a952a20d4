//! The `metrics` dataset: one row per metric name of an archive (its PMID,
//! type, semantics, units, instance domain, help and labels), and of the derived
//! metrics exported with it.

use crate::table::{self, text, Col, Part};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, PmId, Timestamp};
use parquet::data_type::ByteArray;
use std::io;
use std::path::PathBuf;

/// A metric's labels merged (context, domain, instance domain, cluster, item: the
/// later override the earlier), as a JSON object.
fn labels_json(a: &Archive, d: &Desc) -> Option<String> {
    use archive_format::codec::meta::label_type as lt;
    let m = a.metadata();
    let end = Timestamp::new(i64::MAX / 4, 0);
    let p = d.pmid;
    let idents = [
        (lt::CONTEXT, PmId::NULL.0),
        (lt::DOMAIN, p.domain()),
        (lt::INDOM, d.indom.0),
        (lt::CLUSTER, PmId::new(p.domain(), p.cluster(), 0).0),
        (lt::ITEM, p.0),
    ];
    let mut out = serde_json::Map::new();
    for (ltype, ident) in idents {
        if ltype == lt::INDOM && d.indom.is_null() {
            continue;
        }
        let Some(rec) = m.labels_at(ltype, ident, end) else {
            continue;
        };
        for set in &rec.sets {
            if let Ok(serde_json::Value::Object(o)) =
                serde_json::from_str::<serde_json::Value>(&set.json)
            {
                out.extend(o);
            }
        }
    }
    (!out.is_empty()).then(|| serde_json::Value::Object(out).to_string())
}

/// Writes the `metrics` rows of an archive (the whole file again on each change),
/// and of the derived metrics exported with it.
pub fn write(
    a: &Archive,
    path: PathBuf,
    archive: &ByteArray,
    derived: &[crate::derived::Chosen],
) -> io::Result<PathBuf> {
    use archive_format::codec::meta::text_type as tt;
    let m = a.metadata();
    let mut cols: [Vec<Option<ByteArray>>; 10] = Default::default();
    let desc_cols = |d: &Desc| {
        [
            Some(text(vtype::short_name(d.vtype))),
            Some(text(sem::name(d.sem).unwrap_or("unknown"))),
            Some(text(&d.units.to_string())).filter(|u| !u.is_empty()),
            (!d.indom.is_null()).then(|| text(&d.indom.to_string())),
        ]
    };
    for d in m.descs() {
        let names = m.names(d.pmid);
        let fallback = [d.pmid.to_string()];
        let names = if names.is_empty() {
            &fallback[..]
        } else {
            names
        };
        let labels = labels_json(a, d);
        for n in names {
            let [ty, sm, units, indom] = desc_cols(d);
            let row = [
                Some(archive.clone()),
                Some(text(&d.pmid.to_string())),
                Some(text(n)),
                ty,
                sm,
                units,
                indom,
                m.text(tt::ONELINE | tt::PMID, d.pmid.0).map(text),
                m.text(tt::HELP | tt::PMID, d.pmid.0).map(text),
                labels.as_deref().map(text),
            ];
            for (c, v) in cols.iter_mut().zip(row) {
                c.push(v);
            }
        }
    }
    for c in derived {
        let d = &c.bound.desc;
        let [ty, sm, units, indom] = desc_cols(d);
        let row = [
            Some(archive.clone()),
            Some(text(&d.pmid.to_string())),
            Some(text(&c.name)),
            ty,
            sm,
            units,
            indom,
            c.oneline.as_deref().map(text),
            c.help.as_deref().map(text),
            None,
        ];
        for (col, v) in cols.iter_mut().zip(row) {
            col.push(v);
        }
    }
    let mut part = Part::create(path.clone(), table::METRICS)?;
    let cols: Vec<Col> = cols.into_iter().map(Col::Str).collect();
    part.write(cols)?;
    part.finish()?;
    Ok(path)
}
