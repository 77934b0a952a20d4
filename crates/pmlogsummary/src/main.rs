//! `pmlogsummary`: statistics of the metrics in an archive. The work is in the
//! library half.

fn main() {
    cli_common::shell::main(pmlogsummary::run)
}
