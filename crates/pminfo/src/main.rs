//! `pminfo`: what an archive holds. The work is in the library half.

fn main() {
    cli_common::shell::main(pminfo::run)
}
