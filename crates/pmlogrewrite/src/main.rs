//! `pmlogrewrite`: rewrite PCP archives by rules. All the work is in the library
//! half of this crate.

fn main() {
    cli_common::shell::main(pmlogrewrite::run)
}
