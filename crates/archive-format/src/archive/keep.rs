//! Volumes cut down to the metrics a reader asks for
//! ([`keep_only`](crate::OpenOptions::keep_only)): what they keep, found in the
//! metadata and index as read, and where the index's offsets fall in them.

use super::{Archive, Position, SideFiles};
use crate::codec::index::IndexEntry;
use crate::metadata::Metadata;
use crate::types::PmId;
use crate::volume;

/// The metrics of [`OpenOptions::keep_only`](crate::OpenOptions::keep_only), found
/// in the archive's metadata.
#[derive(Clone)]
pub struct KeepOnly(pub std::sync::Arc<FindMetrics>);

/// What finds [`KeepOnly`]'s metrics in the metadata (`None`: keep all).
pub type FindMetrics = dyn Fn(&Metadata) -> Option<Vec<PmId>> + Send + Sync;

impl std::fmt::Debug for KeepOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeepOnly(..)")
    }
}

impl SideFiles {
    /// What volumes cut down to `only`'s metrics keep, from the metadata and
    /// index as read; `None` where either could not be read, or `only` finds
    /// nothing.
    pub(super) fn keep_set(&self, only: &KeepOnly) -> Option<volume::KeepSet> {
        let meta = self.decoded.as_ref()?.as_ref().ok()?;
        let mut pmids = (only.0)(meta)?;
        pmids.sort_unstable();
        pmids.dedup();
        let entries = match (&self.index, &self.entries) {
            (None, _) => &[][..],
            (Some(_), Some(Ok(entries))) => &entries[..],
            _ => return None,
        };
        let index = entries
            .iter()
            .filter(|e| e.off_data >= 0)
            .map(|e| (e.vol, e.off_data as u64))
            .collect();
        Some(volume::KeepSet { pmids, index })
    }
}

impl Archive {
    /// Where index entry `e` points, when it names a volume of the archive and an
    /// offset (see [`Archive::position_before`] for the offset as read).
    pub(crate) fn index_position(&self, e: &IndexEntry) -> Option<Position> {
        let vol = self.index_volume(e)?;
        Some(self.index_place(vol, e.off_data as u64))
    }

    /// The volume (list index) of index entry `e`, when it has an offset.
    pub(super) fn index_volume(&self, e: &IndexEntry) -> Option<usize> {
        if e.off_data < 0 {
            return None;
        }
        self.volumes.iter().position(|v| v.num as i32 == e.vol)
    }

    /// Offset `off` of volume `vol` as the index gives it, where the volume
    /// holds it: elsewhere in a volume cut down to some metrics
    /// ([`OpenOptions::keep_only`](crate::OpenOptions::keep_only)).
    pub(super) fn index_place(&self, vol: usize, off: u64) -> Position {
        let offset = match self.loader.keep {
            Some(_) => self.vol_bytes(vol).map_or(off, |b| b.place_of(off)),
            None => off,
        };
        Position { vol, offset }
    }
}
