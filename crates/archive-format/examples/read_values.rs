//! Reads every value of an archive as pcp2parquet and pmdumplog -a do (each record
//! from the start, each value decoded to a number or a text) and prints how many
//! values there were and their sum: what an export costs before it writes
//! anything. `scripts/bench-farm.sh` times it beside the export.
//!
//! Usage: cargo run --release -p archive-format --example read_values -- ARCHIVE

use archive_format::atom::{extract, Atom};
use archive_format::Archive;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(name) = std::env::args().nth(1) else {
        eprintln!("usage: read_values ARCHIVE");
        std::process::exit(1);
    };
    let a = Archive::open(&name)?;
    let mut pos = a.start();
    let (mut values, mut texts, mut sum) = (0u64, 0u64, 0f64);
    while let Some((_, rec, next)) = a.read_forward(pos)? {
        for vs in &rec.vsets {
            let Some(d) = a.metadata().desc(vs.pmid) else {
                continue;
            };
            for (_, v) in &vs.values {
                values += 1;
                match extract(d.vtype, v) {
                    Some(Atom::String(_) | Atom::Bytes(_)) => texts += 1,
                    Some(x) => sum += x.as_f64().unwrap_or(0.0),
                    None => {}
                }
            }
        }
        pos = next;
    }
    println!("{values} values ({texts} texts), sum {sum}");
    Ok(())
}
