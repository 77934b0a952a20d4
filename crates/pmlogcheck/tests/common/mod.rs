//! What the integration tests share: an archive of one metric, written whole.

use archive_format::codec::result::OwnedValueSet;
use archive_format::types::{sem, vtype};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::{Desc, InDom, PmId, Timestamp, Units};
use std::path::Path;

pub const P: PmId = PmId(0x0040_0001);

/// A v3 archive at `base` of `records` samples of one metric, a second apart,
/// with its index.
pub fn write_archive(base: &Path, records: u32) {
    let o = WriterOptions {
        version: 3,
        hostname: "h".into(),
        timezone: "UTC".into(),
        auto_index: true,
        ..Default::default()
    };
    let mut w = ArchiveWriter::create(base, o).expect("create");
    let d = Desc {
        pmid: P,
        vtype: vtype::U32,
        indom: InDom::NULL,
        sem: sem::INSTANT,
        units: Units(0),
    };
    w.put_desc(d, &["a.b".into()]).expect("desc");
    for k in 0..records {
        let t = Timestamp::new(1000 + k as i64, 0);
        w.begin_fetch();
        w.put_index(t).expect("index");
        w.put_result(t, &[OwnedValueSet::insitu(P, vec![(-1, k)])])
            .expect("result");
    }
    w.close().expect("close");
}
