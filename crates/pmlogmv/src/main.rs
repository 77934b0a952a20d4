//! `pmlogmv`: rename the files of an archive as a group. All the work is in the
//! library half of this crate.

fn main() {
    cli_common::shell::main(pmlogmv::run)
}
