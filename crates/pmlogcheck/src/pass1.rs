//! Pass 1: the temporal index as libpcp loaded it, against the label, the file
//! sizes and itself.

use archive_format::{IndexEntry, Timestamp};

/// What the checks need besides the entries.
pub struct Context<'a> {
    /// Archive name as the messages print it (`dir/base` or `base`).
    pub archname: &'a str,
    /// Size of the label record of this archive's version.
    pub label_size: i64,
    /// Size of the (decompressed) metadata file.
    pub meta_size: Option<i64>,
    /// Size of the (decompressed) data volume with this number, if it exists.
    pub vol_size: &'a dyn Fn(i32) -> Option<i64>,
    /// The start in the label of the last file pass 0 read a label from.
    pub golden_start: Option<Timestamp>,
    /// PCP 7's words ("data volume" where 6.0.3 says "log").
    pub pcp7: bool,
}

/// What the checks found at one entry: lines about its volume's file, then its
/// findings (each line whole).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    pub lines: Vec<String>,
    /// Whether the entry itself is bad (its findings are among the lines).
    pub bad: bool,
}

/// `sec.nsec` as libpcp prints a timestamp in these messages (`%lld.%09d`).
fn ts(sec: i64, nsec: i64) -> String {
    format!("{sec}.{nsec:09}")
}

/// `a - b` in seconds, as a double (libpcp's `__pmTimestampSub`).
fn sub(a: (i64, i64), b: (i64, i64)) -> f64 {
    (a.0 - b.0) as f64 + (a.1 - b.1) as f64 / 1e9
}

/// Runs the checks; returns the lines to print and whether the index is bad.
pub fn check(c: &Context<'_>, ti: &[IndexEntry]) -> (Vec<String>, bool) {
    if ti.is_empty() {
        return (vec![missing(c)], false);
    }
    let es = entries(c, ti);
    let bad = es.iter().any(|e| e.bad);
    (es.into_iter().flat_map(|e| e.lines).collect(), bad)
}

/// The warning for an archive without index entries.
pub fn missing(c: &Context<'_>) -> String {
    format!("{}: warning temporal index is missing", c.archname)
}

/// The checks, entry by entry (PCP 7 acts after each bad one).
pub fn entries(c: &Context<'_>, ti: &[IndexEntry]) -> Vec<Entry> {
    let a = c.archname;
    let vol_word = if c.pcp7 { "data volume" } else { "log volume" };
    let mut out = Vec::with_capacity(ti.len());
    let mut log_size: Option<i64> = None;
    let mut last: Option<&IndexEntry> = None;
    for (k, e) in ti.iter().enumerate() {
        let i = k + 1;
        let mut entry = Entry::default();
        let mut found = Vec::new();
        if e.vol < 0 {
            let what = if c.pcp7 { "data volume" } else { "volume" };
            found.push(format!("illegal negative {what} number {}", e.vol));
            log_size = None;
        } else if last.is_none_or(|l| l.vol != e.vol) {
            log_size = (c.vol_size)(e.vol);
            if log_size.is_none() {
                // (before the entry's own findings: the negative volume's
                // finding, the one case with both, cannot come with it)
                entry.lines.push(format!(
                    "{a}.{}: file missing for {vol_word} {}",
                    e.vol, e.vol
                ));
            }
        }
        alone(c, e, log_size, &mut found);
        if let Some(l) = last {
            against_last(c.pcp7, e, l, i - 1, &mut found);
        }
        entry.bad = !found.is_empty();
        entry
            .lines
            .extend(found.iter().map(|f| format!("{a}.index[entry {i}]: {f}")));
        out.push(entry);
        last = Some(e);
    }
    out
}

/// "log (OFF)" in 6.0.3's words, "data volume V (OFF)" in PCP 7's.
fn data_offset(pcp7: bool, e: &IndexEntry) -> String {
    if pcp7 {
        format!("data volume {} ({})", e.vol, e.off_data)
    } else {
        format!("log ({})", e.off_data)
    }
}

/// The checks of one entry on its own: its time, and its offsets against the
/// label and the files' sizes.
fn alone(c: &Context<'_>, e: &IndexEntry, log_size: Option<i64>, found: &mut Vec<String>) {
    let stamp = (e.stamp.sec, e.raw_nsec);
    if stamp.0 < 0 || stamp.1 < 0 {
        found.push(format!(
            "illegal negative timestamp value ({} sec, {} nsec)",
            stamp.0, stamp.1
        ));
    }
    if stamp.1 > 999_999_999 {
        found.push(format!(
            "illegal timestamp nsec value ({} sec, {} nsec)",
            stamp.0, stamp.1
        ));
    }
    let label = c.label_size;
    if e.off_meta < label {
        found.push(format!(
            "offset to metadata ({}) before end of label record ({label})",
            e.off_meta
        ));
    }
    if let Some(m) = c.meta_size.filter(|&m| e.off_meta > m) {
        found.push(format!(
            "offset to metadata ({}) past end of file ({m})",
            e.off_meta
        ));
    }
    if e.off_data < label {
        found.push(format!(
            "offset to {} before end of label record ({label})",
            data_offset(c.pcp7, e)
        ));
    }
    if let Some(l) = log_size.filter(|&l| e.off_data > l) {
        found.push(format!(
            "offset to {} past end of file ({l})",
            data_offset(c.pcp7, e)
        ));
    }
    if let Some(g) = c.golden_start.filter(|g| g.sec != 0) {
        let gs = (g.sec, g.nsec as i64);
        if sub(stamp, gs) < 0.0 {
            found.push(format!(
                "timestamp ({}) less than {} label timestamp ({})",
                ts(stamp.0, stamp.1),
                if c.pcp7 { "archive" } else { "log" },
                ts(gs.0, gs.1)
            ));
        }
    }
}

/// The checks of an entry against the one before it, entry number `n`: time,
/// volume and offsets do not go back.
fn against_last(pcp7: bool, e: &IndexEntry, l: &IndexEntry, n: usize, found: &mut Vec<String>) {
    let (stamp, ls) = ((e.stamp.sec, e.raw_nsec), (l.stamp.sec, l.raw_nsec));
    if sub(stamp, ls) < 0.0 {
        found.push(format!(
            "timestamp ({}) went backwards in time (from {} at [entry {n}])",
            ts(stamp.0, stamp.1),
            ts(ls.0, ls.1),
        ));
    }
    if e.vol < l.vol {
        found.push(format!(
            "{}volume number ({}) decreased (from {} at [entry {n}])",
            if pcp7 { "data " } else { "" },
            e.vol,
            l.vol
        ));
    }
    if e.vol == l.vol && e.off_meta < l.off_meta {
        found.push(format!(
            "offset to metadata ({}) decreased (from {} at [entry {n}])",
            e.off_meta, l.off_meta
        ));
    }
    if e.vol == l.vol && e.off_data < l.off_data {
        found.push(format!(
            "offset to {} decreased (from {} at [entry {n}])",
            data_offset(pcp7, e),
            l.off_data
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(sec: i64, nsec: i64, vol: i32, meta: i64, data: i64) -> IndexEntry {
        IndexEntry {
            stamp: Timestamp::new(sec, nsec.clamp(0, 999_999_999) as u32),
            raw_nsec: nsec,
            vol,
            off_meta: meta,
            off_data: data,
        }
    }

    #[test]
    fn entries_out_of_order_and_out_of_bounds() {
        let sizes = |v: i32| (v == 0).then_some(1000);
        let c = Context {
            archname: "a",
            label_size: 132,
            meta_size: Some(500),
            vol_size: &sizes,
            golden_start: Some(Timestamp::new(10, 0)),
            pcp7: false,
        };
        let ti = [
            entry(10, 0, 0, 132, 132),
            entry(12, 0, 0, 600, 900),
            entry(11, -4000, 0, 300, 100),
        ];
        let (lines, bad) = check(&c, &ti);
        assert!(bad);
        assert_eq!(
            lines,
            [
                "a.index[entry 2]: offset to metadata (600) past end of file (500)",
                "a.index[entry 3]: illegal negative timestamp value (11 sec, -4000 nsec)",
                "a.index[entry 3]: offset to log (100) before end of label record (132)",
                "a.index[entry 3]: timestamp (11.-00004000) went backwards in time (from 12.000000000 at [entry 2])",
                "a.index[entry 3]: offset to metadata (300) decreased (from 600 at [entry 2])",
                "a.index[entry 3]: offset to log (100) decreased (from 900 at [entry 2])",
            ]
        );
    }

    #[test]
    fn pcp7_words_and_entries() {
        let sizes = |v: i32| (v == 0).then_some(1000);
        let c = Context {
            archname: "a",
            label_size: 132,
            meta_size: Some(500),
            vol_size: &sizes,
            golden_start: Some(Timestamp::new(10, 0)),
            pcp7: true,
        };
        let ti = [entry(10, 0, 0, 132, 132), entry(9, 0, 1, 300, 100)];
        let es = entries(&c, &ti);
        assert!(!es[0].bad && es[1].bad);
        assert_eq!(
            es[1].lines,
            [
                "a.1: file missing for data volume 1",
                "a.index[entry 2]: offset to data volume 1 (100) before end of label record (132)",
                "a.index[entry 2]: timestamp (9.000000000) less than archive label timestamp (10.000000000)",
                "a.index[entry 2]: timestamp (9.000000000) went backwards in time (from 10.000000000 at [entry 1])",
            ]
        );
    }

    #[test]
    fn no_index_is_a_warning() {
        let none = |_: i32| None;
        let c = Context {
            archname: "a",
            label_size: 132,
            meta_size: None,
            vol_size: &none,
            golden_start: None,
            pcp7: false,
        };
        assert_eq!(
            check(&c, &[]),
            (
                vec!["a: warning temporal index is missing".to_string()],
                false
            )
        );
    }
}
