//! `pmlogsize`: where the space of an archive's files goes. All the work is in
//! the library half of this crate.

fn main() {
    cli_common::shell::main(pmlogsize::run)
}
