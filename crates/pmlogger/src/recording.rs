//! Recording: the loop that fetches each due task, writes its record and what its
//! metadata needs first, and reports (`-r`).

use super::*;

pub(crate) fn pm_err_str(code: i32) -> String {
    archive_format::error::pm_err_str(code)
}

/// A metric the recording has seen: its descriptor (in the archive), and the
/// instances its last fetch returned.
pub(crate) struct Seen {
    pub(crate) desc: Desc,
    /// The instances of its last fetch, those of every fetch so far (pmlc's
    /// "available" and "in log"), and whether it was fetched at all.
    pub(crate) returned: Vec<i32>,
    pub(crate) ever: std::collections::BTreeSet<i32>,
    pub(crate) fetched: bool,
    /// The generation of its instance domain's snapshot that was found to hold
    /// every instance of `returned` (0: not known to).
    pub(crate) checked: u64,
}

impl Seen {
    pub(crate) fn new(desc: Desc) -> Seen {
        Seen {
            desc,
            returned: Vec::new(),
            ever: Default::default(),
            fetched: false,
            checked: 0,
        }
    }
}

/// A map looked up for every metric of every fetch: integer keys, fast hash.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the recording remembers between fetches.
#[derive(Default)]
pub(crate) struct Recorder {
    /// The name each PMID was configured (or requested) by.
    pub(crate) names: HashMap<PmId, String>,
    /// Label kinds and help texts the archive has, by type and identifier.
    pub(crate) seen: HashSet<(u32, u32)>,
    /// The instances of each instance domain in its latest snapshot (sorted),
    /// and the snapshot's generation (counted from 1 by `snapshots`).
    pub(crate) snapshot: FastMap<InDom, (u64, Vec<i32>)>,
    pub(crate) snapshots: u64,
    /// The connection to pmcd is lost: fetches wait for it to come back.
    pub(crate) lost: bool,
    /// What is logged: tasks and their requests.
    pub(crate) plan: Plan,
    /// The record being made from pmcd's PDU (reused).
    pub(crate) payload: Vec<u8>,
    /// What each task fetches (worked out again when pmlc changes the plan).
    pub(crate) fetches: HashMap<usize, Vec<state::Fetch>>,
    /// Per metric seen in a fetch: its descriptor and what the last fetch had.
    pub(crate) metrics: FastMap<PmId, Seen>,
    /// How a push to pmproxy is going, when the archive is pushed.
    pub(crate) push: Option<crate::push::Status>,
    /// The prologue when it waits for the first sample (pushing), with pmcd's pid
    /// and sequence number.
    pub(crate) prologue: Option<(crate::logue::Logue, (u64, u32))>,
}

impl Recorder {
    /// The history flags of a metric-instance.
    pub(crate) fn hist_flags(&self, pmid: PmId, inst: i32, singular: bool) -> u32 {
        let Some(h) = self.metrics.get(&pmid).filter(|m| m.fetched) else {
            return 0;
        };
        let (ever, avail) = if singular {
            (!h.ever.is_empty(), !h.returned.is_empty())
        } else {
            (h.ever.contains(&inst), h.returned.contains(&inst))
        };
        if !ever {
            return 0;
        }
        state::INLOG | if avail { state::AVAIL } else { 0 }
    }

    pub(crate) fn name(&self, pmid: PmId) -> String {
        self.names
            .get(&pmid)
            .cloned()
            .unwrap_or_else(|| pmid.to_string())
    }
}

/// One recording: the source, the archive, the tasks' timers and what has been
/// written, with the limits of `-T`, `-s` and `-v`.
pub(crate) struct Session<'a> {
    pub(crate) o: &'a Opts,
    pub(crate) source: &'a mut dyn Source,
    pub(crate) w: &'a mut ArchiveWriter,
    pub(crate) timers: Vec<Timer>,
    pub(crate) rec: &'a mut Recorder,
    /// The time of the last record written.
    pub(crate) last: &'a mut Timestamp,
    pub(crate) log: &'a mut dyn Write,
    /// `-T`, and `-s` as a time: whichever comes first.
    finish: Option<Duration>,
    began: Instant,
    samples: u64,
    since_vol: u64,
    vol_started: Instant,
}

/// How a recording ends: the exit status.
type End = i32;

impl<'a> Session<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        o: &'a Opts,
        finish: Option<Duration>,
        source: &'a mut dyn Source,
        w: &'a mut ArchiveWriter,
        timers: Vec<Timer>,
        rec: &'a mut Recorder,
        last: &'a mut Timestamp,
        log: &'a mut dyn Write,
    ) -> Session<'a> {
        let finish = match (finish, o.samples) {
            (Some(a), Some(Limit::Time(b))) => Some(a.min(b)),
            (a, Some(Limit::Time(b))) => a.or(Some(b)),
            (a, _) => a,
        };
        Session {
            o,
            source,
            w,
            timers,
            rec,
            last,
            log,
            finish,
            began: Instant::now(),
            samples: 0,
            since_vol: 0,
            vol_started: Instant::now(),
        }
    }

    /// Records until a signal, a limit or an error ends the run: each task at its
    /// deadline, control requests and signals between them.
    pub(crate) fn record(
        &mut self,
        stop: &AtomicUsize,
        newvol: &AtomicBool,
        events: &std::sync::mpsc::Receiver<control::Event>,
    ) -> End {
        loop {
            if let Some(end) = self.stopped(stop) {
                return end;
            }
            let by_time =
                matches!(self.o.volsize, Some(Limit::Time(d)) if self.vol_started.elapsed() >= d);
            if newvol.swap(false, Ordering::Relaxed) || by_time {
                let how = if by_time { "sample time" } else { "SIGHUP" };
                if let Err(end) = self.new_volume(how) {
                    return end;
                }
            }
            if self.finish.is_some_and(|f| self.began.elapsed() >= f) {
                return self.done("End of run time");
            }
            // the earliest deadline; with nothing to log, pmlogger waits for pmlc
            // (or a signal) as the reference does
            let now = Instant::now();
            let k = (0..self.timers.len()).min_by_key(|&k| self.timers[k].next);
            match k {
                Some(k) if self.timers[k].next <= now => {
                    if let Err(end) = self.fire(k) {
                        return end;
                    }
                    if let Some(end) = self.after_sample() {
                        return end;
                    }
                }
                _ => self.wait(k, now, events),
            }
        }
    }

    fn done(&mut self, why: &str) -> End {
        info(self.log, &format!("{PROG}: {why}, exiting"));
        0
    }

    /// A signal or `-p`'s process gone ends the run (SIGUSR2 to run again).
    fn stopped(&mut self, stop: &AtomicUsize) -> Option<End> {
        let sig = stop.load(Ordering::Relaxed);
        if sig == signal_hook::consts::SIGUSR2 as usize {
            REEXEC.store(true, Ordering::SeqCst);
            info(self.log, &format!("{PROG}: Caught signal {sig}, reexec"));
            return Some(0);
        }
        if sig != 0 {
            return Some(self.done(&format!("Caught signal {sig}")));
        }
        let pid = self.o.pid?;
        (!std::path::Path::new(&format!("/proc/{pid}")).exists())
            .then(|| self.done("process from -p has vanished"))
    }

    fn new_volume(&mut self, how: &str) -> Result<(), End> {
        match self.w.new_volume() {
            Ok(v) => {
                self.vol_started = Instant::now();
                self.since_vol = 0;
                let _ = writeln!(self.log, "New log volume {v}, via {how} at {}", ctime_now());
                Ok(())
            }
            Err(e) => Err(self.write_failed(e)),
        }
    }

    /// A write to the archive failed: the push's end when that ended it (exit
    /// status 0, as PCP's), else the error (exit status 1).
    fn write_failed(&mut self, e: impl std::fmt::Display) -> End {
        if let Some(end) = self.rec.push.as_ref().and_then(|p| p.ended(self.log)) {
            return end;
        }
        let _ = writeln!(self.log, "{PROG}: {e}");
        1
    }

    /// Waits for the next deadline (a sample, the end of the run, a volume switch
    /// by time) or an event, answering a control request; no polling, but for
    /// `-p`'s process, looked for every 100 ms.
    fn wait(
        &mut self,
        k: Option<usize>,
        now: Instant,
        events: &std::sync::mpsc::Receiver<control::Event>,
    ) {
        let mut wait = k.map_or(Duration::from_secs(3600), |k| self.timers[k].next - now);
        if let Some(f) = self.finish {
            wait = wait.min(f.saturating_sub(self.began.elapsed()));
        }
        if let Some(Limit::Time(d)) = self.o.volsize {
            wait = wait.min(d.saturating_sub(self.vol_started.elapsed()));
        }
        if self.o.pid.is_some() {
            wait = wait.min(Duration::from_millis(100));
        }
        match events.recv_timeout(wait) {
            Ok(control::Event::Request(req)) => {
                let mut ctx = Ctl {
                    source: &mut *self.source,
                    w: &mut *self.w,
                    timers: &mut self.timers,
                    rec: &mut *self.rec,
                    last: *self.last,
                    log: &mut *self.log,
                };
                let reply = ctx.handle(&req);
                let _ = req.reply.send(reply);
            }
            Ok(control::Event::Signal) | Err(RecvTimeoutError::Timeout) => {}
            // no sender left (cannot happen while the signal thread runs)
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
        }
    }

    /// pmcd went away: each firing tries to reach it again, and the gap is marked
    /// in the archive when it is back.
    fn reconnect(&mut self) -> Result<(), End> {
        if !self.rec.lost || !self.source.reconnect() {
            return Ok(());
        }
        self.rec.lost = false;
        let _ = writeln!(
            self.log,
            "{PROG}: re-established connection to PMCD on \"{}\" at {}",
            self.source.hostname(),
            ctime_now()
        );
        if let Err(e) = validate(self.source, self.rec, self.log) {
            let _ = writeln!(self.log, "{e}");
            return Err(1);
        }
        let mark = Timestamp::from_nanos(self.last.as_nanos() + 1_000_000);
        if let Err(e) = self.w.put_mark(mark) {
            return Err(self.write_failed(e));
        }
        *self.last = mark;
        Ok(())
    }

    /// Task `k` is due: one fetch and one record per fetch group (a task whose
    /// requests were all turned off fetches nothing, and still counts as a
    /// sample), `-r`'s report, and its next deadline.
    fn fire(&mut self, k: usize) -> Result<(), End> {
        self.reconnect()?;
        let task = self.timers[k].task;
        let before = self.w.data_offset();
        let mut all_pmids = Vec::new();
        let groups = self
            .rec
            .fetches
            .remove(&task)
            .unwrap_or_else(|| self.rec.plan.fetch(task));
        for what in &groups {
            if self.rec.lost {
                break;
            }
            if self.fetch_group(what)? {
                all_pmids.extend(&what.pmids);
            }
        }
        self.rec.fetches.insert(task, groups);
        let t = &mut self.timers[k];
        if self.o.report && !t.reported && !all_pmids.is_empty() {
            t.reported = true;
            let bytes = self.w.data_offset().saturating_sub(before);
            let _ = write!(self.log, "{}", report(t.every, &all_pmids, self.rec, bytes));
        }
        match t.every {
            None => {
                self.timers.remove(k);
            }
            Some(d) => {
                // absolute deadlines: no drift; skip missed slots
                t.next += d;
                let now = Instant::now();
                while t.next <= now {
                    t.next += d;
                }
            }
        }
        Ok(())
    }

    /// One fetch group fetched and written; whether it was (a failed fetch is
    /// skipped; a lost pmcd is noted and logged).
    fn fetch_group(&mut self, what: &state::Fetch) -> Result<bool, End> {
        let mut f = match self.source.fetch(&what.pmids, &what.only) {
            Ok(f) => f,
            Err(SourceError::Lost(e)) => {
                self.rec.lost = true;
                if e == "End of File" || e.contains("reset by peer") {
                    let _ = writeln!(self.log, "myFetch: End of File: PMCD exited?");
                }
                let ipc = pm_err_str(archive_format::error::PM_ERR_IPC);
                let _ = writeln!(self.log, "{PROG}: Error: {ipc}");
                let _ = writeln!(
                    self.log,
                    "{PROG}: Lost connection to PMCD on \"{}\" at {}",
                    self.source.hostname(),
                    ctime_now()
                );
                return Ok(false);
            }
            Err(e) => {
                let _ = writeln!(self.log, "{PROG}: fetch failed: {e}");
                return Ok(false);
            }
        };
        if let Some((logue, ids)) = self.rec.prologue.take() {
            if let Err(e) = logue.put(self.w, f.stamp, ids) {
                return Err(self.write_failed(e));
            }
        }
        if let Err(e) = write_fetch(self.w, self.source, &mut f, self.rec, self.log) {
            return Err(self.write_failed(e));
        }
        *self.last = f.stamp;
        self.source.recycle(f);
        Ok(true)
    }

    /// After a sample: `-v`'s volume switch by samples or bytes, and `-s`'s limits.
    fn after_sample(&mut self) -> Option<End> {
        self.samples += 1;
        self.since_vol += 1;
        let (how, switch) = match self.o.volsize {
            Some(Limit::Samples(n)) => ("sample counter", self.since_vol >= n),
            Some(Limit::Bytes(n)) => ("sample byte size", self.w.data_offset() >= n),
            _ => ("", false),
        };
        if switch {
            if let Err(end) = self.new_volume(how) {
                return Some(end);
            }
        }
        match self.o.samples {
            Some(Limit::Samples(n)) if self.samples >= n => Some(self.done("Sample limit reached")),
            Some(Limit::Bytes(n)) if self.w.total_bytes() >= n => {
                Some(self.done("Byte limit reached"))
            }
            _ => None,
        }
    }
}

/// After pmcd came back: every configured metric must still have its PMID and
/// descriptor (`validate_metrics`), else the archive cannot go on.
pub(crate) fn validate(
    source: &mut dyn Source,
    rec: &Recorder,
    log: &mut dyn Write,
) -> Result<(), String> {
    let _ = writeln!(
        log,
        "{PROG}: Validating metrics after PMCD state changed at {}",
        ctime_now()
    );
    let mut names: Vec<(&PmId, &String)> = rec.names.iter().collect();
    names.sort();
    let mut errors = 0;
    for (pmid, name) in names {
        let Some(old) = rec.metrics.get(pmid).map(|m| &m.desc) else {
            continue;
        };
        match source
            .lookup(name)
            .ok()
            .and_then(|l| l.first().map(|x| x.1))
        {
            Some(p) if p == *pmid => {}
            Some(p) => {
                let _ = writeln!(
                    log,
                    "PMID of metric \"{name}\" has changed from {pmid} to {p}"
                );
                errors += 1;
                continue;
            }
            None => {
                let _ = writeln!(log, "Error looking up {name}: Reason: Unknown metric name");
                errors += 1;
                continue;
            }
        }
        match source.desc(*pmid) {
            Ok(d) if d == *old => {}
            Ok(_) => {
                let _ = writeln!(log, "Descriptor of metric \"{name}\" has changed");
                errors += 1;
            }
            Err(e) => {
                let _ = writeln!(log, "Description unavailable for metric \"{name}\": {e}");
                errors += 1;
            }
        }
    }
    if errors > 0 {
        return Err(
            "One or more configured metrics have changed after pmcd state change. Exiting".into(),
        );
    }
    Ok(())
}

pub(crate) fn ctime_now() -> String {
    cli_common::timefmt::ctime(sources::now().sec, &cli_common::zone::local())
}

/// Whether a configuration's instance `spec` names the instance called `name`: by
/// the whole name or the name up to its first space (as pmLookupInDom).
pub(crate) fn names_instance(spec: &str, name: &str) -> bool {
    spec == name || name.split(' ').next() == Some(spec)
}

/// `-r`: what a group of metrics costs, in the reference's words (the size is our
/// record's, where the reference counts the PDU pmcd sent it).
pub(crate) fn report(
    every: Option<Duration>,
    pmids: &[PmId],
    rec: &Recorder,
    bytes: u64,
) -> String {
    let mut s = if pmids.len() > 1 {
        let mut s = format!("\nGroup [{} metrics] {{\n", pmids.len());
        for p in pmids {
            s.push_str(&format!("\t{}\n", rec.name(*p)));
        }
        s.push('}');
        s
    } else {
        format!(
            "\nMetric {}",
            pmids.first().map(|p| rec.name(*p)).unwrap_or_default()
        )
    };
    s.push_str(" logged ");
    match every {
        None => s.push_str(&format!("once: {bytes} bytes\n")),
        Some(d) => {
            let secs = d.as_secs_f64();
            if d.subsec_micros() == 0 {
                s.push_str(&format!("every {} sec: {bytes} bytes ", d.as_secs()));
            } else {
                s.push_str(&format!("every {secs:.3} sec: {bytes} bytes "));
            }
            let per_day = bytes as f64 * 86400.0 / (1024.0 * 1024.0 * secs);
            s.push_str(&format!("or {per_day:.2} Mbytes/day\n"));
        }
    }
    s
}
