//! `pcp2parquet [options] -o OUTDIR PATH...`: the command line of [`pcp2parquet::run`].

use clap::Parser;
use pcp2parquet::cli::{command, Cli};

use std::process::ExitCode;

fn main() -> ExitCode {
    pcp2parquet::memory::configure_allocator();
    let cli = Cli::parse();
    if let Some(sh) = cli.completions {
        clap_complete::generate(sh, &mut command(), "pcp2parquet", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    if cli.man {
        let man = clap_mangen::Man::new(command());
        if let Err(e) = man.render(&mut std::io::stdout()) {
            eprintln!("pcp2parquet: {e}");
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    let interval = match cli.interval.as_deref() {
        None => None,
        Some(s) => match cli_common::window::parse_interval(s).filter(|n| *n > 0) {
            Some(n) => Some(n),
            None => {
                eprintln!("pcp2parquet: invalid interval: {s}");
                return ExitCode::FAILURE;
            }
        },
    };
    let o = pcp2parquet::Options {
        outdir: cli.outdir.unwrap_or_default(),
        start: cli.start,
        finish: cli.finish,
        metrics: cli.metrics,
        interval,
        row_group: cli.row_group,
        memory: 0,
        time_unit: match cli.time_unit.as_str() {
            "us" => pcp2parquet::table::TimeUnit::Micros,
            _ => pcp2parquet::table::TimeUnit::Nanos,
        },
    };
    let jobs = cli
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut err = std::io::stderr();
    match pcp2parquet::run(&cli.paths, &o, jobs, &mut err) {
        Ok(s) if s.failed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("pcp2parquet: {e}");
            ExitCode::FAILURE
        }
    }
}
