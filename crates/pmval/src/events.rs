//! Event metrics in pmval: every record's event arrays, unpacked, as PCP 6.0.3's
//! pmval prints them (its `printevents`).

use archive_format::codec::event::{
    decode_events, flags_str, EventParam, EventRecord, FLAG_MISSED,
};
use archive_format::format::format_value;
use archive_format::metadata::Metadata;
use archive_format::replay::FetchedSet;
use archive_format::types::{vtype, Desc, Timestamp};
use cli_common::timefmt::local_tm;
use cli_common::TimeZone;
use std::io::{self, Write};

/// `__pmPrintStamp` (milliseconds) or `__pmPrintHighResStamp` (nanoseconds).
fn stamp(t: Timestamp, highres: bool, tz: &TimeZone) -> String {
    let tm = local_tm(t.sec, tz);
    if highres {
        format!(
            "{:02}:{:02}:{:02}.{:09}",
            tm.hour, tm.minute, tm.second, t.nsec
        )
    } else {
        format!(
            "{:02}:{:02}:{:02}.{:03}",
            tm.hour,
            tm.minute,
            tm.second,
            t.nsec / 1_000_000
        )
    }
}

/// What `printevents` needs to know about the metric being reported.
pub struct EventMetric<'a> {
    pub name: &'a str,
    pub desc: Desc,
    /// `-i` instances (id, name as given); empty means all.
    pub selected: &'a [(i32, std::sync::Arc<str>)],
    pub meta: &'a Metadata,
    pub tz: &'a TimeZone,
}

/// Prints the event arrays of one value set (one line head per instance).
pub fn print_events(
    out: &mut dyn Write,
    em: &EventMetric<'_>,
    set: &FetchedSet,
    at: Timestamp,
) -> io::Result<Result<(), String>> {
    let highres = em.desc.vtype == vtype::HIGHRES_EVENT;
    for (inst, v) in &set.values {
        if *inst == -1 {
            write!(out, "{}:", em.name)?;
        } else {
            let iname = match instance_name(em, *inst, at) {
                Ok(Some(n)) => n,
                Ok(None) => continue,
                Err(e) => return Ok(Err(e)),
            };
            write!(out, "{}[{}]:", em.name, iname)?;
        }
        let value = v.as_value();
        let archive_format::codec::result::Value::Block { data, .. } = value else {
            writeln!(out, " pmUnpackEventRecords: Illegal pmValue format")?;
            continue;
        };
        let recs = match decode_events(data, 0, highres) {
            Ok(r) => r,
            Err(_) => {
                writeln!(out, " pmUnpackEventRecords: Unexpected end of PDU buffer")?;
                continue;
            }
        };
        writeln!(out, " {} event records", recs.len())?;
        for (k, r) in recs.iter().enumerate() {
            print_record(out, em, k, r, highres)?;
        }
    }
    Ok(Ok(()))
}

/// An instance's name: with `-i`, as given (`None` for one not selected), else
/// from the instance domain at `at` or ever; `Err` is pmval's message for an
/// instance it has no name for.
fn instance_name(em: &EventMetric<'_>, inst: i32, at: Timestamp) -> Result<Option<String>, String> {
    if !em.selected.is_empty() {
        let given = em.selected.iter().find(|(i, _)| *i == inst);
        return Ok(given.map(|(_, n)| n.to_string()));
    }
    let now = em.meta.indom_at(em.desc.indom, at);
    let name = now
        .and_then(|s| s.name_of(inst))
        .map(str::to_string)
        .or_else(|| {
            let ever = em.meta.indom_union(em.desc.indom);
            ever.into_iter()
                .find(|(i, _)| *i == inst)
                .map(|(_, n)| n.to_string())
        });
    match name {
        Some(n) => Ok(Some(n)),
        None => Err(format!(
            "pmNameInDom: {}[{}]: Unknown or illegal instance identifier",
            em.name, inst as u32
        )),
    }
}

/// The `k`th event record of an array: its time and flags, then its parameters.
fn print_record(
    out: &mut dyn Write,
    em: &EventMetric<'_>,
    k: usize,
    r: &EventRecord<'_>,
    highres: bool,
) -> io::Result<()> {
    write!(
        out,
        "  {} --- event record [{k}]",
        stamp(r.stamp, highres, em.tz)
    )?;
    let mut first = true;
    if r.flags != 0 {
        writeln!(out, " flags 0x{:x} ({}) ---", r.flags, flags_str(r.flags))?;
        first = false;
        if r.flags & FLAG_MISSED != 0 {
            writeln!(out, "    ==> {} missed event records", r.nparams)?;
            return Ok(());
        }
    }
    if first && r.params.is_empty() {
        writeln!(out, " ---\n    ==> No parameters")?;
        return Ok(());
    }
    for p in &r.params {
        if first {
            writeln!(out, " ---")?;
            first = false;
        }
        print_param(out, em.meta, p)?;
    }
    Ok(())
}

/// One parameter of an event record: its name and value.
fn print_param(out: &mut dyn Write, meta: &Metadata, p: &EventParam<'_>) -> io::Result<()> {
    let Some(pname) = meta.names(p.pmid).first() else {
        return writeln!(
            out,
            "\t{}: pmNameID: Unknown or illegal metric identifier",
            p.pmid
        );
    };
    let Some(pd) = meta.desc(p.pmid) else {
        return writeln!(
            out,
            "\t{pname}: pmLookupDesc: Unknown or illegal metric identifier"
        );
    };
    write!(out, "    {pname} ")?;
    if matches!(pd.vtype, vtype::AGGREGATE | vtype::AGGREGATE_STATIC) {
        let hex: String = p.data.iter().map(|b| format!("{b:02x}")).collect();
        return writeln!(out, "[{hex}]");
    }
    let pv = p.value_as(pd.vtype);
    let fmt = if matches!(pv, archive_format::codec::result::Value::Insitu(_)) {
        0
    } else {
        1
    };
    writeln!(out, "{}", format_value(pd.vtype, fmt, &pv))
}
