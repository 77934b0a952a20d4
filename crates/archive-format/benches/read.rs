//! Reader throughput: opening an archive (label, metadata, index), iterating its
//! records forward and backward, and formatting every value as pmdumplog does.
//! Uses the committed testdata archives, so it runs anywhere.

use archive_format::archive::Archive;
use archive_format::format::format_value;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;

fn archive(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/archives")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn bench(c: &mut Criterion) {
    for name in ["sample_v2", "sample_v3"] {
        let path = archive(name);
        let a = Archive::open(&path).expect("testdata archive");
        let bytes: u64 = a
            .records()
            .filter_map(Result::ok)
            .map(|(_, r)| r.size(a.version()) as u64)
            .sum();
        let mut g = c.benchmark_group(name);
        g.bench_function("open", |b| {
            b.iter(|| Archive::open(black_box(&path)).expect("open"))
        });
        g.bench_function("end_time", |b| b.iter(|| a.end_time().expect("end")));
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function("records_forward", |b| {
            b.iter(|| {
                a.records()
                    .filter_map(Result::ok)
                    .map(|(_, r)| r.vsets.len())
                    .sum::<usize>()
            })
        });
        g.bench_function("records_backward", |b| {
            b.iter(|| {
                a.records_rev()
                    .filter_map(Result::ok)
                    .map(|(_, r)| r.vsets.len())
                    .sum::<usize>()
            })
        });
        g.bench_function("format_values", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for (_, r) in a.records().filter_map(Result::ok) {
                    for vs in &r.vsets {
                        let ty = a.metadata().desc(vs.pmid).map(|d| d.vtype).unwrap_or(-1);
                        for (_, v) in &vs.values {
                            n += format_value(ty, vs.valfmt, v).len();
                        }
                    }
                }
                n
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
