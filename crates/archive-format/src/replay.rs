//! Replaying an archive as `pmFetch` does under `pmSetMode`: forward and backward
//! record by record, or interpolated at regular instants.
//!
//! ```no_run
//! use archive_format::replay::{Delta, Mode, Replay};
//! use archive_format::Archive;
//! let a = Archive::open("/var/lib/pcp/testsuite/archives/ok-interp")?;
//! let pmid = a.metadata().pmns.lookup("sample.seconds");
//! # let archive_format::pmns::Lookup::Leaf(pmid) = pmid else { return Ok(()) };
//! let mut r = Replay::new(&a);
//! r.set_mode(Mode::Interp, Some(a.label().start), Delta::from_millis(500));
//! while let Ok(res) = r.fetch(&[pmid]) {
//!     println!("{:?} {:?}", res.stamp, res.sets[0].values);
//! }
//! # Ok::<(), archive_format::Error>(())
//! ```
//!
//! Interpolation follows libpcp 6.0.3 (`__pmLogFetchInterp`): for every wanted
//! (metric, instance) the replay keeps the closest record at or before the requested
//! time (the *prior*) and at or after it (the *next*), where a `<mark>` record bounds
//! every instance. Discrete metrics need a prior value; instant and counter metrics
//! need both. Instant and discrete values are the prior's (a step function); counters
//! are interpolated linearly with libpcp's rounding for integers. Moving forward reuses
//! the bounds of the previous fetch, so replaying a whole archive reads each record
//! about once, and seeking uses the temporal index.
//!
//! [`InterpRule::Nearest`] gives the rule of PCP 6.3.2 and later for instant and
//! discrete metrics (the observation nearest in time); the default is 6.0.3's.

use crate::archive::{Archive, Position};
use crate::codec::result::{BlockData, ResultRecord, VAL_DPTR, VAL_INSITU, VAL_SPTR};
use crate::error::{Error, Result, PM_ERR_EOL, PM_ERR_LOGREC, PM_ERR_PMID_LOG, PM_ERR_TYPE};
use crate::lives::Lives;
use crate::types::{sem, vtype, Desc, InDom, PmId, Timestamp};
use foldhash::HashMap;
use foldhash::HashMapExt;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The instance id of a singular metric's only value.
pub const PM_IN_NULL: i32 = -1;

/// How `fetch` moves through the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Values at origin, origin += delta after each fetch.
    Interp,
    /// The next record at or after origin.
    Forw,
    /// The previous record at or before origin.
    Back,
}

/// The step between interpolated fetches, in nanoseconds (may be negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delta(pub i128);

/// Units of `pmSetMode`'s delta (`PM_XTB_SET`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Nsec,
    Usec,
    Msec,
    Sec,
    Min,
    Hour,
}

impl Delta {
    pub fn from_millis(ms: i64) -> Delta {
        Delta(ms as i128 * 1_000_000)
    }
    pub fn from_nanos(ns: i128) -> Delta {
        Delta(ns)
    }
    /// A delta as `pmSetMode(mode | PM_XTB_SET(unit), when, n)` takes it, with the
    /// reference's arithmetic: sub-microsecond parts are dropped (libpcp keeps the
    /// origin in microseconds) and an hour is 360 seconds (a libpcp 6.0.3 quirk).
    pub fn from_xtb(n: i32, unit: TimeUnit) -> Delta {
        let n = n as i128;
        Delta(match unit {
            TimeUnit::Nsec => n / 1000 * 1000,
            TimeUnit::Usec => n * 1000,
            TimeUnit::Msec => n * 1_000_000,
            TimeUnit::Sec => n * 1_000_000_000,
            TimeUnit::Min => n * 60_000_000_000,
            TimeUnit::Hour => n * 360_000_000_000,
        })
    }
}

/// Which stored value an interpolated instant or discrete metric takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InterpRule {
    /// PCP 6.0.3: the value at or before the requested time.
    #[default]
    Prior,
    /// PCP 6.3.2+: the value nearest the requested time (ties go to the earlier one).
    Nearest,
}

pub use crate::codec::result::OwnedValue;

/// One metric's values in a fetch result: `numval` is the number of values or a
/// negative PCP error code (`PM_ERR_PMID_LOG` for a metric not in the archive,
/// `PM_ERR_TYPE` for a non-numeric counter in INTERP mode).
pub type FetchedSet = crate::codec::result::OwnedValueSet;

/// A fetch result (a pmResult).
#[derive(Debug, Clone, PartialEq)]
pub struct FetchResult {
    pub stamp: Timestamp,
    /// One set per requested PMID, in request order (all of the record's sets for
    /// [`Replay::fetch_archive`]; none for a `<mark>` record).
    pub sets: Vec<FetchedSet>,
}

#[derive(Debug, Clone, PartialEq)]
enum Bound {
    /// Nothing found (yet).
    None,
    Mark(f64),
    Value(f64, OwnedValue),
}

impl Bound {
    fn time(&self) -> Option<f64> {
        match self {
            Bound::None => None,
            Bound::Mark(t) | Bound::Value(t, _) => Some(*t),
        }
    }
}

#[derive(Debug, Clone)]
struct InstState {
    prior: Bound,
    next: Bound,
    /// Scanned forward to the end of the archive without finding a next bound after
    /// this time.
    no_next_after: Option<f64>,
    /// Whether the instance domain's history allows a value at the time asked
    /// for (always, for a small domain): libpcp's time calipers, as the sweep of
    /// [`Lives`] has got to that time.
    alive: bool,
    /// When a large domain's instance dies (seconds from the start): no value
    /// after it is looked for.
    death: Option<f64>,
    /// The roll that last gave this instance a bound (see `Replay::gen`).
    gen: u64,
    /// Being searched for in the current backward or forward scan.
    searching: bool,
    /// Searched for in the current forward scan (found or not).
    sought: bool,
    /// The newest record holding this instance among those read by forward scans
    /// while it was held here.
    last_seen: Option<f64>,
    /// A forward scan read every record after this time to the end of the
    /// archive while the instance was held here, so `last_seen` tells whether
    /// anything holds it later.
    witness: Option<f64>,
}

impl InstState {
    /// An instance no record has given anything yet.
    fn fresh(alive: bool) -> InstState {
        InstState {
            prior: Bound::None,
            next: Bound::None,
            no_next_after: None,
            alive,
            death: None,
            gen: 0,
            searching: false,
            sought: false,
            last_seen: None,
            witness: None,
        }
    }

    /// A copy of a template for instance that comes to be held.
    fn from_template(t: &InstState, alive: bool) -> InstState {
        InstState {
            alive,
            death: None,
            searching: false,
            sought: false,
            last_seen: None,
            witness: None,
            ..t.clone()
        }
    }
}

/// How far the births and deaths of a large domain's instances have been
/// applied to a metric's instances.
#[derive(Debug, Clone)]
struct Sweep {
    lives: Arc<Lives>,
    /// The next set whose births are due.
    born: usize,
    /// The time swept to, in seconds from the start.
    at: f64,
}

#[derive(Debug, Clone)]
struct MetricState {
    desc: Desc,
    /// The instances held: for a small domain every instance it ever holds, for a
    /// large one those alive (and those a record gave a bound while not alive).
    insts: BTreeMap<i32, InstState>,
    /// What an instance not held yet would be: resets and marks reach it too.
    template: InstState,
    /// A large (calipered) domain's lives, and how far they are applied.
    sweep: Option<Sweep>,
    /// The profile's instances of the domain (`None`: all).
    profile: Option<Vec<i32>>,
    /// The valfmt of the first value seen, which must not change.
    valfmt: Option<i32>,
    last_numval: i32,
}

impl MetricState {
    /// Every instance's state and the template's, for what reaches them all.
    fn all_states(&mut self) -> impl Iterator<Item = &mut InstState> + '_ {
        self.insts
            .values_mut()
            .chain(std::iter::once(&mut self.template))
    }

    /// The state of `inst` for a value a record holds: a singular metric's only
    /// one; for a large domain, an instance it holds but that is not held here
    /// yet is taken from the template (`true` with it when so).
    fn state_for(&mut self, inst: i32) -> Result<Option<(&mut InstState, bool)>> {
        let create = !self.desc.indom.is_null()
            && !self.insts.contains_key(&inst)
            && self.profile.as_ref().is_none_or(|p| p.contains(&inst))
            && match &self.sweep {
                Some(w) => w.lives.is_member(inst)?,
                None => false,
            };
        if create {
            let s = InstState::from_template(&self.template, false);
            return Ok(Some((self.insts.entry(inst).or_insert(s), true)));
        }
        Ok(self.held(inst).map(|s| (s, false)))
    }

    /// The state held for a value of `inst` (a singular metric's only one),
    /// none taken up: for what a record shows, not a bound it gives.
    fn held(&mut self, inst: i32) -> Option<&mut InstState> {
        let key = if self.desc.indom.is_null() || !self.insts.contains_key(&inst) {
            PM_IN_NULL
        } else {
            inst
        };
        self.insts.get_mut(&key)
    }

    /// Applies the births and deaths of a large domain's instances up to `t`
    /// (seconds from `start`): born instances are held, alive until they die.
    /// Instances not alive are let go unless a value after `t` bounds them
    /// (records may hold instances their domain does not). Going back in time
    /// starts again from the first set.
    fn sweep_to(&mut self, t: f64, start: Timestamp) -> Result<()> {
        let Some(w) = &mut self.sweep else {
            return Ok(());
        };
        if t < w.at {
            self.insts.clear();
            self.template = InstState::fresh(false);
            w.born = 0;
        }
        w.at = t;
        let lives = Arc::clone(&w.lives);
        let secs = |k: usize| -> Result<Option<f64>> {
            Ok(lives.time(k)?.map(|s| secs_between(start, s)))
        };
        while let Some(tb) = secs(w.born)? {
            if tb > t {
                break;
            }
            for (inst, death) in w.lives.born_at(w.born)? {
                if self.profile.as_ref().is_some_and(|p| !p.contains(&inst)) {
                    continue;
                }
                let death = match death {
                    Some(d) => secs(d)?,
                    None => None,
                };
                if death.is_some_and(|d| d < t) && !self.insts.contains_key(&inst) {
                    // born and dead since the last sweep
                    continue;
                }
                let s = self
                    .insts
                    .entry(inst)
                    .or_insert_with(|| InstState::from_template(&self.template, true));
                s.death = death;
                s.alive = true;
            }
            w.born += 1;
        }
        self.insts.retain(|_, s| {
            if s.death.is_some_and(|d| d < t) {
                s.alive = false;
            }
            s.alive || matches!(s.next, Bound::Value(tn, _) if tn >= t)
        });
        Ok(())
    }
}

/// Seconds from `start` to `t`.
fn secs_between(start: Timestamp, t: Timestamp) -> f64 {
    (t.sec - start.sec) as f64 + (t.nsec as f64 - start.nsec as f64) / 1e9
}

/// A replay context over one archive.
pub struct Replay<'a> {
    a: &'a Archive,
    start: Timestamp,
    mode: Mode,
    origin: Timestamp,
    delta: Delta,
    rule: InterpRule,
    /// FORW/BACK: where the next read starts (`None`: position from origin).
    pos: Option<Position>,
    profile: HashMap<InDom, Vec<i32>>,
    metrics: HashMap<PmId, MetricState>,
    /// INTERP: the previous request time, and the position of the first record
    /// after it.
    last_req: Option<(f64, Position)>,
    ignore_marks: MarkPolicy,
    /// The archive end as last computed, in seconds from the start.
    end: f64,
    /// Counts rolls forward; an instance whose `gen` equals it has its bound.
    gen: u64,
    /// Mapped data before this position has been released.
    released: Position,
    /// The lives of instance domains' instances, as they are asked for.
    lives: HashMap<InDom, Arc<Lives>>,
    /// Every domain's lives are in `lives` (read from the `.meta` as a stream,
    /// when the metadata does not hold the domains' history).
    lives_streamed: bool,
    /// Arrivals and departures past which a domain's lives are kept in a
    /// temporary file ([`crate::lives::RUN`]).
    lives_run: usize,
    /// The newest `<mark>` such scans read.
    last_mark: Option<f64>,
    /// The record last decoded for interpolation (the record after one request
    /// time is mostly the one before the next): where it was asked for, with
    /// which metrics kept.
    last_decoded: Option<Decoded<'a>>,
}

/// A record decoded keeping the values of `tracked`, read at `asked`.
struct Decoded<'a> {
    asked: Position,
    tracked: Vec<PmId>,
    read: (Position, std::sync::Arc<ResultRecord<'a>>, Position),
}

/// What `PCP_IGNORE_MARK_RECORDS` asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarkPolicy {
    /// Marks bound values (the default).
    Honour,
    /// Every mark is ignored.
    IgnoreAll,
    /// A mark is ignored when the records around it are at most this many seconds
    /// apart.
    IgnoreGap(f64),
}

impl<'a> Replay<'a> {
    /// A replay positioned at the archive's start in FORW mode, as a new archive
    /// context is.
    pub fn new(a: &'a Archive) -> Replay<'a> {
        let start = a.label().start;
        Replay {
            a,
            start,
            mode: Mode::Forw,
            origin: start,
            delta: Delta::from_millis(1000),
            rule: InterpRule::default(),
            pos: None,
            profile: HashMap::new(),
            metrics: HashMap::new(),
            last_req: None,
            ignore_marks: MarkPolicy::Honour,
            end: 0.0,
            gen: 0,
            released: a.start(),
            lives: HashMap::new(),
            lives_streamed: false,
            lives_run: crate::lives::RUN,
            last_mark: None,
            last_decoded: None,
        }
    }

    pub fn archive(&self) -> &'a Archive {
        self.a
    }

    /// The current origin (the time of the next interpolated fetch, or of the last
    /// record returned in FORW/BACK mode).
    pub fn origin(&self) -> Timestamp {
        self.origin
    }

    pub fn set_interp_rule(&mut self, rule: InterpRule) {
        self.rule = rule;
        self.last_req = None;
    }

    /// Sets past how many arrivals and departures an instance domain's lives
    /// are sorted in runs and kept in a temporary file rather than in memory
    /// (for a replay that has not asked for them yet).
    pub fn set_lives_run(&mut self, run: usize) {
        self.lives_run = run;
    }

    /// Sets how `<mark>` records are treated in INTERP mode.
    pub fn set_mark_policy(&mut self, p: MarkPolicy) {
        self.ignore_marks = p;
        self.last_req = None;
    }

    /// Whether, at the last interpolated fetch's time, the domain of `pmid` has
    /// taken `inst` out for good (a large domain: libpcp gives a discrete
    /// metric's instance its last value until then, inclusive).
    pub fn gone(&self, pmid: PmId, inst: i32) -> bool {
        self.metrics.get(&pmid).is_some_and(|m| {
            let at = m.sweep.as_ref().map_or(f64::NEG_INFINITY, |w| w.at);
            m.insts
                .get(&inst)
                .and_then(|s| s.death)
                .is_some_and(|d| d <= at)
        })
    }

    /// `pmSetMode`: `when == None` keeps the origin.
    pub fn set_mode(&mut self, mode: Mode, when: Option<Timestamp>, delta: Delta) {
        self.mode = mode;
        if let Some(t) = when {
            self.origin = t;
        }
        self.delta = delta;
        self.pos = None;
        // bounds that no longer bracket the origin are dropped at the next fetch
        self.last_req = None;
    }

    /// Restricts the instances returned for `indom` to `insts` (`pmAddProfile`);
    /// an empty list restores all instances.
    pub fn set_profile(&mut self, indom: InDom, insts: Vec<i32>) {
        if insts.is_empty() {
            self.profile.remove(&indom);
        } else {
            self.profile.insert(indom, insts);
        }
        self.metrics.retain(|_, m| m.desc.indom != indom);
        self.last_req = None;
    }

    fn in_profile(&self, indom: InDom, inst: i32) -> bool {
        self.profile.get(&indom).is_none_or(|l| l.contains(&inst))
    }

    fn secs(&self, t: Timestamp) -> f64 {
        secs_between(self.start, t)
    }

    /// origin += delta, normalised as libpcp does it: the sub-second part is only
    /// carried when it *exceeds* one second, so an origin can end up with exactly
    /// 1e9 nanoseconds (pmval then prints `.1000` milliseconds).
    fn advance_origin(&mut self) {
        let d = self.delta.0;
        let mut sec = self.origin.sec as i128 + d / 1_000_000_000;
        let mut nsec = self.origin.nsec as i128 + d % 1_000_000_000;
        while nsec > 1_000_000_000 {
            sec += 1;
            nsec -= 1_000_000_000;
        }
        while nsec < 0 {
            sec -= 1;
            nsec += 1_000_000_000;
        }
        self.origin = Timestamp {
            sec: sec as i64,
            nsec: nsec as u32,
        };
    }

    /// A position at or before the first record whose time is `>= t`, from the
    /// temporal index.
    fn seek(&self, t: Timestamp) -> Position {
        self.a.position_before(t)
    }

    /// `pmFetchArchive`: the next record in the mode's direction, every metric of it,
    /// `<mark>` records included and the profile ignored.
    pub fn fetch_archive(&mut self) -> Result<FetchResult> {
        if self.mode == Mode::Interp {
            return Err(Error::pcp(
                crate::error::PM_ERR_MODE,
                "pmFetchArchive needs FORW or BACK mode",
            ));
        }
        let rec = self.next_record(|_| true)?;
        Ok(FetchResult {
            stamp: rec.stamp,
            sets: rec.vsets.iter().map(FetchedSet::from_set).collect(),
        })
    }

    /// The next record (FORW/BACK) that `keep` accepts, updating origin and position.
    fn next_record(
        &mut self,
        keep: impl Fn(&ResultRecord<'_>) -> bool,
    ) -> Result<ResultRecord<'a>> {
        let a = self.a;
        let eol = || Error::pcp(PM_ERR_EOL, "end of archive");
        match self.mode {
            Mode::Forw | Mode::Interp => {
                let mut pos = match self.pos {
                    Some(p) => p,
                    None => self.seek(self.origin),
                };
                loop {
                    let Some((_, rec, after)) = a.read_forward(pos)? else {
                        self.pos = Some(pos);
                        return Err(eol());
                    };
                    pos = after;
                    if rec.stamp < self.origin || !keep(&rec) {
                        continue;
                    }
                    self.pos = Some(pos);
                    self.origin = rec.stamp;
                    return Ok(rec);
                }
            }
            Mode::Back => {
                let mut pos = match self.pos {
                    Some(p) => p,
                    None => self.seek_back(self.origin)?,
                };
                loop {
                    let Some((start, rec)) = a.read_backward(pos)? else {
                        self.pos = Some(pos);
                        return Err(eol());
                    };
                    pos = start;
                    if rec.stamp > self.origin || !keep(&rec) {
                        continue;
                    }
                    self.pos = Some(pos);
                    self.origin = rec.stamp;
                    return Ok(rec);
                }
            }
        }
    }

    /// A position after the last record whose time is `<= t`.
    fn seek_back(&self, t: Timestamp) -> Result<Position> {
        let vols = self.a.volume_numbers();
        let mut pos = self.seek(t);
        // the first index entry after t, if any, bounds the records at or before t
        if let Some(e) = self
            .a
            .index()
            .iter()
            .find(|e| e.stamp > t && e.off_data >= 0)
        {
            if let Some(v) = vols.iter().position(|&n| n as i32 == e.vol) {
                let p = Position {
                    vol: v,
                    offset: e.off_data as u64,
                };
                // make sure no record at exactly t hides after it
                let mut q = p;
                loop {
                    match self.a.read_forward(q)? {
                        Some((_, r, after)) if r.stamp <= t => q = after,
                        _ => break,
                    }
                }
                return Ok(q);
            }
        }
        // no index entry after t: from our forward position to the end
        loop {
            match self.a.read_forward(pos)? {
                Some((_, r, after)) if r.stamp <= t => pos = after,
                Some(_) => return Ok(pos),
                None => return Ok(self.a.end_position()),
            }
        }
    }

    /// `pmFetch` of `pmids` in the current mode.
    pub fn fetch(&mut self, pmids: &[PmId]) -> Result<FetchResult> {
        match self.mode {
            Mode::Interp => {
                let r = self.fetch_interp(pmids);
                self.advance_origin();
                r
            }
            Mode::Forw | Mode::Back => {
                let rec = self.next_record(|r| {
                    !r.is_mark() && r.vsets.iter().any(|vs| pmids.contains(&vs.pmid))
                })?;
                let sets = pmids
                    .iter()
                    .map(|&p| match rec.vsets.iter().find(|vs| vs.pmid == p) {
                        None => FetchedSet {
                            pmid: p,
                            numval: 0,
                            valfmt: 0,
                            values: Vec::new(),
                        },
                        Some(vs) => {
                            let indom = self
                                .a
                                .metadata()
                                .desc(p)
                                .map(|d| d.indom)
                                .unwrap_or(InDom::NULL);
                            let values: Vec<(i32, OwnedValue)> = vs
                                .values
                                .iter()
                                .filter(|(i, _)| indom.is_null() || self.in_profile(indom, *i))
                                .map(|(i, v)| (*i, OwnedValue::from_value(v)))
                                .collect();
                            FetchedSet {
                                pmid: p,
                                numval: if vs.numval < 0 {
                                    vs.numval
                                } else {
                                    values.len() as i32
                                },
                                valfmt: vs.valfmt,
                                values,
                            }
                        }
                    })
                    .collect();
                Ok(FetchResult {
                    stamp: rec.stamp,
                    sets,
                })
            }
        }
    }

    /// Starts following `pmid` (false when the archive does not describe it).
    fn track(&mut self, pmid: PmId) -> Result<bool> {
        if self.metrics.contains_key(&pmid) {
            return Ok(true);
        }
        let Some(desc) = self.a.metadata().desc(pmid).cloned() else {
            return Ok(false);
        };
        let profile = self.profile.get(&desc.indom).cloned();
        let mut insts = BTreeMap::new();
        let mut sweep = None;
        if desc.indom.is_null() {
            insts.insert(PM_IN_NULL, InstState::fresh(true));
        } else {
            let lives = self.lives_of(desc.indom)?;
            if lives.calipered() {
                // instances are held as they are born (see MetricState::sweep_to)
                sweep = Some(Sweep {
                    lives,
                    born: 0,
                    at: f64::NEG_INFINITY,
                });
            } else {
                for i in lives.members()? {
                    if profile.as_ref().is_none_or(|p| p.contains(&i)) {
                        insts.insert(i, InstState::fresh(true));
                    }
                }
            }
        }
        self.metrics.insert(
            pmid,
            MetricState {
                desc,
                insts,
                template: InstState::fresh(false),
                sweep,
                profile,
                valfmt: None,
                last_numval: 0,
            },
        );
        self.last_req = None;
        Ok(true)
    }

    /// When the instances of `indom` come and go: from its snapshots when the
    /// metadata holds them, else from one pass over the `.meta`'s domains.
    fn lives_of(&mut self, indom: InDom) -> Result<Arc<Lives>> {
        if let Some(l) = self.lives.get(&indom) {
            return Ok(Arc::clone(l));
        }
        if !self.a.instances_held() {
            // every domain's at once, the first time
            if !self.lives_streamed {
                self.lives_streamed = true;
                let all = crate::lives::of_stream(self.a.instance_stream()?, self.lives_run)?;
                self.lives = all.into_iter().map(|(d, l)| (d, Arc::new(l))).collect();
            }
            return Ok(self.lives.get(&indom).cloned().unwrap_or_default());
        }
        let snaps = self.a.metadata().snapshots(indom);
        let l = Arc::new(crate::lives::of_snapshots(indom, snaps, self.lives_run)?);
        self.lives.insert(indom, Arc::clone(&l));
        Ok(l)
    }

    fn mark_ignored(&self, pos: Position, after: Position) -> Result<bool> {
        match self.ignore_marks {
            MarkPolicy::Honour => Ok(false),
            MarkPolicy::IgnoreAll => Ok(true),
            MarkPolicy::IgnoreGap(gap) => {
                let prior = self.a.read_backward(pos)?.map(|(_, r)| self.secs(r.stamp));
                let next = self
                    .a
                    .read_forward(after)?
                    .map(|(_, r, _)| self.secs(r.stamp));
                Ok(matches!((prior, next), (Some(p), Some(n)) if n - p <= gap))
            }
        }
    }

    /// Applies one record to the bounds of every tracked instance, as libpcp's
    /// `update_bounds`: `set_prior`/`set_next` select which bounds may change.
    /// With `gen`, records are applied newest first and only instances not yet
    /// given a bound in this roll change; returns how many did.
    fn update(
        &mut self,
        rec: &ResultRecord<'_>,
        t: f64,
        t_req: f64,
        set_prior: bool,
        set_next: bool,
        gen: u64,
    ) -> Result<usize> {
        let mut touched = 0;
        if rec.is_mark() {
            for m in self.metrics.values_mut() {
                let held = m.insts.len();
                for (k, s) in m.all_states().enumerate() {
                    if s.gen == gen {
                        continue;
                    }
                    s.gen = gen;
                    // (the template is not an instance held)
                    touched += usize::from(k < held);
                    if set_prior && t <= t_req {
                        s.prior = Bound::Mark(t);
                    }
                    if set_next && t >= t_req {
                        s.next = Bound::Mark(t);
                    }
                }
            }
            return Ok(touched);
        }
        for vs in &rec.vsets {
            if vs.numval > 0 && vs.values.is_empty() {
                // a set decoded without its values: not a tracked metric
                continue;
            }
            let Some(m) = self.metrics.get_mut(&vs.pmid) else {
                continue;
            };
            if vs.numval <= 0 {
                continue;
            }
            match m.valfmt {
                None => {
                    let ok = match m.desc.vtype {
                        vtype::I32 | vtype::U32 => vs.valfmt == VAL_INSITU,
                        vtype::FLOAT => true,
                        _ => vs.valfmt == VAL_DPTR || vs.valfmt == VAL_SPTR,
                    };
                    if !ok {
                        return Err(Error::pcp(
                            PM_ERR_LOGREC,
                            "value format does not fit the metric's type",
                        ));
                    }
                    m.valfmt = Some(vs.valfmt);
                }
                Some(f) if f != vs.valfmt => {
                    return Err(Error::pcp(PM_ERR_LOGREC, "value format changed"));
                }
                _ => {}
            }
            for (inst, v) in &vs.values {
                let Some((s, new)) = m.state_for(*inst)? else {
                    continue;
                };
                if s.gen != gen {
                    s.gen = gen;
                    // an instance taken up now was not among those to touch
                    touched += usize::from(!new);
                    if set_prior && t <= t_req {
                        s.prior = Bound::Value(t, OwnedValue::from_value(v));
                    }
                    if set_next && t >= t_req {
                        s.next = Bound::Value(t, OwnedValue::from_value(v));
                    }
                }
                if m.desc.indom.is_null() {
                    break;
                }
            }
        }
        Ok(touched)
    }

    /// An interpolated fetch at the origin, in libpcp's steps: bounds kept from the
    /// last fetch where they still bracket the time, else a roll forward to it, a
    /// search backward for the priors still missing and forward for the nexts.
    fn fetch_interp(&mut self, pmids: &[PmId]) -> Result<FetchResult> {
        let t_req = self.secs(self.origin);
        self.check_in_archive(t_req)?;
        let mut known = Vec::with_capacity(pmids.len());
        for &p in pmids {
            known.push(self.track(p)?);
        }
        let forward = self.delta.0 >= 0;
        let (pos, reset) = match self.last_req {
            Some((last, pos)) if forward && last <= t_req => (pos, false),
            _ => (self.seek(self.origin), true),
        };
        if reset {
            for m in self.metrics.values_mut() {
                for s in m.all_states() {
                    s.prior = Bound::None;
                    s.next = Bound::None;
                    s.no_next_after = None;
                }
            }
        }
        let start = self.start;
        for m in self.metrics.values_mut() {
            m.sweep_to(t_req, start)?;
        }
        if !reset && !self.needs_reading(t_req) {
            self.last_req = Some((t_req, pos));
            return Ok(self.interp_result(pmids, &known, t_req, false));
        }
        let tracked: Vec<PmId> = self.metrics.keys().copied().collect();
        let (after, seen_mark) = self.roll_forward(pos, t_req, reset, &tracked)?;
        self.last_req = Some((t_req, after));
        if reset {
            self.search_priors(pos)?;
        }
        self.search_nexts(after, t_req, &tracked)?;
        Ok(self.interp_result(pmids, &known, t_req, seen_mark))
    }

    /// An error past either end of the archive (looking again at the end, which
    /// may have grown, before saying so).
    fn check_in_archive(&mut self, t_req: f64) -> Result<()> {
        if t_req < -0.001 {
            return Err(Error::pcp(PM_ERR_EOL, "before the start of the archive"));
        }
        if t_req <= self.end + 0.001 {
            return Ok(());
        }
        if let Ok(e) = self.a.end_time() {
            let end = self.secs(e);
            if end > self.end {
                // the archive grew: what scans learnt about its end is stale
                for m in self.metrics.values_mut() {
                    for s in m.insts.values_mut() {
                        s.witness = None;
                    }
                }
            }
            self.end = end;
        }
        if t_req > self.end {
            return Err(Error::pcp(PM_ERR_EOL, "after the end of the archive"));
        }
        Ok(())
    }

    /// Like libpcp, read the archive only when some instance lacks a bound around
    /// t_req: bounds that still bracket it are kept, even a prior that is older
    /// than a next exactly at t_req (which string and aggregate values then show).
    fn needs_reading(&self, t_req: f64) -> bool {
        self.metrics.values().any(|m| {
            m.insts.values().any(|s| {
                if !s.alive {
                    return false;
                }
                // (an instance without a prior, even one searched for back to the
                // start, makes the roll: it may be born since)
                let prior_missing = s.prior.time().is_none_or(|tp| tp > t_req);
                let next_missing = match s.next.time() {
                    None => s.no_next_after.is_none_or(|ta| ta > t_req),
                    Some(tn) => tn < t_req,
                };
                prior_missing || next_missing
            })
        })
    }

    /// Rolls forward from `pos` to `t_req`. Only the newest record holding an
    /// instance (or a newer `<mark>`) can be its prior, so the records' headers are
    /// skimmed, then decoded from the newest back until every instance has its
    /// bound. Gives where the roll stopped, and whether it passed a `<mark>`.
    fn roll_forward(
        &mut self,
        mut pos: Position,
        t_req: f64,
        reset: bool,
        tracked: &[PmId],
    ) -> Result<(Position, bool)> {
        let mut span: Vec<(Position, f64, bool)> = Vec::new();
        while let Some((at, stamp, is_mark, after)) = self.a.peek_forward(pos)? {
            let t = self.secs(stamp);
            if t > t_req {
                break;
            }
            if !(is_mark && self.mark_ignored(at, after)?) {
                span.push((at, t, is_mark));
            }
            pos = after;
        }
        let seen_mark = !reset && span.iter().any(|s| s.2);
        if let Some(&(first, _, _)) = span.first() {
            // nothing before this roll is read again while moving forward
            if first.vol != self.released.vol
                || first.offset.saturating_sub(self.released.offset) > 8 << 20
            {
                self.a.release_before(first);
                self.released = first;
            }
        }
        self.gen += 1;
        let gen = self.gen;
        let total: usize = self.metrics.values().map(|m| m.insts.len()).sum();
        let mut touched = 0;
        for &(at, t, _) in span.iter().rev() {
            let Some((_, rec, _)) = self.read_kept(at, tracked)? else {
                break;
            };
            touched += self.update(&rec, t, t_req, true, t >= t_req, gen)?;
            if touched >= total {
                break;
            }
        }
        Ok((pos, seen_mark))
    }

    /// Instances still without a prior: searched for backwards from `from`.
    /// Instances that the instance domain says are not alive at t_req are not
    /// searched for (libpcp's time calipers).
    fn search_priors(&mut self, from: Position) -> Result<()> {
        let mut remaining = 0usize;
        for m in self.metrics.values_mut() {
            for s in m.insts.values_mut() {
                s.searching = s.prior == Bound::None && s.alive;
                remaining += usize::from(s.searching);
            }
        }
        let mut bpos = from;
        while remaining > 0 {
            let Some((at, rec)) = self.a.read_backward(bpos)? else {
                break;
            };
            let t = self.secs(rec.stamp);
            bpos = at;
            if rec.is_mark() {
                let after = self.a.read_forward(at)?.map(|(_, _, n)| n).unwrap_or(at);
                if self.mark_ignored(at, after)? {
                    continue;
                }
            }
            remaining -= self.update_missing(&rec, t, true)?;
        }
        Ok(())
    }

    /// Marks the instances without a next at or after t_req as searched for (but
    /// not those a scan to the end already showed nothing holds after t_req);
    /// gives how many are.
    fn mark_nexts_sought(&mut self, t_req: f64) -> usize {
        let no_mark_since = self.last_mark.is_none_or(|m| m < t_req);
        let mut remaining = 0usize;
        for m in self.metrics.values_mut() {
            let held = m.insts.len();
            for (k, s) in m.all_states().enumerate() {
                if s.next.time().is_some_and(|tn| tn < t_req) {
                    s.next = Bound::None;
                }
                s.searching = k < held
                    && s.next == Bound::None
                    && s.no_next_after.is_none_or(|ta| ta > t_req)
                    && s.alive;
                s.sought = s.searching;
                if s.searching
                    && no_mark_since
                    && s.witness.is_some_and(|t0| t0 <= t_req)
                    && s.last_seen.is_none_or(|l| l < t_req)
                {
                    s.searching = false;
                    s.no_next_after = Some(t_req);
                }
                remaining += usize::from(s.searching);
            }
        }
        remaining
    }

    /// Instances without a next at or after t_req: searched for forwards from
    /// `from`, a large domain's instance not past its death.
    fn search_nexts(&mut self, from: Position, t_req: f64, tracked: &[PmId]) -> Result<()> {
        let mut remaining = self.mark_nexts_sought(t_req);
        if remaining == 0 {
            return Ok(());
        }
        let mut dying: Vec<(f64, PmId, i32)> = Vec::new();
        for (&p, m) in &self.metrics {
            for (&i, s) in &m.insts {
                if let (true, Some(d)) = (s.searching, s.death) {
                    dying.push((d, p, i));
                }
            }
        }
        dying.sort_by(|a, b| b.0.total_cmp(&a.0));
        let (mut fpos, mut kept) = (from, from);
        while remaining > 0 {
            let Some((at, stamp, _, _)) = self.a.peek_forward(fpos)? else {
                break;
            };
            remaining -= self.give_up_on_the_dead(&mut dying, self.secs(stamp), t_req);
            if remaining == 0 {
                break;
            }
            let Some((at, rec, after)) = self.read_kept(at, tracked)? else {
                break;
            };
            fpos = after;
            // a long scan ahead must not keep what it passed in memory
            if at.vol != kept.vol || at.offset.saturating_sub(kept.offset) > 8 << 20 {
                self.a.release_range(kept, at);
                kept = at;
            }
            let t = self.secs(rec.stamp);
            if rec.is_mark() && self.mark_ignored(at, after)? {
                continue;
            }
            remaining -= self.update_missing(&rec, t, false)?;
            self.note_seen(&rec, t);
        }
        if remaining > 0 {
            // read to the end: remember what that showed, and nothing later for these
            for m in self.metrics.values_mut() {
                for s in m.insts.values_mut() {
                    if s.witness.is_none_or(|t0| t0 > t_req) {
                        s.witness = Some(t_req);
                    }
                    if s.sought && s.next == Bound::None {
                        s.no_next_after = Some(t_req);
                    }
                }
            }
        }
        Ok(())
    }

    /// The instances in `dying` (latest death first) that died before `t` have
    /// nothing later: they are not looked for again. Gives how many stopped.
    fn give_up_on_the_dead(
        &mut self,
        dying: &mut Vec<(f64, PmId, i32)>,
        t: f64,
        t_req: f64,
    ) -> usize {
        let mut stopped = 0;
        while let Some(&(d, p, i)) = dying.last() {
            if d >= t {
                break;
            }
            dying.pop();
            if let Some(s) = self.metrics.get_mut(&p).and_then(|m| m.insts.get_mut(&i)) {
                if s.searching {
                    s.searching = false;
                    s.no_next_after = Some(t_req);
                    stopped += 1;
                }
            }
        }
        stopped
    }

    /// [`Archive::read_forward_for`] keeping the values of `tracked`, the last
    /// record read this way kept for the next call that asks for it.
    #[allow(clippy::type_complexity)]
    fn read_kept(
        &mut self,
        at: Position,
        tracked: &[PmId],
    ) -> Result<Option<(Position, std::sync::Arc<ResultRecord<'a>>, Position)>> {
        if let Some(d) = &self.last_decoded {
            if d.asked == at && d.tracked == tracked {
                return Ok(Some(d.read.clone()));
            }
        }
        let keep = |p: PmId| tracked.contains(&p);
        let Some((found, rec, after)) = self.a.read_forward_for(at, &keep)? else {
            return Ok(None);
        };
        let read = (found, std::sync::Arc::new(rec), after);
        self.last_decoded = Some(Decoded {
            asked: at,
            tracked: tracked.to_vec(),
            read: read.clone(),
        });
        Ok(Some(read))
    }

    fn interp_result(
        &mut self,
        pmids: &[PmId],
        known: &[bool],
        t_req: f64,
        seen_mark: bool,
    ) -> FetchResult {
        let rule = self.rule;
        let mut sets = Vec::with_capacity(pmids.len());
        for (&pmid, &ok) in pmids.iter().zip(known) {
            if !ok {
                sets.push(FetchedSet {
                    pmid,
                    numval: PM_ERR_PMID_LOG,
                    valfmt: 0,
                    values: Vec::new(),
                });
                continue;
            }
            let Some(m) = self.metrics.get_mut(&pmid) else {
                continue;
            };
            let set = interp_set(m, t_req, seen_mark, rule);
            m.last_numval = set.numval;
            sets.push(set);
        }
        FetchResult {
            stamp: self.origin,
            sets,
        }
    }

    /// Records which instances a record read by a forward scan holds.
    fn note_seen(&mut self, rec: &ResultRecord<'_>, t: f64) {
        if rec.is_mark() {
            self.last_mark = Some(self.last_mark.map_or(t, |m| m.max(t)));
            return;
        }
        for vs in &rec.vsets {
            if vs.numval > 0 && vs.values.is_empty() {
                continue;
            }
            let Some(m) = self.metrics.get_mut(&vs.pmid) else {
                continue;
            };
            for (inst, _) in &vs.values {
                if let Some(s) = m.held(*inst) {
                    s.last_seen = Some(s.last_seen.map_or(t, |l| l.max(t)));
                }
                if m.desc.indom.is_null() {
                    break;
                }
            }
        }
    }

    /// Fills missing prior (`prior == true`) or next bounds from one record: a mark
    /// bounds every instance, a value its instance. Returns how many of the instances
    /// being searched for were found.
    fn update_missing(&mut self, rec: &ResultRecord<'_>, t: f64, prior: bool) -> Result<usize> {
        let mut found = 0;
        let mut fill = |s: &mut InstState, b: Bound| {
            let slot = if prior { &mut s.prior } else { &mut s.next };
            if *slot == Bound::None {
                *slot = b;
                if s.searching {
                    s.searching = false;
                    found += 1;
                }
            }
        };
        for m in self.metrics.values_mut() {
            if rec.is_mark() {
                for s in m.all_states() {
                    fill(s, Bound::Mark(t));
                }
                continue;
            }
            let Some(vs) = rec.vsets.iter().find(|vs| vs.pmid == m.desc.pmid) else {
                continue;
            };
            for (inst, v) in &vs.values {
                if let Some((s, _)) = m.state_for(*inst)? {
                    fill(s, Bound::Value(t, OwnedValue::from_value(v)));
                }
                if m.desc.indom.is_null() {
                    break;
                }
            }
        }
        Ok(found)
    }
}

/// A block's first 4 or 8 bytes as libpcp holds them in memory.
fn host32(v: &OwnedValue) -> u32 {
    match v {
        OwnedValue::Block { vtype, data } => crate::atom::host_u32(*vtype, data),
        OwnedValue::Insitu(w) => *w,
    }
}
fn host64(v: &OwnedValue) -> u64 {
    match v {
        OwnedValue::Block { vtype, data } => crate::atom::host_u64(*vtype, data),
        OwnedValue::Insitu(_) => 0,
    }
}

/// C's (gcc, x86-64) conversion of a double to `uint64_t`: values below 2^63 go
/// through a signed conversion, so negative ones wrap instead of saturating.
fn c_f64_to_u64(d: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if d >= TWO63 {
        ((d - TWO63) as i64 as u64) ^ (1 << 63)
    } else {
        d as i64 as u64
    }
}

/// C's conversion of a double to `uint32_t` (through a 64-bit signed conversion).
fn c_f64_to_u32(d: f64) -> u32 {
    d as i64 as u32
}

/// Counter interpolation between `p` at `tp` and `n` at `tn`, at `t`, as libpcp
/// computes it for each type (no counter-wrap handling, the default).
fn interp_counter(
    ty: i32,
    p: &OwnedValue,
    n: &OwnedValue,
    tp: f64,
    tn: f64,
    t: f64,
) -> Option<OwnedValue> {
    let frac = t - tp;
    let span = tn - tp;
    Some(match (ty, p, n) {
        (vtype::I32, OwnedValue::Insitu(a), OwnedValue::Insitu(b)) => {
            let (a, b) = (*a as i32, *b as i32);
            let v = 0.5 + a as f64 + frac * b.wrapping_sub(a) as f64 / span;
            OwnedValue::Insitu(v as i32 as u32)
        }
        (vtype::U32, OwnedValue::Insitu(a), OwnedValue::Insitu(b)) => {
            let v = if b >= a {
                0.5 + *a as f64 + frac * (b - a) as f64 / span
            } else {
                0.5 + *a as f64 - frac * (a - b) as f64 / span
            };
            OwnedValue::Insitu(c_f64_to_u32(v))
        }
        (vtype::FLOAT, OwnedValue::Insitu(a), OwnedValue::Insitu(b)) => {
            let (a, b) = (f32::from_bits(*a), f32::from_bits(*b));
            // the difference is taken in single precision, the rest in double
            let v = a as f64 + frac * (b - a) as f64 / span;
            OwnedValue::Insitu((v as f32).to_bits())
        }
        (vtype::FLOAT, _, _) => {
            let a = f32::from_bits(host32(p));
            let b = f32::from_bits(host32(n));
            let v = (a as f64 + frac * (b - a) as f64 / span) as f32;
            OwnedValue::Block {
                vtype: vtype::FLOAT as u8,
                data: BlockData::from_slice(&v.to_bits().to_be_bytes()),
            }
        }
        (vtype::I64, _, _) => {
            let a = host64(p) as i64;
            let b = host64(n) as i64;
            let incr = b.wrapping_sub(a);
            let v = (0.5 + a as f64 + frac * incr as f64 / span) as i64;
            OwnedValue::Block {
                vtype: vtype::I64 as u8,
                data: BlockData::from_slice(&v.to_be_bytes()),
            }
        }
        (vtype::U64, _, _) => {
            // What the reference computes: prior and next held as signed 64-bit
            // values, and the increment converted to double as a signed value too.
            let a = host64(p) as i64;
            let b = host64(n) as i64;
            let d = if b >= a {
                0.5 + a as f64 + frac * b.wrapping_sub(a) as f64 / span
            } else {
                0.5 + a as f64 - frac * a.wrapping_sub(b) as f64 / span
            };
            OwnedValue::Block {
                vtype: vtype::U64 as u8,
                data: BlockData::from_slice(&c_f64_to_u64(d).to_be_bytes()),
            }
        }
        (vtype::DOUBLE, _, _) => {
            let a = f64::from_bits(host64(p));
            let b = f64::from_bits(host64(n));
            let v = a + frac * (b - a) / span;
            OwnedValue::Block {
                vtype: vtype::DOUBLE as u8,
                data: BlockData::from_slice(&v.to_bits().to_be_bytes()),
            }
        }
        _ => return None,
    })
}

fn is_arithmetic(ty: i32) -> bool {
    matches!(
        ty,
        vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64 | vtype::FLOAT | vtype::DOUBLE
    )
}

fn interp_set(m: &MetricState, t_req: f64, seen_mark: bool, rule: InterpRule) -> FetchedSet {
    let d = &m.desc;
    let valfmt = match d.vtype {
        vtype::I32 | vtype::U32 => VAL_INSITU,
        vtype::FLOAT if m.valfmt == Some(VAL_INSITU) => VAL_INSITU,
        _ => VAL_DPTR,
    };
    let mut values = Vec::new();
    for (&inst, s) in &m.insts {
        let prior = match &s.prior {
            Bound::Value(t, v) if *t <= t_req => Some((*t, v)),
            _ => None,
        };
        let next = match &s.next {
            Bound::Value(t, v) if *t >= t_req => Some((*t, v)),
            _ => None,
        };
        if d.sem == sem::DISCRETE {
            let Some((tp, vp)) = prior else { continue };
            if !s.alive {
                continue;
            }
            let v = match next {
                Some((tn, vn)) if is_arithmetic(d.vtype) && tp != t_req && tn == t_req => vn,
                Some((tn, vn)) if rule == InterpRule::Nearest && tn - t_req < t_req - tp => vn,
                _ => vp,
            };
            values.push((inst, v.clone()));
            continue;
        }
        let (Some((tp, vp)), Some((tn, vn))) = (prior, next) else {
            continue;
        };
        if d.sem == sem::COUNTER {
            if !is_arithmetic(d.vtype) {
                return FetchedSet {
                    pmid: d.pmid,
                    numval: PM_ERR_TYPE,
                    valfmt: 0,
                    values: Vec::new(),
                };
            }
            if seen_mark && m.last_numval > 0 {
                continue;
            }
        }
        let v = if !is_arithmetic(d.vtype) {
            // libpcp copies the prior for strings, aggregates and events, even when
            // the next value is exactly at t_req
            vp.clone()
        } else if tp == t_req {
            vp.clone()
        } else if tn == t_req {
            vn.clone()
        } else if d.sem == sem::COUNTER {
            match interp_counter(d.vtype, vp, vn, tp, tn, t_req) {
                Some(v) => v,
                None => continue,
            }
        } else {
            match rule {
                InterpRule::Nearest if tn - t_req < t_req - tp => vn.clone(),
                _ => vp.clone(),
            }
        };
        values.push((inst, v));
    }
    FetchedSet {
        pmid: d.pmid,
        numval: values.len() as i32,
        valfmt,
        values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32v(v: u32) -> OwnedValue {
        OwnedValue::Insitu(v)
    }

    #[test]
    fn hours_are_360_seconds_as_in_libpcp() {
        assert_eq!(Delta::from_xtb(1, TimeUnit::Hour), Delta(360_000_000_000));
        assert_eq!(Delta::from_xtb(2, TimeUnit::Min), Delta(120_000_000_000));
        assert_eq!(Delta::from_xtb(1500, TimeUnit::Nsec), Delta(1000));
        assert_eq!(Delta::from_xtb(-3, TimeUnit::Msec), Delta(-3_000_000));
    }

    #[test]
    fn u32_counters_round_half_up_and_interpolate_downwards() {
        // 10 -> 20 over 4 s, at 1 s: 12.5 + 0.5 -> 13
        let v = interp_counter(vtype::U32, &u32v(10), &u32v(20), 0.0, 4.0, 1.0);
        assert_eq!(v, Some(u32v(13)));
        // decreasing without PCP_COUNTER_WRAP: interpolated downwards
        let v = interp_counter(vtype::U32, &u32v(20), &u32v(10), 0.0, 4.0, 1.0);
        assert_eq!(v, Some(u32v(18)));
        // signed 32-bit: truncation towards zero after adding 0.5
        let v = interp_counter(vtype::I32, &u32v((-10i32) as u32), &u32v(10), 0.0, 4.0, 1.0);
        assert_eq!(v, Some(u32v((-4i32) as u32)));
    }

    #[test]
    fn c_conversions_wrap_like_gcc() {
        assert_eq!(c_f64_to_u64(-1.0), u64::MAX);
        assert_eq!(c_f64_to_u64(-1e19), 1 << 63);
        assert_eq!(c_f64_to_u64(1.5e19), 15_000_000_000_000_000_000);
        assert_eq!(c_f64_to_u32(-1.0), u32::MAX);
    }

    #[test]
    fn discrete_values_step_and_nearest_rule_is_optional() {
        let desc = Desc {
            pmid: PmId(1),
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::DISCRETE,
            units: crate::types::Units(0),
        };
        let st = InstState {
            prior: Bound::Value(0.0, u32v(1)),
            next: Bound::Value(10.0, u32v(2)),
            ..InstState::fresh(true)
        };
        let m = MetricState {
            desc,
            insts: [(PM_IN_NULL, st)].into_iter().collect(),
            template: InstState::fresh(false),
            sweep: None,
            profile: None,
            valfmt: Some(VAL_INSITU),
            last_numval: 0,
        };
        let prior = interp_set(&m, 8.0, false, InterpRule::Prior);
        assert_eq!(prior.values, vec![(PM_IN_NULL, u32v(1))]);
        let nearest = interp_set(&m, 8.0, false, InterpRule::Nearest);
        assert_eq!(nearest.values, vec![(PM_IN_NULL, u32v(2))]);
        let early = interp_set(&m, 2.0, false, InterpRule::Nearest);
        assert_eq!(early.values, vec![(PM_IN_NULL, u32v(1))]);
    }
}
