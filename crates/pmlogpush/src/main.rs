//! `pmlogpush`: an archive sent to pmproxy. All the work is in the library half
//! of this crate.

fn main() {
    cli_common::shell::main(pmlogpush::run)
}
