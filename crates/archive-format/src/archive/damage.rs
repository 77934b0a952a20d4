//! PCP 7.1.4's recovery from a corrupted record in a multi-archive context, for
//! contexts opened with `skip_damaged` ([`Archive::open_context_skipping`]): the
//! archive the record is in is removed from the context (while another is left),
//! and reading goes on in the next one going forward (the previous one going
//! backward). Which archives were removed is kept here; the reader asks.

use super::{Archive, Position};
use std::sync::Mutex;

/// The archives (by the list index of their first volume) removed so far, and
/// those not yet said to the caller.
#[derive(Debug, Default)]
pub(crate) struct Removal {
    pub(crate) on: bool,
    state: Mutex<Removed>,
}

#[derive(Debug, Default)]
struct Removed {
    parts: Vec<usize>,
    unsaid: Vec<(String, u32)>,
}

impl Archive {
    /// The first volume (list index) of the archive volume `v` belongs to.
    pub(crate) fn part_start(&self, v: usize) -> usize {
        (0..=v.min(self.volumes.len().saturating_sub(1)))
            .rev()
            .find(|&i| i == 0 || self.volumes[i].boundary.is_some())
            .unwrap_or(0)
    }

    /// The first volumes of the context's archives, in order.
    fn part_starts(&self) -> Vec<usize> {
        (0..self.volumes.len())
            .filter(|&i| i == 0 || self.volumes[i].boundary.is_some())
            .collect()
    }

    fn removed_parts(&self) -> Vec<usize> {
        self.damage
            .state
            .lock()
            .map(|s| s.parts.clone())
            .unwrap_or_default()
    }

    /// Whether volume `v` belongs to an archive removed from the context (asked
    /// at every record read: no copy, and nothing to look for until one is).
    pub(crate) fn in_removed_part(&self, v: usize) -> bool {
        if !self.damage.on {
            return false;
        }
        self.damage
            .state
            .lock()
            .is_ok_and(|s| !s.parts.is_empty() && s.parts.contains(&self.part_start(v)))
    }

    /// A corrupted record in volume `v`: where reading goes on (forward: the
    /// next archive's first record; backward: the end of the previous one's last
    /// volume; `Some(None)`: nowhere, the end), or `None` when the context keeps
    /// the archive (not skipping, or it is the only one left).
    pub(crate) fn remove_part_of(&self, v: usize, forward: bool) -> Option<Option<Position>> {
        if !self.damage.on {
            return None;
        }
        let start = self.part_start(v);
        let removed = self.removed_parts();
        let left: Vec<usize> = self
            .part_starts()
            .into_iter()
            .filter(|p| !removed.contains(p))
            .collect();
        if left.len() < 2 || !left.contains(&start) {
            return None;
        }
        if let Ok(mut s) = self.damage.state.lock() {
            s.parts.push(start);
            s.unsaid.push(self.part_name(v));
        }
        let next = if forward {
            left.iter().find(|&&p| p > start).map(|&p| Position {
                vol: p,
                offset: self.vol_label_len(p),
            })
        } else {
            left.iter().rev().find(|&&p| p < start).map(|&p| {
                let last = self.part_last(p);
                let size = self.vol_size(last).unwrap_or(0);
                Position {
                    vol: last,
                    offset: size,
                }
            })
        };
        Some(next)
    }

    /// The last volume of the archive whose first volume is `start`.
    fn part_last(&self, start: usize) -> usize {
        (start + 1..self.volumes.len())
            .find(|&i| self.volumes[i].boundary.is_some())
            .map_or(self.volumes.len() - 1, |next| next - 1)
    }

    /// Where reading forward from `pos` goes when `pos` is in a removed archive:
    /// the start (its `<mark>`) of the next archive left, or past the end.
    pub(crate) fn skip_removed_forward(&self, pos: Position) -> Position {
        if pos.vol >= self.volumes.len() || !self.in_removed_part(pos.vol) {
            return pos;
        }
        let removed = self.removed_parts();
        match self
            .part_starts()
            .into_iter()
            .find(|p| *p > pos.vol && !removed.contains(p))
        {
            Some(p) => Position { vol: p, offset: 0 },
            None => Position {
                vol: self.volumes.len(),
                offset: 0,
            },
        }
    }

    /// The archives removed since the last call, each with the number its
    /// volume had in it (for PCP 7's warning: `__pmLogRead: removing corrupted
    /// archive "NAME" vol N`).
    pub fn take_removed(&self) -> Vec<(String, u32)> {
        self.damage
            .state
            .lock()
            .map(|mut s| std::mem::take(&mut s.unsaid))
            .unwrap_or_default()
    }

    /// The archive's name as the context was given it (its volume's path less any
    /// compression suffix and the volume number) and the number volume `v` had in
    /// its own archive (its file's suffix).
    fn part_name(&self, v: usize) -> (String, u32) {
        let p = self.vol_path(v).to_string_lossy().into_owned();
        let plain = crate::compress::strip_suffix(&p).map_or(p.as_str(), |(b, _)| b);
        match plain.rsplit_once('.') {
            Some((base, n)) => (base.to_string(), n.parse().unwrap_or(0)),
            None => (plain.to_string(), 0),
        }
    }
}
