//! Fetch planning: the configuration's statements as tasks with their timers, and
//! the fetch groups libpcp would make of them.

use super::*;

/// A task's timer: when it fires next.
pub(crate) struct Timer {
    pub(crate) task: usize,
    /// The task's interval (`None`: once).
    pub(crate) every: Option<Duration>,
    pub(crate) next: Instant,
    /// `-r`: its size has been reported.
    pub(crate) reported: bool,
}

/// Turns the configuration into PCP's tasks and requests ([`state::Plan`]),
/// reporting unknown names and instances and incompatible requests as the
/// reference does; `names` gets the name each PMID was configured by.
pub(crate) fn plan(
    stmts: &[Statement],
    source: &mut dyn Source,
    file: &str,
    log: &mut dyn Write,
    names: &mut HashMap<PmId, String>,
) -> Option<Plan> {
    let mut p = Plan::default();
    for s in stmts {
        let state = state::state_of(s.control, s.switch);
        let delta = if state & state::ON == 0 {
            0
        } else {
            match s.every {
                Every::Once => 0,
                Every::Millis(ms) => ms.min(u32::MAX as u64) as u32,
            }
        };
        let task = p.statement_task(state, delta);
        for m in &s.metrics {
            let found = match source.lookup(&m.name) {
                Ok(f) => f,
                Err(SourceError::Lost(e)) => {
                    let _ = writeln!(log, "{PROG}: lost connection to pmcd: {e}");
                    return None;
                }
                Err(e) => {
                    let _ = writeln!(
                        log,
                        "Warning [{file}, line {}]\nProblem with lookup for metric \"{}\" ... logging not activated\nReason: {}",
                        s.line,
                        m.name,
                        pm_err_str(e.code())
                    );
                    continue;
                }
            };
            for (name, pmid) in found {
                let desc = match source.desc(pmid) {
                    Ok(d) => d,
                    Err(e) => {
                        let _ = writeln!(
                            log,
                            "Warning [{file}, line {}]\nDescription unavailable for metric \"{name}\" ... not logged\nReason: {}",
                            s.line,
                            pm_err_str(e.code())
                        );
                        continue;
                    }
                };
                names.entry(pmid).or_insert_with(|| name.clone());
                let at = format!("Warning [{file}, line {}]", s.line);
                let Some(ids) = instances_named(source, &desc, &m.instances, &name, &at, log)
                else {
                    continue;
                };
                let list: Vec<i32> = ids.iter().map(|(id, _)| *id).collect();
                let refused = p.configure(
                    task,
                    pmid,
                    desc.indom,
                    (!m.instances.is_empty()).then_some(list.as_slice()),
                );
                for (inst, state::Refusal::Incompatible(why)) in refused {
                    let _ = match inst.and_then(|i| ids.iter().find(|(id, _)| *id == i)) {
                        Some((_, spec)) => writeln!(
                            log,
                            "{at}\nIncompatible request for metric \"{name}\" and instance \"{spec}\"\n{why}"
                        ),
                        None => writeln!(log, "{at}\nIncompatible request for metric \"{name}\""),
                    };
                }
            }
        }
        p.end_statement(task);
    }
    p.end_config();
    Some(p)
}

/// The instances a statement names for a metric, by name (pmLookupInDom) or by
/// number (pmNameInDom), with the text that named each; the ones the metric
/// does not have now are dropped with a warning (`at` says where). `None` when
/// instances were named and none of them is there.
fn instances_named(
    source: &mut dyn Source,
    desc: &Desc,
    named: &[String],
    metric: &str,
    at: &str,
    log: &mut dyn Write,
) -> Option<Vec<(i32, String)>> {
    let mut ids = Vec::new();
    if named.is_empty() {
        return Some(ids);
    }
    let now = if desc.indom.is_null() {
        Vec::new()
    } else {
        source.instances(desc.indom).unwrap_or_default()
    };
    for i in named {
        let hit = match i.parse::<i32>() {
            Ok(n) => now.iter().find(|(id, _)| *id == n),
            Err(_) => now.iter().find(|(_, n)| names_instance(i, n)),
        };
        match hit {
            Some((id, _)) => ids.push((*id, i.clone())),
            None => {
                let _ = writeln!(
                    log,
                    "{at}\nInstance \"{i}\" is not defined for the metric \"{metric}\""
                );
            }
        }
    }
    (!ids.is_empty()).then_some(ids)
}

/// Timers for the tasks the configuration runs: once-only tasks fire at once,
/// periodic ones 20 ms after setup.
pub(crate) fn timers(p: &Plan) -> Vec<Timer> {
    let start = Instant::now();
    p.runnable()
        .into_iter()
        .map(|task| {
            let d = p.tasks[task].delta_ms;
            Timer {
                task,
                every: (d > 0).then(|| Duration::from_millis(d as u64)),
                next: if d == 0 {
                    start
                } else {
                    start + Duration::from_millis(20)
                },
                reported: false,
            }
        })
        .collect()
}
