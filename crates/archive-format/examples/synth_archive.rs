//! Writes a synthetic v2 archive for benchmarks: `N` singular metrics sampled every
//! second for `D` days, with a temporal index entry every hour.
//!
//! Usage: cargo run --release -p archive-format --example synth_archive -- BASE [DAYS] [METRICS]
//!
//! Metrics are `synth.mNNN` in domain 251: a mix of 32-bit counters, 32-bit instant
//! values, 64-bit counters, doubles and discrete values, so interpolation exercises
//! every arithmetic path. Values are a deterministic function of the metric and the
//! sample number, so the archive is the same on every run.

use archive_format::codec::index::{encode_index_entry, IndexEntry};
use archive_format::codec::label::{encode_label, Label, VOL_INDEX, VOL_META};
use archive_format::codec::meta::{encode_meta, MetaRecord};
use archive_format::codec::record::encode_frame;
use archive_format::codec::result::{
    encode_result, BlockData, OwnedValue, OwnedValueSet, VAL_DPTR, VAL_INSITU,
};
use archive_format::types::{sem, vtype};
use archive_format::{Desc, InDom, PmId, Timestamp, Units};
use std::fs::File;
use std::io::{BufWriter, Write};

const START: i64 = 1_700_000_000;

fn kind(i: u32) -> (i32, i32) {
    match i % 10 {
        0..=3 => (vtype::U32, sem::COUNTER),
        4..=5 => (vtype::I32, sem::INSTANT),
        6 => (vtype::U64, sem::COUNTER),
        7 => (vtype::DOUBLE, sem::INSTANT),
        8 => (vtype::U32, sem::DISCRETE),
        _ => (vtype::DOUBLE, sem::COUNTER),
    }
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

fn value(i: u32, n: u64) -> OwnedValue {
    let (ty, sm) = kind(i);
    let noise = mix(((i as u64) << 40) ^ n) % 1000;
    match (ty, sm) {
        (vtype::U32, sem::COUNTER) => {
            OwnedValue::Insitu((n * (i as u64 % 7 + 1) * 10 + noise % 10) as u32)
        }
        (vtype::I32, _) => OwnedValue::Insitu((noise as i32 - 500) as u32),
        (vtype::U32, _) => OwnedValue::Insitu((n / 3600) as u32 + i),
        (vtype::U64, _) => OwnedValue::Block {
            vtype: vtype::U64 as u8,
            data: (n * 1_000_003 * (i as u64 + 1) + noise)
                .to_be_bytes()
                .into(),
        },
        _ if sm == sem::COUNTER => OwnedValue::Block {
            vtype: vtype::DOUBLE as u8,
            data: (n as f64 * 1.25 * (i as f64 + 1.0) + (noise % 10) as f64 / 100.0)
                .to_bits()
                .to_be_bytes()
                .into(),
        },
        _ => OwnedValue::Block {
            vtype: vtype::DOUBLE as u8,
            data: BlockData::from_slice(&(noise as f64 / 3.0).to_bits().to_be_bytes()),
        },
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(base) = args.first() else {
        eprintln!("usage: synth_archive BASE [DAYS] [METRICS]");
        std::process::exit(1);
    };
    let days: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(7);
    let nmetrics: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let label = |vol: i32| Label {
        version: 2,
        pid: 1,
        start: Timestamp::new(START, 0),
        vol,
        features: 0,
        hostname: "synth".into(),
        timezone: "UTC".into(),
        zoneinfo: String::new(),
    };
    let mut meta = BufWriter::new(File::create(format!("{base}.meta"))?);
    let mut data = BufWriter::new(File::create(format!("{base}.0"))?);
    let mut index = BufWriter::new(File::create(format!("{base}.index"))?);
    let ml = encode_label(&label(VOL_META));
    let dl = encode_label(&label(0));
    meta.write_all(&ml)?;
    data.write_all(&dl)?;
    index.write_all(&encode_label(&label(VOL_INDEX)))?;
    let mut meta_off = ml.len() as u64;
    for i in 0..nmetrics {
        let (ty, sm) = kind(i);
        let units = if sm == sem::COUNTER {
            Units(0x0010_0000)
        } else {
            Units(0)
        };
        let rec = encode_frame(&encode_meta(&MetaRecord::Desc {
            desc: Desc {
                pmid: PmId::new(251, 0, i),
                vtype: ty,
                indom: InDom::NULL,
                sem: sm,
                units,
            },
            names: vec![format!("synth.m{i:03}")],
        }));
        meta_off += rec.len() as u64;
        meta.write_all(&rec)?;
    }
    let mut data_off = dl.len() as u64;
    let samples = days * 86_400;
    for n in 0..samples {
        let stamp = Timestamp::new(START + n as i64, 0);
        if n % 3600 == 0 {
            let e = IndexEntry {
                stamp,
                raw_nsec: 0,
                vol: 0,
                off_meta: meta_off as i64,
                off_data: data_off as i64,
            };
            index.write_all(&encode_index_entry(&e, 2))?;
        }
        let vsets: Vec<OwnedValueSet> = (0..nmetrics)
            .map(|i| {
                let v = value(i, n);
                OwnedValueSet {
                    pmid: PmId::new(251, 0, i),
                    numval: 1,
                    valfmt: if matches!(v, OwnedValue::Insitu(_)) {
                        VAL_INSITU
                    } else {
                        VAL_DPTR
                    },
                    values: vec![(-1, v)],
                }
            })
            .collect();
        let rec = encode_frame(&encode_result(stamp, &vsets, 2));
        data_off += rec.len() as u64;
        data.write_all(&rec)?;
    }
    meta.flush()?;
    data.flush()?;
    index.flush()?;
    eprintln!("wrote {base}: {samples} samples of {nmetrics} metrics, {data_off} bytes of data");
    Ok(())
}
