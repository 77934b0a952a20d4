//! A data record's values rewritten by the metric rules, as pmlogrewrite's
//! `do_result`: a deleted metric's set dropped, a PMID renumbered, values
//! rescaled to new units (where asked) and converted to a new type, in that
//! order. A record whose every set was dropped is not written (a `<mark>`
//! still is).

use crate::rules::{change, MetricSpec, Output, Rules, NO_INST};
use archive_format::atom::{convert, extract, stuff, Atom};
use archive_format::codec::result::{
    OwnedValue, OwnedValueSet, SetOf, ValueSet, VAL_DPTR, VAL_INSITU,
};
use archive_format::derive::eval::num_of;
use archive_format::derive::value::{conv_scale, Num};
use archive_format::error::pm_err_str;
use archive_format::types::{vtype, PmId};
use std::collections::HashSet;

/// A value that could not be converted: pmlogrewrite's message, and the
/// record as it stood (the sets before rewritten, the failing one cut at the
/// value that failed, the rest as read), which pmlogrewrite then dumps.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) msg: String,
    pub(crate) record: Vec<OwnedValueSet>,
}

/// The owned form of a set of a record being written again.
pub(crate) fn owned(set: SetOf<'_, '_>) -> OwnedValueSet {
    match set {
        SetOf::Read(s) => OwnedValueSet::from_set(s),
        SetOf::Rebuilt(s) => s,
    }
}

/// The record's value sets as the output has them; a [`Failure`] where a
/// value cannot be converted. `touched` holds the metrics the rules change:
/// only their sets are rebuilt, the others pass as they were read.
pub(crate) fn rewrite<'r, 'a>(
    rules: &Rules,
    touched: &HashSet<PmId>,
    vsets: &'r [ValueSet<'a>],
) -> Result<Vec<SetOf<'r, 'a>>, Failure> {
    let mut out = Vec::with_capacity(vsets.len());
    let mut rest = vsets.iter();
    while let Some(read) = rest.next() {
        let m = match touched.contains(&read.pmid) {
            true => rules.metric(read.pmid),
            false => None,
        };
        let Some(m) = m else {
            out.push(SetOf::Read(read));
            continue;
        };
        if m.flags & change::DELETE != 0 {
            continue;
        }
        let mut vs = OwnedValueSet::from_set(read);
        if m.flags & change::PMID != 0 {
            vs.pmid = m.new.pmid;
        }
        if m.flags & change::INDOM != 0 && vs.numval > 0 && m.output != Output::All {
            one_value(m, &mut vs);
        }
        if let Some(ip) = rules.inst_changes(m) {
            instances(ip, &mut vs);
        }
        let mut converted = Ok(());
        if m.flags & change::RESCALE != 0 {
            converted = rescale(m, &mut vs);
        }
        if converted.is_ok() && m.flags & change::TYPE != 0 {
            converted = retype(m, &mut vs);
        }
        if let Err((msg, j)) = converted {
            vs.numval = j as i32;
            vs.values.truncate(j);
            let record = (out.into_iter().map(owned))
                .chain(std::iter::once(vs))
                .chain(rest.map(OwnedValueSet::from_set))
                .collect();
            return Err(Failure { msg, record });
        }
        out.push(SetOf::Rebuilt(vs));
    }
    Ok(out)
}

/// The values' instances renumbered, and deleted instances' values dropped,
/// as the metric's instance domain's rules say (in their order).
fn instances(ip: &crate::rules::IndomSpec, vs: &mut OwnedValueSet) {
    use crate::rules::inst;
    for x in &ip.insts {
        if x.flags & inst::CHANGE_INST != 0 {
            for (i, _) in vs.values.iter_mut().filter(|(i, _)| *i == x.old_inst) {
                *i = x.new_inst;
            }
        }
        if x.flags & inst::DELETE != 0 {
            if let Some(j) = vs.values.iter().position(|(i, _)| *i == x.old_inst) {
                vs.values.remove(j);
                vs.numval -= 1;
            }
        }
    }
}

/// A metric moved to another instance domain keeps one value: the first,
/// last, chosen, smallest or largest (moved to the front), or the sum or
/// average (in place of the first), with the output's instance; none where
/// the chosen instance has no value.
fn one_value(m: &MetricSpec, vs: &mut OwnedValueSet) {
    let pick = match m.output {
        Output::First => Some(0),
        Output::Last => Some(vs.values.len() - 1),
        _ => pick_value(m, vs),
    };
    let Some(pick) = pick else {
        vs.numval = 0;
        vs.values.clear();
        return;
    };
    vs.values.swap(0, pick);
    vs.values.truncate(1);
    vs.numval = 1;
    if m.new.indom.is_null() {
        vs.values[0].0 = NO_INST;
    } else if m.old.indom.is_null() {
        vs.values[0].0 = m.one_inst;
    }
}

/// `pick_val`: the value `OUTPUT` chooses, or computes into the first value.
fn pick_value(m: &MetricSpec, vs: &mut OwnedValueSet) -> Option<usize> {
    if m.output == Output::One {
        return vs.values.iter().position(|(i, _)| *i == m.one_inst);
    }
    let ty = m.old.vtype;
    let nums: Vec<Num> = vs
        .values
        .iter()
        .filter_map(|(_, v)| extract(ty, &v.as_value()).as_ref().and_then(num_of))
        .collect();
    if nums.len() != vs.values.len() {
        return Some(0);
    }
    let as_f = |n: &Num| match *n {
        Num::I32(x) => f64::from(x),
        Num::U32(x) => f64::from(x),
        Num::I64(x) => x as f64,
        Num::U64(x) => x as f64,
        Num::F32(x) => f64::from(x),
        Num::F64(x) => x,
    };
    let less = |a: &Num, b: &Num| match (*a, *b) {
        (Num::I64(x), Num::I64(y)) => x < y,
        (Num::U64(x), Num::U64(y)) => x < y,
        (x, y) => as_f(&x) < as_f(&y),
    };
    match m.output {
        Output::Min | Output::Max => {
            let mut pick = 0;
            for j in 1..nums.len() {
                let better = if m.output == Output::Min {
                    less(&nums[j], &nums[pick])
                } else {
                    less(&nums[pick], &nums[j])
                };
                if better {
                    pick = j;
                }
            }
            Some(pick)
        }
        _ => {
            let total = sum_values(&nums, m.output == Output::Avg);
            if let Some(v) = stuff(&atom_of(total)) {
                vs.values[0].1 = v;
            }
            Some(0)
        }
    }
}

/// The values' sum (in their type, wrapping as C's), or their average
/// (integers rounded up from .5, as pmlogrewrite's `0.5 +` and truncation).
fn sum_values(nums: &[Num], average: bool) -> Num {
    let n = nums.len() as f64;
    let fold = nums[1..].iter().fold(nums[0], |acc, x| match (acc, *x) {
        (Num::I32(a), Num::I32(b)) => Num::I32(a.wrapping_add(b)),
        (Num::U32(a), Num::U32(b)) => Num::U32(a.wrapping_add(b)),
        (Num::I64(a), Num::I64(b)) => Num::I64(a.wrapping_add(b)),
        (Num::U64(a), Num::U64(b)) => Num::U64(a.wrapping_add(b)),
        (Num::F32(a), Num::F32(b)) => Num::F32(a + b),
        (Num::F64(a), Num::F64(b)) => Num::F64(a + b),
        (a, _) => a,
    });
    if !average {
        return fold;
    }
    match fold {
        Num::I32(a) => Num::I32((0.5 + f64::from(a) / n) as i32),
        Num::U32(a) => Num::U32((0.5 + f64::from(a) / n) as u32),
        Num::I64(a) => Num::I64((0.5 + a as f64 / n) as i64),
        Num::U64(a) => Num::U64((0.5 + a as f64 / n) as u64),
        Num::F32(a) => Num::F32(a / nums.len() as f32),
        Num::F64(a) => Num::F64(a / n),
    }
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
fn rescale(m: &MetricSpec, vs: &mut OwnedValueSet) -> Result<(), (String, usize)> {
    let prog = crate::PROG;
    let (name, pmid, ty) = (&m.old_name, m.old.pmid, m.old.vtype);
    for (j, (_, v)) in vs.values.iter_mut().enumerate() {
        let num = extract(ty, &v.as_value())
            .as_ref()
            .and_then(num_of)
            .ok_or_else(|| {
                let e = pm_err_str(archive_format::error::PM_ERR_CONV);
                (
                    format!("{prog}: Botch: {name} ({pmid}): extracting value: {e}"),
                    j,
                )
            })?;
        let scaled = conv_scale(num, m.old.units, m.new.units).map_err(|e| {
            let msg = format!(
                "{prog}: Botch: {name} ({pmid}): scale conversion from {} to {} failed: {}",
                m.old.units,
                m.new.units,
                pm_err_str(e)
            );
            (msg, j)
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
fn retype(m: &MetricSpec, vs: &mut OwnedValueSet) -> Result<(), (String, usize)> {
    let prog = crate::PROG;
    let (name, pmid, from, to) = (&m.old_name, m.old.pmid, m.old.vtype, m.new.vtype);
    for (j, (_, v)) in vs.values.iter_mut().enumerate() {
        let converted = extract(from, &v.as_value())
            .ok_or(archive_format::error::PM_ERR_CONV)
            .and_then(|a| convert(&a, to));
        let a = converted.map_err(|e| {
            let msg = format!(
                "{prog}: Error: {name} ({pmid}): extracting value from type {} to {}: {}",
                vtype::short_name(from),
                vtype::short_name(to),
                pm_err_str(e)
            );
            (msg, j)
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
            output: crate::rules::Output::All,
            one_inst: 0,
            one_name: None,
        }
    }

    /// `rewrite` of a record holding `sets` (encoded, then read back as a
    /// record is), its result owned.
    fn run(rules: &Rules, sets: Vec<OwnedValueSet>) -> Result<Vec<OwnedValueSet>, Failure> {
        use archive_format::codec::result::{decode_result, encode_result};
        use archive_format::types::Timestamp;
        let payload = encode_result(Timestamp::new(1, 0), &sets, 3);
        let rec = decode_result(&payload, 0, 3).expect("decodes");
        let out = rewrite(rules, &rules.touched(), &rec.vsets)?;
        Ok(out.into_iter().map(owned).collect())
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
        let out = run(
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
        assert!(run(&rules, vec![set(PmId::new(60, 0, 1), &[1])])
            .expect("ok")
            .is_empty());
        let rules = Rules {
            metrics: vec![spec(change::TYPE, vtype::I32, Units(0))],
            ..Rules::default()
        };
        let other = set(PmId::new(60, 0, 2), &[5]);
        let e = run(
            &rules,
            vec![set(PmId::new(60, 0, 1), &[7, u32::MAX, 9]), other.clone()],
        )
        .expect_err("too big");
        assert_eq!(
            e.msg,
            "pmlogrewrite: Error: m (60.0.1): extracting value from type U32 to 32: Truncation in value conversion"
        );
        // the record as it stood: the failing set cut before the failed value
        // (those before it converted), the rest as read
        assert_eq!(e.record.len(), 2);
        assert_eq!((e.record[0].numval, e.record[0].values.len()), (1, 1));
        assert_eq!(e.record[1], other);
    }
}
