//! A pmlogrewrite killed (SIGKILL) at any moment leaves either no output or the
//! whole output, never a partial archive under the output's name; the hidden
//! temporary files it leaves are removed by the next run beside them.

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp, Units};
use archive_format::writer::{ArchiveWriter, FlushPolicy, WriterOptions};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn hidden(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// An input large enough that a rewrite takes a while: 100 metrics over
/// 4,000 records.
fn input(dir: &Path) -> String {
    let base = dir.join("in");
    let opts = WriterOptions {
        flush: FlushPolicy::NoSync,
        buffered: true,
        ..WriterOptions::default()
    };
    let mut w = ArchiveWriter::create(&base, opts).expect("creates");
    let pmids: Vec<PmId> = (0..100).map(|i| PmId::new(60, 0, i)).collect();
    for (i, p) in pmids.iter().enumerate() {
        let d = Desc {
            pmid: *p,
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::COUNTER,
            units: Units(0),
        };
        w.put_desc(d, &[format!("m.m{i}")]).expect("desc");
    }
    for k in 0..4_000u32 {
        let sets: Vec<OwnedValueSet> = pmids
            .iter()
            .map(|p| OwnedValueSet {
                pmid: *p,
                numval: 1,
                valfmt: VAL_INSITU,
                values: vec![(-1, OwnedValue::Insitu(k))],
            })
            .collect();
        w.put_result(Timestamp::new(1_700_000_000 + i64::from(k), 0), &sets)
            .expect("result");
    }
    w.close().expect("closes");
    base.to_string_lossy().into_owned()
}

/// When each run is killed (microseconds after it starts): from before its
/// first write to after its last.
const MOMENTS: [u64; 6] = [0, 2000, 10_000, 30_000, 60_000, 120_000];

#[test]
fn a_killed_run_leaves_no_partial_output_and_the_next_sweeps() {
    let bin = env!("CARGO_BIN_EXE_pmlogrewrite");
    let dir = tempfile::tempdir().expect("tempdir");
    let input = input(dir.path());
    for (k, micros) in MOMENTS.iter().enumerate() {
        let out = dir.path().join(format!("out{k}"));
        let mut child = Command::new(bin)
            .args([&input, out.to_str().expect("utf-8")])
            .spawn()
            .expect("starts");
        std::thread::sleep(Duration::from_micros(*micros));
        let _ = child.kill();
        let _ = child.wait();
        let files: Vec<_> = ["0", "meta", "index"]
            .iter()
            .filter(|e| Path::new(&format!("{}.{e}", out.display())).exists())
            .collect();
        assert!(
            files.is_empty() || files.len() == 3,
            "partial output {files:?}"
        );
        if files.len() == 3 {
            archive_format::Archive::open(out.to_str().expect("utf-8")).expect("a whole archive");
        }
    }
    let left = hidden(dir.path()).len();
    eprintln!("{left} temporary files left by the killed runs");
    // the next run beside each output sweeps what the killed ones left
    for k in 0..MOMENTS.len() {
        let out = dir.path().join(format!("out{k}"));
        if Path::new(&format!("{}.meta", out.display())).exists() {
            continue;
        }
        let st = Command::new(bin)
            .args([&input, out.to_str().expect("utf-8")])
            .status()
            .expect("runs");
        assert!(st.success());
    }
    assert_eq!(hidden(dir.path()), Vec::<String>::new());
}
