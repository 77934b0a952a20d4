//! When each instance of an instance domain is in it, by time: what interpolation
//! needs of a domain's history (libpcp's "time calipers") without its names or
//! its sets.
//!
//! An instance is *born* at the first set that holds it and *dies* at the set
//! after the last one that holds it (never, when the newest set holds it). A
//! domain whose sets ever hold 16 instances or more is *calipered*: libpcp's
//! interpolation only looks for an instance's values while it lives (between its
//! birth and its death, gaps included). Births are kept by set, in time order,
//! each with its death, so a replay moving forward meets them as it goes and
//! holds only the instances alive; the whole costs 12 bytes an instance.
//!
//! No I/O: [`LivesBuilder`] takes the sets in time order, from the metadata held
//! whole or from an instance-domain stream.

use crate::types::{InDom, Timestamp};
use foldhash::{HashMap, HashMapExt, HashSet};

/// A domain is calipered when one of its sets holds this many instances.
pub const CALIPER_THRESHOLD: usize = 16;

/// The instances born at each set, with the set each dies at: set `k`'s are
/// `insts[starts[k]..starts[k + 1]]`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Births {
    starts: Vec<u32>,
    insts: Vec<i32>,
    /// The set each dies at (parallel to `insts`; [`NEVER`]: none).
    deaths: Vec<u32>,
}

/// No death: the newest set holds the instance.
const NEVER: u32 = u32::MAX;

/// The lives of one instance domain's instances.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lives {
    times: Vec<Timestamp>,
    calipered: bool,
    /// Every instance the domain ever holds, sorted.
    members: Vec<i32>,
    births: Births,
}

impl Lives {
    /// The times of the domain's sets, oldest first.
    pub fn times(&self) -> &[Timestamp] {
        &self.times
    }

    /// Whether some set holds [`CALIPER_THRESHOLD`] instances or more.
    pub fn calipered(&self) -> bool {
        self.calipered
    }

    /// Every instance of every set, sorted.
    pub fn members(&self) -> &[i32] {
        &self.members
    }

    pub fn is_member(&self, inst: i32) -> bool {
        self.members.binary_search(&inst).is_ok()
    }

    /// The instances first held by set `k`, each with the set it dies at (the
    /// first not to hold it, none later holding it; `None`: never).
    pub fn born_at(&self, k: usize) -> impl Iterator<Item = (i32, Option<usize>)> + '_ {
        let b = &self.births;
        let range = match (b.starts.get(k), b.starts.get(k + 1)) {
            (Some(&lo), Some(&hi)) => lo as usize..hi as usize,
            _ => 0..0,
        };
        let insts = b.insts.get(range.clone()).unwrap_or(&[]);
        let deaths = b.deaths.get(range).unwrap_or(&[]);
        insts
            .iter()
            .zip(deaths)
            .map(|(&i, &d)| (i, (d != NEVER).then_some(d as usize)))
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.times.capacity() * std::mem::size_of::<Timestamp>()
            + 4 * (self.members.capacity()
                + self.births.starts.capacity()
                + self.births.insts.capacity()
                + self.births.deaths.capacity())
    }
}

/// One domain's sets so far.
#[derive(Default)]
struct Building {
    times: Vec<Timestamp>,
    prev: HashSet<i32>,
    largest: usize,
    /// Every arrival and departure: the instance (high 32 bits, ordered as
    /// signed), the set's number and whether it leaves (low bit).
    events: Vec<u64>,
}

const LEAVES: u64 = 1;

fn event(inst: i32, k: usize, leaves: bool) -> u64 {
    (u64::from((inst as u32) ^ 0x8000_0000) << 32) | ((k as u64) << 1) | u64::from(leaves)
}

fn event_inst(e: u64) -> i32 {
    ((e >> 32) as u32 ^ 0x8000_0000) as i32
}

fn event_set(e: u64) -> usize {
    ((e & 0xffff_ffff) >> 1) as usize
}

/// Builds [`Lives`] from each domain's sets, given in time order.
#[derive(Default)]
pub struct LivesBuilder {
    domains: HashMap<InDom, Building>,
}

impl LivesBuilder {
    pub fn new() -> LivesBuilder {
        LivesBuilder::default()
    }

    /// The next set of `indom` (sets of a domain come in time order): its time
    /// and its instances.
    pub fn push(&mut self, indom: InDom, stamp: Timestamp, insts: impl IntoIterator<Item = i32>) {
        let b = self.domains.entry(indom).or_default();
        let k = b.times.len();
        b.times.push(stamp);
        let now: HashSet<i32> = insts.into_iter().collect();
        b.largest = b.largest.max(now.len());
        for &i in &now {
            if !b.prev.contains(&i) {
                b.events.push(event(i, k, false));
            }
        }
        for &i in &b.prev {
            if !now.contains(&i) {
                b.events.push(event(i, k, true));
            }
        }
        b.prev = now;
    }

    /// Each domain's lives.
    pub fn finish(self) -> HashMap<InDom, Lives> {
        let mut out = HashMap::with_capacity(self.domains.len());
        for (indom, b) in self.domains {
            out.insert(indom, build(b));
        }
        out
    }
}

fn build(b: Building) -> Lives {
    let Building {
        times,
        largest,
        mut events,
        ..
    } = b;
    events.sort_unstable();
    let n = times.len();
    // Each instance's events, oldest first: the first arrives (its birth), and
    // when the last leaves, that set is its death. The events are rewritten in
    // place as one life an instance (birth, death or NEVER), then let go.
    let mut members = Vec::new();
    let mut born_count = vec![0u32; n + 1];
    let (mut at, mut kept) = (0, 0);
    while at < events.len() {
        let inst = event_inst(events[at]);
        let mut end = at;
        while end < events.len() && event_inst(events[end]) == inst {
            end += 1;
        }
        let (first, last) = (events[at], events[end - 1]);
        let birth = event_set(first);
        let death = if last & LEAVES == LEAVES {
            event_set(last) as u32
        } else {
            NEVER
        };
        born_count[birth] += 1;
        members.push(inst);
        events[kept] = ((birth as u64) << 32) | u64::from(death);
        kept += 1;
        at = end;
    }
    events.truncate(kept);
    events.shrink_to_fit();
    let mut starts = Vec::with_capacity(n + 1);
    let mut total = 0u32;
    for c in &born_count {
        starts.push(total);
        total += c;
    }
    let mut fill = starts.clone();
    let mut insts = vec![0i32; total as usize];
    let mut deaths = vec![NEVER; total as usize];
    for (&inst, &life) in members.iter().zip(&events) {
        if let Some(f) = fill.get_mut((life >> 32) as usize) {
            insts[*f as usize] = inst;
            deaths[*f as usize] = life as u32;
            *f += 1;
        }
    }
    drop(events);
    members.shrink_to_fit();
    let births = Births {
        starts,
        insts,
        deaths,
    };
    Lives {
        times,
        calipered: largest >= CALIPER_THRESHOLD,
        members,
        births,
    }
}

/// The lives of one domain's instances from its snapshots (the metadata held
/// whole, [`crate::Metadata::snapshots`]).
pub fn of_snapshots(indom: InDom, snaps: &[crate::metadata::Snapshot]) -> Lives {
    let mut b = LivesBuilder::new();
    for s in snaps {
        b.push(indom, s.stamp, s.instances.iter().map(|(i, _)| *i));
    }
    b.finish().remove(&indom).unwrap_or_default()
}

/// The lives of every domain's instances, from a stream of the `.meta`'s
/// instance-domain records (a record that changes nothing is no set, as when
/// the metadata is loaded whole).
pub fn of_stream(stream: crate::instances::InDomStream) -> crate::Result<HashMap<InDom, Lives>> {
    let mut b = LivesBuilder::new();
    let mut changes: HashMap<InDom, u64> = HashMap::new();
    stream.for_each_rest(|indom, set, _| {
        let seen = changes.entry(indom).or_insert(0);
        if *seen != set.changes() {
            *seen = set.changes();
            b.push(indom, set.stamp(), set.iter().map(|(i, _)| i));
        }
    })?;
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::new(s, 0)
    }

    #[test]
    fn births_and_deaths_by_set() {
        let d = InDom::new(1, 1);
        let mut b = LivesBuilder::new();
        b.push(d, t(10), [1, 2, 3]);
        b.push(d, t(20), [2, 3, 4]); // 1 leaves for good, 4 arrives
        b.push(d, t(30), [3, 4]); // 2 leaves, to come back
        b.push(d, t(40), [2, 3, 4]);
        b.push(d, t(50), [4, -7]); // 2 and 3 leave for good
        let l = b.finish().remove(&d).expect("built");
        assert_eq!(l.times(), &[t(10), t(20), t(30), t(40), t(50)]);
        assert_eq!(l.members(), &[-7, 1, 2, 3, 4]);
        assert!(l.is_member(-7) && !l.is_member(5));
        let born: Vec<Vec<(i32, Option<usize>)>> = (0..5)
            .map(|k| {
                let mut v: Vec<_> = l.born_at(k).collect();
                v.sort();
                v
            })
            .collect();
        assert_eq!(
            born,
            [
                vec![(1, Some(1)), (2, Some(4)), (3, Some(4))],
                vec![(4, None)],
                vec![],
                vec![],
                vec![(-7, None)]
            ]
        );
        assert!(!l.calipered());
        assert_eq!(l.born_at(9).count(), 0);
    }

    #[test]
    fn a_domain_of_sixteen_is_calipered() {
        let d = InDom::new(1, 1);
        let mut b = LivesBuilder::new();
        b.push(d, t(1), 0..15);
        assert!(!b.finish()[&d].calipered());
        let mut b = LivesBuilder::new();
        b.push(d, t(1), 0..3);
        b.push(d, t(2), 0..16);
        assert!(b.finish()[&d].calipered());
    }
}
