//! Setting pmval up as PCP's does, in its order and with its messages: what it
//! refuses, the archives, the window, the metric and its instances, and how the
//! samples are taken.

use super::*;

/// Why pmval cannot do what it was asked (live sources, GUI time control), if
/// it cannot.
pub(crate) fn unsupported(o: &Opts, spec: &spec::MetricSpec) -> Option<String> {
    if (o.archive.is_none() && spec.archive.is_none()) || spec.host.is_some() {
        let what = if o.host || o.local {
            "live metric sources"
        } else {
            "the local pmcd"
        };
        return Some(format!(
            "{what} are not supported by this pmval; give an archive with -a"
        ));
    }
    o.gui
        .then(|| "-g (GUI time control) is not supported".to_string())
}

/// The derived metrics every context has, as libpcp loads them (its global
/// configuration), and `--derived`'s; their diagnostics go to `err`.
pub(crate) fn derived_metrics(o: &Opts, err: &mut dyn Write) -> Registry {
    let var = cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp");
    let mut r = Registry::global(&var, err);
    if let Some(f) = &o.derived {
        for part in f.split(':').filter(|p| !p.is_empty()) {
            let _ = r.load_config(std::path::Path::new(part), err);
        }
    }
    r
}

/// The derived metric `name` stands for, when the archive has no metric of that
/// name (the derived metrics loaded first, as libpcp loads them); `Err` with
/// pmval's message where the archive cannot feed it.
pub(crate) fn derived_for(
    o: &Opts,
    name: &str,
    a: &Archive,
    err: &mut dyn Write,
) -> Result<Option<Derived>, String> {
    // loaded whatever the name, as libpcp loads them into every context (their
    // diagnostics said each time)
    let registry = derived_metrics(o, err);
    if !matches!(a.metadata().pmns.lookup(name), Lookup::Unknown) {
        return Ok(None);
    }
    derived_metric(&registry, name, a.metadata(), err).transpose()
}

/// The derived metric `name` of `r`, bound to the archive's metrics and
/// checked; `None` where the registry has no such name; `Err` with pmval's
/// message where the archive cannot feed it (a semantic error is said to `err`
/// first, as libpcp says it when the context opens).
pub(crate) fn derived_metric(
    r: &Registry,
    name: &str,
    m: &archive_format::Metadata,
    err: &mut dyn Write,
) -> Option<Result<Derived, String>> {
    let k = r.metrics.iter().position(|d| d.name == name)?;
    let failed = "pmLookupDesc: Derived metric definition failed".to_string();
    Some(match context::bind(r, k, m) {
        Ok(b) => Ok(b),
        Err(Unavailable::Operand(_)) => Err(failed),
        Err(Unavailable::Semantics(msg)) => {
            let _ = writeln!(err, "{msg}");
            Err(failed)
        }
    })
}

/// A derived metric being reported.
pub(crate) type Derived = context::Bound;

/// The archives of `source` as one context, with `-n`'s namespace. Its volumes
/// keep only `metric`'s values where it names one in the archive's own namespace
/// (not a derived metric, nor one of `-n`'s): pmval asks for no other.
pub(crate) fn open_source(
    o: &Opts,
    source: &str,
    metric: &str,
    err: &mut dyn Write,
) -> Result<Archive, String> {
    let mut opts = archive_format::OpenOptions::default();
    if o.namespace.is_none() {
        let name = metric.to_string();
        opts.keep_only = Some(archive_format::KeepOnly(Arc::new(move |m| {
            match m.pmns.lookup(&name) {
                Lookup::Leaf(p) => Some(vec![p]),
                _ => None,
            }
        })));
    }
    let mut a = cli_common::context::open_with(PROG, source, o.skip_damaged, opts, err)
        .map_err(|e| format!("Cannot open archive \"{source}\": {e}"))?;
    if let Some(f) = &o.namespace {
        let p = std::fs::read_to_string(f)
            .map_err(|e| e.to_string())
            .and_then(|t| Pmns::parse_ascii(&t).map_err(|e| e.to_string()))
            .map_err(|e| format!("Cannot load namespace from \"{f}\": {e}"))?;
        a.set_pmns(p);
    }
    Ok(a)
}

/// The window of `-S -T -O -A`, kept inside the archive as pmval keeps it: a start
/// before it is the archive's start, an end after it the archive's end (the header
/// and the number of samples say so).
pub(crate) fn window_in(
    o: &Opts,
    a: &Archive,
    tz: &TimeZone,
) -> Result<cli_common::window::Window, String> {
    let label = a.label();
    let end = a.end_time().unwrap_or(label.start);
    let args = WindowArgs {
        start: o.clock.start.as_deref(),
        finish: o.clock.finish.as_deref(),
        origin: o.origin.as_deref(),
        align: o.align.as_deref(),
    };
    let bounds = Bounds {
        start: label.start,
        end,
    };
    let mut window = resolve_window(args, bounds, tz)
        .map_err(|spec| clock::invalid_window(&spec, clock::bounds(label, Some(end))))?;
    if window.finish > end {
        window.finish = end;
    }
    if window.start < label.start {
        window.start = label.start;
        window.origin = window.origin.max(label.start);
    }
    // an end at second 0 is no end to pmval (an archive all at time 0 has none)
    if window.finish.sec == 0 {
        window.finish.sec = UNBOUNDED;
    }
    Ok(window)
}

/// The seconds of an end that is no end (pmval's PM_MAX_TIME_T): no `end:` in
/// the header, and samples until the archive ends.
pub(crate) const UNBOUNDED: i64 = i64::MAX;

/// The metric's descriptor, the instances to report (`(id, name)` by id) and the
/// profile that asks for them (empty for all), as pmLookupName, pmLookupDesc and
/// pmGetInDom check them.
#[allow(clippy::type_complexity)]
pub(crate) fn metric_and_instances(
    o: &Opts,
    spec: &spec::MetricSpec,
    m: &archive_format::Metadata,
    derived: Option<Desc>,
) -> Result<(Desc, Vec<(i32, Arc<str>)>, Vec<i32>), String> {
    let desc = match (m.pmns.lookup(&spec.metric), derived) {
        (Lookup::Leaf(p), _) => *m
            .desc(p)
            .ok_or("pmLookupDesc: Unknown or illegal metric identifier")?,
        (Lookup::Unknown, Some(d)) => d,
        (Lookup::NonLeaf, _) => {
            return Err(format!(
                "pmLookupName({}): Metric name is not a leaf in PMNS",
                spec.metric
            ))
        }
        (Lookup::Unknown, None) => {
            return Err(format!(
                "pmLookupName({}): Unknown metric name",
                spec.metric
            ))
        }
    };
    if desc.indom.is_null() && !spec.insts.is_empty() {
        return Err(format!(
            "{}: singular metrics do not have instances",
            spec.metric
        ));
    }
    if desc.indom.is_null() {
        return Ok((desc, Vec::new(), Vec::new()));
    }
    if m.snapshots(desc.indom).is_empty() {
        let why = pm_err_str(archive_format::error::PM_ERR_INDOM_LOG);
        return Err(format!("pmGetInDom({}): {why}", desc.indom));
    }
    let mut union = m.indom_union(desc.indom);
    let wanted: Vec<&String> = o.instances.iter().chain(&spec.insts).collect();
    if wanted.is_empty() {
        union.sort_by_key(|p| p.0);
        return Ok((desc, union, Vec::new()));
    }
    let (mut ipairs, mut profile) = (Vec::new(), Vec::new());
    for name in wanted {
        let id = lookup_instance(&union, name).ok_or(format!("instance {name} not available"))?;
        ipairs.push((id, Arc::from(name.as_str())));
        profile.push(id);
    }
    ipairs.sort_by_key(|p| p.0);
    Ok((desc, ipairs, profile))
}

/// The width of a value column: `-w`, else by type.
pub(crate) fn column_width(o: &Opts, desc: &Desc) -> usize {
    match o.width {
        Some(w) => w as usize,
        None => match desc.vtype {
            vtype::I32 | vtype::U32 => 11,
            vtype::FLOAT => 13,
            vtype::EVENT | vtype::HIGHRES_EVENT => 0,
            _ => 21,
        },
    }
}

/// How the samples are taken: interpolated or record by record, how far apart, how
/// many, from where.
pub(crate) struct Plan {
    /// Events are never interpolated: every record in turn, as with `-U`.
    pub(crate) events: bool,
    pub(crate) interp: bool,
    pub(crate) delta_ns: i128,
    /// `-1`: until the end.
    pub(crate) samples: i64,
    pub(crate) origin: Timestamp,
}

impl Plan {
    pub(crate) fn new(o: &Opts, desc: &Desc, window: &cli_common::window::Window) -> Plan {
        let events = desc.vtype == vtype::EVENT || desc.vtype == vtype::HIGHRES_EVENT;
        let interp = !o.nointerp && !events;
        let delta_ns = o
            .interval
            .as_deref()
            .and_then(cli_common::window::parse_interval)
            .filter(|n| *n > 0)
            .unwrap_or(1_000_000_000);
        let mut samples = o.samples.map_or(-1, i64::from);
        if samples < 0 && interp && window.finish.sec != UNBOUNDED {
            let span = secs(window.finish) - secs(window.origin);
            let n = (span / (delta_ns as f64 / 1e9)) as i64;
            samples = if n < 0 { 0 } else { n + 1 };
        }
        Plan {
            events,
            interp,
            delta_ns,
            samples,
            // pmTimeStateMode hands libpcp a microsecond origin
            origin: Timestamp::new(window.origin.sec, window.origin.nsec / 1000 * 1000),
        }
    }

    /// The replay, set as pmval sets libpcp's context.
    pub(crate) fn replay<'a>(
        &self,
        o: &Opts,
        a: &'a Archive,
        desc: &Desc,
        profile: Vec<i32>,
    ) -> Replay<'a> {
        let mut r = Replay::new(a);
        if o.nearest {
            r.set_interp_rule(InterpRule::Nearest);
        }
        if let Some(policy) = mark_policy() {
            r.set_mark_policy(policy);
        }
        if !profile.is_empty() {
            r.set_profile(desc.indom, profile);
        }
        // pmTimeStateMode hands libpcp the interval's timeval (to the nearest
        // microsecond) as whole milliseconds, or whole seconds past 24 days
        let us = (self.delta_ns + 500) / 1000;
        let delta_ms = if us / 1_000_000 > 2_073_600 {
            (us / 1_000_000 * 1000) as i64
        } else {
            (us / 1000) as i64
        };
        let mode = if self.interp {
            Mode::Interp
        } else {
            Mode::Forw
        };
        r.set_mode(mode, Some(self.origin), Delta::from_millis(delta_ms));
        r
    }
}
