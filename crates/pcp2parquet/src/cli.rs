//! pcp2parquet's command line, defined once with clap: parsing, `--help`, the man
//! page and the completions come from it.

use std::path::PathBuf;

use clap::Parser;

/// Export PCP archives to Parquet (Hive-partitioned by host and UTC date) for
/// DuckDB, Spark, Trino and DataFusion.
#[derive(Parser, Debug)]
#[command(name = "pcp2parquet", version, about, long_about = None)]
pub struct Cli {
    /// Output directory (datasets values/, events/, metrics/)
    #[arg(short = 'o', long = "output", value_name = "OUTDIR", required_unless_present_any = ["completions", "man"])]
    pub outdir: Option<PathBuf>,
    /// Archives (any of PCP's name forms, compressed too) or directories searched recursively
    #[arg(value_name = "PATH", required_unless_present_any = ["completions", "man"])]
    pub paths: Vec<PathBuf>,
    /// Start of the time window (PCP's -S forms; absolute times are UTC)
    #[arg(
        short = 'S',
        long = "start",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    pub start: Option<String>,
    /// End of the time window (PCP's -T forms; absolute times are UTC)
    #[arg(
        short = 'T',
        long = "finish",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    pub finish: Option<String>,
    /// Only this metric or subtree (repeatable)
    #[arg(short = 'm', long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
    /// Interpolated samples this far apart (PCP interval forms: 10, 10s, 1min), counters as rates
    #[arg(short = 't', long = "interval", value_name = "INTERVAL")]
    pub interval: Option<String>,
    /// Archives exported at once (default: the number of cores)
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Unit of the timestamp columns: ns (as v3 archives hold them) or us (as v2
    /// archives do; Spark without its nanosecond settings reads only these)
    #[arg(long = "time-unit", value_name = "UNIT", default_value = "ns", value_parser = ["ns", "us"])]
    pub time_unit: String,
    /// Rows per row group, at most
    #[arg(long = "row-group-size", value_name = "ROWS", default_value_t = 1 << 20)]
    pub row_group: usize,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) and exit
    #[arg(long, value_name = "SHELL")]
    pub completions: Option<clap_complete::Shell>,
    /// Print the man page (roff) and exit
    #[arg(long)]
    pub man: bool,
}

/// The command as clap knows it.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}
