#![no_main]
//! The text parsers: pmlogger's configuration, an ASCII namespace, the metric
//! argument, PCP's time intervals and points in time, derived-metric expressions
//! (one after another, as libpcp parses them), units strings and pmlogrewrite's
//! rules.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = pmlogger::config::parse(&text, 60_000);
    let _ = archive_format::pmns::Pmns::parse_ascii(&text);
    let _ = cli_common::metricspec::parse(&text);
    let mut in_matchinst = false;
    for line in text.lines() {
        let _ = archive_format::derive::parse_after(line, &mut in_matchinst);
    }
    let _ = archive_format::unitstr::parse_units(&text);
    let _ = cli_common::window::parse_interval(&text);
    let utc = cli_common::zone::parse_tz("UTC");
    let _ = cli_common::window::parse_absolute(&text, &utc, None);
    let label = archive_format::codec::label::Label {
        version: 3,
        pid: 1,
        start: archive_format::types::Timestamp::new(0, 0),
        vol: 0,
        features: 0,
        hostname: "host".into(),
        timezone: "UTC".into(),
        zoneinfo: String::new(),
    };
    let _ = pmlogrewrite::parse_rules(data, &label, 3);
});
