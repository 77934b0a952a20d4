//! Writing the output: each record with the metadata it needs first (descriptors,
//! instance domains as deltas where PCP writes them, labels, help text), volume
//! switches and temporal index entries where PCP's pmlogextract puts them.

use super::*;
use archive_format::codec::result::{decode_result, encode_result};
use cli_common::limit::Limit;

impl Extract<'_> {
    /// `writerlist` for one record: its metadata, a volume switch if due, the record,
    /// and a temporal index entry if due.
    pub(crate) fn write_record(
        &mut self,
        ilog: usize,
        mut rec: Rec,
        now: Timestamp,
    ) -> Result<(), Stop> {
        // a copied record of the same metrics as one fully handled before
        let mut same_shape = false;
        if let Some((at, pmids)) = &rec.raw {
            same_shape = !pmids.is_empty() && same_pmids(pmids, &self.settled_shape);
            let known = same_shape
                || (!pmids.is_empty() && same_pmids(pmids, &self.done_shape))
                || pmids.iter().all(|p| self.g.descs.contains_key(p));
            if !known {
                // some value sets will be culled: decode after all
                let input = &mut self.inputs[ilog];
                let decoded = match at {
                    Stored::At(at) => input
                        .arch
                        .as_ref()
                        .and_then(|a| a.read_forward_in(*at, &mut input.window).ok().flatten())
                        .map(|(_, r, _)| to_owned(&r)),
                    Stored::Recoded(b) => decode_result(b, 0, 3).ok().map(|r| to_owned(&r)),
                };
                match decoded {
                    Some(d) => {
                        rec = d;
                        same_shape = false;
                    }
                    None => return Err(Stop::Abandon),
                }
            }
        }
        self.first_datarec = false;
        self.write_labels(1, u32::MAX, now)?;
        let mut needti = false;
        self.write_metadata(&mut rec, same_shape, &mut needti)?;
        // an encoded record's bytes, or the length of the input's copy
        let encoded = match &rec.raw {
            Some(_) => None,
            None => {
                let version = self.writer().version();
                let stamp = if version >= 3 {
                    rec.stamp
                } else {
                    Timestamp::new(rec.stamp.sec, rec.stamp.nsec / 1000 * 1000)
                };
                Some((stamp, encode_result(stamp, &rec.vsets, version)))
            }
        };
        let len = match (&rec.raw, &encoded) {
            (_, Some((_, p))) => p.len(),
            (Some((Stored::At(at), _)), None) => self.raw_len(ilog, at)?,
            (Some((Stored::Recoded(b), _)), None) => b.len(),
            (None, None) => return Err(Stop::Abandon),
        };
        if self.volume_due(&rec, len as u64 + 8) {
            // the first record may not fit in volume 0: the labels have its time
            self.writer().begin(rec.stamp)?;
            let vol = self.writer().new_volume()?;
            self.vol_start = Some(rec.stamp);
            let when = cli_common::timefmt::stamp(rec.stamp, 9, &self.tz.clone());
            self.say(&format!("{PROG}: New log volume {vol}, at {when}"));
        }
        let before = match (&rec.raw, encoded) {
            (_, Some((stamp, p))) => self.writer().write_result_payload(stamp, &p)?,
            (Some((Stored::At(at), _)), None) => self.copy_stored(ilog, *at, rec.stamp)?,
            (Some((Stored::Recoded(b), _)), None) => {
                self.writer().write_result_payload(rec.stamp, b)?
            }
            (None, None) => return Err(Stop::Abandon),
        };
        self.old_log_offset = before;
        self.written += 1;
        let label_len = self.writer().label_len();
        let after = self.writer().data_offset();
        if before == 0 || before == label_len || after > self.flushsize {
            needti = true;
        }
        if needti && rec.stamp.sec > 0 {
            let meta = self.old_meta_offset;
            self.writer().put_index_at(rec.stamp, meta, before)?;
            self.old_log_offset = after;
            self.flushsize = after + FLUSH_SIZE;
        }
        if let Some((stored, pmids)) = rec.raw {
            self.inputs[ilog].spare_pmids = pmids;
            if let Stored::Recoded(b) = stored {
                self.inputs[ilog].spare_payload = b;
            }
        }
        Ok(())
    }

    /// Writes the record of input `ilog` at `at` as it is stored (still in the
    /// input's window); where it starts in the data volume.
    fn copy_stored(&mut self, ilog: usize, at: Position, stamp: Timestamp) -> Result<u64, Stop> {
        let input = &mut self.inputs[ilog];
        let arch = input.arch.as_ref();
        let payload = arch
            .and_then(|a| a.read_raw_forward_in(at, &mut input.window).ok().flatten())
            .and_then(|(_, p, _)| p);
        let Some(payload) = payload else {
            return Err(Stop::Abandon);
        };
        // the writer may copy it file to file
        let source = arch
            .and_then(|a| a.volume_file(at.vol))
            .map(|f| (((ilog as u64) << 32) | at.vol as u64, f, at.offset));
        let w = self.w.as_mut().expect("writer exists while extracting");
        Ok(w.write_result_from(stamp, payload, source)?)
    }

    /// The payload length of a record copied from input `ilog` (only `-v` by
    /// size asks: it is still in the input's window).
    fn raw_len(&mut self, ilog: usize, at: &Position) -> Result<usize, Stop> {
        if !matches!(self.o.volume, Some(Limit::Bytes(_))) {
            return Ok(0);
        }
        let input = &mut self.inputs[ilog];
        let arch = input.arch.as_ref();
        arch.and_then(|a| a.read_raw_forward_in(*at, &mut input.window).ok().flatten())
            .and_then(|(_, p, _)| p.map(|p| p.len()))
            .ok_or(Stop::Abandon)
    }

    /// `-v`: whether the next record (of `len` bytes) starts a new volume: after
    /// every N records, before one that would take the volume past a size, or one
    /// more than a time after the volume's first (PCP 6.3.2's forms).
    fn volume_due(&mut self, rec: &Rec, len: u64) -> bool {
        let start = *self.vol_start.get_or_insert(rec.stamp);
        match self.o.volume {
            Some(Limit::Samples(n)) => self.written > 0 && self.written.is_multiple_of(n),
            Some(Limit::Bytes(n)) => self.writer().data_offset() + len > n,
            Some(Limit::Time(d)) => {
                let span = rec.stamp.as_nanos() - start.as_nanos();
                span > d.as_nanos() as i128
            }
            None => false,
        }
    }

    /// `write_priorlabelset`: the label set of one kind and identifier that the
    /// reference's table lookup finds, if not yet written and not later than `now`,
    /// restamped to `now`.
    pub(crate) fn write_labels(
        &mut self,
        ltype: u32,
        ident: u32,
        now: Timestamp,
    ) -> Result<(), Stop> {
        let Some(l) = self
            .g
            .labels
            .get_mut(&ltype)
            .and_then(|t| t.find_mut(ident))
        else {
            return Ok(());
        };
        if l.stamp > now || l.written {
            return Ok(());
        }
        l.written = true;
        let sets = l.sets.clone();
        self.g.unwritten_labels -= 1;
        self.writer().put_labels(now, ltype, ident, sets)?;
        Ok(())
    }

    pub(crate) fn write_text(&mut self, ttype: u32, ident: u32) -> Result<(), Stop> {
        let Some(t) = self.g.texts.get_mut(&(ttype, ident)) else {
            return Ok(());
        };
        if t.written {
            return Ok(());
        }
        t.written = true;
        let text = t.text.clone();
        self.g.unwritten_texts -= 1;
        self.writer().put_text(ttype, ident, &text)?;
        Ok(())
    }

    /// `write_metareclist`: what a record needs, before it.
    pub(crate) fn write_metadata(
        &mut self,
        rec: &mut Rec,
        same_shape: bool,
        needti: &mut bool,
    ) -> Result<(), Stop> {
        if self.needs_nothing(rec, same_shape) {
            return Ok(());
        }
        let mut settled = true;
        for k in 0.. {
            let pmid = match &rec.raw {
                Some((_, pmids)) => pmids.get(k).copied(),
                None => rec.vsets.get(k).map(|v| v.pmid),
            };
            let Some(pmid) = pmid else {
                break;
            };
            settled &= self.metric_metadata(pmid, rec.stamp, needti)?;
        }
        let shape = || match &rec.raw {
            Some((_, pmids)) => pmids.clone(),
            None => rec.vsets.iter().map(|v| v.pmid).collect(),
        };
        if self.nothing_left() {
            self.done_shape = shape();
        }
        if settled {
            self.settled_shape = shape();
        }
        Ok(())
    }

    /// No labels, help text or instance domains are left to write.
    fn nothing_left(&self) -> bool {
        let g = &self.g;
        g.unwritten_labels == 0 && g.unwritten_texts == 0 && g.unwritten_indoms == 0
    }

    /// A record of the same metrics as one fully handled before, when nothing is
    /// left to write for them, needs nothing.
    fn needs_nothing(&self, rec: &Rec, same_shape: bool) -> bool {
        let is = |shape: &[PmId]| match &rec.raw {
            Some((_, pmids)) => same_pmids(pmids, shape),
            None => rec.vsets.iter().map(|v| v.pmid).eq(shape.iter().copied()),
        };
        if self.nothing_left() && !self.done_shape.is_empty() && is(&self.done_shape) {
            return true;
        }
        if self.g.unwritten_labels != 0 || self.g.unwritten_texts != 0 {
            return false;
        }
        let same = match &rec.raw {
            Some(_) => same_shape,
            None => rec
                .vsets
                .iter()
                .map(|v| v.pmid)
                .eq(self.settled_shape.iter().copied()),
        };
        same && !self.settled_shape.is_empty()
    }

    /// What one metric of a record needs: its descriptor, its labels and help,
    /// and its instance domain at the record's time with that's labels and help.
    /// `false` when the metric has an instance domain (not settled for good).
    fn metric_metadata(
        &mut self,
        pmid: PmId,
        stamp: Timestamp,
        needti: &mut bool,
    ) -> Result<bool, Stop> {
        let Some(entry) = self.g.descs.get_mut(&pmid) else {
            // PCP 6.0.3 gives up here (later versions cull the metric)
            let msg =
                format!("{PROG}: Error: meta data (TYPE_DESC) for pmid {pmid} has not been found.");
            self.say(&msg);
            return Err(Stop::Abandon);
        };
        let desc = entry.desc;
        if !entry.written {
            entry.written = true;
            let names = entry.names.clone();
            self.writer().put_desc(desc, &names)?;
        }
        if self.g.unwritten_labels == 0 && self.g.unwritten_texts == 0 && desc.indom.is_null() {
            return Ok(true);
        }
        self.write_labels(0x10, pmid.0, stamp)?;
        self.write_labels(2, pmid.0 >> 22 & 0x1ff, stamp)?;
        self.write_labels(8, pmid.0 & !0x3ff, stamp)?;
        self.write_text(4 | 1, pmid.0)?;
        self.write_text(4 | 2, pmid.0)?;
        let indom = desc.indom;
        if indom.is_null() {
            return Ok(true);
        }
        if !self.indom_at(indom, stamp, needti)? {
            return Ok(false);
        }
        self.write_labels(4, indom.0, stamp)?;
        self.write_labels(0x20, indom.0, stamp)?;
        self.write_text(8 | 1, indom.0)?;
        self.write_text(8 | 2, indom.0)?;
        Ok(false)
    }

    /// The instance domain's record closest to `stamp`, written if it was not;
    /// `false` when the domain has records and none is to be written (its
    /// labels and help wait too).
    fn indom_at(
        &mut self,
        indom: InDom,
        stamp: Timestamp,
        needti: &mut bool,
    ) -> Result<bool, Stop> {
        let has_recs = self
            .g
            .indoms
            .get(&indom)
            .is_some_and(|l| !l.recs.is_empty());
        if !has_recs {
            return Ok(true);
        }
        let Some(at) = self.g.closest_indom(indom, stamp) else {
            return Ok(false);
        };
        let Some(r) = self
            .g
            .indoms
            .get_mut(&indom)
            .and_then(|l| l.recs.get_mut(at))
        else {
            return Ok(false);
        };
        if r.written {
            return Ok(false);
        }
        r.written = true;
        self.g.unwritten_indoms = self.g.unwritten_indoms.saturating_sub(1);
        let r = r.clone();
        *needti = true;
        self.write_indom(indom, stamp, &r)?;
        Ok(true)
    }

    pub(crate) fn write_indom(
        &mut self,
        indom: InDom,
        stamp: Timestamp,
        r: &InDomRec,
    ) -> Result<(), Stop> {
        if self.version < 3 || r.v2 {
            let full = archive_format::writer::delta::full(&r.instances);
            self.writer()
                .put_indom_record(InDomKind::V2, stamp, indom, full)?;
            return Ok(());
        }
        let (kind, list) = self.deltas.encode(indom, &r.instances);
        self.writer().put_indom_record(kind, stamp, indom, list)?;
        Ok(())
    }
}
