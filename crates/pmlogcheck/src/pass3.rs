//! Pass 3: the values of the data volumes, record by record as libpcp reads them:
//! time going backwards, values encoded two ways for one metric, values that do not
//! convert, and counters that wrapped.
//!
//! [`Checker`] keeps, per metric and instance, the last value and its time; it is
//! fed decoded records and writes nothing itself (the findings come back as lines),
//! so it is tested and fuzzed without files.

use archive_format::codec::result::{RawValueSet, Value};
use archive_format::error::PM_ERR_CONV;
use archive_format::types::{sem, vtype};
use archive_format::{pm_err_str, Desc, InDom, PmId, Timestamp};
use std::collections::HashMap;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the checker asks of the archive: descriptors and names.
pub trait Lookup {
    fn desc(&self, pmid: PmId) -> Option<Desc>;
    /// The metric's names joined by " or ", or its PMID when it has none.
    fn metric(&self, pmid: PmId) -> String;
    /// An instance's name (`pmNameInDom` at the context's time).
    fn inst_name(&self, indom: InDom, inst: i32) -> Option<String>;
}

/// The last value at a place of an instance list.
#[derive(Debug, Clone, Copy)]
struct Last {
    value: f64,
    /// Its time; `None` after a `<mark>` (no wrap check on the next).
    at: Option<Timestamp>,
}

/// A metric's instances, each place of the list in three vectors (the
/// instances, looked at for every value, lie close together).
#[derive(Debug)]
struct Tracked {
    desc: Desc,
    valfmt: i32,
    /// The instance at each place, in the order they were first met (one can be
    /// at more than one place: a scan finds the first).
    ids: Vec<i32>,
    /// Whether each place is its instance's first.
    first: Vec<bool>,
    /// The instances of the last record, in its order.
    seq: Vec<i32>,
    /// The last time from a value's last to now: (its last, now, the time).
    since: Option<(Option<Timestamp>, Timestamp, f64)>,
    last: Vec<Last>,
    /// Where each instance is in the list (its first place): instances that come in
    /// another order than last time are found without a scan.
    pos: FastMap<i32, usize>,
    /// The place after the instance found last: when an instance has gone, the
    /// ones after it are found here, one place off, without the map.
    next: usize,
    /// The place in the list of every value of the last record (by its position
    /// in the record): a record with the same instances in the same order goes
    /// there whole, and one with another order tries it before the map.
    ks: Vec<usize>,
}

impl Tracked {
    fn push(&mut self, inst: i32, last: Last) {
        let at = self.ids.len();
        let place = *self.pos.entry(inst).or_insert(at);
        self.first.push(place == at);
        self.ids.push(inst);
        self.last.push(last);
    }

    /// Where a scan of the list finds `inst`, the `j`th value of a record (its
    /// first place), or `None`. Tried before the map: the place the `j`th value
    /// had in the last record, then the place after the one found last.
    #[inline]
    fn find(&mut self, j: usize, inst: i32) -> Option<usize> {
        let here = |k: usize| self.ids.get(k) == Some(&inst) && self.first[k];
        let k = match self.ks.get(j) {
            Some(&c) if here(c) => c,
            _ if here(self.next) => self.next,
            _ => *self.pos.get(&inst)?,
        };
        self.next = k + 1;
        Some(k)
    }

    /// The `j`th value of this record went to place `k`.
    #[inline]
    fn remember(&mut self, j: usize, k: usize) {
        if j >= self.ks.len() {
            self.ks.resize(j + 1, usize::MAX);
        }
        self.ks[j] = k;
    }
}

#[derive(Debug)]
enum State {
    /// Another checker's metric (see `fanout`).
    Elsewhere,
    /// This checker's, not yet seen with values.
    Unseen,
    Tracked(Box<Tracked>),
    /// Not a numeric type, or without a descriptor: not checked.
    Skip,
}

/// The value as a double, as `pmExtractValue(.., PM_TYPE_DOUBLE)` converts it.
#[inline(always)]
pub fn to_double(ty: i32, v: Value<'_>) -> Result<f64, i32> {
    use archive_format::atom::host_u64;
    match (ty, v) {
        (vtype::I32, Value::Insitu(w)) => Ok(w as i32 as f64),
        (vtype::U32, Value::Insitu(w)) => Ok(w as f64),
        (vtype::FLOAT, Value::Insitu(w)) => Ok(f32::from_bits(w) as f64),
        // blocks as libpcp reads them on a little-endian host, by the block's own
        // type byte (very old archives label 64-bit values otherwise)
        (vtype::FLOAT, Value::Block { data, .. }) if data.len() == 4 => extract(ty, &v),
        (vtype::I64, Value::Block { vtype: bt, data }) if data.len() == 8 => {
            Ok(host_u64(bt, data) as i64 as f64)
        }
        (vtype::U64, Value::Block { vtype: bt, data }) if data.len() == 8 => {
            Ok(host_u64(bt, data) as f64)
        }
        (vtype::DOUBLE, Value::Block { vtype: bt, data }) if data.len() == 8 => {
            Ok(f64::from_bits(host_u64(bt, data)))
        }
        _ => Err(PM_ERR_CONV),
    }
}

fn extract(ty: i32, v: &Value<'_>) -> Result<f64, i32> {
    archive_format::atom::extract(ty, v)
        .and_then(|a| a.as_f64())
        .ok_or(PM_ERR_CONV)
}

fn type_str(ty: i32) -> &'static str {
    match ty {
        vtype::I32 => "signed 32-bit",
        vtype::U32 => "unsigned 32-bit",
        vtype::I64 => "signed 64-bit",
        vtype::U64 => "unsigned 64-bit",
        _ => "unknown type",
    }
}

fn numeric(ty: i32) -> bool {
    matches!(
        ty,
        vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64 | vtype::FLOAT | vtype::DOUBLE
    )
}

/// The time from a value's last (`None`: after a `<mark>`, from the epoch) to
/// `now`, as a rate would take it (none when the last is later).
#[inline]
fn elapsed(now: Timestamp, at: Option<Timestamp>) -> f64 {
    match at {
        Some(p) => now.sub_f64(p).max(0.0),
        None => now.sub_f64(Timestamp::new(0, 0)),
    }
}

/// The outcome of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Go,
    /// A value that does not convert for a metric or instance seen for the first
    /// time: pmlogcheck gives up ("possibly corrupt archive?").
    GiveUp,
}

/// The checks' state across records.
#[derive(Default)]
pub struct Checker {
    /// Each metric's state, found through `index`.
    states: Vec<State>,
    index: FastMap<PmId, usize>,
    /// The metric of each place of the last record, and its state's place:
    /// records laid out as the last one find their metrics without the map.
    by_place: Vec<(PmId, usize)>,
    /// Suppress the counter-wrap reports (`-w`).
    pub nowrap: bool,
    /// PCP 7's matching: each value goes with the last of its own instance (6.0.3
    /// looks at the same place in the last record first, and can take another).
    pub by_instance: bool,
    /// PCP 7 with `-v`: a wrap's report ends with the difference.
    pub difference: bool,
}

impl Checker {
    /// A `<mark>`: no wrap check across it.
    pub fn mark(&mut self) {
        for s in &mut self.states {
            if let State::Tracked(t) = s {
                for l in &mut t.last {
                    l.at = None;
                }
            }
        }
    }

    /// Checks one record, its time and value sets. `prefix` is `archive.vol`;
    /// `stamp` formats a time.
    pub fn record(
        &mut self,
        rec: (Timestamp, &[RawValueSet<'_>]),
        prefix: &str,
        look: &dyn Lookup,
        stamp: &dyn Fn(Timestamp) -> String,
        out: &mut Vec<String>,
    ) -> Verdict {
        let mut places = Vec::new();
        let to = Findings {
            lines: out,
            sets: &mut places,
        };
        match self.record_part(rec, &|_| true, (prefix, look, stamp), to) {
            Ok(()) => Verdict::Go,
            Err(_) => Verdict::GiveUp,
        }
    }

    /// Checks the value sets of one record whose metrics `mine` takes (the others'
    /// are another checker's: see `fanout`; `mine` is asked once per metric, the
    /// first time it has values), told with the prefix (`archive.vol`), the lookup
    /// and the time format. Each line found goes with the place of its value set in
    /// the record; `Err` holds the place of the value set where pmlogcheck gives up.
    pub fn record_part(
        &mut self,
        (now, sets): (Timestamp, &[RawValueSet<'_>]),
        mine: &dyn Fn(PmId) -> bool,
        (prefix, look, stamp): (&str, &dyn Lookup, &dyn Fn(Timestamp) -> String),
        to: Findings<'_>,
    ) -> Result<(), usize> {
        let mut r = Report {
            prefix,
            look,
            stamp,
            out: to.lines,
            now,
        };
        for (j, vs) in sets.iter().enumerate() {
            if vs.numval <= 0 {
                continue;
            }
            let k = self.slot(j, vs.pmid, mine);
            let go = self.value_set(k, vs, &mut r);
            to.sets.resize(r.out.len(), j);
            if !go {
                return Err(j);
            }
        }
        Ok(())
    }

    /// Where the state of `pmid`, met at place `j` of a record, is in `states`
    /// (made, as `mine` says, the first time).
    #[inline]
    fn slot(&mut self, j: usize, pmid: PmId, mine: &dyn Fn(PmId) -> bool) -> usize {
        if let Some(&(p, k)) = self.by_place.get(j) {
            if p == pmid {
                return k;
            }
        }
        let k = match self.index.get(&pmid) {
            Some(&k) => k,
            None => {
                let k = self.states.len();
                let state = if mine(pmid) {
                    State::Unseen
                } else {
                    State::Elsewhere
                };
                self.states.push(state);
                self.index.insert(pmid, k);
                k
            }
        };
        // (every entry names a metric and its own state's place)
        if j >= self.by_place.len() {
            self.by_place.resize(j + 1, (pmid, k));
        }
        self.by_place[j] = (pmid, k);
        k
    }

    /// One value set of a record, whose metric's state is at `k`; `false` to give
    /// up.
    fn value_set(&mut self, k: usize, vs: &RawValueSet<'_>, r: &mut Report<'_>) -> bool {
        let how = (self.nowrap, self.by_instance, self.difference);
        let Some(state) = self.states.get_mut(k) else {
            return true;
        };
        let t = match state {
            State::Tracked(t) => t,
            State::Unseen => {
                return match first_sight(vs, r) {
                    Some(s) => {
                        *state = s;
                        true
                    }
                    None => false,
                };
            }
            State::Elsewhere | State::Skip => return true,
        };
        if t.valfmt != vs.valfmt {
            let what = format!(
                "encoding botch valfmt={} not {} as expected",
                vs.valfmt, t.valfmt
            );
            r.about(vs.pmid, &what);
            return true;
        }
        t.values(vs, how, r)
    }
}

/// Where [`Checker::record_part`] puts what it finds: the lines, and beside each
/// the place in the record of the value set it is about.
pub struct Findings<'a> {
    pub lines: &'a mut Vec<String>,
    pub sets: &'a mut Vec<usize>,
}

/// Where one record's findings go, and what they are told with.
struct Report<'a> {
    prefix: &'a str,
    look: &'a dyn Lookup,
    stamp: &'a dyn Fn(Timestamp) -> String,
    out: &'a mut Vec<String>,
    /// The record's time.
    now: Timestamp,
}

impl Report<'_> {
    /// `archive.vol:[time] metric: what`.
    fn about(&mut self, pmid: PmId, what: &str) {
        let line = format!(
            "{}:[{}] {}: {what}",
            self.prefix,
            (self.stamp)(self.now),
            self.look.metric(pmid)
        );
        self.out.push(line);
    }

    /// A value that does not convert where pmlogcheck gives up.
    fn give_up(&mut self, pmid: PmId, e: i32) {
        self.about(pmid, &format!("pmExtractValue failed: {}", pm_err_str(e)));
        self.out
            .push("pmlogcheck: possibly corrupt archive?".into());
    }
}

/// A metric seen for the first time: its state, or `None` when one of its values
/// does not convert (pmlogcheck gives up).
fn first_sight(vs: &RawValueSet<'_>, r: &mut Report<'_>) -> Option<State> {
    let Some(desc) = r.look.desc(vs.pmid) else {
        let what = format!(
            "pmLookupDesc failed: {}",
            pm_err_str(archive_format::error::PM_ERR_PMID_LOG)
        );
        // reported once
        r.about(vs.pmid, &what);
        return Some(State::Skip);
    };
    if !numeric(desc.vtype) {
        return Some(State::Skip);
    }
    let mut t = Tracked {
        desc,
        valfmt: vs.valfmt,
        ids: Vec::with_capacity(vs.numval as usize),
        first: Vec::with_capacity(vs.numval as usize),
        seq: Vec::with_capacity(vs.numval as usize),
        since: None,
        last: Vec::with_capacity(vs.numval as usize),
        pos: FastMap::default(),
        next: 0,
        ks: Vec::new(),
    };
    for (j, (inst, v)) in vs.checked_values().enumerate() {
        // (each at a place of its own, the `j`th)
        t.seq.push(inst);
        t.remember(j, j);
        if !t.add(inst, v, vs.pmid, r) {
            return None;
        }
    }
    Some(State::Tracked(Box::new(t)))
}

impl Tracked {
    /// The values of one record for this metric; `false` to give up.
    /// `how`: no wrap checks, match by instance, report the difference.
    fn values(
        &mut self,
        vs: &RawValueSet<'_>,
        how: (bool, bool, bool),
        r: &mut Report<'_>,
    ) -> bool {
        let (nowrap, by_instance, difference) = how;
        if vs.insts_eq(&self.seq) {
            self.values_again(vs, (nowrap, difference), r);
            return true;
        }
        let many = vs.numval > 1 || !self.desc.indom.is_null();
        self.seq.clear();
        for (j, (inst, v)) in vs.checked_values().enumerate() {
            self.seq.push(inst);
            let found = if by_instance {
                self.pos.get(&inst).copied()
            } else {
                self.place(j, inst, many)
            };
            let Some(k) = found else {
                self.remember(j, self.ids.len());
                if !self.add(inst, v, vs.pmid, r) {
                    return false;
                }
                continue;
            };
            self.remember(j, k);
            let Some(cur) = self.convert(v, vs.pmid, r) else {
                continue;
            };
            self.next_value(k, cur, (nowrap, difference), vs.pmid, r);
        }
        true
    }

    /// The values of a record whose instances are those of this metric's last
    /// record, in the same order: each goes where the same value of the last
    /// one went, and nothing is new. (The list only grows at its end and an
    /// instance's first place stays, so the loop of [`Tracked::values`] would
    /// find the same places.) A metric that is not a counter keeps nothing: only
    /// its values that may not convert are looked at.
    fn values_again(&mut self, vs: &RawValueSet<'_>, how: (bool, bool), r: &mut Report<'_>) {
        let counter = self.desc.sem == sem::COUNTER;
        let words = vs.valfmt == archive_format::codec::result::VAL_INSITU
            && matches!(self.desc.vtype, vtype::I32 | vtype::U32 | vtype::FLOAT);
        if !counter && words {
            return;
        }
        // (counted by hand: an enumerating iterator was not inlined here, which
        // cost a call a value)
        let mut j = 0;
        #[allow(clippy::explicit_counter_loop)]
        for (_, v) in vs.checked_values() {
            let k = self.ks.get(j).copied();
            j += 1;
            let Some(cur) = self.convert(v, vs.pmid, r) else {
                continue;
            };
            if let Some(k) = k {
                self.next_value(k, cur, how, vs.pmid, r);
            }
        }
    }

    /// A value as a double, or `None` when it does not convert (said).
    #[inline(always)]
    fn convert(&self, v: Value<'_>, pmid: PmId, r: &mut Report<'_>) -> Option<f64> {
        match to_double(self.desc.vtype, v) {
            Ok(x) => Some(x),
            Err(e) => {
                r.about(pmid, &format!("pmExtractValue failed: {}", pm_err_str(e)));
                None
            }
        }
    }

    /// The next value `cur` at place `k`: a counter's is checked against the last
    /// and kept, unless no time passed. (Other metrics' last values are not read.)
    #[inline(always)]
    fn next_value(
        &mut self,
        k: usize,
        cur: f64,
        (nowrap, difference): (bool, bool),
        pmid: PmId,
        r: &mut Report<'_>,
    ) {
        if self.desc.sem != sem::COUNTER {
            return;
        }
        let Some(&prev) = self.last.get(k) else {
            return;
        };
        // no time between the two: not a rate, nothing kept
        let elapsed = match self.since {
            Some((at, now, e)) if at == prev.at && now == r.now => e,
            _ => {
                let e = elapsed(r.now, prev.at);
                self.since = Some((prev.at, r.now, e));
                e
            }
        };
        if elapsed == 0.0 {
            return;
        }
        if !nowrap && cur < prev.value {
            self.wrap(k, cur, pmid, difference, r);
        }
        self.last[k] = Last {
            value: cur,
            at: Some(r.now),
        };
    }

    /// Where the `j`th value of a record, of instance `inst`, was last time; `None`
    /// for an instance not seen before. `many`: the metric has instances, which may
    /// come in another order.
    #[inline]
    fn place(&mut self, j: usize, inst: i32, many: bool) -> Option<usize> {
        let len = self.ids.len();
        if j >= len {
            return None;
        }
        if many && self.ids[j] != inst {
            return self.find(j, inst);
        }
        Some(j)
    }

    /// Reports an integer counter at place `k` that went down to `cur`.
    fn wrap(&self, k: usize, cur: f64, pmid: PmId, difference: bool, r: &mut Report<'_>) {
        let (prev, prev_inst) = (&self.last[k], self.ids[k]);
        let integer = matches!(
            self.desc.vtype,
            vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64
        );
        let down = cur - prev.value < 0.0;
        if !(down && prev.at.is_some_and(|p| p.sec > 0) && integer) {
            return;
        }
        let name = r.look.metric(pmid);
        let which = match r.look.inst_name(self.desc.indom, prev_inst) {
            Some(n) => format!("{name}[{n}]"),
            None => name,
        };
        let mut line = format!(
            "{}:[{}]: {which}: {} wrap\n\tvalue {:.0} at {}\n\tvalue {cur:.0} at {}",
            r.prefix,
            (r.stamp)(r.now),
            type_str(self.desc.vtype),
            prev.value,
            (r.stamp)(prev.at.unwrap_or(r.now)),
            (r.stamp)(r.now)
        );
        if difference {
            line.push_str(&format!("\n\tdifference {:.0}", cur - prev.value));
        }
        r.out.push(line);
    }

    /// A new instance; `false` when its value does not convert.
    fn add(&mut self, inst: i32, v: Value<'_>, pmid: PmId, r: &mut Report<'_>) -> bool {
        match to_double(self.desc.vtype, v) {
            Ok(x) => {
                let last = Last {
                    value: x,
                    at: Some(r.now),
                };
                self.push(inst, last);
                true
            }
            Err(e) => {
                r.give_up(pmid, e);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::codec::result::{encode_result, raw_result_into, ValueSet};
    use archive_format::Units;

    struct One(Desc);
    impl Lookup for One {
        fn desc(&self, pmid: PmId) -> Option<Desc> {
            (pmid == self.0.pmid).then_some(self.0)
        }
        fn metric(&self, _: PmId) -> String {
            "m".into()
        }
        fn inst_name(&self, _: InDom, inst: i32) -> Option<String> {
            Some(format!("i{inst}"))
        }
    }

    /// A record (its payload) of metric 1.0.1's values.
    fn rec(sec: i64, vals: &[(i32, u32)]) -> Vec<u8> {
        let vs = ValueSet {
            pmid: PmId::new(1, 0, 1),
            numval: vals.len() as i32,
            valfmt: 0,
            values: vals.iter().map(|&(i, v)| (i, Value::Insitu(v))).collect(),
        };
        encode_result(Timestamp::new(sec, 0), &[vs], 2)
    }

    fn counter() -> One {
        One(Desc {
            pmid: PmId::new(1, 0, 1),
            vtype: vtype::U32,
            indom: InDom::new(1, 1),
            sem: sem::COUNTER,
            units: Units(0),
        })
    }

    fn run(c: &mut Checker, l: &One, payload: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        let st = |t: Timestamp| t.sec.to_string();
        let mut sets = Vec::new();
        let now = raw_result_into(payload, 0, 2, &mut sets).unwrap();
        assert_eq!(c.record((now, &sets), "a.0", l, &st, &mut out), Verdict::Go);
        out
    }

    #[test]
    fn a_record_with_the_last_ones_instances_goes_where_the_last_went() {
        let l = counter();
        let mut c = Checker::default();
        assert!(run(&mut c, &l, &rec(10, &[(1, 100), (2, 5)])).is_empty());
        // another order: found by instance, then the same order again, each value
        // against its own instance's last
        assert_eq!(
            run(&mut c, &l, &rec(11, &[(2, 7), (1, 150)])),
            Vec::<String>::new()
        );
        let out = run(&mut c, &l, &rec(12, &[(2, 9), (1, 140)]));
        assert_eq!(
            out,
            ["a.0:[12]: m[i1]: unsigned 32-bit wrap\n\tvalue 150 at 11\n\tvalue 140 at 12"]
        );
        let out = run(&mut c, &l, &rec(13, &[(2, 3), (1, 141)]));
        assert_eq!(
            out,
            ["a.0:[13]: m[i2]: unsigned 32-bit wrap\n\tvalue 9 at 12\n\tvalue 3 at 13"]
        );
        // no time between two records: nothing checked, nothing kept
        assert!(run(&mut c, &l, &rec(13, &[(2, 1), (1, 1)])).is_empty());
        let out = run(&mut c, &l, &rec(14, &[(2, 2), (1, 142)]));
        assert_eq!(
            out,
            ["a.0:[14]: m[i2]: unsigned 32-bit wrap\n\tvalue 3 at 13\n\tvalue 2 at 14"]
        );
    }

    #[test]
    fn a_counter_that_goes_down_wrapped() {
        let l = counter();
        let mut c = Checker::default();
        assert!(run(&mut c, &l, &rec(10, &[(1, 100), (2, 5)])).is_empty());
        let out = run(&mut c, &l, &rec(11, &[(2, 7), (1, 50)]));
        assert_eq!(
            out,
            ["a.0:[11]: m[i1]: unsigned 32-bit wrap\n\tvalue 100 at 10\n\tvalue 50 at 11"]
        );
        // a mark in between: no report
        c.mark();
        assert!(run(&mut c, &l, &rec(12, &[(1, 1), (2, 1)])).is_empty());
        c.nowrap = true;
        assert!(run(&mut c, &l, &rec(13, &[(1, 0)])).is_empty());
    }

    #[test]
    fn the_same_time_twice_is_not_a_wrap() {
        let l = counter();
        let mut c = Checker::default();
        run(&mut c, &l, &rec(10, &[(1, 100)]));
        assert!(run(&mut c, &l, &rec(10, &[(1, 50)])).is_empty());
    }

    /// The wraps PCP's pmlogcheck reports, found by its own method: each value of
    /// a record is matched to the instance at its own position, else by a scan of
    /// the list from the start, else added at the end. Record `n` is at time n+1.
    fn scanned_wraps(records: &[Vec<(i32, u32)>]) -> Vec<String> {
        // (instance, last value, its time)
        let mut list: Vec<(i32, u32, usize)> = Vec::new();
        let mut wraps = Vec::new();
        for (n, vals) in records.iter().enumerate() {
            let sec = n + 1;
            for (j, &(inst, v)) in vals.iter().enumerate() {
                let k = if j < list.len() && list[j].0 == inst {
                    Some(j)
                } else if j < list.len() {
                    list.iter().position(|e| e.0 == inst)
                } else {
                    None
                };
                let Some(k) = k else {
                    list.push((inst, v, sec));
                    continue;
                };
                let (_, prev, at) = list[k];
                if at == sec {
                    continue; // no time between the two
                }
                if v < prev {
                    wraps.push(format!(
                        "a.0:[{sec}]: m[i{inst}]: unsigned 32-bit wrap\n\tvalue {prev} at {at}\n\tvalue {v} at {sec}"
                    ));
                }
                list[k] = (inst, v, sec);
            }
        }
        wraps
    }

    proptest::proptest! {
        /// Instances found through the last record's places, the place after the
        /// last one found and the map are the ones a scan finds: the same wraps,
        /// whatever the order, comings, goings and repeats of the instances.
        #[test]
        fn instances_are_found_where_a_scan_finds_them(
            records in proptest::collection::vec(
                proptest::collection::vec((0i32..12, 0u32..4), 1..10), 1..30),
        ) {
            let l = counter();
            let mut c = Checker::default();
            let mut got = Vec::new();
            for (n, vals) in records.iter().enumerate() {
                got.extend(run(&mut c, &l, &rec(n as i64 + 1, vals)));
            }
            proptest::prop_assert_eq!(got, scanned_wraps(&records));
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(to_double(vtype::I32, Value::Insitu(u32::MAX)), Ok(-1.0));
        assert_eq!(to_double(vtype::U64, Value::Insitu(1)), Err(PM_ERR_CONV));
        let b = 5u64.to_be_bytes();
        assert_eq!(
            to_double(vtype::U64, Value::Block { vtype: 3, data: &b }),
            Ok(5.0)
        );
    }
}
