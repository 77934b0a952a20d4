//! Salvage after a failed write: what is on disk left readable as an archive, as
//! PCP's tools leave a partial one.

use super::*;

impl ArchiveWriter {
    /// After a write failed (a full disk, say): leaves what is on disk readable as
    /// an archive, as PCP's tools leave a partial one. What the buffers still hold
    /// is written if it can be; then the current data volume and the metadata are
    /// cut back to their last whole record, and the temporal index to its label
    /// (written again if it never reached the disk) and the entries that point
    /// inside both. Returns the first error it could not get past.
    pub fn salvage(mut self) -> Result<()> {
        let _ = self.finish_copies();
        let _ = self.data.flush();
        let _ = self.meta.flush();
        let _ = self.index.flush();
        let base = self.base.clone();
        let path = |ext: &str| PathBuf::from(format!("{}.{ext}", base.display()));
        let index_label = self.start.map(|t| encode_label(&self.label(VOL_INDEX, t)));
        // where the first record of volume 0 and its metadata start: readers
        // need an index entry (an index of a label alone is an empty archive)
        let first = self.start.map(|t| {
            let lm = encode_label(&self.label(VOL_META, t)).len();
            let ld = encode_label(&self.label(0, t)).len();
            (t, lm as u64, ld as u64)
        });
        let (version, vol) = (self.opts.version, self.vol);
        let (Out::File(data), _) = self.data.into_parts() else {
            // a pushed archive's receiver keeps what it was sent
            return Ok(());
        };
        let (Out::File(meta), _) = self.meta.into_parts() else {
            return Ok(());
        };
        let (Out::File(index), _) = self.index.into_parts() else {
            return Ok(());
        };
        let dp = path(&vol.to_string());
        let ends = record_ends(&dp).map_err(|e| Error::io(&dp, &e))?;
        let mut data_end = ends.last().copied().unwrap_or(0);
        data.set_len(data_end).map_err(|e| Error::io(&dp, &e))?;
        let mp = path("meta");
        let meta_end = record_ends(&mp)
            .map_err(|e| Error::io(&mp, &e))?
            .last()
            .copied()
            .unwrap_or(0);
        meta.set_len(meta_end).map_err(|e| Error::io(&mp, &e))?;
        let ip = path("index");
        let Some(label) = index_label else {
            return Ok(());
        };
        let fix =
            |data_end: u64| fix_index(&index, &ip, &label, first, version, vol, meta_end, data_end);
        if fix(data_end).is_ok() {
            return Ok(());
        }
        // no room even for the index: the data volume gives back its last
        // records (64 KB of them, whole records; the label stays) and the
        // index is made again
        let floor = ends.first().copied().unwrap_or(0);
        let want = data_end.saturating_sub(64 * 1024).max(floor);
        data_end = ends
            .iter()
            .rev()
            .copied()
            .find(|e| *e <= want)
            .unwrap_or(floor);
        data.set_len(data_end).map_err(|e| Error::io(&dp, &e))?;
        fix(data_end)
    }
}

/// The temporal index of a salvaged archive: its label (written again if it is
/// missing), the entries that point inside what is left, and at least the
/// entry for volume 0's first record where there is one.
#[allow(clippy::too_many_arguments)]
pub(super) fn fix_index(
    index: &File,
    ip: &Path,
    label: &[u8],
    first: Option<(Timestamp, u64, u64)>,
    version: u32,
    vol: u32,
    meta_end: u64,
    data_end: u64,
) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let io = |e: std::io::Error| Error::io(ip, &e);
    // (the writer's handle is write-only: the file is read by its name)
    let have = std::fs::read(ip).map_err(io)?;
    if have.len() < label.len() {
        index.set_len(0).map_err(io)?;
        index.write_all_at(label, 0).map_err(io)?;
    }
    let entry = |stamp: Timestamp, vol: i32, off_meta: u64, off_data: u64| {
        encode_index_entry(
            &IndexEntry {
                stamp,
                raw_nsec: stamp.nsec as i64,
                vol,
                off_meta: off_meta as i64,
                off_data: off_data as i64,
            },
            version,
        )
    };
    let size = entry(Timestamp::new(0, 0), 0, 0, 0).len();
    let mut keep = label.len();
    for e in have
        .get(label.len()..)
        .unwrap_or_default()
        .chunks_exact(size)
    {
        let Ok(entries) = crate::codec::index::decode_index(e, 0, version) else {
            break;
        };
        let inside = entries.first().is_some_and(|x| {
            let data_ok = (x.vol as u32) < vol || (x.off_data as u64) < data_end;
            x.off_meta as u64 <= meta_end && x.vol as u32 <= vol && data_ok
        });
        if !inside {
            break;
        }
        keep += size;
    }
    index.set_len(keep as u64).map_err(io)?;
    match first {
        // no entry left, and volume 0 has a whole record: the entry the writer
        // made at the start
        Some((t, meta_at, data_at)) if keep == label.len() && (vol > 0 || data_end > data_at) => {
            let bytes = entry(t, 0, meta_at.min(meta_end), data_at);
            index.write_all_at(&bytes, keep as u64).map_err(io)
        }
        _ => Ok(()),
    }
}

/// Where each whole record of an archive file ends, its label first: a
/// record's length word and its trailer must agree and lie in the file.
pub(super) fn record_ends(path: &Path) -> std::io::Result<Vec<u64>> {
    use std::io::Read;
    // (the writer's handles are write-only: the file is read by its name)
    let f = File::open(path)?;
    let len = f.metadata()?.len();
    let mut r = std::io::BufReader::new(f);
    let (mut at, mut ends) = (0u64, Vec::new());
    loop {
        let mut w = [0u8; 4];
        if at + 8 > len || r.read_exact(&mut w).is_err() {
            return Ok(ends);
        }
        let n = u32::from_be_bytes(w) as u64;
        if n < 8 || at + n > len {
            return Ok(ends);
        }
        r.seek(SeekFrom::Start(at + n - 4))?;
        if r.read_exact(&mut w).is_err() || u32::from_be_bytes(w) as u64 != n {
            return Ok(ends);
        }
        at += n;
        ends.push(at);
    }
}
