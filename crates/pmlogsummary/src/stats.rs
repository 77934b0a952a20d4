//! The running statistics of every metric instance, taken record by record as PCP
//! 6.0.3's pmlogsummary takes them: the first pass (averages, extremes, sums,
//! counts; counters as rates between samples, restarted at a `<mark>` or a
//! counter that went backwards), and with `-B` the second pass that puts each
//! value into its bin. Pure arithmetic on decoded records: no I/O.

use archive_format::codec::result::{ResultRecord, ValueSet};
use archive_format::error::{pm_err_str, PM_ERR_PMID_LOG};
use archive_format::types::{sem, vtype, Desc, PmId};
use std::collections::{HashMap, HashSet};

use crate::tv::Tv;

/// One instance's statistics (PCP's `instData`).
#[derive(Debug, Clone)]
pub struct Inst {
    pub inst: i32,
    pub count: u32,
    pub stocave: f64,
    pub timeave: f64,
    pub min: f64,
    pub max: f64,
    pub sum: f64,
    pub lastval: f64,
    pub firsttime: Tv,
    pub lasttime: Tv,
    pub mintime: Tv,
    pub maxtime: Tv,
    pub markcount: i32,
    pub marked: bool,
    /// The first pass's count, once the second pass has met the instance.
    pub bintotal: u32,
    pub bins: Vec<u32>,
}

impl Inst {
    /// A discrete value held from its last time to `t`, counted as a value there
    /// (at a `<mark>`, and at the window's end).
    pub fn hold_to(&mut self, t: Tv) {
        let span = t.sub_clip(self.lasttime).real();
        self.stocave += self.lastval;
        self.timeave += self.lastval * span;
        self.lasttime = t;
        self.count = self.count.wrapping_add(1);
    }
}

/// One metric's statistics (PCP's `aveData`): its descriptor, with a counter's
/// units made a rate's unless only sums are asked for.
#[derive(Debug, Clone)]
pub struct Metric {
    pub desc: Desc,
    /// What a time difference is multiplied by to be in the counter's time units.
    pub scale: f64,
    pub insts: Vec<Inst>,
    /// Where each instance is in `insts`.
    index: HashMap<i32, usize, foldhash::fast::RandomState>,
}

impl Metric {
    /// Where `inst` (the `j`th value of a set) is in `insts`: PCP looks at the
    /// same position first, then along the list; `None` for an instance not met
    /// before. A set of one value of a metric without instance domain is the
    /// first. An instance is in the list once, so where it is looked for first
    /// does not change the answer: `hint`, the place after the last value's
    /// (instances mostly come in the same order, a few gone or new), then `j`,
    /// then the index.
    fn position(&self, j: usize, inst: i32, keyed: bool, hint: usize) -> Option<usize> {
        if !keyed {
            return Some(0);
        }
        match (self.insts.get(hint), self.insts.get(j)) {
            (Some(x), _) if x.inst == inst => Some(hint),
            (_, Some(x)) if x.inst == inst => Some(j),
            (_, Some(_)) => self.index.get(&inst).copied(),
            (_, None) => None,
        }
    }

    fn push(&mut self, d: Inst) {
        self.index.entry(d.inst).or_insert(self.insts.len());
        self.insts.push(d);
    }
}

/// `pmtimevalToReal` of time differences, the last one remembered: the values
/// of a record mostly share the difference from the record before.
#[derive(Debug, Default)]
struct Reals {
    last: Option<(Tv, f64)>,
}

impl Reals {
    fn of(&mut self, t: Tv) -> f64 {
        match self.last {
            Some((k, v)) if k == t => v,
            _ => {
                let v = t.real();
                self.last = Some((t, v));
                v
            }
        }
    }
}

/// The warnings `-v` asks for: the first about each metric.
#[derive(Debug, Default)]
struct Warner {
    on: bool,
    list: Vec<Warning>,
    warned: HashSet<PmId, foldhash::fast::RandomState>,
}

impl Warner {
    fn warn(&mut self, pmid: PmId, message: impl FnOnce() -> String) {
        if self.on && self.warned.insert(pmid) {
            let message = message();
            self.list.push(Warning { pmid, message });
        }
    }
}

/// What a pass met that `-v` reports (once per metric).
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub pmid: PmId,
    pub message: String,
}

/// The first pass met a value it could not read as a number: PCP stops there.
#[derive(Debug, Clone, PartialEq)]
pub struct Corrupt(pub Warning);

/// Settings of the passes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Settings {
    pub nbins: u32,
    /// `-s`: counters keep their units.
    pub sums: bool,
    /// `PCP_COUNTER_WRAP` is set: a counter that went backwards wrapped.
    pub wrap: bool,
    /// `-v`: warnings are kept (the first for each metric).
    pub warn: bool,
}

/// Every metric's statistics, by PMID.
pub struct Stats {
    pub metrics: HashMap<PmId, Metric, foldhash::fast::RandomState>,
    settings: Settings,
    warner: Warner,
    reals: Reals,
}

fn numeric(ty: i32) -> bool {
    matches!(
        ty,
        vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64 | vtype::FLOAT | vtype::DOUBLE
    )
}

/// `pmExtractValue(.., PM_TYPE_DOUBLE)`.
use archive_format::atom::extract_double as as_double;

fn corrupt(pmid: PmId, code: i32) -> Corrupt {
    Corrupt(Warning {
        pmid,
        message: format!("failed to extract value: {}\n", pm_err_str(code)),
    })
}

impl Stats {
    pub fn new(settings: Settings) -> Stats {
        Stats {
            metrics: HashMap::default(),
            settings,
            warner: Warner {
                on: settings.warn,
                ..Warner::default()
            },
            reals: Reals::default(),
        }
    }

    /// With `-v`, the first warning about each metric, in the order met.
    pub fn warnings(&self) -> &[Warning] {
        &self.warner.list
    }

    /// A `<mark>`: discrete values extended to it, every instance marked.
    fn mark(&mut self, stamp: Tv) {
        for m in self.metrics.values_mut() {
            let discrete = m.desc.sem == sem::DISCRETE;
            for d in &mut m.insts {
                if discrete {
                    d.hold_to(stamp);
                }
                d.marked = true;
                d.markcount += 1;
            }
        }
    }

    /// A record's time; a `<mark>` taken.
    fn begin(&mut self, rec: &ResultRecord<'_>) -> Tv {
        let stamp = Tv::of(rec.stamp);
        if rec.vsets.is_empty() {
            self.mark(stamp);
        }
        stamp
    }

    /// Whether a value set holds values; an error in its place is warned of as
    /// `what` failing.
    fn has_values(&mut self, vs: &ValueSet<'_>, what: &str) -> bool {
        if vs.numval < 0 {
            let e = pm_err_str(vs.numval);
            self.warner.warn(vs.pmid, || format!("{what}: {e}\n"));
        }
        vs.numval > 0
    }

    /// The first pass over one record (PCP's `calcaverage`).
    pub fn average(
        &mut self,
        rec: &ResultRecord<'_>,
        desc_of: impl Fn(PmId) -> Option<Desc>,
    ) -> Result<(), Corrupt> {
        let stamp = self.begin(rec);
        for vs in &rec.vsets {
            if !self.has_values(vs, "failed in archive value fetch") {
                continue;
            }
            if let Some(m) = self.metrics.get_mut(&vs.pmid) {
                At::new(stamp, self.settings, &mut self.warner, &mut self.reals).update(m, vs)?;
                continue;
            }
            let Some(desc) = desc_of(vs.pmid) else {
                let e = pm_err_str(PM_ERR_PMID_LOG);
                let msg = || format!("cannot find descriptor: {e}\n");
                self.warner.warn(vs.pmid, msg);
                continue;
            };
            if numeric(desc.vtype) {
                let m = new_metric(vs, &desc, stamp, self.settings)?;
                self.metrics.insert(vs.pmid, m);
            }
        }
        Ok(())
    }

    /// The second pass over one record (PCP's `calcbinning`).
    pub fn bin(&mut self, rec: &ResultRecord<'_>) {
        let stamp = self.begin(rec);
        for vs in &rec.vsets {
            if !self.has_values(vs, "failed in 2nd pass archive fetch") {
                continue;
            }
            if let Some(m) = self.metrics.get_mut(&vs.pmid) {
                At::new(stamp, self.settings, &mut self.warner, &mut self.reals).bin(m, vs);
            }
        }
    }
}

/// A metric met for the first time (PCP's `newHashItem`).
fn new_metric(vs: &ValueSet<'_>, desc: &Desc, stamp: Tv, s: Settings) -> Result<Metric, Corrupt> {
    let mut m = Metric {
        desc: *desc,
        scale: 0.0,
        insts: Vec::with_capacity(vs.values.len()),
        index: HashMap::default(),
    };
    if desc.sem == sem::COUNTER && !s.sums {
        let u = desc.units;
        m.scale = u.time_rate_scale();
        let scale_time = if u.dim_time() == 0 { 3 } else { u.scale_time() };
        m.desc.units = u.with_time(u.dim_time() - 1, scale_time);
    } else if desc.sem == sem::COUNTER {
        m.scale = 1.0;
    }
    for (inst, v) in &vs.values {
        let x = as_double(desc.vtype, v).map_err(|e| corrupt(vs.pmid, e))?;
        let d = new_inst(&m.desc, *inst, x, stamp, s.nbins);
        m.push(d);
    }
    Ok(m)
}

/// An instance met for the first time (PCP's `newHashInst`).
fn new_inst(desc: &Desc, inst: i32, x: f64, stamp: Tv, nbins: u32) -> Inst {
    let counter = desc.sem == sem::COUNTER;
    let first = if counter { 0.0 } else { x };
    Inst {
        inst,
        count: u32::from(!counter),
        stocave: first,
        timeave: 0.0,
        min: first,
        max: first,
        sum: first,
        lastval: x,
        firsttime: stamp,
        lasttime: stamp,
        mintime: stamp,
        maxtime: stamp,
        markcount: 0,
        marked: false,
        bintotal: 0,
        bins: vec![0; nbins as usize],
    }
}

/// One record's value sets being taken: its time, and what the passes share.
struct At<'s> {
    stamp: Tv,
    settings: Settings,
    warner: &'s mut Warner,
    reals: &'s mut Reals,
}

impl<'s> At<'s> {
    fn new(stamp: Tv, settings: Settings, warner: &'s mut Warner, reals: &'s mut Reals) -> At<'s> {
        At {
            stamp,
            settings,
            warner,
            reals,
        }
    }

    /// The values of a metric met before, in the first pass.
    fn update(&mut self, m: &mut Metric, vs: &ValueSet<'_>) -> Result<(), Corrupt> {
        let keyed = vs.numval > 1 || m.desc.indom.0 != u32::MAX;
        let mut hint = 0;
        for (j, (inst, v)) in vs.values.iter().enumerate() {
            let Some(k) = m.position(j, *inst, keyed, hint) else {
                // a new instance: its value must be read, as the first's
                let x = as_double(m.desc.vtype, v).map_err(|e| corrupt(vs.pmid, e))?;
                let d = new_inst(&m.desc, *inst, x, self.stamp, self.settings.nbins);
                m.push(d);
                continue;
            };
            hint = k + 1;
            match as_double(m.desc.vtype, v) {
                Ok(x) if x.is_nan() => {}
                Ok(x) => accumulate(m, k, x, self.stamp, self.settings.wrap, self.reals),
                Err(e) => {
                    let msg = || format!("failed to extract value: {}\n", pm_err_str(e));
                    self.warner.warn(vs.pmid, msg);
                }
            }
        }
        Ok(())
    }

    /// The values of a metric in the second pass.
    fn bin(&mut self, m: &mut Metric, vs: &ValueSet<'_>) {
        let keyed = vs.numval > 1 || m.desc.indom.0 != u32::MAX;
        let mut hint = 0;
        for (j, (inst, v)) in vs.values.iter().enumerate() {
            let Some(k) = m.position(j, *inst, keyed, hint) else {
                let msg = || "ignoring new instance found on second pass\n".to_string();
                self.warner.warn(vs.pmid, msg);
                continue;
            };
            hint = k + 1;
            match as_double(m.desc.vtype, v) {
                Ok(x) if x.is_nan() => {}
                Ok(x) => bin_value(m, k, x, self.stamp, self.settings, self.reals),
                Err(e) => {
                    let msg = || format!("failed to extract value: {}\n", pm_err_str(e));
                    self.warner.warn(vs.pmid, msg);
                }
            }
        }
    }
}

/// PCP's `unwrap`: a counter that went backwards gained 2^32 or 2^64 when
/// `PCP_COUNTER_WRAP` is set.
fn unwrap(current: f64, previous: f64, ty: i32, wrap: bool) -> f64 {
    if current - previous >= 0.0 || !wrap {
        return current;
    }
    match ty {
        vtype::I32 | vtype::U32 => current + (u32::MAX as f64 + 1.0),
        vtype::I64 | vtype::U64 => current + (u64::MAX as f64 + 1.0),
        _ => current,
    }
}

/// A counter restarts (after a `<mark>`, or going backwards): the time since its
/// last value is left out of its span.
fn restart(d: &mut Inst, stamp: Tv) {
    d.marked = false;
    d.firsttime = d.firsttime.plus(stamp).sub_clip(d.lasttime);
}

/// A counter's value `x` after `diff` (its time units) since the last: `None`
/// where no time passed (the value is passed by), `Some(None)` where the counter
/// restarts (after a `<mark>`, or gone backwards), else `Some(value)`, unwrapped.
fn counter_step(
    d: &mut Inst,
    x: f64,
    diff: f64,
    (ty, wrap): (i32, bool),
    stamp: Tv,
) -> Option<Option<f64>> {
    if diff == 0.0 {
        return None;
    }
    let val = if d.marked {
        x
    } else {
        unwrap(x, d.lastval, ty, wrap)
    };
    if d.marked || val < d.lastval {
        restart(d, stamp);
        return Some(None);
    }
    Some(Some(val))
}

/// One value of instance `k` in the first pass.
fn accumulate(m: &mut Metric, k: usize, x: f64, stamp: Tv, wrap: bool, reals: &mut Reals) {
    let (ty, counter, scale) = (m.desc.vtype, m.desc.sem == sem::COUNTER, m.scale);
    let d = &mut m.insts[k];
    let diff = reals.of(stamp.sub_clip(d.lasttime));
    let mut counted = true;
    if counter {
        let diff = diff * scale;
        let Some(step) = counter_step(d, x, diff, (ty, wrap), stamp) else {
            return;
        };
        if let Some(val) = step {
            let rate = (val - d.lastval) / diff;
            d.stocave += rate;
            d.timeave += val - d.lastval;
            if d.count == 0 {
                (d.min, d.max) = (rate, rate);
                d.sum = val - d.lastval;
            } else {
                if rate < d.min {
                    (d.min, d.mintime) = (rate, stamp);
                }
                if rate > d.max {
                    (d.max, d.maxtime) = (rate, stamp);
                }
                d.sum += val - d.lastval;
            }
        } else {
            counted = false;
        }
    } else {
        d.sum += x;
        d.stocave += x;
        if x < d.min {
            (d.min, d.mintime) = (x, stamp);
        }
        if x > d.max {
            (d.max, d.maxtime) = (x, stamp);
        }
        if d.marked {
            restart(d, stamp);
        } else {
            d.timeave += d.lastval * diff;
        }
    }
    if counted {
        d.count = d.count.wrapping_add(1);
    }
    d.lastval = x;
    d.lasttime = stamp;
}

/// PCP's `findbin`: the first of `nbins` equal ranges from `min` to `max` that
/// holds `val` (the last when none does).
pub fn find_bin(val: f64, min: f64, max: f64, nbins: u32) -> usize {
    let size = (max - min) / nbins as f64;
    let mut bound = min;
    for index in 0..nbins.saturating_sub(1) {
        let next = bound + size;
        if val >= bound && val <= next {
            return index as usize;
        }
        bound = next;
    }
    nbins.saturating_sub(1) as usize
}

/// One value of instance `k` in the second pass.
fn bin_value(m: &mut Metric, k: usize, x: f64, stamp: Tv, s: Settings, reals: &mut Reals) {
    let (ty, counter, scale) = (m.desc.vtype, m.desc.sem == sem::COUNTER, m.scale);
    let d = &mut m.insts[k];
    let put = |d: &mut Inst, v: f64| {
        let b = find_bin(v, d.min, d.max, s.nbins);
        if let Some(slot) = d.bins.get_mut(b) {
            *slot += 1;
        }
    };
    if d.bintotal == 0 {
        // the first value of the second pass starts the count again
        d.bintotal = d.count;
        (d.lasttime, d.firsttime, d.lastval) = (stamp, stamp, x);
        if counter {
            d.count = 0;
        } else {
            d.count = 1;
            put(d, x);
        }
        return;
    }
    let diff = reals.of(stamp.sub_clip(d.lasttime));
    let mut counted = true;
    if counter {
        let diff = diff * scale;
        let Some(step) = counter_step(d, x, diff, (ty, s.wrap), stamp) else {
            return;
        };
        match step {
            Some(val) => put(d, (val - d.lastval) / diff),
            None => counted = false,
        }
    } else {
        put(d, x);
    }
    if counted {
        d.count = d.count.wrapping_add(1);
    }
    d.lastval = x;
    d.lasttime = stamp;
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::codec::result::Value;
    use archive_format::types::{InDom, Timestamp, Units};

    fn desc(pmid: PmId, semantics: i32, indom: InDom) -> Desc {
        Desc {
            pmid,
            vtype: vtype::U32,
            indom,
            sem: semantics,
            units: Units::new([0, 0, 1], [0, 0], 0),
        }
    }

    fn rec(sec: i64, sets: &[(PmId, &[(i32, u32)])]) -> ResultRecord<'static> {
        ResultRecord {
            stamp: Timestamp::new(sec, 0),
            vsets: sets
                .iter()
                .map(|(pmid, vals)| ValueSet {
                    pmid: *pmid,
                    numval: vals.len() as i32,
                    valfmt: 0,
                    values: vals.iter().map(|&(i, v)| (i, Value::Insitu(v))).collect(),
                })
                .collect(),
        }
    }

    fn meta_with(descs: &[Desc]) -> impl Fn(PmId) -> Option<Desc> + '_ {
        move |p| descs.iter().find(|d| d.pmid == p).copied()
    }

    #[test]
    fn counters_become_rates_and_restart_when_they_go_backwards() {
        let p = PmId::new(1, 0, 1);
        let descs = [desc(p, sem::COUNTER, InDom(u32::MAX))];
        let meta = meta_with(&descs);
        let mut s = Stats::new(Settings::default());
        for (t, v) in [(0, 100), (10, 200), (20, 400), (30, 50), (40, 150)] {
            s.average(&rec(t, &[(p, &[(-1, v)])]), &meta)
                .expect("numbers");
        }
        let m = &s.metrics[&p];
        assert_eq!(m.desc.units.to_string(), "count / sec");
        let d = &m.insts[0];
        // rates 10, 20, (restart), 10
        assert_eq!(d.count, 3);
        assert_eq!((d.min, d.max, d.stocave), (10.0, 20.0, 40.0));
        assert_eq!(d.sum, 400.0);
        assert_eq!(d.maxtime, Tv { sec: 20, usec: 0 });
        // the 10 s to the restart are left out of the span
        assert_eq!(d.lasttime.sub_clip(d.firsttime).real(), 30.0);
    }

    #[test]
    fn instant_values_and_marks() {
        let p = PmId::new(1, 0, 2);
        let descs = [desc(p, sem::INSTANT, InDom::new(1, 1))];
        let meta = meta_with(&descs);
        let mut s = Stats::new(Settings::default());
        s.average(&rec(0, &[(p, &[(1, 5), (2, 7)])]), &meta)
            .expect("ok");
        s.average(&rec(10, &[(p, &[(2, 9), (1, 3)])]), &meta)
            .expect("ok");
        s.average(&rec(15, &[]), &meta).expect("ok");
        s.average(&rec(20, &[(p, &[(1, 4), (3, 1)])]), &meta)
            .expect("ok");
        let m = &s.metrics[&p];
        let i: Vec<i32> = m.insts.iter().map(|d| d.inst).collect();
        assert_eq!(i, [1, 2, 3], "a new instance is added at the end");
        let one = &m.insts[0];
        assert_eq!((one.count, one.min, one.max, one.sum), (3, 3.0, 5.0, 12.0));
        // 5 for 10 s; the mark leaves out 10..20
        assert_eq!(one.timeave, 50.0);
        assert_eq!(one.markcount, 1);
        assert!(!one.marked);
        assert!(m.insts[1].marked, "not seen since the mark");
    }

    #[test]
    fn bins_split_the_range_evenly() {
        assert_eq!(find_bin(0.0, 0.0, 10.0, 4), 0);
        assert_eq!(find_bin(2.5, 0.0, 10.0, 4), 0, "a bound belongs below");
        assert_eq!(find_bin(2.6, 0.0, 10.0, 4), 1);
        assert_eq!(find_bin(10.0, 0.0, 10.0, 4), 3);
        assert_eq!(find_bin(5.0, 5.0, 5.0, 3), 0);
        assert_eq!(find_bin(f64::NAN, 0.0, 1.0, 3), 2, "nowhere: the last");
    }

    #[test]
    fn second_pass_fills_bins() {
        let p = PmId::new(1, 0, 3);
        let descs = [desc(p, sem::INSTANT, InDom(u32::MAX))];
        let meta = meta_with(&descs);
        let mut s = Stats::new(Settings {
            nbins: 2,
            ..Settings::default()
        });
        let recs: Vec<_> = [1, 2, 9, 10]
            .iter()
            .enumerate()
            .map(|(t, v)| rec(t as i64, &[(p, &[(-1, *v)])]))
            .collect();
        for r in &recs {
            s.average(r, &meta).expect("ok");
        }
        for r in &recs {
            s.bin(r);
        }
        let d = &s.metrics[&p].insts[0];
        assert_eq!(d.bins, [2, 2]);
        assert_eq!((d.count, d.bintotal), (4, 4));
    }

    #[test]
    fn unreadable_first_value_is_fatal() {
        let p = PmId::new(1, 0, 4);
        let mut d = desc(p, sem::INSTANT, InDom(u32::MAX));
        d.vtype = vtype::U64;
        let descs = [d];
        let meta = meta_with(&descs);
        let mut s = Stats::new(Settings::default());
        let e = s.average(&rec(0, &[(p, &[(-1, 1)])]), &meta).unwrap_err();
        assert!(e.0.message.starts_with("failed to extract value"));
    }
}
