//! `pcp2parquet [options] -o OUTDIR PATH...`: the command line of [`pcp2parquet::run`].

use clap::{CommandFactory, Parser};

use std::path::PathBuf;
use std::process::ExitCode;

/// Export PCP archives to Parquet (Hive-partitioned by host and UTC date) for
/// DuckDB, Spark, Trino and DataFusion.
#[derive(Parser, Debug)]
#[command(name = "pcp2parquet", version, about, long_about = None)]
struct Cli {
    /// Output directory (datasets values/, events/, metrics/)
    #[arg(short = 'o', long = "output", value_name = "OUTDIR", required_unless_present_any = ["completions", "man"])]
    outdir: Option<PathBuf>,
    /// Archives (any of PCP's name forms, compressed too) or directories searched recursively
    #[arg(value_name = "PATH", required_unless_present_any = ["completions", "man"])]
    paths: Vec<PathBuf>,
    /// Start of the time window (PCP's -S forms; absolute times are UTC)
    #[arg(
        short = 'S',
        long = "start",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    start: Option<String>,
    /// End of the time window (PCP's -T forms; absolute times are UTC)
    #[arg(
        short = 'T',
        long = "finish",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    finish: Option<String>,
    /// Only this metric or subtree (repeatable)
    #[arg(short = 'm', long = "metric", value_name = "NAME")]
    metrics: Vec<String>,
    /// Interpolated samples this far apart (PCP interval forms: 10, 10s, 1min), counters as rates
    #[arg(short = 't', long = "interval", value_name = "INTERVAL")]
    interval: Option<String>,
    /// Archives exported at once (default: the number of cores)
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Unit of the timestamp columns: ns (as v3 archives hold them) or us (as v2
    /// archives do; Spark without its nanosecond settings reads only these)
    #[arg(long = "time-unit", value_name = "UNIT", default_value = "ns", value_parser = ["ns", "us"])]
    time_unit: String,
    /// Rows per row group, at most
    #[arg(long = "row-group-size", value_name = "ROWS", default_value_t = 1 << 20)]
    row_group: usize,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) and exit
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    /// Print the man page (roff) and exit
    #[arg(long)]
    man: bool,
}

fn main() -> ExitCode {
    pcp2parquet::memory::configure_allocator();
    let cli = Cli::parse();
    if let Some(sh) = cli.completions {
        clap_complete::generate(
            sh,
            &mut Cli::command(),
            "pcp2parquet",
            &mut std::io::stdout(),
        );
        return ExitCode::SUCCESS;
    }
    if cli.man {
        let man = clap_mangen::Man::new(Cli::command());
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
