//! Event record arrays in pminfo: the one-line summary `pmPrintValue` gives a
//! value of an event type, and `-x`'s unpacked records (`myeventdump`), each
//! record's flags and parameters as `pmUnpackEventRecords` hands them out.

use super::Pminfo;
use archive_format::codec::event::{decode_events, flags_str, EventRecord, FLAG_MISSED};
use archive_format::codec::result::Value;
use archive_format::error::pm_err_str;
use archive_format::format::format_value;
use archive_format::types::{PmId, Timestamp};
use cli_common::timefmt::local_tm;
use cli_common::TimeZone;
use std::io::{self, Write};

/// `pmPrintStamp` (milliseconds) or `pmPrintHighResStamp` (nanoseconds).
fn stamp(t: Timestamp, highres: bool, tz: &TimeZone) -> String {
    let tm = local_tm(t.sec, tz);
    let (h, m, s) = (tm.hour, tm.minute, tm.second);
    if highres {
        format!("{h:02}:{m:02}:{s:02}.{:09}", t.nsec)
    } else {
        format!("{h:02}:{m:02}:{s:02}.{:03}", t.nsec / 1_000_000)
    }
}

/// `[N event records (M missed) timestamps FIRST...LAST]`, walking the records
/// as libpcp walks them (a record of missed ones does not move the walk on).
pub(crate) fn summary(data: &[u8], highres: bool, tz: &TimeZone) -> Option<String> {
    let recs = decode_events(data, 0, highres).ok()?;
    let n = recs.len();
    let (mut at, mut missed) = (0usize, 0i64);
    for _ in 0..n.saturating_sub(1) {
        let r = &recs[at];
        if r.flags & FLAG_MISSED != 0 {
            missed += i64::from(r.nparams);
            continue;
        }
        at += 1;
    }
    let mut s = format!("[{n} event record{}", if n == 1 { "" } else { "s" });
    if missed > 0 {
        s.push_str(&format!(" ({missed} missed)"));
    }
    if n > 0 {
        s.push_str(if n > 1 { " timestamps " } else { " timestamp " });
        s.push_str(&stamp(recs[0].stamp, highres, tz));
        if n > 1 {
            s.push_str("...");
            s.push_str(&stamp(recs[at].stamp, highres, tz));
        }
    }
    s.push(']');
    Some(s)
}

impl Pminfo<'_> {
    /// `-x`: the records of one event array, unpacked.
    pub(crate) fn event_dump(
        &mut self,
        data: &[u8],
        highres: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let recs = match decode_events(data, 0, highres) {
            Ok(r) => r,
            Err(_) => return Ok(()),
        };
        for (k, r) in recs.iter().enumerate() {
            let t = stamp(r.stamp, highres, &self.tz);
            write!(out, "    --- event record [{k}] timestamp {t}")?;
            self.event_record(r, out)?;
        }
        Ok(())
    }

    /// One record's parameters: `event.flags` first where it has flags, and
    /// `event.missed` for a record of missed ones.
    fn event_record(&mut self, r: &EventRecord<'_>, out: &mut dyn Write) -> io::Result<()> {
        let flagged = r.flags != 0;
        let count = if r.flags & FLAG_MISSED != 0 {
            2
        } else {
            r.params.len() + usize::from(flagged)
        };
        if count == 0 {
            return writeln!(out, " ---\n\tNo parameters");
        }
        if flagged {
            writeln!(out, " flags 0x{:x} ({}) ---", r.flags, flags_str(r.flags))?;
            if r.flags & FLAG_MISSED != 0 {
                return writeln!(out, "        ==> {} missed event records", r.nparams);
            }
        }
        for (i, p) in r.params.iter().enumerate() {
            let names = self.names_of(p.pmid).unwrap_or_default();
            if !flagged && i == 0 && !names.is_empty() {
                writeln!(out, " ---")?;
            }
            self.event_param(p.pmid, &names, |ty| p.value_as(ty), out)?;
        }
        Ok(())
    }

    fn event_param<'v>(
        &mut self,
        pmid: PmId,
        names: &[String],
        value: impl Fn(i32) -> Value<'v>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if names.is_empty() {
            writeln!(out, "\tPMID: {pmid}")?;
        } else {
            writeln!(out, "    {} ({pmid})", names.join(" or "))?;
        }
        let d = match self.store.desc(pmid) {
            Ok(d) => d,
            Err(e) => return writeln!(out, "\tpmLookupDesc: {}", pm_err_str(e)),
        };
        let v = value(d.vtype);
        let valfmt = if matches!(v, Value::Insitu(_)) { 0 } else { 1 };
        writeln!(out, "        value {}", format_value(d.vtype, valfmt, &v))
    }
}
