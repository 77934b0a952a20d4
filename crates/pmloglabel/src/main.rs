//! `pmloglabel`: check, show and repair the labels of an archive's files. All
//! the work is in the library half of this crate.

fn main() {
    cli_common::shell::main(pmloglabel::run)
}
