//! The passes over the window's records (the second only for `-B`), reading as
//! libpcp's `pmSetMode(PM_MODE_FORW, start)` and `pmFetchArchive` give them.
//!
//! The records are first read through [`RecordStream`], which decompresses the
//! volumes on another thread while this one takes their values. Where the stream
//! finds a fault (a record that does not frame or decode, times that go back, a
//! temporal index that does not match the records), libpcp's reading of that
//! archive may differ from a plain forward read: the passes are then done again
//! through [`source::Records`], which follows libpcp's file positions.

use archive_format::pmns::Pmns;
use archive_format::stream::RecordStream;
use archive_format::{Archive, OpenOptions, ResultRecord, Timestamp};

use crate::opts::Opts;
use crate::report::Window;
use crate::source;
use crate::stats::{Corrupt, Settings, Stats};
use crate::tv::Tv;
use crate::Run;

/// What the passes found: the statistics, and the error that ended the last pass
/// before the window's end (or the value that stopped the first).
pub type Passes = (Stats, Result<Option<String>, Corrupt>);

/// The passes over `a`'s records in window `w` from `start`.
pub fn run(o: &Opts, a: &Archive, w: &Window, start: Timestamp) -> Passes {
    match streamed(o, a, w.finish, start) {
        Some((passes, _)) => passes,
        None => cursor(o, a, w, start),
    }
}

/// The whole run through the stream, where it can go without the archive's end
/// (no `-S` or `-T` counting back from it) and the stream finds no fault: the
/// archive is opened reading only its first volume's label (libpcp decompresses
/// the volume whole first), the passes go while the volumes are decompressed,
/// and the archive's end is the last record's time. `None` where the run must be
/// made as libpcp makes it, from the start.
pub fn streamed_run(o: &Opts, pmns: Option<&Pmns>) -> Option<Run> {
    let from_end = |s: &Option<String>| {
        s.as_deref()
            .is_some_and(|s| s.trim_start().starts_with('-'))
    };
    if from_end(&o.clock.start) || from_end(&o.clock.finish) {
        return None;
    }
    if o.archive.contains(',') || std::path::Path::new(&o.archive).is_dir() {
        return None;
    }
    let opts = OpenOptions {
        label_only: true,
        ..OpenOptions::default()
    };
    let mut a = Archive::open_with(&o.archive, opts).ok()?;
    if let Some(p) = pmns {
        let trimmed = cli_common::pmns::trim(p, a.metadata());
        a.set_pmns(trimmed);
    }
    let (tz, note) = o.clock.zone_for(a.label());
    let unknown = cli_common::clock::bounds(a.label(), None);
    let (start, finish) = o.clock.window(unknown, &tz).ok()?;
    let until = match o.clock.finish {
        Some(_) => Tv::of(finish),
        None => Tv {
            sec: i64::MAX,
            usec: 0,
        },
    };
    let (passes, reach) = streamed(o, &a, until, start)?;
    let known = match reach {
        // a record after -T's time: the window lies inside the archive
        Reach::Past => (start, finish),
        // the window again, now that the end is known: the same, or libpcp's answer
        Reach::End(last) => {
            let bounds = cli_common::clock::bounds(a.label(), Some(last?));
            let known = o.clock.window(bounds, &tz).ok()?;
            if known.0 != start || (o.clock.finish.is_some() && known.1 != finish) {
                return None;
            }
            known
        }
    };
    let w = Window::new(Tv::of(known.0), Tv::of(known.1));
    Some(Run {
        a,
        tz,
        note,
        w,
        passes,
    })
}

fn new_stats(o: &Opts) -> Stats {
    Stats::new(Settings {
        nbins: o.nbins,
        sums: o.cols.sum,
        wrap: std::env::var_os("PCP_COUNTER_WRAP").is_some(),
        warn: o.warn,
    })
}

fn passes(o: &Opts) -> usize {
    1 + usize::from(o.nbins > 0)
}

/// One record taken by pass `pass`.
fn take(
    stats: &mut Stats,
    pass: usize,
    rec: &ResultRecord<'_>,
    a: &Archive,
) -> Result<(), Corrupt> {
    if pass == 0 {
        let meta = a.metadata();
        stats.average(rec, |p| meta.desc(p).copied())
    } else {
        stats.bin(rec);
        Ok(())
    }
}

/// How far a pass through the stream went.
enum Reach {
    /// To a record after the window.
    Past,
    /// To the end, the last record's time with it (if there was one).
    End(Option<Timestamp>),
}

/// The passes through the stream, and how far they went; `None` where the
/// stream found a fault.
fn streamed(o: &Opts, a: &Archive, until: Tv, start: Timestamp) -> Option<(Passes, Reach)> {
    let mut stats = new_stats(o);
    let mut reach = Reach::End(None);
    for pass in 0..passes(o) {
        let mut s = RecordStream::open(a)?;
        // libpcp skips records before the origin, which moves to each one's time
        let mut origin = start;
        loop {
            let r = match s.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(_) => return None,
            };
            if r.rec.stamp < origin {
                continue;
            }
            origin = r.rec.stamp;
            if Tv::of(r.rec.stamp) > until {
                reach = Reach::Past;
                break;
            }
            reach = Reach::End(Some(r.rec.stamp));
            if let Err(c) = take(&mut stats, pass, &r.rec, a) {
                drop(r);
                return s
                    .faithful(start)
                    .then_some(((stats, Err(c)), Reach::End(None)));
            }
        }
        if !s.faithful(start) {
            return None;
        }
    }
    Some(((stats, Ok(None)), reach))
}

/// The passes through libpcp's file positions (one context, positioned again
/// for the second pass as pmSetMode does).
fn cursor(o: &Opts, a: &Archive, w: &Window, start: Timestamp) -> Passes {
    let mut stats = new_stats(o);
    let mut ended = None;
    let mut recs = source::Records::new(a);
    for pass in 0..passes(o) {
        recs.set_start(start);
        ended = loop {
            let rec = match recs.next_record() {
                Ok(Some(rec)) => rec,
                Ok(None) => break None,
                Err(e) => break Some(e.pm_message()),
            };
            if Tv::of(rec.stamp) > w.finish {
                break None;
            }
            if let Err(c) = take(&mut stats, pass, &rec, a) {
                return (stats, Err(c));
            }
        };
    }
    (stats, Ok(ended))
}
