//! Interpolates every metric of an archive at a fixed step from start to end and
//! prints one line per fetch: the time (sec.usec) and each value as a double (or `-`).
//! `scripts/bench-replay.sh` runs this and the same loop through PCP's Python API, and
//! compares the outputs and the times.
//!
//! Usage: cargo run --release -p archive-format --example interp_bench -- ARCHIVE [STEP_MS]

use archive_format::atom::extract;
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::Archive;
use std::io::{BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: interp_bench ARCHIVE [STEP_MS]");
        std::process::exit(1);
    };
    let step: i64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60_000);
    let a = Archive::open(name)?;
    let mut names: Vec<(String, archive_format::PmId)> = a
        .metadata()
        .descs()
        .iter()
        .filter_map(|d| {
            a.metadata()
                .names(d.pmid)
                .first()
                .map(|n| (n.clone(), d.pmid))
        })
        .collect();
    names.sort();
    let pmids: Vec<_> = names.iter().map(|(_, p)| *p).collect();
    let types: Vec<i32> = pmids
        .iter()
        .map(|p| a.metadata().desc(*p).map(|d| d.vtype).unwrap_or(-1))
        .collect();
    let mut r = Replay::new(&a);
    r.set_mode(
        Mode::Interp,
        Some(a.label().start),
        Delta::from_millis(step),
    );
    let out = std::io::stdout();
    let mut out = BufWriter::new(out.lock());
    while let Ok(res) = r.fetch(&pmids) {
        write!(out, "{}.{:06}", res.stamp.sec, res.stamp.nsec / 1000)?;
        for (set, ty) in res.sets.iter().zip(&types) {
            match set
                .values
                .first()
                .and_then(|(_, v)| extract(*ty, &v.as_value()))
            {
                Some(x) => write!(out, " {:?}", x.as_f64().unwrap_or(f64::NAN))?,
                None => write!(out, " -")?,
            }
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}
