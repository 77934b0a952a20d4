//! A data record's values rewritten by the metric rules, as pmlogrewrite's
//! `do_result`: a deleted metric's set dropped, a PMID renumbered, values
//! rescaled to new units (where asked) and converted to a new type, in that
//! order. A record whose every set was dropped is not written (a `<mark>`
//! still is).

use crate::rules::{change, MetricSpec, Rules};
use archive_format::atom::{convert, extract, stuff, Atom};
use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_DPTR, VAL_INSITU};
use archive_format::derive::eval::num_of;
use archive_format::derive::value::{conv_scale, Num};
use archive_format::error::pm_err_str;
use archive_format::types::vtype;

/// The record's value sets as the output has them; `Err` with pmlogrewrite's
/// message where a value cannot be converted.
pub(crate) fn rewrite(
    rules: &Rules,
    vsets: Vec<OwnedValueSet>,
) -> Result<Vec<OwnedValueSet>, String> {
    let mut out = Vec::with_capacity(vsets.len());
    for mut vs in vsets {
        let Some(m) = rules.metric(vs.pmid) else {
            out.push(vs);
            continue;
        };
        if m.flags & change::DELETE != 0 {
            continue;
        }
        if m.flags & change::PMID != 0 {
            vs.pmid = m.new.pmid;
        }
        if m.flags & change::RESCALE != 0 {
            rescale(m, &mut vs)?;
        }
        if m.flags & change::TYPE != 0 {
            retype(m, &mut vs)?;
        }
        out.push(vs);
    }
    Ok(out)
}

/// The value's storage format (insitu or a block).
fn format_of(v: &OwnedValue) -> i32 {
    match v {
        OwnedValue::Insitu(_) => VAL_INSITU,
        OwnedValue::Block { .. } => VAL_DPTR,
    }
}

fn atom_of(n: Num) -> Atom<'static> {
    match n {
        Num::I32(x) => Atom::I32(x),
        Num::U32(x) => Atom::U32(x),
        Num::I64(x) => Atom::I64(x),
        Num::U64(x) => Atom::U64(x),
        Num::F32(x) => Atom::Float(x),
        Num::F64(x) => Atom::Double(x),
    }
}

/// Each value in the metric's new units (its type unchanged).
fn rescale(m: &MetricSpec, vs: &mut OwnedValueSet) -> Result<(), String> {
    let prog = crate::PROG;
    let (name, pmid, ty) = (&m.old_name, m.old.pmid, m.old.vtype);
    for (_, v) in vs.values.iter_mut() {
        let num = extract(ty, &v.as_value())
            .as_ref()
            .and_then(num_of)
            .ok_or_else(|| {
                let e = pm_err_str(archive_format::error::PM_ERR_CONV);
                format!("{prog}: Botch: {name} ({pmid}): extracting value: {e}")
            })?;
        let scaled = conv_scale(num, m.old.units, m.new.units).map_err(|e| {
            format!(
                "{prog}: Botch: {name} ({pmid}): scale conversion from {} to {} failed: {}",
                m.old.units,
                m.new.units,
                pm_err_str(e)
            )
        })?;
        if let Some(nv) = stuff(&atom_of(scaled)) {
            *v = nv;
        }
    }
    if let Some((_, v)) = vs.values.last() {
        vs.valfmt = format_of(v);
    }
    Ok(())
}

/// Each value converted to the metric's new type.
fn retype(m: &MetricSpec, vs: &mut OwnedValueSet) -> Result<(), String> {
    let prog = crate::PROG;
    let (name, pmid, from, to) = (&m.old_name, m.old.pmid, m.old.vtype, m.new.vtype);
    for (_, v) in vs.values.iter_mut() {
        let converted = extract(from, &v.as_value())
            .ok_or(archive_format::error::PM_ERR_CONV)
            .and_then(|a| convert(&a, to));
        let a = converted.map_err(|e| {
            format!(
                "{prog}: Error: {name} ({pmid}): extracting value from type {} to {}: {}",
                vtype::short_name(from),
                vtype::short_name(to),
                pm_err_str(e)
            )
        })?;
        if let Some(nv) = stuff(&a) {
            *v = nv;
        }
    }
    if let Some((_, v)) = vs.values.last() {
        vs.valfmt = format_of(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::types::{sem, Desc, InDom, PmId, Units};

    fn spec(flags: u32, to_type: i32, to_units: Units) -> MetricSpec {
        let old = Desc {
            pmid: PmId::new(60, 0, 1),
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::COUNTER,
            units: Units::new([1, 0, 0], [1, 0], 0),
        };
        MetricSpec {
            old_name: "m".into(),
            old,
            new: Desc {
                pmid: PmId::new(61, 0, 1),
                vtype: to_type,
                units: to_units,
                ..old
            },
            new_name: None,
            flags,
        }
    }

    fn set(pmid: PmId, vals: &[u32]) -> OwnedValueSet {
        OwnedValueSet {
            pmid,
            numval: vals.len() as i32,
            valfmt: VAL_INSITU,
            values: vals
                .iter()
                .enumerate()
                .map(|(i, v)| (i as i32, OwnedValue::Insitu(*v)))
                .collect(),
        }
    }

    #[test]
    fn renumbered_rescaled_and_retyped_in_that_order() {
        let bytes = Units::new([1, 0, 0], [0, 0], 0);
        let m = spec(
            change::PMID | change::UNITS | change::RESCALE | change::TYPE,
            vtype::U64,
            bytes,
        );
        let rules = Rules {
            metrics: vec![m],
            ..Rules::default()
        };
        let other = set(PmId::new(1, 2, 3), &[9]);
        let out = rewrite(
            &rules,
            vec![set(PmId::new(60, 0, 1), &[2, 3]), other.clone()],
        )
        .expect("rewrites");
        assert_eq!(out[0].pmid, PmId::new(61, 0, 1));
        assert_eq!(out[0].valfmt, VAL_DPTR);
        let got: Vec<Option<Atom>> = out[0]
            .values
            .iter()
            .map(|(_, v)| extract(vtype::U64, &v.as_value()))
            .collect();
        // Kbyte to byte
        assert_eq!(got, [Some(Atom::U64(2048)), Some(Atom::U64(3072))]);
        assert_eq!(out[1], other);
    }

    #[test]
    fn deleted_sets_are_dropped_and_bad_conversions_said() {
        let rules = Rules {
            metrics: vec![spec(change::DELETE, vtype::U32, Units(0))],
            ..Rules::default()
        };
        assert!(rewrite(&rules, vec![set(PmId::new(60, 0, 1), &[1])])
            .expect("ok")
            .is_empty());
        let rules = Rules {
            metrics: vec![spec(change::TYPE, vtype::I32, Units(0))],
            ..Rules::default()
        };
        let e = rewrite(&rules, vec![set(PmId::new(60, 0, 1), &[u32::MAX])]).expect_err("too big");
        assert_eq!(
            e,
            "pmlogrewrite: Error: m (60.0.1): extracting value from type U32 to 32: Truncation in value conversion"
        );
    }
}
