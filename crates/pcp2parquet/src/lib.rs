//! pcp2parquet: PCP archives (one, or the trees of a pmlogger farm) exported to
//! Hive-partitioned Parquet datasets that DuckDB, Spark, Trino and DataFusion read.
//!
//! ```text
//! OUTDIR/values/host=H/date=YYYY-MM-DD/part-*.parquet   every value (or sample)
//! OUTDIR/events/host=H/date=YYYY-MM-DD/part-*.parquet   event records' parameters
//! OUTDIR/metrics/host=H/ARCHIVE-*.parquet               descriptors, help, labels
//! OUTDIR/.pcp2parquet.json                              what has been exported
//! ```
//!
//! Layers: [`discover`] finds archives, [`export`] turns one archive into rows,
//! `rows` holds them series by series until its share of [`memory`] is full,
//! [`table`] writes them: `values` row groups are encoded by `values` (column by
//! column from the rows held, with `encode`'s encodings, into `chunk`'s column
//! chunks), the small datasets by parquet's column writers; [`state`] remembers
//! what was written; [`run`] exports many archives on several threads. The
//! binary is only its command line.

mod chunk;
pub mod cli;
mod derived;
pub mod discover;
mod encode;
pub mod export;
pub mod memory;
mod metrics;
mod rows;
pub mod state;
pub mod table;
mod values;

use std::io::{self, IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use export::Options;

/// Figures of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub archives: usize,
    pub unchanged: usize,
    pub failed: usize,
    pub value_rows: u64,
    pub event_rows: u64,
}

/// Exports the archives `paths` name into `o.outdir` on `jobs` threads; messages
/// (`pcp2parquet: ...`) go to `err`. Archives that fail are reported and counted,
/// the others exported.
pub fn run(
    paths: &[PathBuf],
    o: &Options,
    jobs: usize,
    err: &mut (dyn io::Write + Send),
) -> io::Result<Summary> {
    let archives = discover::archives(paths)?;
    std::fs::create_dir_all(&o.outdir)?;
    let mut st = state::State::load(&o.outdir)?.unwrap_or_default();
    let fp = o.fingerprint();
    if !st.archives.is_empty() && st.options != fp {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} was exported with other options ({}); use another output directory",
                o.outdir.display(),
                st.options
            ),
        ));
    }
    st.options = fp;
    let keys: Vec<String> = archives
        .iter()
        .map(|b| {
            std::path::absolute(b)
                .unwrap_or_else(|_| b.clone())
                .to_string_lossy()
                .into_owned()
        })
        .collect();

    let bar = if io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(archives.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} archives {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let shared = Mutex::new((st, Summary::default(), err));
    let jobs = jobs.clamp(1, archives.len().max(1));
    // each job its share of the cores (decoding volumes ahead, encoding numbers
    // beside the other columns): more threads than cores only contend
    archive_format::cores::set_default((archive_format::cores::machine() / jobs).max(1));
    // the memory of the run, shared out between the archives being exported
    let mem = memory::Memory::new(o.memory, jobs);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let (Some(base), Some(key)) = (archives.get(i), keys.get(i)) else {
                    break;
                };
                let prev = {
                    let g = shared.lock().unwrap_or_else(|e| e.into_inner());
                    g.0.archives.get(key).cloned()
                };
                let got = export::export(std::path::Path::new(key), o, prev.as_ref(), &mem);
                let mut g = shared.lock().unwrap_or_else(|e| e.into_inner());
                let (st, sum, err) = &mut *g;
                sum.archives += 1;
                match got {
                    Ok(out) => {
                        if let Some(w) = &out.warning {
                            let _ = writeln!(
                                err,
                                "pcp2parquet: {}: stopped at a record that cannot be read ({w}); the rest is exported on a later run",
                                base.display()
                            );
                        }
                        sum.unchanged += usize::from(out.unchanged);
                        sum.value_rows += out.rows.0;
                        sum.event_rows += out.rows.1;
                        st.archives.insert(key.clone(), out.state);
                        // saved after each archive: an interrupted run keeps what it did
                        if let Err(e) = st.save(&o.outdir) {
                            let _ = writeln!(err, "pcp2parquet: {}: {e}", o.outdir.display());
                            sum.failed += 1;
                        }
                    }
                    Err(e) => {
                        sum.failed += 1;
                        bar.suspend(|| {
                            let _ = writeln!(err, "pcp2parquet: {}: {e}", base.display());
                        });
                    }
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    let (_, sum, _) = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(sum)
}
