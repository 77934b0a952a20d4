//! `pmlogcheck`: check a PCP archive. All the work is in the library half of this crate.

fn main() {
    cli_common::shell::main(pmlogcheck::run)
}
