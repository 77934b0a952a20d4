//! Control handling: pmlc's requests (status, logging changes, new volume, flush)
//! answered between fetches, as PCP's pmlogger answers them.

use super::*;

/// What a control request may look at and change: the recording in progress.
pub(crate) struct Ctl<'a> {
    pub(crate) source: &'a mut dyn Source,
    pub(crate) w: &'a mut ArchiveWriter,
    pub(crate) timers: &'a mut Vec<Timer>,
    pub(crate) rec: &'a mut Recorder,
    pub(crate) last: Timestamp,
    pub(crate) log: &'a mut dyn Write,
}

impl Ctl<'_> {
    /// A PMID's names as pmNameAll gives them, joined as the reference's log
    /// joins them.
    pub(crate) fn all_names(&mut self, pmid: PmId) -> String {
        match self.source.names(pmid) {
            Ok(n) if !n.is_empty() => n.join(" or "),
            _ => pmid.to_string(),
        }
    }

    /// Carries out one request; returns the encoded reply.
    pub(crate) fn handle(&mut self, req: &control::Request) -> Vec<u8> {
        use pdu::{request as r, Pdu};
        // what the [access] rules must allow: status and enquire need nothing
        // beyond being let in, as in the reference
        if matches!(&req.pdu, Pdu::LogRequest { request, .. } if *request == r::NEWVOLUME)
            && req.ops & access::MANDATORY == 0
        {
            return pdu::encode(&error(archive_format::error::PM_ERR_PERMISSION));
        }
        let reply = match &req.pdu {
            Pdu::LogRequest { request, .. } => self.log_request(*request),
            Pdu::LogControl {
                control,
                state,
                delta,
                metrics,
                ..
            } => self.log_control(req, (*control, *state, *delta), metrics),
            _ => error(archive_format::error::PM_ERR_IPC),
        };
        pdu::encode(&reply)
    }

    /// A LOG_REQUEST: status, a new volume, or a sync.
    fn log_request(&mut self, request: i32) -> pdu::Pdu {
        use pdu::request as r;
        match request {
            r::STATUS => self.status(),
            r::NEWVOLUME => match self.w.new_volume() {
                Ok(v) => {
                    let _ = writeln!(
                        self.log,
                        "New log volume {v}, via pmlc request at {}",
                        ctime_now()
                    );
                    error(v as i32)
                }
                Err(e) => {
                    let _ = writeln!(self.log, "{PROG}: {e}");
                    error(-5)
                }
            },
            r::SYNC => error(self.w.flush().map_or(-5, |_| 0)),
            _ => error(archive_format::error::PM_ERR_IPC),
        }
    }

    /// A LOG_CONTROL (`control`, `state`, `delta`): an enquiry, or a change of
    /// logging that goes to the log and must be allowed by the `[access]` rules.
    fn log_control(
        &mut self,
        req: &control::Request,
        (control, state, delta): (i32, i32, i32),
        metrics: &[pdu::ValueList],
    ) -> pdu::Pdu {
        use pdu::{control as c, state as s};
        let ctl = match control {
            c::ENQUIRE => return self.reply(None, metrics),
            c::MANDATORY => state::Control::Mandatory,
            c::ADVISORY => state::Control::Advisory,
            _ => {
                let _ = writeln!(self.log, "Bad control PDU type {control}");
                return error(archive_format::error::PM_ERR_IPC);
            }
        };
        let sw = match state {
            s::ON => Switch::On,
            s::OFF => Switch::Off,
            _ => Switch::Maybe,
        };
        let d = delta.max(0) as u32;
        let mandatory = ctl == state::Control::Mandatory;
        let _ = writeln!(
            self.log,
            "\n{}\npmlc request from {}: {} {}",
            ctime_now(),
            req.peer,
            if mandatory { "mandatory" } else { "advisory" },
            match sw {
                Switch::On if d == 0 => "on once".to_string(),
                Switch::On => format!("on {} sec", secs(d)),
                Switch::Off => "off".into(),
                Switch::Maybe => "maybe".into(),
            }
        );
        let need = if mandatory {
            access::MANDATORY
        } else {
            access::ADVISORY
        };
        if req.ops & need == 0 {
            let code = archive_format::error::PM_ERR_PERMISSION;
            let _ = writeln!(self.log, "Error: {}", pm_err_str(code));
            return error(code);
        }
        self.apply(ctl, sw, d, metrics);
        self.reply(Some((ctl, sw, d)), metrics)
    }

    pub(crate) fn status(&mut self) -> pdu::Pdu {
        let now = sources::now();
        let start = self.w.start();
        let (tz, _) = self.source.timezone();
        let (local_tz, _) = sources::local_timezone();
        pdu::Pdu::LogStatus {
            from: 0,
            status: pdu::LogStatus {
                start: start.unwrap_or_default(),
                last: self.last,
                now,
                state: start.is_some() as i32,
                vol: self.w.volume() as i32,
                size: self.w.data_offset() as i64,
                strings: [
                    Some(self.source.hostname()),
                    Some(self.source.host_spec()),
                    Some(tz),
                    None,
                    Some(local_tz),
                    None,
                ],
            },
        }
    }

    /// A logging request: the tasks and requests change as the reference's do,
    /// and a task it makes that is on gets a timer.
    pub(crate) fn apply(
        &mut self,
        ctl: state::Control,
        sw: Switch,
        delta_ms: u32,
        metrics: &[pdu::ValueList],
    ) {
        let mut list = Vec::with_capacity(metrics.len());
        for m in metrics {
            if m.numval < 0 {
                continue;
            }
            let pmid = PmId(m.pmid);
            let Ok(desc) = self.source.desc(pmid) else {
                continue;
            };
            self.rec.names.entry(pmid).or_insert_with(|| {
                self.source
                    .names(pmid)
                    .ok()
                    .and_then(|n| n.into_iter().next())
                    .unwrap_or_else(|| pmid.to_string())
            });
            let insts = m.values.iter().map(|(i, _)| *i).collect();
            list.push((pmid, desc.indom, insts));
        }
        // what the tasks fetch is worked out again
        self.rec.fetches.clear();
        if let Some(task) = self.rec.plan.control(ctl, sw, delta_ms, &list) {
            let t = &self.rec.plan.tasks[task];
            if t.state & state::ON != 0 {
                let d = t.delta_ms;
                self.timers.push(Timer {
                    task,
                    every: (d > 0).then(|| Duration::from_millis(d as u64)),
                    next: Instant::now() + Duration::from_millis(d as u64),
                    reported: false,
                });
            }
        }
    }

    /// The reply to a LOG_CONTROL: each metric-instance's state word (its task's
    /// state and interval, and the history flags). Instances: those of the
    /// request, else the instance domain now (and, for an enquiry, the instances
    /// logged before that it no longer has). A logging request also goes to the
    /// log, metric by metric, with "[request failed]" where the state is not what
    /// was asked.
    pub(crate) fn reply(
        &mut self,
        change: Option<(state::Control, Switch, u32)>,
        metrics: &[pdu::ValueList],
    ) -> pdu::Pdu {
        let mut vsets = Vec::with_capacity(metrics.len());
        for m in metrics {
            let pmid = PmId(m.pmid);
            if change.is_some() {
                let names = self.all_names(pmid);
                let _ = write!(self.log, "  metric: {names}");
            }
            let desc = self.source.desc(pmid);
            let insts = match self.instances_of(m, &desc, change.is_some()) {
                Ok(insts) => insts,
                Err(code) => {
                    if change.is_some() {
                        let _ = writeln!(self.log);
                    }
                    vsets.push(pdu::ValueList {
                        pmid: m.pmid,
                        numval: code,
                        values: Vec::new(),
                    });
                    continue;
                }
            };
            let indom = desc.as_ref().map_or(InDom::NULL, |d| d.indom);
            let names: Vec<(i32, String)> = if change.is_some() && !indom.is_null() {
                self.source.instances(indom).unwrap_or_default()
            } else {
                Vec::new()
            };
            let mut values = Vec::with_capacity(insts.len());
            for (j, inst) in insts.iter().enumerate() {
                let word = self.rec.plan.word(pmid, *inst)
                    | self.rec.hist_flags(pmid, *inst, indom.is_null());
                values.push((*inst, word));
                if let Some(asked) = change {
                    let one = insts.len() == 1 && *inst == -1;
                    let covered = self.rec.plan.requests(pmid).next().is_some();
                    let named = (!indom.is_null() && covered || !one).then_some(&names[..]);
                    self.log_instance(j, *inst, named, word, asked);
                }
            }
            vsets.push(pdu::ValueList {
                pmid: m.pmid,
                numval: values.len() as i32,
                values,
            });
        }
        pdu::Pdu::Result {
            from: 0,
            sec: 0,
            usec: 0,
            vsets,
        }
    }

    /// The instances a reply gives for one metric: those of the request, else the
    /// instance domain now (and, for an enquiry, the instances logged before that
    /// it no longer has); `Err` with the code of a metric without a descriptor.
    fn instances_of(
        &mut self,
        m: &pdu::ValueList,
        desc: &Result<Desc, SourceError>,
        change: bool,
    ) -> Result<Vec<i32>, i32> {
        if m.numval > 0 {
            return Ok(m.values.iter().map(|(i, _)| *i).collect());
        }
        let d = match desc {
            Err(e) => return Err(e.code()),
            Ok(d) if d.indom.is_null() => return Ok(vec![-1]),
            Ok(d) => d,
        };
        let mut v: Vec<i32> = self
            .source
            .instances(d.indom)
            .unwrap_or_default()
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        if !change {
            if let Some(h) = self.rec.metrics.get(&PmId(m.pmid)) {
                for i in &h.ever {
                    if !v.contains(i) {
                        v.push(*i);
                    }
                }
            }
        }
        Ok(v)
    }

    /// The log's line for the `j`th instance of a logging request's reply (its
    /// name from `names` where the line has one), with "[request failed]" where
    /// its state `word` is not what was asked.
    fn log_instance(
        &mut self,
        j: usize,
        inst: i32,
        names: Option<&[(i32, String)]>,
        word: u32,
        (ctl, sw, d): (state::Control, Switch, u32),
    ) {
        if let Some(names) = names {
            if j == 0 {
                let _ = writeln!(self.log);
            }
            match names.iter().find(|(i, _)| *i == inst) {
                Some((_, n)) => {
                    let _ = write!(self.log, "    instance: {n}");
                }
                None => {
                    let _ = write!(self.log, "    instance: #{inst}");
                }
            }
        }
        // the state asked for, and the bits that say whether it holds
        let (want, mask) = match sw {
            Switch::Maybe => (0, state::MAND),
            _ => (state::state_of(ctl, sw) & 0x3, state::MAND | state::ON),
        };
        let want_delta = if want & state::ON != 0 { d } else { 0 };
        if word & mask != want || (word >> 4) != want_delta {
            let _ = write!(self.log, " [request failed]");
        }
        let _ = writeln!(self.log);
    }
}

/// The reply that carries only a code.
fn error(code: i32) -> pdu::Pdu {
    pdu::Pdu::Error { from: 0, code }
}

/// An interval in seconds as the reference logs it (one decimal, single precision).
pub(crate) fn secs(ms: u32) -> String {
    format!("{:.1}", ms as f32 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pdu::{control as c, request as r, state as s, Pdu, ValueList};

    /// A recording of the sample source into a temporary archive, and what the
    /// requests wrote to the log.
    struct Fixture {
        _dir: tempfile::TempDir,
        source: sources::sample::Sample,
        w: ArchiveWriter,
        timers: Vec<Timer>,
        rec: Recorder,
        log: Vec<u8>,
    }

    impl Fixture {
        fn new() -> Fixture {
            let dir = tempfile::tempdir().expect("tempdir");
            let w = ArchiveWriter::create(dir.path().join("a"), WriterOptions::default())
                .expect("archive");
            Fixture {
                _dir: dir,
                source: sources::sample::Sample::new(),
                w,
                timers: Vec::new(),
                rec: Recorder::default(),
                log: Vec::new(),
            }
        }

        /// The decoded reply to `pdu` from a client allowed `ops`.
        fn ask(&mut self, pdu: Pdu, ops: u8) -> Pdu {
            let (tx, _rx) = std::sync::mpsc::channel();
            let req = control::Request {
                pdu,
                peer: "127.0.0.1".into(),
                ops,
                reply: tx,
            };
            let mut ctl = Ctl {
                source: &mut self.source,
                w: &mut self.w,
                timers: &mut self.timers,
                rec: &mut self.rec,
                last: Timestamp::new(10, 0),
                log: &mut self.log,
            };
            pdu::decode(&ctl.handle(&req)).expect("a PDU")
        }

        fn log(&self) -> String {
            String::from_utf8_lossy(&self.log).into_owned()
        }
    }

    fn control(control: i32, state: i32, delta: i32, pmid: PmId) -> Pdu {
        Pdu::LogControl {
            from: 0,
            control,
            state,
            delta,
            metrics: vec![ValueList {
                pmid: pmid.0,
                numval: 0,
                values: Vec::new(),
            }],
        }
    }

    const LONG_ONE: PmId = PmId::new(29, 0, 10);
    const ALL: u8 = access::ADVISORY | access::MANDATORY | access::ENQUIRE;

    fn code(p: &Pdu) -> i32 {
        match p {
            Pdu::Error { code, .. } => *code,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn status_says_what_is_recorded() {
        let mut f = Fixture::new();
        let Pdu::LogStatus { status, .. } = f.ask(
            Pdu::LogRequest {
                from: 0,
                request: r::STATUS,
            },
            access::ENQUIRE,
        ) else {
            panic!("not a status");
        };
        assert_eq!(status.last, Timestamp::new(10, 0));
        assert_eq!(status.state, 0, "nothing written yet");
        assert_eq!(status.vol, 0);
        assert_eq!(status.strings[0].as_deref(), Some("sample"));
    }

    #[test]
    fn a_mandatory_request_changes_the_plan_and_is_logged() {
        let mut f = Fixture::new();
        let reply = f.ask(control(c::MANDATORY, s::ON, 2500, LONG_ONE), ALL);
        let Pdu::Result { vsets, .. } = reply else {
            panic!("not a result: {reply:?}");
        };
        assert_eq!(vsets.len(), 1);
        assert_eq!(vsets[0].pmid, LONG_ONE.0);
        // one value for a singular metric: mandatory on, every 2500 ms
        let (inst, word) = vsets[0].values[0];
        assert_eq!(inst, -1);
        assert_eq!(word & (state::MAND | state::ON), state::MAND | state::ON);
        assert_eq!(word >> 4, 2500);
        assert_eq!(f.timers.len(), 1, "the new task has a timer");
        let log = f.log();
        assert!(
            log.contains("pmlc request from 127.0.0.1: mandatory on 2.5 sec"),
            "{log}"
        );
        assert!(log.contains("  metric: sample.long.one\n"), "{log}");
        // asked again: the same task, no second timer
        f.ask(control(c::MANDATORY, s::ON, 2500, LONG_ONE), ALL);
        assert_eq!(f.timers.len(), 1);
        // an enquiry changes nothing and logs nothing
        let before = f.log.len();
        let Pdu::Result { vsets, .. } = f.ask(control(c::ENQUIRE, 0, 0, LONG_ONE), ALL) else {
            panic!("not a result");
        };
        assert_eq!(vsets[0].values[0].1 >> 4, 2500);
        assert_eq!(f.log.len(), before);
    }

    #[test]
    fn requests_the_access_rules_refuse() {
        let mut f = Fixture::new();
        let denied = archive_format::error::PM_ERR_PERMISSION;
        let reply = f.ask(
            control(c::MANDATORY, s::ON, 1000, LONG_ONE),
            access::ADVISORY,
        );
        assert_eq!(code(&reply), denied);
        assert!(f.log().contains("Error: "), "{}", f.log());
        assert!(f.timers.is_empty());
        let newvol = Pdu::LogRequest {
            from: 0,
            request: r::NEWVOLUME,
        };
        assert_eq!(code(&f.ask(newvol.clone(), access::ADVISORY)), denied);
        assert_eq!(f.w.volume(), 0);
        // allowed: the volume number comes back, and the log says so
        assert_eq!(code(&f.ask(newvol, access::MANDATORY)), 1);
        assert_eq!(f.w.volume(), 1);
        assert!(f.log().contains("New log volume 1, via pmlc request"));
    }

    #[test]
    fn what_is_not_a_request() {
        let mut f = Fixture::new();
        let ipc = archive_format::error::PM_ERR_IPC;
        assert_eq!(code(&f.ask(control(99, s::ON, 0, LONG_ONE), ALL)), ipc);
        assert!(f.log().contains("Bad control PDU type 99"));
        let odd = Pdu::LogRequest {
            from: 0,
            request: 42,
        };
        assert_eq!(code(&f.ask(odd, ALL)), ipc);
        assert_eq!(code(&f.ask(Pdu::Error { from: 0, code: 0 }, ALL)), ipc);
    }

    #[test]
    fn interval_text() {
        assert_eq!(secs(500), "0.5");
        assert_eq!(secs(60_000), "60.0");
        assert_eq!(secs(1250), "1.2");
    }
}
