//! Writes an archive of a host whose processes come and go, as pmlogger records
//! one (v2: the whole set of live processes written again at each change): `N`
//! processes live at a time, `C` of them replaced at each sample, `S` samples 10 s
//! apart, three metrics over the processes (instant, counter and discrete). With many samples and much churn its
//! `.meta` holds millions of distinct process names: the benchmarks use it to
//! show what a reader holds of such a history.
//!
//! Usage: cargo run --release -p archive-format --example proc_churn -- BASE [S [N [C]]]
//! (default 4,000 samples of 1,000 processes, 500 replaced at each: 2 million
//! names, a .meta of about 200 MB).

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::types::{sem, vtype};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::{Desc, InDom, PmId, Timestamp, Units};
use std::collections::VecDeque;

fn main() -> archive_format::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(base) = args.first() else {
        eprintln!("usage: proc_churn BASE [SAMPLES [LIVE [CHURN]]]");
        std::process::exit(1);
    };
    let arg = |k: usize, d: u32| args.get(k).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (samples, live_n, churn) = (arg(1, 4000), arg(2, 1000), arg(3, 500));
    let opts = WriterOptions {
        version: 2,
        hostname: "churn-procs".into(),
        timezone: "UTC".into(),
        ..WriterOptions::default()
    };
    let mut w = ArchiveWriter::create(base, opts)?;
    let indom = InDom::new(60, 1);
    // an instant, a counter and a discrete metric
    let names = ["proc.psinfo.rss", "proc.psinfo.utime", "proc.psinfo.nice"];
    let sems = [sem::INSTANT, sem::COUNTER, sem::DISCRETE];
    for (k, n) in names.iter().enumerate() {
        let d = Desc {
            pmid: PmId::new(60, 0, k as u32),
            vtype: vtype::U32,
            indom,
            sem: sems[k],
            units: Units(0),
        };
        w.put_desc(d, &[n.to_string()])?;
    }
    let mut started = 0u32;
    let mut live: VecDeque<u32> = VecDeque::new();
    let name = |i: u32| format!("{:07} /usr/lib/worker --job {i}", 100_000 + i);
    for _ in 0..live_n {
        live.push_back(started);
        started += 1;
    }
    for s in 0..samples {
        for _ in 0..churn.min(live_n) {
            live.pop_front();
            live.push_back(started);
            started += 1;
        }
        let stamp = Timestamp::new(1_700_000_000 + 10 * i64::from(s), 0);
        let set: Vec<(i32, String)> = live.iter().map(|&i| (i as i32, name(i))).collect();
        w.put_indom(stamp, indom, &set)?;
        let vsets: Vec<OwnedValueSet> = (0..names.len() as u32)
            .map(|k| OwnedValueSet {
                pmid: PmId::new(60, 0, k),
                numval: live.len() as i32,
                valfmt: VAL_INSITU,
                values: live
                    .iter()
                    .map(|&i| {
                        let v = match k {
                            0 => i.wrapping_mul(7) ^ s,
                            1 => s.wrapping_mul(i % 13 + 1).wrapping_mul(100),
                            _ => i % 20,
                        };
                        (i as i32, OwnedValue::Insitu(v))
                    })
                    .collect(),
            })
            .collect();
        w.put_result(stamp, &vsets)?;
    }
    w.close()?;
    eprintln!("wrote {base}: {samples} samples, {started} processes");
    Ok(())
}
