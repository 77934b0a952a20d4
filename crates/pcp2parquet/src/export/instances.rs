//! The names of instances as an export finds them: by the instance domains
//! held whole (the snapshot in force at a record's time) or as a stream (the
//! set in force, with the names it lacks found later from the metadata).

use super::{Exporter, FastMap, NONE};
use crate::rows::Names;
use archive_format::codec::result::RawValueSet;
use archive_format::{Archive, InDom, Timestamp};
use std::cell::RefCell;
use std::io;
use std::rc::Rc;

/// The interned names of an export: with the domains as a stream, a name the set
/// in force lacks is found later through `missing`.
pub(super) fn names_for<'a>(a: &'a Archive, stream: bool, missing: &Missing) -> Names<'a> {
    if !stream {
        return Names::default();
    }
    let keys = Rc::clone(missing);
    Names::with_resolver(Box::new(move |idx: &[u64]| {
        let found = {
            let keys = keys.borrow();
            let want: Vec<MissingKey> = idx
                .iter()
                .filter_map(|&i| usize::try_from(i).ok().and_then(|i| keys.get(i)).copied())
                .collect();
            missing_names(a, &want)?
        };
        keys.borrow_mut().clear();
        Ok(found)
    }))
}

/// An instance the set in force does not name: its domain, its id, and whether
/// the domain had no set in force yet.
pub(super) type MissingKey = (InDom, i32, bool);
pub(super) type Missing = Rc<RefCell<Vec<MissingKey>>>;

/// The names of instances the set in force did not name, as the metadata held
/// whole gives them: the newest set that names the instance, or, before the
/// domain's first set, that first set's name if it has one. One pass over the
/// `.meta`'s instance domains.
fn missing_names(a: &Archive, keys: &[MissingKey]) -> io::Result<Vec<Option<String>>> {
    let mut by_indom: FastMap<InDom, Vec<usize>> = FastMap::default();
    for (k, key) in keys.iter().enumerate() {
        by_indom.entry(key.0).or_default().push(k);
    }
    let mut newest: Vec<Option<String>> = vec![None; keys.len()];
    let mut oldest: Vec<Option<String>> = vec![None; keys.len()];
    let to_io = |e: archive_format::Error| io::Error::other(e.to_string());
    let stream = a.instance_stream().map_err(to_io)?;
    stream
        .for_each_rest(|indom, set, first| {
            for &k in by_indom.get(&indom).map_or(&[][..], Vec::as_slice) {
                let name = set.name_of(keys[k].1);
                if first {
                    oldest[k] = name.map(String::from);
                }
                if let Some(n) = name {
                    if newest[k].as_deref() != Some(n) {
                        newest[k] = Some(n.to_string());
                    }
                }
            }
        })
        .map_err(to_io)?;
    Ok(keys
        .iter()
        .zip(oldest.into_iter().zip(newest))
        .map(|(key, (old, new))| if key.2 { old.or(new) } else { new })
        .collect())
}

/// The instance names of a metric's last value set, with the instances and
/// what names were in force (the stream's set's changes, or the snapshot).
#[derive(Default)]
pub(super) struct SetNames {
    in_force: u64,
    insts: Vec<i32>,
    names: Vec<u32>,
}

/// The names of one instance domain's snapshot in force from `from` until `until`.
pub(super) struct InstCache {
    from: Timestamp,
    until: Timestamp,
    snap: usize,
    ids: FastMap<i32, u32>,
}

impl Exporter<'_> {
    /// Applies the instance-domain records up to `t`, when they are a stream.
    pub(super) fn advance_stream(&mut self, t: Timestamp) -> io::Result<()> {
        match &mut self.stream {
            Some(s) => s.advance_to(t).map_err(|e| io::Error::other(e.to_string())),
            None => Ok(()),
        }
    }

    /// The interned name of an instance as the stream's set in force names it
    /// (or, when it is `gone` for good, the set it left: the newest to name
    /// it); a placeholder when it does not.
    fn streamed_inst_name(&mut self, indom: InDom, inst: i32, gone: impl FnOnce() -> bool) -> u32 {
        if let Some(&id) = self.live_ids(indom).get(&inst) {
            return id;
        }
        let set = self.stream.as_ref().and_then(|s| s.set(indom));
        let name = set.and_then(|s| {
            s.name_of(inst)
                .or_else(|| gone().then(|| s.left_name(inst)).flatten())
        });
        let id = match name {
            Some(n) => self.names.id(n),
            None => {
                let key = (indom, inst, set.is_none());
                match self.placeholders.get(&key) {
                    Some(&id) => id,
                    None => {
                        let mut keys = self.missing.borrow_mut();
                        keys.push(key);
                        let id = self.names.placeholder(keys.len() as u64 - 1);
                        self.placeholders.insert(key, id);
                        id
                    }
                }
            }
        };
        self.live_ids(indom).insert(inst, id);
        id
    }

    /// The number of changes of the domain's set in force in the stream, which
    /// its names found so far are of.
    fn live_ids_changes(&mut self, indom: InDom) -> u64 {
        self.live_ids(indom);
        self.live.get(&indom).map_or(0, |c| c.0)
    }

    /// The names of the instances of the domain's set in force in the stream,
    /// as found so far (none when the set has changed since).
    fn live_ids(&mut self, indom: InDom) -> &mut FastMap<i32, u32> {
        let set = self.stream.as_ref().and_then(|s| s.set(indom));
        let changes = set.map_or(0, |s| s.changes());
        let cache = self.live.entry(indom).or_default();
        if cache.0 != changes {
            *cache = (changes, FastMap::default());
        }
        &mut cache.1
    }

    /// The interned name of an instance as the instance domain in force at `t`
    /// names it (or any earlier or later version when that one does not).
    /// (`gone` is asked only when the stream's set in force lacks the instance.)
    pub(super) fn inst_name(
        &mut self,
        indom: InDom,
        inst: i32,
        t: Timestamp,
        gone: impl FnOnce() -> bool,
    ) -> u32 {
        if indom.is_null() {
            return NONE;
        }
        if self.stream.is_some() {
            return self.streamed_inst_name(indom, inst, gone);
        }
        let Some(e) = self.snapshot_ids(indom, t) else {
            return NONE;
        };
        if let Some(&id) = e.ids.get(&inst) {
            return id;
        }
        let snap = e.snap;
        let snaps = self.a.metadata().snapshots(indom);
        let name = snaps
            .get(snap)
            .and_then(|s| s.name_of(inst))
            .or_else(|| snaps.iter().rev().find_map(|s| s.name_of(inst)));
        let id = name.map_or(NONE, |n| self.names.id(n));
        if let Some(e) = self.insts.get_mut(&indom) {
            e.ids.insert(inst, id);
        }
        id
    }

    /// The names of the instances of the domain's snapshot in force at `t`,
    /// as found so far.
    fn snapshot_ids(&mut self, indom: InDom, t: Timestamp) -> Option<&mut InstCache> {
        let fresh = self
            .insts
            .get(&indom)
            .is_some_and(|e| e.from <= t && t < e.until);
        if !fresh {
            // the snapshot in force at t (the first before any), and until when
            let snaps = self.a.metadata().snapshots(indom);
            let k = snaps.partition_point(|x| x.stamp <= t);
            let at = k.saturating_sub(1);
            let from = if k == 0 {
                Timestamp::new(i64::MIN / 4, 0)
            } else {
                snaps.get(at).map_or(t, |s| s.stamp)
            };
            let until = snaps
                .get(k)
                .map_or(Timestamp::new(i64::MAX / 4, 0), |s| s.stamp);
            self.insts.insert(
                indom,
                InstCache {
                    from,
                    until,
                    snap: at,
                    ids: FastMap::default(),
                },
            );
        }
        self.insts.get_mut(&indom)
    }

    /// [`Self::inst_name`] of each instance of a value set (of raw export: the
    /// set in force found once for the set, not for each value), into `out`.
    pub(super) fn inst_names(
        &mut self,
        indom: InDom,
        vals: &RawValueSet<'_>,
        t: Timestamp,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        if indom.is_null() {
            out.resize(vals.insts().len(), NONE);
            return;
        }
        // the names of the metric's last set, where its instances are the
        // same and so are the names in force (one comparison, no lookups)
        let names_in_force = match self.stream.is_some() {
            true => self.live_ids_changes(indom),
            false => self
                .snapshot_ids(indom, t)
                .map_or(u64::MAX, |e| e.snap as u64),
        };
        let last = self.set_names.get(&vals.pmid);
        if let Some(c) = last.filter(|c| c.in_force == names_in_force && vals.insts_eq(&c.insts)) {
            out.extend_from_slice(&c.names);
            return;
        }
        self.inst_names_looked_up(indom, vals, t, out);
        let c = self.set_names.entry(vals.pmid).or_default();
        c.in_force = names_in_force;
        c.insts.clear();
        c.insts.extend(vals.insts());
        c.names.clear();
        c.names.extend_from_slice(out);
    }

    /// [`Self::inst_names`], each instance looked up.
    fn inst_names_looked_up(
        &mut self,
        indom: InDom,
        vals: &RawValueSet<'_>,
        t: Timestamp,
        out: &mut Vec<u32>,
    ) {
        let ids = match self.stream.is_some() {
            true => Some(&*self.live_ids(indom)),
            false => self.snapshot_ids(indom, t).map(|e| &e.ids),
        };
        for inst in vals.insts() {
            match ids.and_then(|ids| ids.get(&inst)) {
                Some(&id) => out.push(id),
                None => break,
            }
        }
        // from the first not found yet, one by one
        for inst in vals.insts().skip(out.len()) {
            let id = self.inst_name(indom, inst, t, || false);
            out.push(id);
        }
    }
}
