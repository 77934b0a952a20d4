//! The records of the archive in time order from a start, as `pmSetMode(PM_MODE_FORW,
//! start)` and `pmFetchArchive` give them: through [`LogCursor`] for one archive
//! (libpcp's positioning, so damaged archives end as they do there), and across
//! the archives of a multi-archive context with the `<mark>` between them.

use archive_format::codec::result::ResultRecord;
use archive_format::logfetch::{Direction, LogCursor};
use archive_format::{Archive, Position, Result, Timestamp};

pub enum Records<'a> {
    One(LogCursor<'a>),
    Many {
        a: &'a Archive,
        pos: Position,
        origin: Timestamp,
    },
}

impl<'a> Records<'a> {
    /// Where a new context starts: at the archive's first record.
    pub fn new(a: &'a Archive) -> Records<'a> {
        if a.is_multi() {
            let start = a.label().start;
            Records::Many {
                a,
                pos: a.position_before(start),
                origin: start,
            }
        } else {
            Records::One(LogCursor::new(a))
        }
    }

    /// Positioned for the first record at or after `start` (`pmSetMode`).
    pub fn set_start(&mut self, start: Timestamp) {
        match self {
            Records::One(c) => c.set_mode(Direction::Forward, start),
            Records::Many { a, pos, origin } => {
                *pos = a.position_before(start);
                *origin = start;
            }
        }
    }

    /// The next record; `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<ResultRecord<'_>>> {
        match self {
            Records::One(c) => c.fetch(),
            Records::Many { a, pos, origin } => loop {
                let Some((_, rec, after)) = a.read_forward(*pos)? else {
                    return Ok(None);
                };
                *pos = after;
                // records behind the last one's time are skipped, as libpcp does
                if rec.stamp >= *origin {
                    *origin = rec.stamp;
                    return Ok(Some(rec));
                }
            },
        }
    }
}
