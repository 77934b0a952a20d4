//! What pmlogger logs, as PCP 6.0.3's pmlogger keeps it: *tasks*, each a logging
//! state (mandatory or advisory, on or off) and an interval, holding *requests*,
//! each one metric with all its instances or a list of them. The configuration
//! and pmlc's requests (`man 3 __pmControlLog`) change these structures by the
//! reference's rules; a metric-instance's state is the state of the task of the
//! request that covers it (the request naming the instance, else one for all
//! instances), and the history of what was logged adds the "in log" and
//! "available" flags. Pure: no I/O, no clock.
//!
//! The rules, from PCP's pmlogger:
//! - a configuration statement adds its metrics to the task of its state and
//!   interval (made when there is none); a metric already requested by another
//!   task is checked against it: an advisory statement (not `mandatory maybe`)
//!   cannot override a mandatory one ("Incompatible request"); otherwise an
//!   instance the new statement names is taken out of the other task's list, and
//!   a request for all instances is left where it is (so a metric may be in two
//!   tasks, and is logged by the one that is on);
//! - a pmlc request goes to the task of its state and interval (a new one for
//!   `once`); `advisory off` and `mandatory maybe` remove requests; an advisory
//!   request cannot change what a mandatory one set; specific instances cannot be
//!   added while all instances are logged.

use crate::optfetch::{self, Group};
use archive_format::types::{InDom, PmId};

/// `PM_LOG_MANDATORY`, `PM_LOG_ADVISORY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Mandatory,
    Advisory,
}

/// `PM_LOG_ON`, `PM_LOG_OFF`, `PM_LOG_MAYBE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    On,
    Off,
    Maybe,
}

/// State bits of a task (PCP's `PMLC_*` bits).
pub const ON: u32 = 0x1;
pub const MAND: u32 = 0x2;
pub const AVAIL: u32 = 0x4;
pub const INLOG: u32 = 0x8;
pub const MAYBE: u32 = 0x10;

/// The state bits of a request: `mandatory maybe` is neither mandatory nor on.
pub fn state_of(c: Control, s: Switch) -> u32 {
    match (c, s) {
        (Control::Mandatory, Switch::Maybe) => MAYBE,
        (Control::Mandatory, Switch::On) => MAND | ON,
        (Control::Mandatory, Switch::Off) => MAND,
        (Control::Advisory, Switch::On) => ON,
        (Control::Advisory, _) => 0,
    }
}

/// A task: a logging state and interval (0 = once), and its fetch groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub state: u32,
    pub delta_ms: u32,
    /// Requests the configuration added to it (a task without any is not run).
    pub numvalid: u32,
    /// Its requests bundled into fetches (libpcp's optFetch).
    pub groups: Vec<Group>,
}

/// One metric of a task: all instances (`insts` empty), or those listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub pmid: PmId,
    pub indom: InDom,
    pub task: usize,
    pub insts: Vec<i32>,
    /// Visible to the checks of later statements (the statement that made it
    /// has ended).
    linked: bool,
}

/// Why a configuration request was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// An advisory request against a mandatory one: the reference's message
    /// (`chk_emess`) for the conflict.
    Incompatible(&'static str),
}

const CONFLICTS: [&str; 4] = [
    "Request for (advisory) ON conflicts with current (mandatory) ON state",
    "Request for (advisory) OFF conflicts with current (mandatory) ON state",
    "Request for (advisory) ON conflicts with current (mandatory) OFF state",
    "Request for (advisory) OFF conflicts with current (mandatory) OFF state",
];

/// The logging structures: tasks in the order pmlogger keeps them, and requests
/// in the order its hash chains give them (newest first).
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub tasks: Vec<Task>,
    /// Task ids in list order.
    pub order: Vec<usize>,
    /// Requests by id (`None`: deleted).
    reqs: Vec<Option<Request>>,
    /// Request ids, newest first.
    chain: Vec<usize>,
}

/// One fetch of a task: its metrics (descending PMID, as pmcd returns them) and
/// its instance profile (instance domains fetched in part).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fetch {
    pub pmids: Vec<PmId>,
    pub only: Vec<(InDom, Vec<i32>)>,
}

impl Plan {
    fn req(&self, id: usize) -> &Request {
        self.reqs[id].as_ref().expect("live request")
    }

    /// The requests of a metric, newest first.
    pub fn requests(&self, pmid: PmId) -> impl Iterator<Item = &Request> {
        self.chain
            .iter()
            .filter_map(|&id| self.reqs[id].as_ref())
            .filter(move |r| r.pmid == pmid)
    }

    fn ids_of(&self, pmid: PmId) -> Vec<usize> {
        self.chain
            .iter()
            .copied()
            .filter(|&id| self.req(id).pmid == pmid)
            .collect()
    }

    fn opt_req(&self, id: usize) -> optfetch::Req {
        let r = self.req(id);
        optfetch::Req {
            id,
            pmid: r.pmid,
            indom: r.indom,
            insts: r.insts.clone(),
        }
    }

    /// A new request, at the head of the chain and in its task's fetches.
    fn create(
        &mut self,
        pmid: PmId,
        indom: InDom,
        task: usize,
        insts: Vec<i32>,
        linked: bool,
    ) -> usize {
        self.reqs.push(Some(Request {
            pmid,
            indom,
            task,
            insts,
            linked,
        }));
        let id = self.reqs.len() - 1;
        self.chain.insert(0, id);
        let r = self.opt_req(id);
        optfetch::add(&mut self.tasks[task].groups, r);
        id
    }

    /// Out of its task's fetches (`__pmOptFetchDel`).
    fn ungroup(&mut self, id: usize) {
        let t = self.req(id).task;
        optfetch::del(&mut self.tasks[t].groups, id);
    }

    /// Into `task`'s fetches (`__pmOptFetchAdd`).
    fn group(&mut self, id: usize, task: usize) {
        if let Some(r) = self.reqs[id].as_mut() {
            r.task = task;
        }
        let r = self.opt_req(id);
        optfetch::add(&mut self.tasks[task].groups, r);
    }

    /// Out of its fetches, the chain and the arena.
    fn delete(&mut self, id: usize) {
        self.ungroup(id);
        self.chain.retain(|&c| c != id);
        self.reqs[id] = None;
    }

    fn conflict(&self, ctask: usize, state: u32) -> Option<&'static str> {
        let cur = self.tasks[ctask].state;
        if cur & MAND != 0 && state & MAND == 0 && state & MAYBE == 0 {
            let k = match (cur & ON != 0, state & ON != 0) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            };
            return Some(CONFLICTS[k]);
        }
        None
    }

    /// `undo`: takes `inst` out of a request's list, regrouping it (a request
    /// left with none is deleted, and a task left with no fetches leaves the
    /// list). A request for all instances is left alone (the reference cannot
    /// express "all but this one").
    fn undo(&mut self, id: usize, inst: i32) {
        if self.req(id).insts.is_empty() {
            return;
        }
        let task = self.req(id).task;
        self.ungroup(id);
        if let Some(r) = self.reqs[id].as_mut() {
            r.insts.retain(|i| *i != inst);
        }
        if self.req(id).insts.is_empty() {
            if self.tasks[task].groups.is_empty() {
                self.order.retain(|&t| t != task);
            }
            self.chain.retain(|&c| c != id);
            self.reqs[id] = None;
        } else {
            self.group(id, task);
        }
    }

    /// The task of a configuration statement: the one with this state and
    /// interval, else a new one at the end of the list.
    pub fn statement_task(&mut self, state: u32, delta_ms: u32) -> usize {
        if let Some(&t) = self
            .order
            .iter()
            .find(|&&t| self.tasks[t].state == state && self.tasks[t].delta_ms == delta_ms)
        {
            return t;
        }
        self.tasks.push(Task {
            state,
            delta_ms,
            numvalid: 0,
            groups: Vec::new(),
        });
        let id = self.tasks.len() - 1;
        self.order.push(id);
        id
    }

    /// A configuration statement's metric: all instances (`insts` None) or the
    /// listed ones (already resolved; the warnings for unknown ones are the
    /// caller's). Returns the refusals to report, per instance (`Some(inst)`) or
    /// for the metric.
    pub fn configure(
        &mut self,
        task: usize,
        pmid: PmId,
        indom: InDom,
        insts: Option<&[i32]>,
    ) -> Vec<(Option<i32>, Refusal)> {
        let state = self.tasks[task].state;
        let mut refusals = Vec::new();
        let mut keep = Vec::new();
        let mut skip = false;
        match insts {
            Some(list) => {
                for &inst in list {
                    match self.find_at(pmid, inst) {
                        Some(id) if self.req(id).linked => {
                            let ctask = self.req(id).task;
                            if ctask == task {
                                skip = true;
                                continue;
                            }
                            if let Some(why) = self.conflict(ctask, state) {
                                refusals.push((Some(inst), Refusal::Incompatible(why)));
                                continue;
                            }
                            self.undo(id, inst);
                            keep.push(inst);
                        }
                        _ => keep.push(inst),
                    }
                }
                if keep.is_empty() {
                    skip = true;
                }
            }
            None => {
                for id in self.ids_of(pmid) {
                    let Some(r) = self.reqs[id].as_ref() else {
                        continue;
                    };
                    if !r.linked {
                        continue;
                    }
                    if r.task == task {
                        // the same metric again in this task: all its instances
                        let t = r.task;
                        if let Some(r) = self.reqs[id].as_mut() {
                            r.insts.clear();
                        }
                        optfetch::widen_to_all(&mut self.tasks[t].groups, id);
                        skip = true;
                        break;
                    }
                    if let Some(why) = self.conflict(r.task, state) {
                        refusals.push((None, Refusal::Incompatible(why)));
                        skip = true;
                        break;
                    }
                    self.undo(id, -1);
                }
            }
        }
        if !skip {
            self.create(pmid, indom, task, keep, false);
            self.tasks[task].numvalid += 1;
        }
        refusals
    }

    /// The end of a configuration statement: its requests become visible to the
    /// checks of the statements after it.
    pub fn end_statement(&mut self, task: usize) {
        for r in self.reqs.iter_mut().flatten().filter(|r| r.task == task) {
            r.linked = true;
        }
    }

    /// The end of the configuration: `mandatory maybe` tasks become plain
    /// advisory off ones.
    pub fn end_config(&mut self) {
        for t in &mut self.tasks {
            if t.numvalid > 0 {
                t.state &= !MAYBE;
            }
        }
    }

    /// Tasks the configuration made that run: on, and with requests.
    pub fn runnable(&self) -> Vec<usize> {
        self.order
            .iter()
            .copied()
            .filter(|&t| self.tasks[t].state & ON != 0 && self.tasks[t].numvalid > 0)
            .collect()
    }

    /// `findoptreq`: the request naming `inst`, else the oldest one for all
    /// instances.
    fn find_at(&self, pmid: PmId, inst: i32) -> Option<usize> {
        let mut all = None;
        for &id in &self.chain {
            let r = self.req(id);
            if r.pmid != pmid {
                continue;
            }
            if r.insts.is_empty() {
                all = Some(id);
            } else if r.insts.contains(&inst) {
                return Some(id);
            }
        }
        all
    }

    /// The state word of a metric-instance (without the history flags): its
    /// task's state (on, mandatory) and interval.
    pub fn word(&self, pmid: PmId, inst: i32) -> u32 {
        match self.find_at(pmid, inst) {
            None => 0,
            Some(id) => {
                let t = &self.tasks[self.req(id).task];
                (t.state & 0x3) | ((t.delta_ms & 0x0fff_ffff) << 4)
            }
        }
    }

    /// What a task fetches now: one fetch (and one record) per group.
    pub fn fetch(&self, task: usize) -> Vec<Fetch> {
        self.tasks[task]
            .groups
            .iter()
            .map(|g| Fetch {
                pmids: g.pmids(),
                only: g.profile(),
            })
            .collect()
    }

    /// `find_metric`'s flags: (has an instance domain, has a request for all
    /// instances, has one for specific instances, has a mandatory one); `None`
    /// when no request names the metric.
    fn flags(&self, pmid: PmId) -> Option<(bool, bool, bool, bool)> {
        let first = self.requests(pmid).next()?;
        let indom = !first.indom.is_null();
        let (all, some) = (
            indom && first.insts.is_empty(),
            indom && !first.insts.is_empty(),
        );
        let mand = self
            .requests(pmid)
            .any(|r| self.tasks[r.task].state & MAND != 0);
        Some((indom, all, some, mand))
    }

    /// A pmlc request (`do_control`): `metrics` are `(pmid, its instance domain,
    /// the instances named; empty = all)`. Returns the id of a task it made, to
    /// be scheduled when it is on.
    pub fn control(
        &mut self,
        c: Control,
        s: Switch,
        delta_ms: u32,
        metrics: &[(PmId, InDom, Vec<i32>)],
    ) -> Option<usize> {
        let req = state_of(c, s);
        let (ntp, new_task) = self.task_for(req, delta_ms);
        let ask = Ask {
            req,
            ntp,
            removing: req & MAYBE != 0 || (req & MAND == 0 && req & ON == 0),
        };
        for (pmid, indom, insts) in metrics {
            let (pmid, indom) = (*pmid, *indom);
            let Some((has_indom, has_all, has_inst, has_mand)) = self.flags(pmid) else {
                // only on, or mandatory off, adds a metric no request names
                if req & ON != 0 || (req & MAND != 0 && req & MAYBE == 0) {
                    let insts = if indom.is_null() {
                        Vec::new()
                    } else {
                        insts.clone()
                    };
                    self.create(pmid, indom, ntp, insts, true);
                }
                continue;
            };
            if !has_indom {
                self.control_singular(pmid, ask);
            } else if !insts.is_empty() {
                // "all" cannot become specific instances
                if !has_all {
                    for &inst in insts {
                        self.control_instance(pmid, indom, inst, ask);
                    }
                }
            } else if !(has_mand && req & MAND == 0 && req & MAYBE == 0) {
                if has_all {
                    self.control_all(pmid, ask);
                } else if !(req & MAYBE != 0 && has_inst && !has_mand) {
                    for id in self.ids_of(pmid) {
                        self.delete(id);
                    }
                    if !ask.removing {
                        self.create(pmid, indom, ntp, Vec::new(), true);
                    }
                }
            }
        }
        if !new_task || self.tasks[ntp].groups.is_empty() {
            return None;
        }
        // a new task goes to the head of the list
        self.order.insert(0, ntp);
        Some(ntp)
    }

    /// The task a request goes to: one in the same state at the same interval, or
    /// a new one (`true`), not yet in the order.
    fn task_for(&mut self, req: u32, delta_ms: u32) -> (usize, bool) {
        let found = (delta_ms != 0).then(|| {
            self.order.iter().copied().find(|&t| {
                self.tasks[t].state & 0x3 == req & 0x3 && self.tasks[t].delta_ms == delta_ms
            })
        });
        if let Some(Some(t)) = found {
            return (t, false);
        }
        self.tasks.push(Task {
            state: req & 0x3,
            delta_ms: if req & ON != 0 { delta_ms } else { 0 },
            numvalid: 0,
            groups: Vec::new(),
        });
        (self.tasks.len() - 1, true)
    }

    /// A metric without instances: moved to the new task, or removed.
    fn control_singular(&mut self, pmid: PmId, ask: Ask) {
        let Some(id) = self.find_at(pmid, 0) else {
            return;
        };
        if self.update_refused(self.req(id).task, ask.req) {
            return;
        }
        self.remove_or_move(id, ask);
    }

    /// Request `id` removed, or moved to the request's task.
    fn remove_or_move(&mut self, id: usize, ask: Ask) {
        if ask.removing {
            self.delete(id);
        } else {
            self.ungroup(id);
            self.group(id, ask.ntp);
        }
    }

    /// One instance named: taken out of the request that has it, and added to the
    /// smallest list of this metric in the new task (or a new one).
    fn control_instance(&mut self, pmid: PmId, indom: InDom, inst: i32, ask: Ask) {
        if let Some(id) = self.find_at(pmid, inst) {
            let ctask = self.req(id).task;
            if ctask == ask.ntp || self.update_refused(ctask, ask.req) {
                return;
            }
            self.ungroup(id);
            if self.req(id).insts.len() > 1 {
                if let Some(r) = self.reqs[id].as_mut() {
                    r.insts.retain(|i| *i != inst);
                }
                self.group(id, ctask);
            } else {
                self.chain.retain(|&c| c != id);
                self.reqs[id] = None;
            }
        }
        if ask.removing {
            return;
        }
        let mut best: Option<usize> = None;
        for id in self.ids_of(pmid) {
            let r = self.req(id);
            if r.task == ask.ntp && !r.insts.is_empty() {
                let n = r.insts.len();
                if best.is_none_or(|b| n < self.req(b).insts.len()) {
                    best = Some(id);
                }
            }
        }
        match best {
            Some(id) => {
                self.ungroup(id);
                if let Some(r) = self.reqs[id].as_mut() {
                    r.insts.push(inst);
                }
                self.group(id, ask.ntp);
            }
            None => {
                self.create(pmid, indom, ask.ntp, vec![inst], true);
            }
        }
    }

    /// All instances asked for, where a request for all of them exists.
    fn control_all(&mut self, pmid: PmId, ask: Ask) {
        let Some(id) = self.find_at(pmid, i32::MIN) else {
            return;
        };
        let ctask = self.req(id).task;
        if self.tasks[ctask].state & MAND == 0 && ask.req & MAYBE != 0 {
            return;
        }
        self.remove_or_move(id, ask);
    }

    /// `update_ok`: an advisory request (not `mandatory maybe`) cannot change a
    /// mandatory state.
    fn update_refused(&self, ctask: usize, req: u32) -> bool {
        req & MAND == 0 && req & MAYBE == 0 && self.tasks[ctask].state & MAND != 0
    }
}

/// One pmlc request as `control` carries it to each metric.
#[derive(Clone, Copy)]
struct Ask {
    /// The request's state bits.
    req: u32,
    /// The task it goes to.
    ntp: usize,
    /// Off, or mandatory maybe: requests are removed, not moved.
    removing: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: PmId = PmId(10);
    const B: PmId = PmId(11);
    const C: PmId = PmId(5);
    const D: InDom = InDom(7);

    fn config(
        p: &mut Plan,
        st: u32,
        delta: u32,
        metrics: &[(PmId, InDom, Option<&[i32]>)],
    ) -> Vec<(Option<i32>, Refusal)> {
        let t = p.statement_task(st, delta);
        let mut out = Vec::new();
        for (pmid, indom, insts) in metrics {
            out.extend(p.configure(t, *pmid, *indom, *insts));
        }
        p.end_statement(t);
        out
    }

    /// The reference's behaviour, observed: `mandatory off` does not take a metric
    /// out of an advisory task that logs it; an advisory request after a
    /// mandatory one is refused; same state and interval share a task.
    #[test]
    fn configuration_rules() {
        let mut p = Plan::default();
        config(
            &mut p,
            ON,
            200,
            &[(A, InDom::NULL, None), (B, InDom::NULL, None)],
        );
        config(&mut p, MAND, 0, &[(B, InDom::NULL, None)]);
        let m = config(&mut p, MAND | ON, 200, &[(PmId(93), InDom::NULL, None)]);
        assert!(m.is_empty());
        config(&mut p, MAYBE, 0, &[(PmId(93), InDom::NULL, None)]);
        let r = config(&mut p, 0, 0, &[(PmId(93), InDom::NULL, None)]);
        assert_eq!(r, vec![(None, Refusal::Incompatible(CONFLICTS[1]))]);
        config(&mut p, ON, 200, &[(PmId(15), InDom::NULL, None)]);
        p.end_config();
        let run = p.runnable();
        assert_eq!(run.len(), 2);
        assert_eq!(p.fetch(run[0])[0].pmids, vec![PmId(15), B, A]);
        assert_eq!(p.fetch(run[1])[0].pmids, vec![PmId(93)]);
        // B's state is its advisory task's (the oldest request for all instances)
        assert_eq!(p.word(B, -1), ON | (200 << 4));
    }

    #[test]
    fn instance_lists_in_one_task_merge_and_all_wins() {
        let mut p = Plan::default();
        config(
            &mut p,
            MAND | ON,
            300,
            &[
                (C, D, Some(&[0])),
                (A, D, Some(&[100])),
                (A, D, Some(&[200])),
            ],
        );
        config(&mut p, MAND | ON, 300, &[(C, D, None)]);
        p.end_config();
        let f = p.fetch(p.runnable()[0]);
        // C wants all of D now (widened in place, as the reference does), so
        // the one fetch is not cut down
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].pmids, vec![A, C]);
        assert!(f[0].only.is_empty());
    }

    /// pmlc: instances toggled one by one, a query per instance, everything off
    /// leaves the tasks in place.
    #[test]
    fn pmlc_instance_control() {
        let mut p = Plan::default();
        config(&mut p, MAND | ON, 200, &[(C, D, Some(&[0, 1]))]);
        p.end_config();
        // mandatory off for one instance: a new task holds it
        let t = p.control(Control::Mandatory, Switch::Off, 0, &[(C, D, vec![0])]);
        assert!(t.is_some());
        assert_eq!(p.word(C, 0), MAND);
        assert_eq!(p.word(C, 1), MAND | ON | (200 << 4));
        assert_eq!(p.word(C, 2), 0);
        // turn another on at the existing interval: it joins the running task
        assert_eq!(
            p.control(Control::Mandatory, Switch::On, 200, &[(C, D, vec![2])]),
            None
        );
        assert_eq!(p.word(C, 2), MAND | ON | (200 << 4));
        let run = p.runnable()[0];
        assert_eq!(p.fetch(run)[0].only, vec![(D, vec![1, 2])]);
        // advisory cannot touch mandatory instances
        p.control(Control::Advisory, Switch::Off, 0, &[(C, D, vec![1])]);
        assert_eq!(p.word(C, 1), MAND | ON | (200 << 4));
        // mandatory maybe removes; all instances then cannot be made specific
        p.control(Control::Mandatory, Switch::Maybe, 0, &[(C, D, Vec::new())]);
        assert_eq!(p.word(C, 1), 0);
        assert!(p.fetch(run).is_empty());
        p.control(Control::Advisory, Switch::On, 400, &[(C, D, Vec::new())]);
        assert_eq!(p.word(C, 1), ON | (400 << 4));
        p.control(Control::Advisory, Switch::On, 400, &[(C, D, vec![1])]);
        assert_eq!(p.word(C, 1), ON | (400 << 4));
        assert_eq!(p.requests(C).count(), 1);
    }

    #[test]
    fn singular_metrics_move_between_tasks() {
        let mut p = Plan::default();
        config(&mut p, ON, 1000, &[(A, InDom::NULL, None)]);
        p.end_config();
        let t = p.control(
            Control::Mandatory,
            Switch::On,
            500,
            &[(A, InDom::NULL, Vec::new())],
        );
        assert!(t.is_some());
        assert_eq!(p.word(A, -1), MAND | ON | (500 << 4));
        // advisory off is refused under mandatory; mandatory maybe removes it
        p.control(
            Control::Advisory,
            Switch::Off,
            0,
            &[(A, InDom::NULL, Vec::new())],
        );
        assert_eq!(p.word(A, -1), MAND | ON | (500 << 4));
        p.control(
            Control::Mandatory,
            Switch::Maybe,
            0,
            &[(A, InDom::NULL, Vec::new())],
        );
        assert_eq!(p.word(A, -1), 0);
        // a metric no request names is added only by on or mandatory off
        p.control(
            Control::Advisory,
            Switch::Off,
            0,
            &[(B, InDom::NULL, Vec::new())],
        );
        assert_eq!(p.requests(B).count(), 0);
    }
}
