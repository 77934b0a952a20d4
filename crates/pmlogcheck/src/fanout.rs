//! Pass 3 on several cores: the metrics are shared out among checkers, one per
//! thread, each keeping the state of its own metrics only (a metric's checks never
//! look at another's). The main thread reads the records as libpcp does, checks its
//! own metrics, and hands the records' bytes in batches to the other threads, which
//! read them again looking only at their metrics' values. What each finds is tagged
//! with its record and value set, and the lines of a batch are printed in that order
//! once every thread is done with it: the order one checker would have printed them
//! in, up to the place where it would have given up.

use std::collections::VecDeque;
use std::io;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use archive_format::codec::result::{decode_stamp, raw_value_sets_into, RawValueSet};
use archive_format::{PmId, Timestamp};

use crate::pass3::{Checker, Findings, Lookup};

type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Payload bytes a batch holds before it is handed out.
const BATCH_BYTES: usize = 1 << 20;
/// Records a batch holds before it is handed out (for small records).
const BATCH_RECORDS: usize = 2048;
/// Batches handed out and not yet printed.
const IN_FLIGHT: usize = 4;
/// The most checkers: each thread reads through every record (keeping only its
/// metrics' values), so beyond a few the reading is what grows.
const MOST_THREADS: usize = 4;

/// What every checker is told with.
pub struct Setup<'a> {
    /// `archive.vol`, as the messages name the records.
    pub prefix: &'a str,
    pub look: &'a (dyn Lookup + Sync),
    pub stamp: &'a (dyn Fn(Timestamp) -> String + Sync),
    /// A checker as the options make it (`-w`, PCP 7's matching and words).
    pub checker: &'a (dyn Fn() -> Checker + Sync),
}

/// One line found, or (`line: None`) the place where pmlogcheck gives up.
struct Finding {
    /// The record, counted from the first the pass read.
    seq: u64,
    /// 0 for what is said of the record's time, `j + 1` for its value set `j`.
    key: usize,
    line: Option<String>,
}

/// Records' payloads for the other threads, and the metrics newly shared out.
#[derive(Default)]
struct Batch {
    id: u64,
    /// Each record's number, format version and the end of its payload in `bytes`.
    recs: Vec<(u64, u32, usize)>,
    bytes: Vec<u8>,
    owners: Vec<(PmId, usize)>,
}

/// A batch handed out: what the main thread found in it, and the others so far.
struct Out {
    found: Vec<Finding>,
    waiting: usize,
    /// The batch itself, whose buffers are used again once every thread is done.
    batch: Option<Arc<Batch>>,
}

/// The main thread's side: its own checker, the threads' channels, the batch being
/// filled and the ones not yet printed.
pub struct Fanout<'a> {
    setup: &'a Setup<'a>,
    checker: Checker,
    owners: FastMap<PmId, usize>,
    /// The values each thread has taken on so far (the main thread's counted three times:
    /// it also reads and decodes every record).
    load: Vec<u64>,
    to: Vec<Sender<Arc<Batch>>>,
    from: Receiver<(u64, Vec<Finding>)>,
    open: Batch,
    found: Vec<Finding>,
    out: VecDeque<Out>,
    /// Printed batches' buffers, for the next ones.
    spare: Vec<Batch>,
    seq: u64,
    lines: Vec<String>,
    sets: Vec<usize>,
}

/// Whether pmlogcheck goes on after a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Go {
    On,
    GiveUp,
}

impl<'a> Fanout<'a> {
    /// Starts `threads - 1` checkers in `scope` beside the main thread's (at most
    /// [`MOST_THREADS`] in all).
    pub fn start<'s>(
        scope: &'s std::thread::Scope<'s, '_>,
        threads: usize,
        setup: &'a Setup<'a>,
    ) -> Fanout<'a>
    where
        'a: 's,
    {
        let threads = threads.clamp(1, MOST_THREADS);
        let (back, from) = channel();
        let mut to = Vec::new();
        for me in 1..threads {
            let (tx, rx) = channel();
            let back = back.clone();
            scope.spawn(move || worker(me, rx, back, setup));
            to.push(tx);
        }
        Fanout {
            setup,
            checker: (setup.checker)(),
            owners: FastMap::default(),
            load: vec![0; threads],
            to,
            from,
            open: Batch::default(),
            found: Vec::new(),
            out: VecDeque::new(),
            spare: Vec::new(),
            seq: 0,
            lines: Vec::new(),
            sets: Vec::new(),
        }
    }

    /// What the checkers are told with.
    pub fn setup(&self) -> &'a Setup<'a> {
        self.setup
    }

    /// What is said of the next record's time (before its values).
    pub fn time_lines(&mut self, lines: Vec<String>) {
        let seq = self.seq;
        self.found.extend(lines.into_iter().map(|l| Finding {
            seq,
            key: 0,
            line: Some(l),
        }));
    }

    /// Checks a record, its time and value sets (a `<mark>` too): the main thread's
    /// metrics here, the others' on their threads. `payload` and `version` are the
    /// record's as read. Lines found are printed through `emit` as soon as every
    /// thread is done with them.
    pub fn record(
        &mut self,
        rec: (Timestamp, &[RawValueSet<'_>]),
        (payload, version): (&[u8], u32),
        emit: &mut dyn FnMut(&str) -> io::Result<()>,
    ) -> io::Result<Go> {
        let seq = self.seq;
        self.seq += 1;
        let verdict = if rec.1.is_empty() {
            self.checker.mark();
            Ok(())
        } else {
            self.share_out(rec.1);
            let owners = &self.owners;
            let mine = |p: PmId| owners.get(&p) == Some(&0);
            let s = self.setup;
            let to = Findings {
                lines: &mut self.lines,
                sets: &mut self.sets,
            };
            self.checker
                .record_part(rec, &mine, (s.prefix, s.look, s.stamp), to)
        };
        tag(
            seq,
            (&mut self.lines, &mut self.sets),
            verdict,
            &mut self.found,
        );
        if !self.to.is_empty() {
            self.open
                .recs
                .push((seq, version, self.open.bytes.len() + payload.len()));
            self.open.bytes.extend_from_slice(payload);
        }
        if verdict.is_err() {
            return self.finish(emit);
        }
        let full = self.open.bytes.len() >= BATCH_BYTES || self.open.recs.len() >= BATCH_RECORDS;
        if (self.to.is_empty() || full) && self.hand_out(emit)? == Go::GiveUp {
            return Ok(Go::GiveUp);
        }
        Ok(Go::On)
    }

    /// Every record checked: what is left is printed. `GiveUp` where a checker
    /// gave up.
    pub fn finish(&mut self, emit: &mut dyn FnMut(&str) -> io::Result<()>) -> io::Result<Go> {
        if self.hand_out(emit)? == Go::GiveUp {
            return Ok(Go::GiveUp);
        }
        while !self.out.is_empty() {
            if self.print_done(true, emit)? == Go::GiveUp {
                return Ok(Go::GiveUp);
            }
        }
        Ok(Go::On)
    }

    /// The metrics of a record's `sets` seen for the first time go to the thread
    /// with the fewest values so far.
    fn share_out(&mut self, sets: &[RawValueSet<'_>]) {
        for vs in sets {
            if self.owners.contains_key(&vs.pmid) {
                continue;
            }
            let weight = |k: usize, l: u64| if k == 0 { 3 * l } else { l };
            let (k, _) = self
                .load
                .iter()
                .enumerate()
                .min_by_key(|&(k, &l)| weight(k, l))
                .unwrap_or((0, &0));
            self.load[k] += vs.numval.max(1) as u64;
            self.owners.insert(vs.pmid, k);
            if k != 0 {
                self.open.owners.push((vs.pmid, k));
            }
        }
    }

    /// Hands the open batch to the other threads (with what the main thread found
    /// in it), and prints the batches they are done with; with too many out, waits
    /// for the oldest.
    fn hand_out(&mut self, emit: &mut dyn FnMut(&str) -> io::Result<()>) -> io::Result<Go> {
        let next = self.spare.pop().unwrap_or_default();
        let batch = std::mem::replace(&mut self.open, next);
        self.open.id = batch.id + 1;
        let found = std::mem::take(&mut self.found);
        let mut waiting = 0;
        let mut handed = None;
        if !batch.recs.is_empty() || !batch.owners.is_empty() {
            let batch = Arc::new(batch);
            for tx in &self.to {
                // (a thread that is gone has panicked; the scope reports it)
                if tx.send(batch.clone()).is_ok() {
                    waiting += 1;
                }
            }
            handed = Some(batch);
        }
        self.out.push_back(Out {
            found,
            waiting,
            batch: handed,
        });
        while let Some(o) = self.out.front() {
            let wait = self.out.len() > IN_FLIGHT;
            if o.waiting > 0 && !wait {
                break;
            }
            if self.print_done(wait, emit)? == Go::GiveUp {
                return Ok(Go::GiveUp);
            }
        }
        Ok(Go::On)
    }

    /// Prints the oldest batch once every thread is done with it (waiting for
    /// them if `wait`).
    fn print_done(
        &mut self,
        wait: bool,
        emit: &mut dyn FnMut(&str) -> io::Result<()>,
    ) -> io::Result<Go> {
        let first = self.open.id - self.out.len() as u64;
        while self.out.front().is_some_and(|o| o.waiting > 0) {
            let got = if wait {
                self.from.recv().ok()
            } else {
                self.from.try_recv().ok()
            };
            let Some((id, found)) = got else {
                if wait {
                    // every thread gone: nothing more will come
                    self.out.iter_mut().for_each(|o| o.waiting = 0);
                }
                break;
            };
            if let Some(o) = id
                .checked_sub(first)
                .and_then(|i| self.out.get_mut(i as usize))
            {
                o.found.extend(found);
                o.waiting = o.waiting.saturating_sub(1);
            }
        }
        match self.out.front() {
            Some(o) if o.waiting == 0 => {}
            _ => return Ok(Go::On),
        }
        let Some(mut o) = self.out.pop_front() else {
            return Ok(Go::On);
        };
        if let Some(mut b) = o.batch.take().and_then(|b| Arc::try_unwrap(b).ok()) {
            b.recs.clear();
            b.bytes.clear();
            b.owners.clear();
            self.spare.push(b);
        }
        // (each value set's lines come from one thread, in its order)
        o.found.sort_by_key(|f| (f.seq, f.key));
        for f in o.found {
            match f.line {
                Some(l) => emit(&l)?,
                None => return Ok(Go::GiveUp),
            }
        }
        Ok(Go::On)
    }
}

/// The lines one checker found in record `seq` (each with the place of its value
/// set), and the place where it gave up, as findings.
fn tag(
    seq: u64,
    (lines, sets): (&mut Vec<String>, &mut Vec<usize>),
    verdict: Result<(), usize>,
    found: &mut Vec<Finding>,
) {
    for (line, j) in lines.drain(..).zip(sets.drain(..)) {
        found.push(Finding {
            seq,
            key: j + 1,
            line: Some(line),
        });
    }
    if let Err(j) = verdict {
        found.push(Finding {
            seq,
            key: j + 1,
            line: None,
        });
    }
}

/// A thread's checker: its metrics' values of each record of the batches it is
/// given, until the channel closes.
fn worker(me: usize, rx: Receiver<Arc<Batch>>, back: Sender<(u64, Vec<Finding>)>, setup: &Setup) {
    let mut checker = (setup.checker)();
    let mut owners: FastMap<PmId, usize> = FastMap::default();
    let (mut lines, mut places) = (Vec::new(), Vec::new());
    let mut gave_up = false;
    for batch in rx {
        owners.extend(batch.owners.iter().copied());
        let mut found = Vec::new();
        let mut sets = Vec::new();
        let mut start = 0;
        for &(seq, version, end) in &batch.recs {
            let payload = batch.bytes.get(start..end).unwrap_or_default();
            start = end;
            if gave_up {
                continue;
            }
            let mine = |p: PmId| owners.get(&p) == Some(&me);
            // (the main thread read it whole: it cannot fail here)
            let (Ok(stamp), Ok(())) = (
                decode_stamp(payload, 0, version),
                raw_value_sets_into(payload, version, &mut sets),
            ) else {
                continue;
            };
            if sets.is_empty() {
                checker.mark();
                continue;
            }
            let to = Findings {
                lines: &mut lines,
                sets: &mut places,
            };
            let verdict = checker.record_part(
                (stamp, &sets),
                &mine,
                (setup.prefix, setup.look, setup.stamp),
                to,
            );
            gave_up = verdict.is_err();
            tag(seq, (&mut lines, &mut places), verdict, &mut found);
        }
        let id = batch.id;
        // (given back before the answer, so that the buffers go round)
        drop(batch);
        if back.send((id, found)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::codec::result::{encode_result, raw_result_into, Value, ValueSet};
    use archive_format::types::{sem, vtype};
    use archive_format::{Desc, InDom, Units};

    /// Counters 1 to 8 (32-bit), and 9, a 64-bit counter whose in-place values
    /// do not convert (pmlogcheck gives up on it).
    struct Counters;
    impl Lookup for Counters {
        fn desc(&self, pmid: PmId) -> Option<Desc> {
            let item = pmid.item();
            (1..=9).contains(&item).then(|| Desc {
                pmid,
                vtype: if item == 9 { vtype::U64 } else { vtype::U32 },
                indom: InDom::new(1, 1),
                sem: sem::COUNTER,
                units: Units::new([0, 0, 1], [0, 0], 0),
            })
        }
        fn metric(&self, pmid: PmId) -> String {
            format!("m{}", pmid.item())
        }
        fn inst_name(&self, _: InDom, inst: i32) -> Option<String> {
            Some(format!("i{inst}"))
        }
    }

    /// Records of 8 metrics of 3 instances whose values go down now and then, a
    /// mark in the middle, and from `give_up` on, metric 9 too.
    fn payloads(n: u32, give_up: Option<u32>) -> Vec<Vec<u8>> {
        (0..n)
            .map(|r| {
                let stamp = Timestamp::new(1000 + i64::from(r), 0);
                if r == n / 2 {
                    return encode_result::<ValueSet>(stamp, &[], 2);
                }
                let last = if give_up.is_some_and(|g| r >= g) {
                    9
                } else {
                    8
                };
                let vsets: Vec<ValueSet> = (1..=last)
                    .map(|m| ValueSet {
                        pmid: PmId::new(60, 0, m),
                        numval: 3,
                        valfmt: 0,
                        values: (0..3)
                            .map(|i| (i, Value::Insitu((r * (m + i as u32)) % (7 + m))))
                            .collect(),
                    })
                    .collect();
                encode_result(stamp, &vsets, 2)
            })
            .collect()
    }

    fn serial(payloads: &[Vec<u8>]) -> Vec<String> {
        let stamp = |t: Timestamp| t.sec.to_string();
        let mut c = Checker::default();
        let mut out = Vec::new();
        let mut sets = Vec::new();
        for p in payloads {
            let now = raw_result_into(p, 0, 2, &mut sets).unwrap();
            if sets.is_empty() {
                c.mark();
                continue;
            }
            let verdict = c.record((now, &sets), "a.0", &Counters, &stamp, &mut out);
            if verdict == crate::pass3::Verdict::GiveUp {
                out.push("gave up".into());
                break;
            }
        }
        out
    }

    fn fanned(payloads: &[Vec<u8>], threads: usize) -> Vec<String> {
        let stamp = |t: Timestamp| t.sec.to_string();
        let checker = Checker::default;
        let setup = Setup {
            prefix: "a.0",
            look: &Counters,
            stamp: &stamp,
            checker: &checker,
        };
        let mut out = Vec::new();
        std::thread::scope(|s| {
            let mut fan = Fanout::start(s, threads, &setup);
            let mut emit = |l: &str| {
                out.push(l.to_string());
                Ok(())
            };
            let mut sets = Vec::new();
            for p in payloads {
                let now = raw_result_into(p, 0, 2, &mut sets).unwrap();
                if fan.record((now, &sets), (p, 2), &mut emit).unwrap() == Go::GiveUp {
                    emit("gave up").unwrap();
                    return;
                }
            }
            if fan.finish(&mut emit).unwrap() == Go::GiveUp {
                emit("gave up").unwrap();
            }
        });
        out
    }

    #[test]
    fn shared_out_the_lines_are_one_checkers() {
        let recs = payloads(5000, None);
        let want = serial(&recs);
        assert!(want.len() > 100, "{} wraps", want.len());
        for threads in [1, 2, 3, 5] {
            assert_eq!(fanned(&recs, threads), want, "{threads} threads");
        }
    }

    #[test]
    fn a_give_up_ends_the_lines_where_one_checker_stops() {
        for at in [0, 1, 2047, 2048, 3999] {
            let recs = payloads(4000, Some(at));
            let want = serial(&recs);
            assert_eq!(want.last().map(String::as_str), Some("gave up"));
            for threads in [1, 2, 4] {
                assert_eq!(
                    fanned(&recs, threads),
                    want,
                    "give up at {at}, {threads} threads"
                );
            }
        }
    }
}
