//! A label record as the label rules rewrite it (pmlogrewrite's
//! `do_labelset`), apart from any file: each rule for the record's type and
//! identifier in turn (the last named first), deleting the record or a set or
//! label of it, or taking sets and labels out to be written as records of
//! their own (renamed, revalued, renumbered or moved), what is left written
//! last; and the `NEW` labels written before the first data record.

use crate::labeljson::{add_labels, extract_label, find_label, rename, revalue};
use crate::rules::{label, LabelSpec};
use archive_format::codec::meta::{label_type, LabelSet};
use archive_format::error::pm_err_str;

/// A label record to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Put {
    pub(crate) ltype: u32,
    pub(crate) ident: u32,
    pub(crate) sets: Vec<LabelSet>,
}

/// The records the label record (`ltype`, `ident`, `sets`) becomes, in the
/// order written. `Err` is pmlogrewrite's message for a label it cannot
/// remake.
pub(crate) fn relabel(
    specs: &[LabelSpec],
    ltype: u32,
    ident: u32,
    sets: Vec<LabelSet>,
) -> Result<Vec<Put>, String> {
    let mut out = Vec::new();
    let mut list = sets;
    let mut ident = ident;
    for lp in specs.iter().rev() {
        if lp.ltype != ltype || lp.old_id != ident {
            continue;
        }
        let flags = lp.flags & !label::NEW;
        if flags == 0 {
            continue;
        }
        let whole = lp.old_label.is_none() && lp.old_value.is_none();
        let full = whole
            && (lp.ltype != label_type::INSTANCES
                || lp.old_instance == -1
                || list.iter().all(|s| s.inst == lp.old_instance));
        if full {
            if flags & label::DELETE != 0 {
                return Ok(out);
            }
            if flags & label::CHANGE_ID != 0 {
                ident = lp.new_id;
            }
        }
        let mut i = 0;
        while i < list.len() {
            let set = &list[i];
            if lp.ltype == label_type::INSTANCES
                && lp.old_instance != -1
                && lp.old_instance != set.inst
            {
                i += 1;
                continue;
            }
            if whole {
                if flags == label::CHANGE_INSTANCE {
                    list[i].inst = lp.new_instance;
                    i += 1;
                    continue;
                }
                let set = list.remove(i);
                if flags & label::DELETE != 0 {
                    if list.is_empty() {
                        return Ok(out);
                    }
                    continue;
                }
                out.push(whole_set(lp, flags, ltype, set));
                continue;
            }
            each_label(lp, flags, &mut list[i], &mut out)?;
            if list[i].labels.is_empty() {
                list.remove(i);
            } else {
                i += 1;
            }
        }
    }
    if !list.is_empty() {
        out.push(Put {
            ltype,
            ident,
            sets: list,
        });
    }
    Ok(out)
}

/// A whole set taken out of its record: its instance, names and values
/// changed, and written alone under the rule's new identifier.
fn whole_set(lp: &LabelSpec, flags: u32, ltype: u32, mut set: LabelSet) -> Put {
    if flags & label::CHANGE_INSTANCE != 0 {
        set.inst = lp.new_instance;
    }
    if let (true, Some(n)) = (flags & label::CHANGE_LABEL != 0, &lp.new_label) {
        rename(&mut set, n);
    }
    if let (true, Some(v)) = (flags & label::CHANGE_VALUE != 0, &lp.new_value) {
        revalue(&mut set, lp.old_value.as_deref(), v);
    }
    Put {
        ltype,
        ident: lp.new_id,
        sets: vec![set],
    }
}

/// Each label of `set` the rule selects by name or value, cut out of it and
/// (unless deleted) written as a set of its own, changed.
fn each_label(
    lp: &LabelSpec,
    flags: u32,
    set: &mut LabelSet,
    out: &mut Vec<Put>,
) -> Result<(), String> {
    let mut ix = 0;
    while let Some(k) = find_label(set, ix, lp.old_label.as_deref(), lp.old_value.as_deref()) {
        ix = k;
        if flags & label::DELETE == 0 {
            let l = set.labels[k];
            let json = set.json.as_bytes();
            let part = |off: usize, len: usize| {
                String::from_utf8_lossy(json.get(off..off + len).unwrap_or_default()).into_owned()
            };
            let name = match &lp.new_label {
                Some(n) => n.clone(),
                None => part(
                    (l.name_off as usize).saturating_sub(1),
                    l.name_len as usize + 2,
                ),
            };
            let value = match &lp.new_value {
                Some(v) => v.clone(),
                None => part(l.value_off as usize, l.value_len as usize),
            };
            let text = format!("{{{name}:{value}}}");
            let mut new = add_labels(None, &text, lp.ltype as u8)
                .map_err(|e| format!("Unable to rewrite label {text}: {}", pm_err_str(e)))?;
            new.inst = if flags & label::CHANGE_INSTANCE != 0 {
                lp.new_instance
            } else {
                set.inst
            };
            out.push(Put {
                ltype: lp.ltype,
                ident: lp.new_id,
                sets: vec![new],
            });
        }
        extract_label(set, k);
    }
    Ok(())
}

/// The `NEW` labels of every rule (the last named first), each a record of
/// its own.
pub(crate) fn new_records(specs: &[LabelSpec]) -> Vec<Put> {
    specs
        .iter()
        .rev()
        .filter(|lp| lp.flags & label::NEW != 0)
        .filter_map(|lp| {
            Some(Put {
                ltype: lp.ltype,
                ident: lp.new_id,
                sets: vec![lp.new_labels.clone()?],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(inst: i32, json: &str) -> LabelSet {
        add_labels(None, json, 0x20)
            .map(|mut s| {
                s.inst = inst;
                s
            })
            .unwrap()
    }

    fn spec(ltype: u32, id: u32, inst: i32) -> LabelSpec {
        LabelSpec {
            ltype,
            old_id: id,
            new_id: id,
            old_instance: inst,
            new_instance: inst,
            old_label: None,
            old_value: None,
            new_label: None,
            new_value: None,
            new_labels: None,
            flags: 0,
            ip: None,
        }
    }

    const I: u32 = label_type::INSTANCES;

    #[test]
    fn a_rule_for_another_record_leaves_it_whole() {
        let mut s = spec(I, 7, -1);
        s.flags = label::DELETE;
        let sets = vec![set(1, r#"{"a":1}"#)];
        let out = relabel(&[s], I, 8, sets.clone()).unwrap();
        assert_eq!(
            out,
            [Put {
                ltype: I,
                ident: 8,
                sets
            }]
        );
    }

    #[test]
    fn deleting_every_set_drops_the_record() {
        let mut s = spec(I, 7, -1);
        s.flags = label::DELETE;
        let out = relabel(&[s], I, 7, vec![set(1, r#"{"a":1}"#)]).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn one_instances_set_moves_alone_and_the_rest_stays() {
        let mut s = spec(I, 7, 2);
        (s.flags, s.new_id) = (label::CHANGE_ID, 9);
        let sets = vec![set(1, r#"{"a":1}"#), set(2, r#"{"a":2}"#)];
        let out = relabel(&[s], I, 7, sets.clone()).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].ident, out[0].sets[0].inst), (9, 2));
        assert_eq!((out[1].ident, out[1].sets.len()), (7, 1));
    }

    #[test]
    fn a_label_named_is_taken_out_renamed_with_the_rules_type() {
        let mut s = spec(I, 7, -1);
        s.old_label = Some("\"a\"".into());
        s.new_label = Some("\"b\"".into());
        s.flags = label::CHANGE_LABEL;
        let out = relabel(&[s], I, 7, vec![set(3, r#"{"a":1,"c":2}"#)]).unwrap();
        assert_eq!(out[0].sets[0].json, r#"{"b":1}"#);
        assert_eq!(out[0].sets[0].inst, 3);
        assert_eq!(out[1].sets[0].json, r#"{"c":2}"#);
    }

    #[test]
    fn a_name_that_is_no_label_name_stops_the_rewrite() {
        let mut s = spec(I, 7, -1);
        s.old_label = Some("\"a\"".into());
        s.new_label = Some("\"9\"".into());
        s.flags = label::CHANGE_LABEL;
        let e = relabel(&[s], I, 7, vec![set(3, r#"{"a":1}"#)]).unwrap_err();
        assert_eq!(e, "Unable to rewrite label {\"9\":1}: Invalid argument");
    }
}
