//! `pmlogmv`: rename the files of an archive as a group. All the work is in the
//! library half of this crate; run as `pmlogcp` or `pmlogls` (a link of that
//! name), it copies or lists them as PCP 7's tools of those names do.

fn main() {
    let argv0 = std::env::args().next().unwrap_or_default();
    pmlogmv::main_as(pmlogmv::mode_of(&argv0))
}
