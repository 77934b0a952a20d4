//! libpcp's `__pmDumpResult`, as pmlogrewrite prints a record it could not
//! rewrite: each value set by PMID and the input's name for it, its values
//! printed by the input's type for the PMID (by their own where the input has
//! none: a renumbered metric). The result's address, which PCP prints, is
//! this record's place in memory here too.

use archive_format::codec::result::OwnedValueSet;
use archive_format::format::format_value;
use archive_format::types::{vtype, InDom, Timestamp};
use archive_format::Metadata;
use std::fmt::Write;

/// The dump of `record`, read at `stamp`, without a final newline.
pub(crate) fn dump(stamp: Timestamp, record: &[OwnedValueSet], meta: &Metadata) -> String {
    let tz = cli_common::zone::local();
    let tm = cli_common::timefmt::local_tm(stamp.sec, &tz);
    let mut s = format!(
        "__pmResult dump from {:p} timestamp: {}.{:09} {:02}:{:02}:{:02}.{:09} numpmid: {}",
        record.as_ptr(),
        stamp.sec,
        stamp.nsec,
        tm.hour,
        tm.minute,
        tm.second,
        stamp.nsec,
        record.len()
    );
    for vs in record {
        let name = meta
            .names(vs.pmid)
            .first()
            .map_or("<noname>", |n| n.as_str());
        let _ = write!(s, "\n  {} ({name}):", vs.pmid);
        if vs.numval == 0 {
            s.push_str(" No values returned!");
            continue;
        }
        if vs.numval < 0 {
            let _ = write!(s, " {}", archive_format::error::pm_err_str(vs.numval));
            continue;
        }
        let desc = meta.desc(vs.pmid);
        let _ = write!(s, " numval: {} valfmt: {} vlist[]:", vs.numval, vs.valfmt);
        for (inst, v) in &vs.values {
            let v = v.as_value();
            let ty = match (desc, &v) {
                (Some(d), _) => d.vtype,
                (None, archive_format::codec::result::Value::Block { vtype: t, .. }) => {
                    i32::from(*t)
                }
                (None, _) => vtype::UNKNOWN,
            };
            if vs.numval > 1 || *inst != InDom::NULL.0 as i32 {
                // the instance's name is not looked up in pmlogrewrite's context
                let _ = write!(s, "\n    inst [{inst} or ???] ");
            } else {
                s.push_str("\n   ");
            }
            let _ = write!(s, "value {}", format_value(ty, vs.valfmt, &v));
        }
    }
    s
}
