//! `pmlogextract`: merge, trim and select PCP archives. All the work is in the library
//! half of this crate.

fn main() {
    cli_common::shell::main(pmlogextract::run)
}
