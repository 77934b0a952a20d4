//! Instance domains as v3 archives write them (libpcp's `pmaTryDeltaInDom`):
//! a delta against the last full record of the domain when that is smaller,
//! else the full record, which becomes the one later deltas are taken against.

use crate::codec::meta::{InDomKind, Instance};
use crate::types::InDom;
use std::collections::HashMap;

/// The last full instance set written per instance domain.
#[derive(Debug, Default)]
pub struct DeltaInDoms {
    last_full: HashMap<InDom, Vec<(i32, String)>>,
}

impl DeltaInDoms {
    /// How `instances` (in record order) of `indom` are written: a delta where
    /// one is smaller than the full set, else the full set (remembered).
    pub fn encode(
        &mut self,
        indom: InDom,
        instances: &[(i32, String)],
    ) -> (InDomKind, Vec<Instance>) {
        let delta = self
            .last_full
            .get(&indom)
            .and_then(|old| delta(old, instances));
        self.last_full.insert(indom, instances.to_vec());
        match delta {
            Some(d) => (InDomKind::Delta, d),
            None => (InDomKind::Full, full(instances)),
        }
    }
}

/// Every instance with its name.
pub fn full(instances: &[(i32, String)]) -> Vec<Instance> {
    instances
        .iter()
        .map(|(i, n)| Instance {
            inst: *i,
            name: Some(n.clone()),
        })
        .collect()
}

/// `pmaDeltaInDom`: `None` when a full record is the better choice, else the delta
/// (deleted instances have no name). Both lists in record order.
pub fn delta(old: &[(i32, String)], new: &[(i32, String)]) -> Option<Vec<Instance>> {
    let (mut i, mut j) = (0, 0);
    let mut old_map = vec![false; old.len()];
    let mut new_map = vec![false; new.len()];
    let (mut add, mut del) = (0, 0);
    while i < old.len() || j < new.len() {
        if (i < old.len() && j == new.len())
            || (i < old.len() && j < new.len() && old[i].0 < new[j].0)
        {
            del += 1;
            old_map[i] = true;
            i += 1;
        } else if (i == old.len() && j < new.len())
            || (i < old.len() && j < new.len() && old[i].0 > new[j].0)
        {
            add += 1;
            new_map[j] = true;
            j += 1;
        } else {
            if old[i].1 != new[j].1 {
                return None;
            }
            i += 1;
            j += 1;
        }
    }
    if add + del == 0 || add + del > new.len() {
        return None;
    }
    let mut out = Vec::with_capacity(add + del);
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() {
            if !old_map[i] {
                i += 1;
                continue;
            }
            if !new_map[j] {
                j += 1;
                continue;
            }
            if old[i].0 < new[j].0 {
                out.push(Instance {
                    inst: old[i].0,
                    name: None,
                });
                i += 1;
            } else {
                out.push(Instance {
                    inst: new[j].0,
                    name: Some(new[j].1.clone()),
                });
                j += 1;
            }
            continue;
        }
        if i < old.len() {
            if old_map[i] {
                out.push(Instance {
                    inst: old[i].0,
                    name: None,
                });
            }
            i += 1;
        } else {
            if new_map[j] {
                out.push(Instance {
                    inst: new[j].0,
                    name: Some(new[j].1.clone()),
                });
            }
            j += 1;
        }
    }
    Some(out)
}

/// An instance-domain record made full (libpcp's `pmaUndeltaInDom`): the
/// instances in record order, a delta resolved against `current` (the domain's
/// set before it), sorted; and whether the record is of the v2 kind.
pub fn resolve(
    kind: InDomKind,
    instances: &[Instance],
    current: Option<&Vec<(i32, String)>>,
) -> (bool, Vec<(i32, String)>) {
    match kind {
        InDomKind::Delta => {
            let mut cur: Vec<(i32, String)> = current.cloned().unwrap_or_default();
            for i in instances {
                cur.retain(|(id, _)| *id != i.inst);
                if let Some(n) = &i.name {
                    cur.push((i.inst, n.clone()));
                }
            }
            cur.sort_by_key(|(i, _)| *i);
            (false, cur)
        }
        k => (
            k == InDomKind::V2,
            instances
                .iter()
                .map(|i| (i.inst, i.name.clone().unwrap_or_default()))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_only_when_smaller() {
        let s =
            |v: &[i32]| -> Vec<(i32, String)> { v.iter().map(|i| (*i, format!("i{i}"))).collect() };
        assert!(delta(&s(&[1, 2, 3]), &s(&[1, 2, 3])).is_none());
        let d = delta(&s(&[1, 2, 3]), &s(&[1, 3, 4])).expect("delta");
        let got: Vec<(i32, bool)> = d.iter().map(|x| (x.inst, x.name.is_some())).collect();
        assert_eq!(got, [(2, false), (4, true)]);
        assert!(delta(&s(&[1]), &s(&[2])).is_none());
        let renamed = vec![(1, "x".to_string())];
        assert!(delta(&s(&[1]), &renamed).is_none());
    }
}
