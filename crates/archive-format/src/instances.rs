//! Instance domains read as a stream, in time order.
//!
//! pmlogger writes an instance domain to the `.meta` again each time it changes,
//! so a host's processes over a day make a `.meta` of hundreds of MB whose
//! history [`crate::Metadata`] holds whole. A reader going forward through the
//! archive needs only the set in force at each time: [`InDomStream`] applies the
//! records as time reaches them, holding one set of each domain. That is the
//! set [`crate::Metadata::indom_in_force`] finds when the records come in time
//! order, which [`crate::metadata::MetaProfile::in_time_order`] tells beforehand.

use crate::codec::meta::{decode_meta, InDomKind, Instance, MetaRecord};
use crate::codec::record::frame_at;
use crate::error::{Error, Result};
use crate::types::{InDom, Timestamp};
use crate::volume::{Behind, Bytes};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The set of an instance domain that the records applied so far make.
#[derive(Debug, Default)]
pub struct CurrentSet {
    stamp: Timestamp,
    changes: u64,
    names: FastMap<i32, Box<str>>,
    /// The instances the record that made the set took out, with their names.
    left: FastMap<i32, Box<str>>,
}

impl CurrentSet {
    /// The time of the record that made it.
    pub fn stamp(&self) -> Timestamp {
        self.stamp
    }
    /// How many records have been applied to the domain: a number that changes
    /// whenever the set may have (for caches of what it names).
    pub fn changes(&self) -> u64 {
        self.changes
    }
    pub fn name_of(&self, inst: i32) -> Option<&str> {
        self.names.get(&inst).map(|n| &**n)
    }
    /// The name an instance had in the set before this one, when the record
    /// that made this one took it out.
    pub fn left_name(&self, inst: i32) -> Option<&str> {
        self.left.get(&inst).map(|n| &**n)
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// The instances, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (i32, &str)> + '_ {
        self.names.iter().map(|(i, n)| (*i, &**n))
    }
}

/// Instance-domain records applied in the order they come (no I/O): a full set
/// replaces the domain's set, a delta changes it, as
/// [`crate::Metadata`] resolves them.
#[derive(Debug, Default)]
pub struct Tracker {
    sets: FastMap<InDom, CurrentSet>,
}

impl Tracker {
    /// Applies one record. A record without instances changes nothing (as when
    /// the metadata is loaded whole).
    pub fn apply(
        &mut self,
        kind: InDomKind,
        stamp: Timestamp,
        indom: InDom,
        instances: Vec<Instance>,
    ) {
        if instances.is_empty() {
            return;
        }
        let set = self.sets.entry(indom).or_default();
        set.stamp = stamp;
        set.changes += 1;
        set.left.clear();
        if kind != InDomKind::Delta {
            // what the new set holds again is taken back out of `left` below
            std::mem::swap(&mut set.names, &mut set.left);
        }
        for i in instances {
            match (kind, i.name) {
                (InDomKind::Delta, None) => {
                    if let Some(n) = set.names.remove(&i.inst) {
                        set.left.insert(i.inst, n);
                    }
                }
                (_, name) => {
                    set.left.remove(&i.inst);
                    set.names
                        .insert(i.inst, name.unwrap_or_default().into_boxed_str());
                }
            }
        }
    }

    /// The set of `indom` in force, once a record of it has been applied.
    pub fn set(&self, indom: InDom) -> Option<&CurrentSet> {
        self.sets.get(&indom)
    }
}

/// One instance-domain record, read but not yet applied.
struct Pending {
    kind: InDomKind,
    stamp: Timestamp,
    indom: InDom,
    instances: Vec<Instance>,
}

/// The instance-domain records of a `.meta` file applied as time goes forward
/// (see [`crate::Archive::instance_stream`]). The pages of what has been read
/// are let go as it goes.
pub struct InDomStream {
    bytes: Arc<Bytes>,
    path: PathBuf,
    off: u64,
    behind: Behind,
    next: Option<Pending>,
    ended: bool,
    tracker: Tracker,
}

/// Pages of the `.meta` let go this many bytes at a time.
const RELEASE_STEP: u64 = 1 << 20;

impl InDomStream {
    /// The records of `bytes` (a `.meta` file's, at `path`) after its label,
    /// which ends at `start`.
    pub(crate) fn new(bytes: Arc<Bytes>, start: u64, path: PathBuf) -> InDomStream {
        InDomStream {
            bytes,
            path,
            off: start,
            behind: Behind::new(RELEASE_STEP),
            next: None,
            ended: false,
            tracker: Tracker::default(),
        }
    }

    /// The next instance-domain record in file order, if any.
    fn read(&mut self) -> Result<Option<Pending>> {
        while !self.ended {
            // fewer than a record's length and type left is the file's end, as
            // when the metadata is loaded whole
            if (self.bytes.len() as u64).saturating_sub(self.off) < 8 {
                break;
            }
            let frame =
                frame_at(&self.bytes, self.off).map_err(|e| Error::decode(&self.path, e))?;
            let Some(frame) = frame else {
                break;
            };
            let rec = decode_meta(frame.payload(&self.bytes), frame.payload_start())
                .map_err(|e| Error::decode(&self.path, e))?;
            self.off = frame.end();
            self.behind.passed(&self.bytes, self.off);
            if let MetaRecord::InDom {
                kind,
                stamp,
                indom,
                instances,
            } = rec
            {
                return Ok(Some(Pending {
                    kind,
                    stamp,
                    indom,
                    instances,
                }));
            }
        }
        if !self.ended {
            self.ended = true;
            self.behind.finish(&self.bytes);
        }
        Ok(None)
    }

    /// Applies every record whose time is at or before `t`.
    pub fn advance_to(&mut self, t: Timestamp) -> Result<()> {
        loop {
            if self.next.is_none() {
                self.next = self.read()?;
            }
            match self.next.take() {
                Some(p) if p.stamp <= t => {
                    self.tracker.apply(p.kind, p.stamp, p.indom, p.instances);
                }
                later => {
                    self.next = later;
                    return Ok(());
                }
            }
        }
    }

    /// The set of `indom` in force at the time reached.
    pub fn set(&self, indom: InDom) -> Option<&CurrentSet> {
        self.tracker.set(indom)
    }

    /// Applies the rest of the records, calling `f` with each domain's set after
    /// each of its records (and whether that was the domain's first).
    pub fn for_each_rest(mut self, mut f: impl FnMut(InDom, &CurrentSet, bool)) -> Result<()> {
        loop {
            let p = match self.next.take() {
                Some(p) => p,
                None => match self.read()? {
                    Some(p) => p,
                    None => return Ok(()),
                },
            };
            let indom = p.indom;
            self.tracker.apply(p.kind, p.stamp, p.indom, p.instances);
            if let Some(set) = self.tracker.set(indom) {
                f(indom, set, set.changes == 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(inst: i32, name: Option<&str>) -> Instance {
        Instance {
            inst,
            name: name.map(String::from),
        }
    }

    #[test]
    fn full_sets_replace_and_deltas_change() {
        let d = InDom::new(60, 1);
        let mut t = Tracker::default();
        assert!(t.set(d).is_none());
        let t1 = Timestamp::new(10, 0);
        t.apply(
            InDomKind::Full,
            t1,
            d,
            vec![inst(1, Some("a")), inst(2, Some("b"))],
        );
        let s = t.set(d).expect("applied");
        assert_eq!((s.len(), s.name_of(2), s.changes()), (2, Some("b"), 1));
        // a delta deletes 1, renames 2 and adds 3
        t.apply(
            InDomKind::Delta,
            Timestamp::new(20, 0),
            d,
            vec![inst(1, None), inst(2, Some("b2")), inst(3, Some("c"))],
        );
        let s = t.set(d).expect("applied");
        assert_eq!((s.left_name(1), s.left_name(2)), (Some("a"), None));
        let mut got: Vec<(i32, String)> = s.iter().map(|(i, n)| (i, n.to_string())).collect();
        got.sort();
        assert_eq!(got, [(2, "b2".to_string()), (3, "c".to_string())]);
        assert_eq!((s.stamp(), s.changes()), (Timestamp::new(20, 0), 2));
        // an empty record changes nothing; a full one replaces every instance
        t.apply(InDomKind::V2, Timestamp::new(30, 0), d, vec![]);
        assert_eq!(t.set(d).map(CurrentSet::changes), Some(2));
        t.apply(
            InDomKind::V2,
            Timestamp::new(40, 0),
            d,
            vec![inst(9, Some("z"))],
        );
        let s = t.set(d).expect("applied");
        assert_eq!((s.len(), s.name_of(2), s.name_of(9)), (1, None, Some("z")));
        // what the last record took out, by name
        assert_eq!(
            (s.left_name(2), s.left_name(3), s.left_name(9)),
            (Some("b2"), Some("c"), None)
        );
    }
}
