//! Reading records: forward and backward across volumes (and across the archives
//! of a context), through the memory map or a `pread` window, the archive's end as
//! libpcp finds it, and the memory behind a reader let go.

use super::*;

impl Archive {
    /// Position of the first record.
    pub fn start(&self) -> Position {
        Position {
            vol: 0,
            offset: self.label_len(),
        }
    }
    /// Position after the last record.
    pub fn end_position(&self) -> Position {
        for i in (0..self.volumes.len()).rev() {
            if let Some(b) = self.vol_bytes(i) {
                return Position {
                    vol: i,
                    offset: b.size(),
                };
            }
        }
        self.start()
    }

    /// Lets the memory behind `pos` go: mapped pages of earlier volumes and of this
    /// volume before `pos` are dropped from the process (they are re-read from the
    /// file if used again). Sequential readers call this to keep memory bounded.
    pub fn release_before(&self, pos: Position) {
        self.release_range(self.start(), pos);
    }

    /// Like [`Archive::release_before`], for the records between `from` and `to`.
    pub fn release_range(&self, from: Position, to: Position) {
        let last = to.vol.min(self.volumes.len().saturating_sub(1));
        for i in from.vol..=last {
            let Some(Some(b)) = self.volumes[i].bytes.get() else {
                continue;
            };
            let start = if i == from.vol {
                from.offset as usize
            } else {
                0
            };
            let end = if i < to.vol {
                b.len()
            } else {
                to.offset as usize
            };
            b.release(start, end);
        }
    }

    /// Reads the record at `pos` forward: the record and the position after it, or
    /// `None` at the end of the archive. Moves across volumes.
    pub fn read_forward(
        &self,
        pos: Position,
    ) -> Result<Option<(Position, ResultRecord<'_>, Position)>> {
        self.read_forward_for(pos, &|_| true)
    }

    /// Like [`Archive::read_forward`], collecting only the values of the metrics
    /// `keep` accepts (see [`crate::codec::result::decode_result_for`]).
    pub fn read_forward_for(
        &self,
        pos: Position,
        keep: &dyn Fn(crate::types::PmId) -> bool,
    ) -> Result<Option<(Position, ResultRecord<'_>, Position)>> {
        match self.locate_forward(pos)? {
            Located::End => Ok(None),
            Located::Mark(at, stamp, next) => Ok(Some((at, mark_record(stamp), next))),
            Located::Frame(at, f, b) => {
                let rec = match decode_result_for(
                    f.payload(b),
                    f.payload_start(),
                    self.vol_version(at.vol),
                    keep,
                ) {
                    Ok(r) => r,
                    Err(e) => {
                        return match self.remove_part_of(at.vol, true) {
                            Some(Some(p)) => self.read_forward_for(p, keep),
                            Some(None) => Ok(None),
                            None => Err(Error::decode(self.vol_path(at.vol), e)),
                        }
                    }
                };
                Ok(Some((
                    at,
                    rec,
                    Position {
                        vol: at.vol,
                        offset: f.end(),
                    },
                )))
            }
        }
    }

    /// The next record's payload as stored (after its length word, without the
    /// trailing one), undecoded: `(start, payload, after)`. `None` for the payload
    /// is the `<mark>` a multi-archive context puts between archives. For copying
    /// records (see [`crate::codec::result::scan_canonical`]).
    pub fn read_raw_forward(&self, pos: Position) -> Result<Option<RawRecord<'_>>> {
        match self.locate_forward(pos)? {
            Located::End => Ok(None),
            Located::Mark(at, _, next) => Ok(Some((at, None, next))),
            Located::Frame(at, f, b) => {
                let next = Position {
                    vol: at.vol,
                    offset: f.end(),
                };
                Ok(Some((at, Some(f.payload(b)), next)))
            }
        }
    }

    /// Like [`Archive::read_raw_forward`], but the record is read into `w` by
    /// `pread` instead of through the memory map: a reader going through the whole
    /// archive then holds one window of it (256 KB, or one record when larger)
    /// rather than whatever page-cache folios the map's faults bring in. Errors are
    /// the same, at the same offsets. Reading the same record again is a window hit.
    pub fn read_raw_forward_in<'w>(
        &self,
        pos: Position,
        w: &'w mut ReadWindow,
    ) -> Result<Option<RawRecord<'w>>> {
        Ok(match self.locate_forward_in(pos, w)? {
            LocatedIn::End => None,
            LocatedIn::Mark(at, _, next) => Some((at, None, next)),
            LocatedIn::Frame(at, range, next) => Some((at, Some(&w.buf[range]), next)),
        })
    }

    /// Like [`Archive::read_forward`], reading through `w` (see
    /// [`Archive::read_raw_forward_in`]).
    pub fn read_forward_in<'w>(
        &self,
        pos: Position,
        w: &'w mut ReadWindow,
    ) -> Result<Option<(Position, ResultRecord<'w>, Position)>> {
        self.read_forward_in_for(pos, w, &|_| true)
    }

    /// [`Archive::read_forward_in`], collecting only the values of the metrics
    /// `keep` accepts (see [`crate::codec::result::decode_result_for`]).
    pub fn read_forward_in_for<'w>(
        &self,
        pos: Position,
        w: &'w mut ReadWindow,
        keep: &dyn Fn(crate::types::PmId) -> bool,
    ) -> Result<Option<(Position, ResultRecord<'w>, Position)>> {
        Ok(match self.locate_forward_in(pos, w)? {
            LocatedIn::End => None,
            LocatedIn::Mark(at, stamp, next) => Some((at, mark_record(stamp), next)),
            LocatedIn::Frame(at, range, next) => {
                let base = at.offset + 4;
                let rec = decode_result_for(&w.buf[range], base, self.vol_version(at.vol), keep)
                    .map_err(|e| Error::decode(self.vol_path(at.vol), e))?;
                Some((at, rec, next))
            }
        })
    }

    /// [`Archive::read_forward_in`] with the record's value sets read in place
    /// (see [`crate::codec::result::raw_result_into`]), their values decoded
    /// only as they are asked for: the same records and errors, and no
    /// allocation for the values of a set. A `<mark>` has no sets.
    pub fn read_sets_forward_in<'w>(
        &self,
        pos: Position,
        w: &'w mut ReadWindow,
    ) -> Result<Option<(Position, crate::logfetch::RawRecord<'w>, Position)>> {
        let (at, next, stamp, sets, payload) = match self.locate_forward_in(pos, w)? {
            LocatedIn::End => return Ok(None),
            LocatedIn::Mark(at, stamp, next) => (at, next, stamp, Vec::new(), &[][..]),
            LocatedIn::Frame(at, range, next) => {
                let payload = &w.buf[range];
                let mut sets = Vec::new();
                let version = self.vol_version(at.vol);
                let stamp = crate::codec::result::raw_result_into(
                    payload,
                    at.offset + 4,
                    version,
                    &mut sets,
                )
                .map_err(|e| Error::decode(self.vol_path(at.vol), e))?;
                (at, next, stamp, sets, payload)
            }
        };
        let rec = crate::logfetch::RawRecord {
            volume: self.volumes.get(at.vol).map_or(0, |v| v.num),
            stamp,
            sets,
            payload,
            version: self.vol_version(at.vol),
        };
        Ok(Some((at, rec, next)))
    }

    /// [`Archive::locate_forward`] through a window: the payload as a range of
    /// `w`'s buffer.
    pub(super) fn locate_forward_in(
        &self,
        mut pos: Position,
        w: &mut ReadWindow,
    ) -> Result<LocatedIn> {
        loop {
            pos = match self.enter_forward(pos) {
                Entered::End => return Ok(LocatedIn::End),
                Entered::Mark(at, stamp, next) => return Ok(LocatedIn::Mark(at, stamp, next)),
                Entered::At(p) => p,
            };
            let Some(size) = self.vol_size(pos.vol) else {
                pos = self.next_volume(pos.vol);
                continue;
            };
            let off = pos.offset;
            if off >= size || size - off < 4 {
                pos = self.next_volume(pos.vol);
                continue;
            }
            let decode = |e: crate::error::DecodeError| Error::decode(self.vol_path(pos.vol), e);
            let head = self.fill_window(w, pos.vol, off, 4, size)?;
            let len = u32::from_be_bytes([
                w.buf[head],
                w.buf[head + 1],
                w.buf[head + 2],
                w.buf[head + 3],
            ]);
            check_frame_len(off, len, size).map_err(decode)?;
            let rel = self.fill_window(w, pos.vol, off, len as u64, size)?;
            // the window holds the whole record: frame_at checks its trailer
            let f = frame_at(&w.buf[..rel + len as usize], rel as u64)
                .map_err(|e| decode(e.shifted(w.start)))?;
            let Some(f) = f else {
                pos = self.next_volume(pos.vol);
                continue;
            };
            let next = Position {
                vol: pos.vol,
                offset: off + f.len as u64,
            };
            return Ok(LocatedIn::Frame(
                pos,
                rel + 4..rel + f.len as usize - 4,
                next,
            ));
        }
    }

    /// Makes `w` hold bytes `off .. off + need` of volume `vol` (of `size` bytes,
    /// `off + need <= size`) and returns where `off` is in its buffer.
    pub(super) fn fill_window(
        &self,
        w: &mut ReadWindow,
        vol: usize,
        off: u64,
        need: u64,
        size: u64,
    ) -> Result<usize> {
        let end = off + need;
        let held_end = w.start + w.len as u64;
        if w.vol != Some(vol) || off < w.start || end > held_end {
            let n = need.max(WINDOW).min(size - off) as usize;
            if w.buf.len() < n {
                w.buf.resize(n, 0);
            }
            // what the window holds from `off` on moves to its front and is not
            // read again (a large record's head was read with the one before it)
            let keep = if w.vol == Some(vol) && off >= w.start && off < held_end {
                let from = (off - w.start) as usize;
                w.buf.copy_within(from..w.len, 0);
                (held_end - off) as usize
            } else {
                0
            }
            .min(n);
            w.vol = None;
            self.vol_read_at(vol, off + keep as u64, &mut w.buf[keep..n])
                .map_err(|e| Error::io(self.vol_path(vol), &e))?;
            w.len = n;
            w.vol = Some(vol);
            w.start = off;
        }
        Ok((off - w.start) as usize)
    }

    /// Like [`Archive::read_forward`], but decodes only the record's timestamp and
    /// whether it is a `<mark>`: `(start, stamp, is_mark, after)`. For skimming over
    /// records that will not be used.
    pub fn peek_forward(
        &self,
        pos: Position,
    ) -> Result<Option<(Position, Timestamp, bool, Position)>> {
        match self.locate_forward(pos)? {
            Located::End => Ok(None),
            Located::Mark(at, stamp, next) => Ok(Some((at, stamp, true, next))),
            Located::Frame(at, f, b) => {
                let payload = f.payload(b);
                let v = self.vol_version(at.vol);
                let stamp = decode_stamp(payload, f.payload_start(), v)
                    .map_err(|e| Error::decode(self.vol_path(at.vol), e))?;
                let w = if v >= 3 { 12 } else { 8 };
                let numpmid = payload
                    .get(w..w + 4)
                    .map(|x| i32::from_be_bytes([x[0], x[1], x[2], x[3]]))
                    .unwrap_or(0);
                Ok(Some((
                    at,
                    stamp,
                    numpmid == 0,
                    Position {
                        vol: at.vol,
                        offset: f.end(),
                    },
                )))
            }
        }
    }

    /// Where reading forward from `vol`'s end continues: the next volume's first
    /// record, or the `<mark>` before it when it starts another archive.
    pub(super) fn next_volume(&self, vol: usize) -> Position {
        let v = vol + 1;
        let at_boundary = self.volumes.get(v).is_some_and(|x| x.boundary.is_some());
        Position {
            vol: v,
            offset: if at_boundary {
                0
            } else {
                self.vol_label_len(v)
            },
        }
    }

    /// Going forward from `pos`: past the end of the last volume, at the `<mark>`
    /// between archives that a volume's start may be, or where to read on (the
    /// first record after a volume's label).
    pub(super) fn enter_forward(&self, pos: Position) -> Entered {
        if pos.vol >= self.volumes.len() {
            return Entered::End;
        }
        if pos.offset != 0 {
            return Entered::At(pos);
        }
        let first = Position {
            vol: pos.vol,
            offset: self.vol_label_len(pos.vol),
        };
        match &self.volumes[pos.vol].boundary {
            Some(bd) => Entered::Mark(pos, bd.forward_mark(), first),
            None => Entered::At(first),
        }
    }

    pub(super) fn locate_forward(&self, mut pos: Position) -> Result<Located<'_>> {
        loop {
            pos = self.skip_removed_forward(pos);
            pos = match self.enter_forward(pos) {
                Entered::End => return Ok(Located::End),
                Entered::Mark(at, stamp, next) => return Ok(Located::Mark(at, stamp, next)),
                Entered::At(p) => p,
            };
            let Some(b) = self.vol_bytes(pos.vol) else {
                pos = self.next_volume(pos.vol);
                continue;
            };
            let frame = match frame_at(b, pos.offset) {
                Ok(f) => f,
                Err(e) => match self.remove_part_of(pos.vol, true) {
                    Some(Some(p)) => {
                        pos = p;
                        continue;
                    }
                    Some(None) => return Ok(Located::End),
                    None => return Err(Error::decode(self.vol_path(pos.vol), e)),
                },
            };
            match frame {
                None => pos = self.next_volume(pos.vol),
                Some(f) => return Ok(Located::Frame(pos, f, b)),
            }
        }
    }

    pub(super) fn locate_backward(&self, mut pos: Position) -> Result<Located<'_>> {
        loop {
            if pos.vol >= self.volumes.len() {
                return Ok(Located::End);
            }
            if self.in_removed_part(pos.vol) {
                // an archive removed: the end of the one before it
                match self.part_start(pos.vol).checked_sub(1) {
                    Some(v) => {
                        pos.vol = v;
                        pos.offset = self.vol_size(v).unwrap_or(0);
                        continue;
                    }
                    None => return Ok(Located::End),
                }
            }
            let frame = if pos.offset == 0 {
                // before a mark between archives: continue in the previous volume
                None
            } else {
                match self.vol_bytes(pos.vol) {
                    Some(b) => {
                        let end = pos.offset.min(b.len() as u64);
                        match frame_before(b, end, self.vol_label_len(pos.vol)) {
                            Ok(f) => f.map(|f| (f, b)),
                            Err(e) => match self.remove_part_of(pos.vol, false) {
                                Some(Some(p)) => {
                                    pos = p;
                                    continue;
                                }
                                Some(None) => return Ok(Located::End),
                                None => return Err(Error::decode(self.vol_path(pos.vol), e)),
                            },
                        }
                    }
                    None => None,
                }
            };
            if let Some((f, b)) = frame {
                return Ok(Located::Frame(
                    Position {
                        vol: pos.vol,
                        offset: f.start,
                    },
                    f,
                    b,
                ));
            }
            // at the start of this volume
            if pos.offset != 0 {
                if let Some(bd) = &self.volumes[pos.vol].boundary {
                    let at = Position {
                        vol: pos.vol,
                        offset: 0,
                    };
                    return Ok(Located::Mark(at, bd.backward_mark(), at));
                }
            }
            if pos.vol == 0 {
                return Ok(Located::End);
            }
            pos.vol -= 1;
            pos.offset = self.vol_size(pos.vol).unwrap_or(0);
        }
    }

    /// Reads the record that ends at `pos`, backward: the record and its start
    /// position, or `None` at the start of the archive.
    pub fn read_backward(&self, pos: Position) -> Result<Option<(Position, ResultRecord<'_>)>> {
        match self.locate_backward(pos)? {
            Located::End => Ok(None),
            Located::Mark(at, stamp, _) => Ok(Some((at, mark_record(stamp)))),
            Located::Frame(at, f, b) => {
                match decode_result(f.payload(b), f.payload_start(), self.vol_version(at.vol)) {
                    Ok(rec) => Ok(Some((at, rec))),
                    Err(e) => match self.remove_part_of(at.vol, false) {
                        Some(Some(p)) => self.read_backward(p),
                        Some(None) => Ok(None),
                        None => Err(Error::decode(self.vol_path(at.vol), e)),
                    },
                }
            }
        }
    }

    /// Iterates every record from the start, forward.
    pub fn records(&self) -> Records<'_> {
        Records {
            archive: self,
            pos: Some(self.start()),
            forward: true,
            released: self.start(),
        }
    }
    /// Iterates every record from the end, backward.
    pub fn records_rev(&self) -> Records<'_> {
        Records {
            archive: self,
            pos: Some(self.end_position()),
            forward: false,
            released: self.start(),
        }
    }

    /// The time of volume `i`'s last record when the volume ends with a whole,
    /// sound one. Read into a buffer of its own (not through the volume's map,
    /// whose pages would stay in the process's memory for as long as it runs).
    pub(super) fn last_stamp(&self, i: usize, physend: u64, lab: u64, v: u32) -> Option<Timestamp> {
        let mut word = [0u8; 4];
        self.vol_read_at(i, physend.checked_sub(4)?, &mut word)
            .ok()?;
        let len = u32::from_be_bytes(word) as u64;
        if len < 8 || len > physend.saturating_sub(lab) {
            return None;
        }
        let at = physend - len;
        let mut rec = vec![0u8; usize::try_from(len).ok()?];
        self.vol_read_at(i, at, &mut rec).ok()?;
        let f = frame_before(&rec, len, 0).ok()??;
        // checked as a whole record, its values not collected
        crate::codec::result::decode_result_for(f.payload(&rec), at + f.payload_start(), v, |_| {
            false
        })
        .ok()
        .map(|r| r.stamp)
    }

    /// The time of the last complete record, found as libpcp's `pmGetArchiveEnd` finds
    /// it: for the highest volume downwards, the last record read backwards from the
    /// physical end; failing that, a forward scan from the last index entry of that
    /// volume (backing up one record first). `PM_ERR_LOGREC` when nothing is found.
    pub fn end_time(&self) -> Result<Timestamp> {
        let fail = |i: usize, off: u64| {
            Error::pcp(
                crate::error::PM_ERR_LOGREC,
                "cannot locate the end of the archive",
            )
            .at(self.vol_path(i), Some(off))
        };
        let back = |b: &[u8], end: u64, lab: u64, v: u32| -> Option<(u64, Timestamp)> {
            let f = frame_before(b, end, lab).ok()??;
            let r = decode_result(f.payload(b), f.payload_start(), v).ok()?;
            Some((f.start, r.stamp))
        };
        let mut last_fail = None;
        for i in (0..self.volumes.len()).rev() {
            let Some(b) = self.vol_bytes(i) else { continue };
            let (lab, v) = (self.vol_label_len(i), self.vol_version(i));
            let physend = b.size();
            if let Some(t) = self.last_stamp(i, physend, lab, v) {
                return Ok(t);
            }
            let num = self.volumes[i].num as i32;
            let Some(logend) = self
                .index
                .iter()
                .rev()
                .filter(|e| e.vol == num && e.off_data >= 0)
                .map(|e| b.place_of(e.off_data as u64))
                .find(|&off| off <= physend)
            else {
                last_fail = Some(fail(i, physend));
                continue;
            };
            let mut pos = logend;
            if logend > lab {
                match back(b, logend, lab, v) {
                    Some((start, _)) => pos = start,
                    None => return Err(fail(i, logend)),
                }
            }
            let mut best = None;
            while let Ok(Some(f)) = frame_at(b, pos) {
                match decode_result(f.payload(b), f.payload_start(), v) {
                    Ok(r) => best = Some(r.stamp),
                    Err(_) => break,
                }
                pos = f.end();
            }
            if let Some(t) = best {
                return Ok(t);
            }
            last_fail = Some(fail(i, pos));
        }
        Err(last_fail.unwrap_or_else(|| {
            Error::pcp(
                crate::error::PM_ERR_LOGREC,
                "no volume holds a readable record",
            )
        }))
    }
}

/// How far a forward iteration goes between releasing the memory behind it.
pub(crate) const RELEASE_STEP: u64 = 256 << 10;

/// Iterator over records; yields errors once and then stops.
pub struct Records<'a> {
    archive: &'a Archive,
    pos: Option<Position>,
    forward: bool,
    /// Forward iteration: everything before this has been released.
    released: Position,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(Position, ResultRecord<'a>)>;
    fn next(&mut self) -> Option<Self::Item> {
        let pos = self.pos?;
        let step = if self.forward {
            self.archive.read_forward(pos)
        } else {
            let back = self.archive.read_backward(pos);
            back.map(|r| r.map(|(at, rec)| (at, rec, at)))
        };
        match step {
            Ok(Some((at, rec, next))) => {
                self.pos = Some(next);
                // keep memory bounded on long reads: let go of what is behind
                if self.forward
                    && (at.vol != self.released.vol
                        || at.offset.saturating_sub(self.released.offset) > RELEASE_STEP)
                {
                    self.archive.release_before(at);
                    self.released = at;
                }
                Some(Ok((at, rec)))
            }
            Ok(None) => {
                self.pos = None;
                None
            }
            Err(e) => {
                self.pos = None;
                Some(Err(e))
            }
        }
    }
}
