//! Label sets merged as libpcp's `pmMergeLabelSets(3)` merges them: the sets
//! taken in order of increasing precedence (context, domain, instance domain,
//! cluster, item, instance), a later set's label replacing an earlier one of the
//! same name, the result one JSON object with its names in byte order.

use crate::codec::meta::{LabelSet, LABEL_OPTIONAL};
use std::collections::BTreeMap;

/// One label of a set: its name, its JSON value as written, its flags.
pub fn entries(set: &LabelSet) -> impl Iterator<Item = (&str, &str, u8)> + '_ {
    let json = set.json.as_bytes();
    set.labels.iter().filter_map(move |l| {
        let name = json.get(l.name_off as usize..l.name_off as usize + l.name_len as usize)?;
        let value = json.get(l.value_off as usize..l.value_off as usize + l.value_len as usize)?;
        Some((
            std::str::from_utf8(name).ok()?,
            std::str::from_utf8(value).ok()?,
            l.flags,
        ))
    })
}

/// A label's flags as libpcp's `__pmLabelFlagString` says them: its class,
/// then `,compound` and `,optional` where set.
pub fn flag_string(flags: u8) -> String {
    use crate::codec::meta::label_type::{COMPOUND, OPTIONAL};
    let mut s = crate::metadata::label_class(flags).to_string();
    if u32::from(flags) & COMPOUND != 0 {
        s.push_str(",compound");
    }
    if u32::from(flags) & OPTIONAL != 0 {
        s.push_str(",optional");
    }
    s
}

/// The merged JSON of `sets` (`None` ones and sets with an error count are
/// skipped); `intrinsic` keeps only the labels that identify a source (no
/// `PM_LABEL_OPTIONAL` ones). `None` where no set was merged.
pub fn merge(sets: &[Option<&LabelSet>], intrinsic: bool) -> Option<String> {
    let mut merged: BTreeMap<&str, &str> = BTreeMap::new();
    let mut any = false;
    for set in sets.iter().flatten().filter(|s| s.nlabels >= 0) {
        any = true;
        for (name, value, flags) in entries(set) {
            if intrinsic && flags & LABEL_OPTIONAL != 0 {
                merged.remove(name);
                continue;
            }
            merged.insert(name, value);
        }
    }
    any.then(|| {
        let body: Vec<String> = merged.iter().map(|(n, v)| format!("\"{n}\":{v}")).collect();
        format!("{{{}}}", body.join(","))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(labels: &[(&str, &str, bool)]) -> LabelSet {
        LabelSet::from_labels(-1, 1, labels).unwrap()
    }

    #[test]
    fn later_sets_win_and_names_come_sorted() {
        let a = set(&[("hostname", "\"a\"", false), ("zone", "1", false)]);
        let b = set(&[("agent", "\"linux\"", false), ("hostname", "\"b\"", false)]);
        assert_eq!(
            merge(&[Some(&a), None, Some(&b)], false).unwrap(),
            r#"{"agent":"linux","hostname":"b","zone":1}"#
        );
    }

    #[test]
    fn intrinsic_leaves_out_optional_labels() {
        let a = set(&[("hostname", "\"a\"", false), ("note", "\"x\"", true)]);
        assert_eq!(merge(&[Some(&a)], true).unwrap(), r#"{"hostname":"a"}"#);
        assert_eq!(merge(&[None], false), None);
    }
}
