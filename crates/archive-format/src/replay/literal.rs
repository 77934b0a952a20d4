//! Interpolation step by step as libpcp's `__pmLogFetchInterp` takes it, for an
//! archive whose records are not in time order (two runs of a recorder written
//! into one volume, the second starting again at the first's start). The path in
//! `interp.rs` relies on the order to skim headers and to stop early. Here each
//! scan reads what libpcp's reads, from the position libpcp keeps, and every
//! record read changes the bounds as libpcp's `update_bounds` does, so the values
//! found are the ones libpcp finds.

use super::*;
use crate::logfetch::{Direction, LogCursor};

/// Which `<mark>` records a read may take as bounds (libpcp's `UPD_MARK_*`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum MarkUse {
    None,
    Back,
    Forw,
}

/// libpcp's scan state of an instance beyond its two bounds.
#[derive(Debug, Clone)]
pub(super) struct Scan {
    /// No record before this time holds the instance (-1: not known).
    first: f64,
    /// No record after this time holds the instance (-1: not known).
    last: f64,
    /// The records between the request and the prior (next) were read.
    prior_scanned: bool,
    next_scanned: bool,
    /// Being looked for by the current scan.
    search: bool,
}

impl Scan {
    pub(super) fn new() -> Scan {
        Scan {
            first: -1.0,
            last: -1.0,
            prior_scanned: false,
            next_scanned: false,
            search: false,
        }
    }
}

/// Where the step-by-step path reads from: libpcp's `ac_offset` and `ac_serial`.
#[derive(Debug, Clone, Default)]
pub(super) struct Literal {
    /// `None`: where `pmSetMode` positioned, not worked out yet.
    pos: Option<Position>,
    /// Reads may go on from `pos` without positioning by the index again.
    serial: bool,
}

/// A bound's time, -1 when there is none (as libpcp keeps it).
fn when(b: &Bound) -> f64 {
    b.time().unwrap_or(-1.0)
}

/// The wanted (metric, instance) pairs, each instance once.
type Wanted = Vec<(PmId, i32)>;

/// One fetch: the time asked for, the direction of travel, the instances
/// wanted, and whether a `<mark>` was passed.
struct Req<'w> {
    t_req: f64,
    forward: bool,
    want: &'w Wanted,
    seen_mark: bool,
}

impl<'a> Replay<'a> {
    /// Changes to the step-by-step path, replaying the fetches made since the
    /// mode was set so that its position is libpcp's; gives the current fetch.
    pub(super) fn go_literal(&mut self, pmids: &[PmId]) -> Result<FetchResult> {
        self.literal = Some(Literal::default());
        self.metrics.clear();
        let now = self.origin;
        self.origin = self.mode_origin;
        for _ in 0..self.fetches {
            let _ = self.fetch_literal(pmids);
            self.advance_origin();
        }
        self.origin = now;
        self.fetch_literal(pmids)
    }

    /// One interpolated fetch, step by step.
    pub(super) fn fetch_literal(&mut self, pmids: &[PmId]) -> Result<FetchResult> {
        let t_req = self.secs(self.origin);
        self.check_in_archive(t_req)?;
        let mut known = Vec::with_capacity(pmids.len());
        for &p in pmids {
            known.push(self.track(p)?);
        }
        let start = self.start;
        for m in self.metrics.values_mut() {
            m.sweep_to(t_req, start)?;
        }
        let want: Wanted = self.wanted(pmids);
        let mut r = Req {
            t_req,
            forward: self.delta.0 >= 0,
            want: &want,
            seen_mark: false,
        };
        let mut pos = self.literal_position(&mut r)?;
        let rolled = self.search_back(&mut pos, &mut r)?;
        self.search_forw(&mut pos, rolled, &mut r)?;
        self.literal = Some(Literal {
            pos: Some(pos),
            serial: true,
        });
        Ok(self.interp_result(pmids, &known, t_req, r.seen_mark))
    }

    /// The instances asked for, in the order libpcp's list of them has.
    fn wanted(&self, pmids: &[PmId]) -> Wanted {
        let mut want = Wanted::new();
        for &p in pmids.iter().rev() {
            if want.iter().any(|w| w.0 == p) {
                continue;
            }
            if let Some(m) = self.metrics.get(&p) {
                want.extend(m.insts.keys().rev().map(|&i| (p, i)));
            }
        }
        want
    }

    fn scan_of(&mut self, (p, i): (PmId, i32)) -> &mut InstState {
        self.metrics
            .get_mut(&p)
            .and_then(|m| m.insts.get_mut(&i))
            .expect("a wanted instance is held")
    }

    /// The position the fetch starts from: where the last one left off, or,
    /// when not reading serially, by the temporal index and then backed up over
    /// the records against the direction of travel (their bounds taken).
    fn literal_position(&mut self, r: &mut Req<'_>) -> Result<Position> {
        let (t_req, forward) = (r.t_req, r.forward);
        let dir = if forward {
            Direction::Forward
        } else {
            Direction::Backward
        };
        let lit = self.literal.clone().unwrap_or_default();
        let (mut pos, serial) = match lit.pos {
            Some(p) => (p, lit.serial),
            None => LogCursor::index_position(self.a, dir, self.mode_origin)
                .ok_or_else(|| Error::pcp(crate::error::PM_ERR_LOGFILE, "no data volume"))?,
        };
        if serial {
            return Ok(pos);
        }
        if let Some((p, _)) = LogCursor::index_position(self.a, dir, self.origin) {
            pos = p;
        }
        while let Some((at, rec, after)) = self.read_toward(pos, !forward)? {
            let t = self.secs(rec.stamp);
            if (forward && t <= t_req) || (!forward && t > t_req) {
                break;
            }
            pos = if forward { at } else { after };
            self.bounds(&rec, (at, after), t, MarkUse::None, None, r)?;
        }
        for &(p, _) in r.want {
            if let Some(m) = self.metrics.get_mut(&p) {
                m.last_numval = -1;
            }
        }
        Ok(pos)
    }

    /// The record after `pos` (`forward`) or before it: where it starts, the
    /// record, where it ends (for a record before `pos`, where it starts).
    #[allow(clippy::type_complexity)]
    fn read_toward(
        &self,
        pos: Position,
        forward: bool,
    ) -> Result<Option<(Position, ResultRecord<'a>, Position)>> {
        Ok(if forward {
            self.a.read_forward(pos)?
        } else {
            self.a.read_backward(pos)?.map(|(at, r)| (at, r, at))
        })
    }

    /// Reads on in the direction of travel up to `t_req` (libpcp's `do_roll`).
    fn roll(&mut self, pos: &mut Position, r: &mut Req<'_>) -> Result<()> {
        let (t_req, forward) = (r.t_req, r.forward);
        while let Some((at, rec, after)) = self.read_toward(*pos, forward)? {
            let t = self.secs(rec.stamp);
            if (forward && t > t_req) || (!forward && t < t_req) {
                break;
            }
            *pos = if forward { after } else { at };
            let use_ = if forward {
                MarkUse::Forw
            } else {
                MarkUse::Back
            };
            self.bounds(&rec, (at, after), t, use_, None, r)?;
        }
        Ok(())
    }

    /// libpcp's second pass: rolls forward when some prior is missing, then looks
    /// backward for the priors still missing. Gives whether it rolled.
    fn search_back(&mut self, pos: &mut Position, r: &mut Req<'_>) -> Result<bool> {
        let (t_req, forward) = (r.t_req, r.forward);
        let mut rolled = false;
        let mut unbound: Vec<(PmId, i32)> = Vec::new();
        for &w in r.want {
            let s = self.scan_of(w);
            if (s.scan.first >= 0.0 && t_req < s.scan.first) || !s.alive {
                continue;
            }
            let tp = when(&s.prior);
            if (tp < 0.0 || tp > t_req) && unbound.is_empty() && !rolled {
                rolled = true;
                if forward {
                    self.roll(pos, r)?;
                }
            }
            let s = self.scan_of(w);
            let tp = when(&s.prior);
            if (s.prior == Bound::None && !s.scan.prior_scanned)
                || (tp > t_req && (!forward || !s.scan.prior_scanned))
                || (matches!(s.next, Bound::Mark(_)) && tp == t_req)
            {
                s.scan.search = true;
                let first = s.scan.first;
                let k = unbound
                    .iter()
                    .position(|&u| first >= self.scan_of(u).scan.first)
                    .unwrap_or(unbound.len());
                unbound.insert(k, w);
            }
        }
        if unbound.is_empty() {
            return Ok(rolled);
        }
        let (total, mut done) = (unbound.len(), 0usize);
        let mut bpos = *pos;
        while done < total {
            let Some((at, rec)) = self.a.read_backward(bpos)? else {
                break;
            };
            bpos = at;
            let t = self.secs(rec.stamp);
            if !forward && t >= t_req {
                *pos = at;
            }
            let after = self.a.read_forward(at)?.map_or(at, |(_, _, n)| n);
            self.bounds(&rec, (at, after), t, MarkUse::Back, Some(&mut done), r)?;
            done += self.forget_unreachable(&mut unbound, t, true);
        }
        for &u in &unbound {
            let s = self.scan_of(u);
            if (s.prior == Bound::None || when(&s.prior) > t_req) && s.scan.first < t_req {
                s.scan.first = t_req;
                s.scan.prior_scanned = true;
            }
            s.scan.search = false;
        }
        Ok(rolled)
    }

    /// libpcp's third pass: rolls backward (reading backward) when some next is
    /// missing, then looks forward for the nexts still missing.
    fn search_forw(&mut self, pos: &mut Position, mut rolled: bool, r: &mut Req<'_>) -> Result<()> {
        let (t_req, forward) = (r.t_req, r.forward);
        let mut unbound: Vec<(PmId, i32)> = Vec::new();
        for &w in r.want {
            let s = self.scan_of(w);
            if (s.scan.last >= 0.0 && t_req > s.scan.last) || !s.alive {
                continue;
            }
            let tn = when(&s.next);
            if (tn < 0.0 || tn < t_req) && unbound.is_empty() && !rolled {
                rolled = true;
                if !forward {
                    self.roll(pos, r)?;
                }
            }
            let s = self.scan_of(w);
            let tn = when(&s.next);
            if (s.next == Bound::None && !s.scan.next_scanned)
                || (tn < t_req && (forward || !s.scan.next_scanned))
                || (matches!(s.prior, Bound::Mark(_)) && tn == t_req)
            {
                s.scan.search = true;
                let last = s.scan.last;
                let k = unbound
                    .iter()
                    .position(|&u| last <= self.scan_of(u).scan.last)
                    .unwrap_or(unbound.len());
                unbound.insert(k, w);
            }
        }
        if unbound.is_empty() {
            return Ok(());
        }
        let (total, mut done) = (unbound.len(), 0usize);
        let mut fpos = *pos;
        while done < total {
            let Some((at, rec, after)) = self.a.read_forward(fpos)? else {
                break;
            };
            fpos = after;
            let t = self.secs(rec.stamp);
            if forward && t <= t_req {
                *pos = after;
            }
            self.bounds(&rec, (at, after), t, MarkUse::Forw, Some(&mut done), r)?;
            done += self.forget_unreachable(&mut unbound, t, false);
        }
        for &u in &unbound {
            let s = self.scan_of(u);
            if when(&s.next) < t_req && (s.scan.last < 0.0 || t_req < s.scan.last) {
                s.scan.last = t_req;
                s.scan.next_scanned = true;
            }
            s.scan.search = false;
        }
        Ok(())
    }

    /// After a record at `t`, takes off `unbound` (in its order, up to the first
    /// still reachable) the instances that no record further back (`back`) or
    /// further on can hold: they are no longer looked for, and the region is
    /// scanned. Gives how many that were looked for were taken off.
    fn forget_unreachable(&mut self, unbound: &mut Wanted, t: f64, back: bool) -> usize {
        let mut taken = 0;
        let mut k = 0;
        while k < unbound.len() {
            let s = &mut self.scan_of(unbound[k]).scan;
            let beyond = if back { s.first < t } else { s.last > t };
            if beyond {
                break;
            }
            if s.search && (back || s.last >= 0.0) {
                s.search = false;
                if back {
                    s.prior_scanned = true;
                } else {
                    s.next_scanned = true;
                }
                taken += 1;
                unbound.remove(k);
            } else {
                k += 1;
            }
        }
        taken
    }

    /// The bounds one record read gives (libpcp's `update_bounds`): a `<mark>`
    /// bounds every wanted instance, a value its instance, each only when closer
    /// to `t_req` than the bound it replaces. Found instances that were looked
    /// for are counted in `done`.
    fn bounds(
        &mut self,
        rec: &ResultRecord<'_>,
        (at, after): (Position, Position),
        t: f64,
        use_: MarkUse,
        mut done: Option<&mut usize>,
        r: &mut Req<'_>,
    ) -> Result<()> {
        let t_req = r.t_req;
        if rec.is_mark() {
            if use_ == MarkUse::None || self.mark_ignored(at, after)? {
                return Ok(());
            }
            for &w in r.want {
                let s = self.scan_of(w);
                let tp = when(&s.prior);
                if t <= t_req && (t >= tp || tp > t_req) {
                    s.prior = Bound::Mark(t);
                    s.scan.prior_scanned = use_ == MarkUse::Back && s.scan.search && done.is_some();
                    if use_ == MarkUse::Back {
                        found(s, &mut done);
                    } else {
                        r.seen_mark = true;
                    }
                }
                let tn = when(&s.next);
                if t >= t_req && (t <= tn || tn < 0.0 || tn < t_req) {
                    s.next = Bound::Mark(t);
                    s.scan.next_scanned = use_ == MarkUse::Forw && s.scan.search && done.is_some();
                    if use_ == MarkUse::Forw {
                        found(s, &mut done);
                    } else {
                        r.seen_mark = true;
                    }
                }
            }
            return Ok(());
        }
        for vs in &rec.vsets {
            let Some(m) = self.metrics.get_mut(&vs.pmid) else {
                continue;
            };
            if vs.numval <= 0 {
                continue;
            }
            m.check_valfmt(vs.valfmt)?;
            for (inst, v) in &vs.values {
                if let Some((s, _)) = m.state_for(*inst)? {
                    let v = OwnedValue::from_value(v);
                    value_bounds(s, t, t_req, v, use_, &mut done);
                }
                if m.desc.indom.is_null() {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// One instance's bounds from a value at `t` (the value part of libpcp's
/// `update_bounds`, the shuffles between prior and next included).
fn value_bounds(
    s: &mut InstState,
    t: f64,
    t_req: f64,
    v: OwnedValue,
    use_: MarkUse,
    done: &mut Option<&mut usize>,
) {
    let (tp, tn) = (when(&s.prior), when(&s.next));
    if t <= t_req && (tp > t_req || t >= tp) {
        if tp < tn && tp >= t_req {
            s.next = s.prior.clone();
            s.scan.next_scanned = false;
        }
        s.prior = Bound::Value(t, v.clone());
        s.scan.prior_scanned = false;
        if use_ == MarkUse::Back && s.scan.search && done.is_some() {
            found(s, done);
            s.scan.prior_scanned = true;
        }
    }
    let (tp, tn) = (when(&s.prior), when(&s.next));
    if t >= t_req && (tn < t_req || t <= tn) {
        if tp < tn && tn <= t_req {
            s.prior = s.next.clone();
            s.scan.prior_scanned = false;
        }
        s.next = Bound::Value(t, v);
        s.scan.next_scanned = false;
        if use_ == MarkUse::Forw && s.scan.search && done.is_some() {
            found(s, done);
            s.scan.next_scanned = true;
        }
    }
}

/// An instance looked for is found: it is looked for no more.
fn found(s: &mut InstState, done: &mut Option<&mut usize>) {
    if let (true, Some(d)) = (s.scan.search, done.as_deref_mut()) {
        s.scan.search = false;
        *d += 1;
    }
}

impl Replay<'_> {
    /// `pmSetMode`'s reset of the bounds: those that no longer bracket the
    /// origin are forgotten (libpcp's `__pmLogResetInterp`).
    pub(super) fn reset_bounds(&mut self) {
        let t_req = self.secs(self.origin);
        for m in self.metrics.values_mut() {
            for s in m.insts.values_mut() {
                if when(&s.prior) > t_req || when(&s.next) < t_req {
                    s.prior = Bound::None;
                    s.next = Bound::None;
                    s.scan.prior_scanned = false;
                    s.scan.next_scanned = false;
                }
            }
        }
    }
}
