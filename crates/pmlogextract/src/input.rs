//! The inputs: each archive's records read in turn (copied as stored where they
//! are canonical, decoded otherwise), the pmcd session each belongs to, and the
//! records selected by `-c`.

use super::*;

/// A data record read from an input: decoded with its values owned, or (when it is
/// stored exactly as it will be written, or as a v2 record to be written for v3)
/// left as bytes.
pub(crate) struct Rec {
    pub(crate) stamp: Timestamp,
    pub(crate) vsets: Vec<OwnedValueSet>,
    /// Written as bytes: where they are and the record's PMIDs (`vsets` is empty).
    pub(crate) raw: Option<(Stored, Vec<PmId>)>,
}

/// Where the bytes of a record written as bytes are.
pub(crate) enum Stored {
    /// In the input, as they will be written (copied as stored).
    At(Position),
    /// Here: a v2 record's payload made the v3 one (without decoding its values).
    Recoded(Vec<u8>),
}

impl Rec {
    pub(crate) fn len(&self) -> usize {
        match &self.raw {
            Some((_, p)) => p.len(),
            None => self.vsets.len(),
        }
    }
}

/// One input archive and where reading it has got to.
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) arch: Option<Archive>,
    pub(crate) pos: Option<Position>,
    pub(crate) released: Option<Position>,
    /// The next record to write (`_Nresult`).
    pub(crate) pending: Option<Rec>,
    pub(crate) eof: bool,
    /// At its end; a `<mark>` may still be due.
    pub(crate) mark: bool,
    pub(crate) laststamp: Timestamp,
    pub(crate) pmcd_pid: Option<u64>,
    pub(crate) pmcd_seqnum: Option<u32>,
    /// Bytes of data volumes before the current one (for progress).
    pub(crate) done_bytes: u64,
    /// The output's version (records of the same version may be copied as stored).
    pub(crate) out_version: u32,
    /// Records are read through this (`pread`), not the memory map, so that memory
    /// stays one window per input whatever the page cache does.
    pub(crate) window: ReadWindow,
    /// The PMID list of a copied record, handed back once it is written (so that
    /// copying allocates nothing per record).
    pub(crate) spare_pmids: Vec<PmId>,
    /// The same for the payload of a recoded record.
    pub(crate) spare_payload: Vec<u8>,
}

impl Input {
    pub(crate) fn new(name: String, arch: Option<Archive>) -> Input {
        let pos = arch.as_ref().map(|a| a.start());
        Input {
            name,
            arch,
            pos,
            released: pos,
            pending: None,
            eof: false,
            mark: false,
            laststamp: Timestamp::new(0, 0),
            pmcd_pid: None,
            pmcd_seqnum: None,
            done_bytes: 0,
            out_version: 0,
            window: ReadWindow::new(),
            spare_pmids: Vec::new(),
            spare_payload: Vec::new(),
        }
    }

    /// Moves to the temporal-index entry before `t`, after noting the pmcd session
    /// of the first record (the prologue the reference would have read on its way);
    /// only where the index's times rise strictly: an archive whose records
    /// go back in time (two runs in one volume, say) is read from its start,
    /// as pmlogextract reads every archive.
    pub(crate) fn seek(&mut self, t: Timestamp) {
        let Some(a) = &self.arch else { return };
        if a.index().windows(2).any(|w| w[1].stamp <= w[0].stamp) {
            return;
        }
        let to = a.position_before(t);
        if to == a.start() {
            return;
        }
        let first = match a.read_forward(a.start()) {
            Ok(Some((_, rec, _))) => Some(to_owned(&rec)),
            _ => None,
        };
        if let Some(owned) = first {
            self.laststamp = owned.stamp;
            if owned.vsets.len() == 5 {
                self.note_session(&owned);
            }
        }
        self.pos = Some(to);
    }

    /// Moves past the record at `at`, letting go of the memory behind it.
    pub(crate) fn advance(&mut self, at: Position, next: Position) {
        if let (Some(a), Some(r)) = (&self.arch, self.released) {
            if at.vol != r.vol {
                self.done_bytes += r.offset;
            }
            if at.vol != r.vol || at.offset.saturating_sub(r.offset) > RELEASE_STEP {
                // from where the last release ended, to a page boundary (so that no
                // page is left between two releases)
                let to = Position {
                    vol: at.vol,
                    offset: at.offset / 65_536 * 65_536,
                };
                a.release_range(r, to);
                self.released = Some(to);
            }
        }
        self.pos = Some(next);
    }

    /// The record at `pos` when it can be written as bytes (its PMIDs into
    /// `pmids`): where it is, where the next one is, its time, and its bytes.
    fn canonical(
        &mut self,
        pos: Position,
        pmids: &mut Vec<PmId>,
    ) -> Option<(Position, Position, Timestamp, Stored)> {
        use archive_format::codec::{recode::recode_v2_as_v3, result};
        let a = self.arch.as_ref()?;
        let version = a.label().version;
        let (at, payload, next) = match a.read_raw_forward_in(pos, &mut self.window) {
            Ok(Some((at, Some(payload), next))) => (at, payload, next),
            _ => return None,
        };
        let to_v3 = version == 2 && self.out_version == 3;
        if !(version == self.out_version || to_v3)
            || !result::scan_canonical(payload, version, pmids)
        {
            return None;
        }
        let stamp = result::decode_stamp(payload, 0, version).unwrap_or(Timestamp::new(0, 0));
        if !to_v3 {
            return Some((at, next, stamp, Stored::At(at)));
        }
        let mut bytes = std::mem::take(&mut self.spare_payload);
        if !recode_v2_as_v3(payload, &mut bytes) {
            self.spare_payload = bytes;
            return None;
        }
        Some((at, next, stamp, Stored::Recoded(bytes)))
    }

    pub(crate) fn note_session(&mut self, rec: &Rec) {
        for vs in &rec.vsets {
            let Some((_, v)) = vs.values.first() else {
                continue;
            };
            let word = match v {
                OwnedValue::Insitu(w) => Some(*w as u64),
                OwnedValue::Block { data, .. } if data.len() >= 8 => {
                    Some(u64::from_be_bytes(data[..8].try_into().unwrap_or([0; 8])))
                }
                OwnedValue::Block { data, .. } if data.len() >= 4 => {
                    Some(u32::from_be_bytes(data[..4].try_into().unwrap_or([0; 4])) as u64)
                }
                _ => None,
            };
            if vs.pmid == PMCD_PID {
                self.pmcd_pid = word;
            } else if vs.pmid == PMCD_SEQNUM {
                self.pmcd_seqnum = word.map(|w| w as u32);
            }
        }
    }

    /// The next record, `None` at the end; on a damaged record, the messages and
    /// whether the damage is fatal. Not `fast`, only the values of the metrics
    /// `keep` accepts are read (with the session's, which [`Input::note_session`]
    /// looks at).
    pub(crate) fn read(
        &mut self,
        fast: bool,
        keep: &dyn Fn(PmId) -> bool,
    ) -> Result<Option<Rec>, (String, bool)> {
        let (Some(_), Some(pos)) = (&self.arch, self.pos) else {
            return Ok(None);
        };
        if fast {
            let mut copied: Option<(Position, Position, Rec)> = None;
            let mut pmids = std::mem::take(&mut self.spare_pmids);
            let canonical = self.canonical(pos, &mut pmids);
            if let (Some((at, next, stamp, stored)), Some(a)) = (canonical, &self.arch) {
                // prologue and epilogue records are looked into for the session
                let session = if pmids.len() == 5 {
                    a.read_forward_in(at, &mut self.window)
                        .ok()
                        .flatten()
                        .map(|(_, r, _)| to_owned(&r))
                } else {
                    None
                };
                let rec = match session {
                    Some(mut owned) => {
                        owned.raw = Some((stored, pmids));
                        owned
                    }
                    None => Rec {
                        stamp,
                        vsets: Vec::new(),
                        raw: Some((stored, pmids)),
                    },
                };
                copied = Some((at, next, rec));
            } else {
                self.spare_pmids = pmids;
            }
            if let Some((at, next, rec)) = copied {
                self.advance(at, next);
                return Ok(Some(rec));
            }
        }
        let (Some(a), Some(pos)) = (&self.arch, self.pos) else {
            return Ok(None);
        };
        let keep = |p: PmId| p == PMCD_PID || p == PMCD_SEQNUM || keep(p);
        let read = a
            .read_forward_in_for(pos, &mut self.window, &keep)
            .map(|r| r.map(|(at, rec, next)| (at, to_owned(&rec), next)));
        match read {
            Ok(Some((at, owned, next))) => {
                self.advance(at, next);
                Ok(Some(owned))
            }
            Ok(None) => Ok(None),
            Err(e) => {
                let file = e
                    .path()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| self.name.clone());
                let size = e
                    .path()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
                    .unwrap_or(0);
                let msg = format!(
                    "{PROG}: Error: __pmLogRead[log {}]: {}\n{PROG}: Error occurred at byte offset {} into a file of {size} bytes.\nThe last record, and the remainder of this file will not be extracted.",
                    self.name,
                    e.pm_message(),
                    e.offset().unwrap_or(0),
                );
                let _ = file;
                Err((msg, false))
            }
        }
    }
}

/// Whether two PMID lists are equal; every pair is looked at (no early exit), which
/// lets the compiler compare several at once: most lists compared are equal.
pub(crate) fn same_pmids(a: &[PmId], b: &[PmId]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x.0 ^ y.0)) == 0
}

pub(crate) fn to_owned(rec: &archive_format::ResultRecord<'_>) -> Rec {
    Rec {
        raw: None,
        stamp: rec.stamp,
        vsets: rec.vsets.iter().map(OwnedValueSet::from_set).collect(),
    }
}

/// `searchmlist`: the value sets (and instances) `-c` keeps, without `-x`'s skipped
/// metrics; `None` when nothing is left.
pub(crate) fn filter(mut rec: Rec, sel: Option<&Selection>, skipped: &[PmId]) -> Option<Rec> {
    if sel.is_none() && skipped.is_empty() {
        return Some(rec);
    }
    rec.vsets.retain(|vs| !skipped.contains(&vs.pmid));
    if let Some(sel) = sel {
        let mut kept = Vec::new();
        for mut vs in std::mem::take(&mut rec.vsets) {
            let Some(insts) = sel.metrics.get(&vs.pmid) else {
                continue;
            };
            if let Some(insts) = insts {
                if vs.numval > 0 {
                    vs.values.retain(|(i, _)| insts.contains(i));
                    vs.numval = vs.values.len() as i32;
                    if vs.numval == 0 {
                        continue;
                    }
                }
            }
            kept.push(vs);
        }
        rec.vsets = kept;
    }
    (!rec.vsets.is_empty()).then_some(rec)
}
