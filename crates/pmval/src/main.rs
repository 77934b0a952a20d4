//! `pmval`: one metric's values from an archive. The work is in the library half.

fn main() {
    cli_common::shell::main(pmval::run)
}
