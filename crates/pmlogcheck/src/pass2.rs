//! Pass 2: each metric descriptor of the metadata, in libpcp's hash order.

use archive_format::types::{sem, vtype};
use archive_format::Desc;

/// The most types and scales libpcp knows.
const PM_TYPE_HIGHRES_EVENT: i32 = 10;
const PM_SPACE_EBYTE: u32 = 6;
const PM_TIME_HOUR: u32 = 5;

/// Checks one descriptor; `name` is its first name (`None` when it has none).
pub fn check(archname: &str, d: &Desc, name: Option<&str>, out: &mut Vec<String>) {
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
    if !d.indom.is_null() && d.pmid.domain() != d.indom.domain() {
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
        check("a", &d, Some("sample.drift"), &mut out);
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
        check("a", &d, None, &mut out);
        assert!(out.is_empty());
    }
}
