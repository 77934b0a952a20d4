//! Pass 2: each metric descriptor of the metadata, in libpcp's hash order, and
//! for PCP 7 the times of the metadata's instance domains and label sets.

use archive_format::codec::meta;
use archive_format::types::{sem, vtype};
use archive_format::{Desc, InDom, Timestamp};

/// The most types and scales libpcp knows.
const PM_TYPE_HIGHRES_EVENT: i32 = 10;
const PM_SPACE_EBYTE: u32 = 6;
const PM_TIME_HOUR: u32 = 5;

/// Checks one descriptor; `name` is its first name (`None` when it has none).
/// `pcp7`: PCP 7's checks, which let a derived metric logged as such (domain 511,
/// cluster with bit 2048) have another agent's instance domain.
pub fn check(archname: &str, d: &Desc, name: Option<&str>, pcp7: bool, out: &mut Vec<String>) {
    if d.vtype == vtype::NOSUPPORT {
        return;
    }
    let who = format!(
        "{archname}.meta: {} [{}]",
        name.unwrap_or("unknown"),
        d.pmid
    );
    if d.vtype < vtype::I32 || d.vtype > PM_TYPE_HIGHRES_EVENT {
        out.push(format!("{who}: bad type ({}) in pmDesc", d.vtype));
    }
    let derived_logged =
        d.pmid.domain() == 511 && d.pmid.cluster() & 2048 == 2048 && d.pmid.item() != 0;
    if !d.indom.is_null() && d.pmid.domain() != d.indom.domain() && !(pcp7 && derived_logged) {
        out.push(format!(
            "{who}: domain of pmid ({}) != domain of indom ({})",
            d.pmid.domain(),
            d.indom.domain()
        ));
    }
    if d.sem != sem::COUNTER && d.sem != sem::INSTANT && d.sem != sem::DISCRETE {
        out.push(format!("{who}: bad semantics ({}) in pmDesc", d.sem));
    }
    let u = d.units;
    for (dim, what) in [
        (u.dim_space(), "Space"),
        (u.dim_time(), "Time"),
        (u.dim_count(), "Count"),
    ] {
        if !(-2..=2).contains(&dim) {
            out.push(format!("{who}: bad dimension ({dim}) for {what} in pmDesc"));
        }
    }
    if u.dim_space() == 0 && u.scale_space() != 0 {
        out.push(format!(
            "{who}: non-zero scale ({}) with zero dimension for Space in pmDesc",
            u.scale_space()
        ));
    }
    if u.scale_space() > PM_SPACE_EBYTE {
        out.push(format!(
            "{who}: bad scale ({}) for Space in pmDesc",
            u.scale_space()
        ));
    }
    if u.dim_time() == 0 && u.scale_time() != 0 {
        out.push(format!(
            "{who}: non-zero scale ({}) with zero dimension for Time in pmDesc",
            u.scale_time()
        ));
    }
    if u.scale_time() > PM_TIME_HOUR {
        out.push(format!(
            "{who}: bad scale ({}) for Time in pmDesc",
            u.scale_time()
        ));
    }
    if u.dim_count() == 0 && u.scale_count() != 0 {
        out.push(format!(
            "{who}: non-zero scale ({}) with zero dimension for Count in pmDesc",
            u.scale_count()
        ));
    }
}

/// PCP 7's check of a timed metadata record (instance domain or label set): one
/// whose time is before the archive's start, after its end or before the last
/// such record's.
#[derive(Debug, Clone, PartialEq)]
pub struct StampFinding {
    /// The line (without the archive's prefix and the times' text; see
    /// [`StampFinding::line`]).
    pub record: usize,
    pub indom: InDom,
    pub stamp: Timestamp,
    pub what: &'static str,
    pub against: Timestamp,
    /// Where the record starts: the end of the last valid one.
    pub offset: u64,
}

impl StampFinding {
    /// `A.meta[record N]: pmInDom D: timestamp T before archive start S`.
    pub fn line(&self, archname: &str, fmt: &dyn Fn(Timestamp) -> String) -> String {
        format!(
            "{archname}.meta[record {}]: pmInDom {}: timestamp {} {} {}",
            self.record,
            self.indom,
            fmt(self.stamp),
            self.what,
            fmt(self.against)
        )
    }
}

/// The times of the timed records of a metadata file's bytes (`label_len`: its
/// label record's length; `version`: the archive's), checked against `start`,
/// `end` (none when its seconds are 0) and each other, as PCP 7's pass 2 does.
/// Records of the other version's types are left to pass 0; a record too short
/// for a time ends the pass. Pure.
pub fn meta_stamps(
    file: &[u8],
    label_len: usize,
    version: u32,
    start: Timestamp,
    end: Timestamp,
) -> Vec<StampFinding> {
    let word = |at: usize| {
        file.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut out = Vec::new();
    let (mut pos, mut nrec) = (label_len, 0usize);
    let mut last: Option<Timestamp> = None;
    while let (Some(len), Some(rtype)) = (word(pos), word(pos + 4)) {
        let rtype = rtype as i32;
        let timed = matches!(
            rtype,
            meta::TYPE_INDOM
                | meta::TYPE_INDOM_DELTA
                | meta::TYPE_INDOM_V2
                | meta::TYPE_LABEL
                | meta::TYPE_LABEL_V2
        );
        let other_version = if version >= 3 {
            matches!(rtype, meta::TYPE_INDOM_V2 | meta::TYPE_LABEL_V2)
        } else {
            matches!(
                rtype,
                meta::TYPE_INDOM | meta::TYPE_INDOM_DELTA | meta::TYPE_LABEL
            )
        };
        if timed {
            let w: Option<Vec<u32>> = (0..4).map(|k| word(pos + 8 + 4 * k)).collect();
            let Some(w) = w else { break };
            if !other_version {
                let (stamp, indom) = if version >= 3 {
                    // (libpcp's __pmLoadTimestamp: the low word first)
                    let sec = ((w[1] as u64) << 32 | w[0] as u64) as i64;
                    (Timestamp::new(sec, w[2] as i32 as i64 as u32), InDom(w[3]))
                } else {
                    let usec = (w[1] as i32 as i64) * 1000;
                    (Timestamp::new(w[0] as i32 as i64, usec as u32), InDom(w[2]))
                };
                let finding = |what, against| StampFinding {
                    record: nrec,
                    indom,
                    stamp,
                    what,
                    against,
                    offset: pos as u64,
                };
                if stamp.sub_f64(start) < 0.0 {
                    out.push(finding("before archive start", start));
                } else if end.sec > 0 && end.sub_f64(stamp) < 0.0 {
                    out.push(finding("after archive end", end));
                } else if let Some(l) = last.filter(|l| l.sec > 0 && stamp.sub_f64(*l) < 0.0) {
                    out.push(finding("before previous metadata timestamp", l));
                }
                last = Some(stamp);
            }
        }
        if len < 8 {
            break;
        }
        pos += len as usize;
        nrec += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::{InDom, PmId, Units};

    #[test]
    fn a_descriptor_with_everything_wrong() {
        let d = Desc {
            pmid: PmId::new(29, 0, 7),
            vtype: 42,
            indom: InDom::new(30, 1),
            sem: 9,
            // dimSpace 3, scaleTime 6 with dimTime 0
            units: Units(0x3000_6000),
        };
        let mut out = Vec::new();
        check("a", &d, Some("sample.drift"), false, &mut out);
        assert_eq!(
            out,
            [
                "a.meta: sample.drift [29.0.7]: bad type (42) in pmDesc",
                "a.meta: sample.drift [29.0.7]: domain of pmid (29) != domain of indom (30)",
                "a.meta: sample.drift [29.0.7]: bad semantics (9) in pmDesc",
                "a.meta: sample.drift [29.0.7]: bad dimension (3) for Space in pmDesc",
                "a.meta: sample.drift [29.0.7]: non-zero scale (6) with zero dimension for Time in pmDesc",
                "a.meta: sample.drift [29.0.7]: bad scale (6) for Time in pmDesc",
            ]
        );
    }

    #[test]
    fn unsupported_metrics_are_not_checked() {
        let d = Desc {
            pmid: PmId::new(1, 2, 3),
            vtype: vtype::NOSUPPORT,
            indom: InDom::new(9, 1),
            sem: 0,
            units: Units(0),
        };
        let mut out = Vec::new();
        check("a", &d, None, false, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn pcp7_lets_a_logged_derived_metric_have_another_agents_domain() {
        let d = Desc {
            pmid: PmId::new(511, 2048, 3),
            vtype: vtype::U64,
            indom: InDom::new(60, 1),
            sem: sem::INSTANT,
            units: Units(0),
        };
        let (mut six, mut seven) = (Vec::new(), Vec::new());
        check("a", &d, None, false, &mut six);
        check("a", &d, None, true, &mut seven);
        assert_eq!(six.len(), 1, "{six:?}");
        assert!(seven.is_empty(), "{seven:?}");
    }

    fn record(rtype: i32, body: &[u32]) -> Vec<u8> {
        let len = 8 + 4 * body.len() as u32 + 4;
        let mut v = len.to_be_bytes().to_vec();
        v.extend((rtype as u32).to_be_bytes());
        for w in body {
            v.extend(w.to_be_bytes());
        }
        v.extend(len.to_be_bytes());
        v
    }

    #[test]
    fn timed_records_before_the_start_after_the_end_and_backwards() {
        let label = vec![0u8; 132];
        let mut f = label.clone();
        let at = |s: u32| [s, 0, 29 << 22 | 2, 0];
        f.extend(record(meta::TYPE_DESC, &[1, 2, 3, 4, 5]));
        f.extend(record(meta::TYPE_INDOM_V2, &at(100)));
        f.extend(record(meta::TYPE_INDOM_V2, &at(300)));
        f.extend(record(meta::TYPE_INDOM_V2, &at(250)));
        f.extend(record(meta::TYPE_INDOM_V2, &at(900)));
        let found = meta_stamps(&f, 132, 2, Timestamp::new(200, 0), Timestamp::new(800, 0));
        let what: Vec<(usize, &str)> = found.iter().map(|x| (x.record, x.what)).collect();
        assert_eq!(
            what,
            [
                (1, "before archive start"),
                (3, "before previous metadata timestamp"),
                (4, "after archive end")
            ]
        );
        // the first finding's record starts after the label and the descriptor
        assert_eq!(found[0].offset, 132 + 32);
        let line = found[0].line("a", &|t| t.sec.to_string());
        assert_eq!(
            line,
            "a.meta[record 1]: pmInDom 29.2: timestamp 100 before archive start 200"
        );
    }
}
