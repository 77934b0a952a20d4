//! Interpolation, as libpcp's `pmFetch` does it in `PM_MODE_INTERP`: each tracked
//! instance's prior and next values found around the requested time (rolling
//! forward, then searching backward and forward for what is still missing), and
//! the value at that time made from them by type and semantics.

use super::*;

impl<'a> Replay<'a> {
    /// Applies one record to the bounds of every tracked instance, as libpcp's
    /// `update_bounds`: `set_prior`/`set_next` select which bounds may change.
    /// With `gen`, records are applied newest first and only instances not yet
    /// given a bound in this roll change; returns how many did.
    pub(super) fn update(
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
            m.check_valfmt(vs.valfmt)?;
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
    pub(super) fn fetch_interp(&mut self, pmids: &[PmId]) -> Result<FetchResult> {
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
    pub(super) fn check_in_archive(&mut self, t_req: f64) -> Result<()> {
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
    pub(super) fn needs_reading(&self, t_req: f64) -> bool {
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
                // a <mark> before t_req and a record exactly at it: libpcp's roll
                // reads that record, which becomes the prior
                let after_mark = matches!(s.prior, Bound::Mark(_)) && s.next.time() == Some(t_req);
                prior_missing || next_missing || after_mark
            })
        })
    }

    /// Rolls forward from `pos` to `t_req`. Only the newest record holding an
    /// instance (or a newer `<mark>`) can be its prior, so the records' headers are
    /// skimmed, then decoded from the newest back until every instance has its
    /// bound. Gives where the roll stopped, and whether it passed a `<mark>`.
    pub(super) fn roll_forward(
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
            self.unordered |= span.last().is_some_and(|s| s.1 > t);
            if !(is_mark && self.mark_ignored(at, after)?) {
                span.push((at, t, is_mark));
            }
            pos = after;
        }
        let seen_mark = !reset && span.iter().any(|s| s.2);
        if let Some(&(first, _, _)) = span.first() {
            // nothing before this roll is read again while moving forward
            self.release_behind(first);
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
    pub(super) fn search_priors(&mut self, from: Position) -> Result<()> {
        let mut remaining = 0usize;
        for m in self.metrics.values_mut() {
            for s in m.insts.values_mut() {
                s.searching = s.prior == Bound::None && s.alive;
                remaining += usize::from(s.searching);
            }
        }
        let mut bpos = from;
        let mut newest = f64::INFINITY;
        while remaining > 0 {
            let Some((at, rec)) = self.a.read_backward(bpos)? else {
                break;
            };
            let t = self.secs(rec.stamp);
            self.unordered |= t > newest;
            newest = t;
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
    pub(super) fn mark_nexts_sought(&mut self, t_req: f64) -> usize {
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
    pub(super) fn search_nexts(
        &mut self,
        from: Position,
        t_req: f64,
        tracked: &[PmId],
    ) -> Result<()> {
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
        let mut oldest = f64::NEG_INFINITY;
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
            self.unordered |= t < oldest;
            oldest = t;
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
    pub(super) fn give_up_on_the_dead(
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
    pub(super) fn read_kept(
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

    pub(super) fn interp_result(
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
    pub(super) fn note_seen(&mut self, rec: &ResultRecord<'_>, t: f64) {
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
    pub(super) fn update_missing(
        &mut self,
        rec: &ResultRecord<'_>,
        t: f64,
        prior: bool,
    ) -> Result<usize> {
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
pub(super) fn host32(v: &OwnedValue) -> u32 {
    match v {
        OwnedValue::Block { vtype, data } => crate::atom::host_u32(*vtype, data),
        OwnedValue::Insitu(w) => *w,
    }
}
pub(super) fn host64(v: &OwnedValue) -> u64 {
    match v {
        OwnedValue::Block { vtype, data } => crate::atom::host_u64(*vtype, data),
        OwnedValue::Insitu(_) => 0,
    }
}

/// C's (gcc, x86-64) conversion of a double to `uint64_t`: values below 2^63 go
/// through a signed conversion, so negative ones wrap instead of saturating.
pub(super) fn c_f64_to_u64(d: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if d >= TWO63 {
        ((d - TWO63) as i64 as u64) ^ (1 << 63)
    } else {
        d as i64 as u64
    }
}

/// C's conversion of a double to `uint32_t` (through a 64-bit signed conversion).
pub(super) fn c_f64_to_u32(d: f64) -> u32 {
    d as i64 as u32
}

/// Counter interpolation between `p` at `tp` and `n` at `tn`, at `t`, as libpcp
/// computes it for each type (no counter-wrap handling, the default).
pub(super) fn interp_counter(
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

pub(super) fn is_arithmetic(ty: i32) -> bool {
    matches!(
        ty,
        vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64 | vtype::FLOAT | vtype::DOUBLE
    )
}

pub(super) fn interp_set(
    m: &MetricState,
    t_req: f64,
    seen_mark: bool,
    rule: InterpRule,
) -> FetchedSet {
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
