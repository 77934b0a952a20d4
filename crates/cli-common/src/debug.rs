//! `-D` debug flags as libpcp's `pmSetDebug` accepts them (names or numbers,
//! comma-separated). The tools accept and ignore them.

/// The flag names libpcp 6.0.3 knows.
pub const DEBUG_FLAGS: &[&str] = &[
    "pdu",
    "fetch",
    "profile",
    "value",
    "context",
    "indom",
    "pdubuf",
    "log",
    "logmeta",
    "optfetch",
    "af",
    "appl0",
    "appl1",
    "appl2",
    "pmns",
    "libpmda",
    "timecontrol",
    "pmc",
    "derive",
    "lock",
    "interp",
    "config",
    "pmapi",
    "fault",
    "auth",
    "discovery",
    "attr",
    "http",
    "desperate",
    "deprecated",
    "exec",
    "labels",
    "series",
    "access",
    "qa",
    "dev0",
    "dev1",
    "dev2",
    "all",
];

/// Whether libpcp would accept `spec`.
pub fn debug_ok(spec: &str) -> bool {
    spec.split(',')
        .all(|f| f.parse::<i64>().is_ok() || DEBUG_FLAGS.contains(&f))
}
/// `-D SPEC`: PCP's message when it names a flag libpcp does not know.
pub fn check(spec: &str) -> Result<(), String> {
    if debug_ok(spec) {
        Ok(())
    } else {
        Err(format!("unrecognized debug options specification ({spec})"))
    }
}
