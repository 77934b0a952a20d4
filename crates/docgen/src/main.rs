//! `cargo run -p docgen [-- --check]`: every tool's man page (`man/TOOL.1`) and its
//! bash, zsh and fish completions (`completions/`), made from the one definition of
//! the tool's options. With `--check`, nothing is written and the exit status is 1
//! when a committed file differs from what the definitions make.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap_complete::Shell;

/// The PCP tools, whose options are a [`cli_common::spec::Tool`].
const PCP_TOOLS: [cli_common::spec::Tool; 16] = [
    pmdumplog::TOOL,
    pmdumplog::PMLOGDUMP,
    pmval::TOOL,
    pminfo::TOOL,
    pmlogsummary::TOOL,
    pmlogextract::TOOL,
    pmlogrewrite::TOOL,
    pmloglabel::TOOL,
    pmlogmv::TOOL,
    pmlogsize::TOOL,
    pmlogcompress::TOOL,
    pmlogcompress::DE_TOOL,
    pmlogcheck::TOOL,
    pmlogger::TOOL,
    pmlc::TOOL,
    pmlogpush::TOOL,
];

/// What the man page of a PCP tool says before its options.
fn description(tool: &str) -> String {
    format!(
        "This {tool} is the one of {project}, a Rust replacement for the archive tools of \
         Performance Co-Pilot that follows PCP {pcp}: the same options, output and exit \
         status as PCP's, which its conformance suite measures. PCP's own page, {tool}(1), \
         describes each option at length.",
        project = cli_common::about::PROJECT,
        pcp = follows(tool),
    )
}

/// The PCP release a tool follows (the tools PCP 6.0.3 does not have follow 7.2).
fn follows(tool: &str) -> &'static str {
    match tool {
        "pmlogcompress" | "pmlogdecompress" | "pmlogpush" => cli_common::about::PCP7_VERSION,
        _ => cli_common::about::PCP_VERSION,
    }
}

/// Every tool's command, with the synopsis of the PCP tools as PCP's usage gives it
/// (clap's would list every option).
fn commands() -> Vec<(clap::Command, Option<String>)> {
    let mut cmds: Vec<(clap::Command, Option<String>)> = PCP_TOOLS
        .iter()
        .map(|t| {
            let cmd = t.command().long_about(description(t.name));
            (cmd, Some(t.synopsis.to_string()))
        })
        .collect();
    cmds.push((pcp2parquet::cli::command(), None));
    cmds
}

/// The man page of `cmd`, its SYNOPSIS `synopsis` where one is given.
fn man_page(cmd: &clap::Command, synopsis: Option<&str>) -> Vec<u8> {
    let mut man = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .source(cli_common::about::PROJECT)
        .manual("User Commands")
        .render(&mut man)
        .expect("rendering into memory does not fail");
    let Some(synopsis) = synopsis else {
        return man;
    };
    let text = String::from_utf8_lossy(&man);
    let (Some(a), Some(b)) = (text.find(".SH SYNOPSIS\n"), text.find(".SH DESCRIPTION")) else {
        return man;
    };
    let line = format!(
        "\\fB{}\\fR {}\n",
        cmd.get_name(),
        synopsis.replace('-', "\\-")
    );
    format!("{}.SH SYNOPSIS\n{line}{}", &text[..a], &text[b..]).into_bytes()
}

/// The files of one command: its man page and its completions.
fn files((mut cmd, synopsis): (clap::Command, Option<String>)) -> Vec<(PathBuf, Vec<u8>)> {
    let name = cmd.get_name().to_string();
    let man = man_page(&cmd, synopsis.as_deref());
    let mut out = vec![(Path::new("man").join(format!("{name}.1")), man)];
    for (shell, file) in [
        (Shell::Bash, format!("{name}.bash")),
        (Shell::Zsh, format!("_{name}")),
        (Shell::Fish, format!("{name}.fish")),
    ] {
        let mut text = Vec::new();
        clap_complete::generate(shell, &mut cmd, name.clone(), &mut text);
        out.push((Path::new("completions").join(file), text));
    }
    out
}

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stale = Vec::new();
    for (path, text) in commands().into_iter().flat_map(files) {
        let full = root.join(&path);
        if std::fs::read(&full).ok().as_deref() == Some(&text[..]) {
            continue;
        }
        stale.push(path.display().to_string());
        if !check {
            if let Err(e) = std::fs::write(&full, &text) {
                eprintln!("docgen: {}: {e}", full.display());
                return ExitCode::FAILURE;
            }
        }
    }
    match (check, stale.is_empty()) {
        (_, true) => ExitCode::SUCCESS,
        (true, false) => {
            eprintln!(
                "docgen: out of date (run cargo run -p docgen): {}",
                stale.join(" ")
            );
            ExitCode::FAILURE
        }
        (false, false) => {
            println!("docgen: wrote {}", stale.join(" "));
            ExitCode::SUCCESS
        }
    }
}
