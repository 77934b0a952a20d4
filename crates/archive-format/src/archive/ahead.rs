//! Compressed volumes decompressed ahead of a reader, on threads of their own: as
//! many at a time as the job has cores ([`crate::cores::threads`]).

use super::{Archive, Loader, Prefetch, Volume};
use std::sync::MutexGuard;

/// Volume `v` (list index `k`) decompressed on a thread of its own, when it is
/// compressed.
pub(super) fn prefetch(loader: &Loader, k: usize, v: &Volume) -> Option<(usize, Prefetch)> {
    v.fref.compression?;
    let (fref, role) = (v.fref.clone(), v.file_num as i32);
    let loader = loader.clone();
    std::thread::Builder::new()
        .name("decompress".into())
        .spawn(move || loader.checked(&fref, role, false))
        .ok()
        .map(|h| (k, h))
}

impl Archive {
    /// The volumes being decompressed ahead (a panic while they were held leaves
    /// them usable).
    pub(super) fn prefetch_slots(&self) -> MutexGuard<'_, Vec<(usize, Prefetch)>> {
        self.prefetch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts decompressing the compressed volumes from `i` on, not loaded yet, on
    /// threads of their own: as many volumes ahead as the job has cores, so that
    /// every core decompresses while this thread reads (a reader going forward
    /// takes each when it gets there).
    pub(super) fn start_prefetch(&self, i: usize) {
        if !self.loader.threads {
            return;
        }
        let ahead = crate::cores::threads();
        let n = self.volumes.len();
        let mut slots = self.prefetch_slots();
        // the volumes after `i`, then (a reader that looked at the end first
        // starts again from the beginning) those before it
        for k in (i..n).chain(0..i.min(n)) {
            if slots.len() >= ahead {
                break;
            }
            let v = &self.volumes[k];
            if v.bytes.get().is_some() || slots.iter().any(|(j, _)| *j == k) {
                continue;
            }
            slots.extend(prefetch(&self.loader, k, v));
        }
    }
}
