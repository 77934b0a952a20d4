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
//! about once, and seeking uses the temporal index. In an archive whose records
//! go back in time somewhere (two runs in one volume), interpolation goes step by
//! step as libpcp's once a scan meets that, so the values are the ones PCP gives.
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

mod interp;
mod literal;

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

/// Which records [`Replay::next_record`] returns, and what the others do: read
/// past (pmFetch's, looking for its metrics), or fetched in turn
/// (`pmFetchArchive` calls the caller makes until it gets one: each moves the
/// origin).
enum Skip<'k> {
    Unread(&'k dyn Fn(&ResultRecord<'_>) -> bool),
    Fetched(&'k dyn Fn(&ResultRecord<'_>) -> bool),
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
    /// What the step-by-step path (archives out of time order) keeps besides.
    scan: literal::Scan,
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
            scan: literal::Scan::new(),
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
    /// The value format of a set of this metric's values: it must fit the
    /// metric's type, and not change from the first seen.
    fn check_valfmt(&mut self, valfmt: i32) -> Result<()> {
        match self.valfmt {
            None => {
                let ok = match self.desc.vtype {
                    vtype::I32 | vtype::U32 => valfmt == VAL_INSITU,
                    vtype::FLOAT => true,
                    _ => valfmt == VAL_DPTR || valfmt == VAL_SPTR,
                };
                if !ok {
                    return Err(Error::pcp(
                        PM_ERR_LOGREC,
                        "value format does not fit the metric's type",
                    ));
                }
                self.valfmt = Some(valfmt);
            }
            Some(f) if f != valfmt => {
                return Err(Error::pcp(PM_ERR_LOGREC, "value format changed"));
            }
            _ => {}
        }
        Ok(())
    }

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
    /// The origin the mode was last set at, and the interpolated fetches since.
    mode_origin: Timestamp,
    fetches: u64,
    /// A scan met records out of time order (in a single archive).
    unordered: bool,
    /// Set once records out of time order were met: interpolation then goes
    /// step by step as libpcp's (see `literal.rs`).
    literal: Option<literal::Literal>,
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
            mode_origin: start,
            fetches: 0,
            unordered: false,
            literal: None,
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
        self.mode_origin = self.origin;
        self.fetches = 0;
        if self.literal.is_some() {
            self.literal = Some(literal::Literal::default());
            self.reset_bounds();
        }
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

    /// The mode `set_mode` set.
    pub fn mode(&self) -> Mode {
        self.mode
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
        let rec = self.next_record(&|_| true, Skip::Unread(&|_| true))?;
        Ok(FetchResult {
            stamp: rec.stamp,
            sets: rec.vsets.iter().map(FetchedSet::from_set).collect(),
        })
    }

    /// [`Replay::fetch_archive`] for a reader of some metrics: the next record that
    /// is a `<mark>` (no sets) or holds a set of a metric `keep` accepts, with those
    /// sets only. The records between are read (the origin moves past them) as
    /// `pmFetchArchive` calls in turn would read them, with the same errors; going
    /// forward, their memory is let go as it goes.
    pub fn fetch_archive_for(&mut self, keep: &dyn Fn(PmId) -> bool) -> Result<FetchResult> {
        if self.mode == Mode::Interp {
            return self.fetch_archive();
        }
        let wanted =
            |rec: &ResultRecord<'_>| rec.is_mark() || rec.vsets.iter().any(|s| keep(s.pmid));
        let rec = self.next_record(keep, Skip::Fetched(&wanted))?;
        if let (Mode::Forw, Some(pos)) = (self.mode, self.pos) {
            self.release_behind(pos);
        }
        Ok(FetchResult {
            stamp: rec.stamp,
            sets: rec
                .vsets
                .iter()
                .filter(|s| keep(s.pmid))
                .map(FetchedSet::from_set)
                .collect(),
        })
    }

    /// Lets the mapped data before `pos` go (nothing before it is read again going
    /// forward), once the reader is a volume or 8 MB past where it last did.
    fn release_behind(&mut self, pos: Position) {
        if pos.vol != self.released.vol || pos.offset.saturating_sub(self.released.offset) > 8 << 20
        {
            self.a.release_before(pos);
            self.released = pos;
        }
    }

    /// The next record (FORW/BACK) that `skip`'s test accepts, updating origin and
    /// position; going forward, with the values of the metrics `values` accepts
    /// only.
    fn next_record(
        &mut self,
        values: &dyn Fn(PmId) -> bool,
        skip: Skip<'_>,
    ) -> Result<ResultRecord<'a>> {
        let (keep, fetched) = match skip {
            Skip::Unread(k) => (k, false),
            Skip::Fetched(k) => (k, true),
        };
        let a = self.a;
        let eol = || Error::pcp(PM_ERR_EOL, "end of archive");
        match self.mode {
            Mode::Forw | Mode::Interp => {
                let mut pos = match self.pos {
                    Some(p) => p,
                    None => self.seek(self.origin),
                };
                loop {
                    let Some((_, rec, after)) = a.read_forward_for(pos, values)? else {
                        self.pos = Some(pos);
                        return Err(eol());
                    };
                    pos = after;
                    if rec.stamp < self.origin {
                        continue;
                    }
                    if !keep(&rec) {
                        if fetched {
                            self.origin = rec.stamp;
                        }
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
                    if rec.stamp > self.origin {
                        continue;
                    }
                    if !keep(&rec) {
                        if fetched {
                            self.origin = rec.stamp;
                        }
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
        let mut pos = self.seek(t);
        // the first index entry after t, if any, bounds the records at or before t
        if let Some(e) = self
            .a
            .index()
            .iter()
            .find(|e| e.stamp > t && e.off_data >= 0)
        {
            if let Some(p) = self.a.index_position(e) {
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
                let r = if self.literal.is_some() {
                    self.fetch_literal(pmids)
                } else {
                    let r = self.fetch_interp(pmids);
                    if self.unordered && !self.a.is_multi() {
                        self.go_literal(pmids)
                    } else {
                        r
                    }
                };
                self.advance_origin();
                self.fetches += 1;
                r
            }
            Mode::Forw | Mode::Back => {
                let wanted = |r: &ResultRecord<'_>| {
                    !r.is_mark() && r.vsets.iter().any(|vs| pmids.contains(&vs.pmid))
                };
                let rec = self.next_record(&|p| pmids.contains(&p), Skip::Unread(&wanted))?;
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
}
