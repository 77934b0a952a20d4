//! `pmlogls`: PCP 7's name of the same tool as pmlogmv (see its crate).

fn main() {
    pmlogmv::main_as(pmlogmv::opts::Mode::Ls)
}
