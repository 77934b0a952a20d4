//! Time specs that libpcp's ctime parser refuses and hands to getdate(3), whose
//! missing fields come from now (a weekday alone is the next such day, a month
//! named in full takes this year, a bare hour is today's): their resolved start
//! against PCP's pmval run at the same moment. The forms that depend only on the
//! archive are in the goldens (tests/golden.rs).

use std::path::{Path, PathBuf};
use std::process::Command;

fn archive() -> String {
    let p: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives/sample_v3");
    p.to_string_lossy().into_owned()
}

/// The `start:` and `end:` lines of pmval's header (or its error) for `-S spec`.
fn header(out: &[u8], err: &[u8]) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(out),
        String::from_utf8_lossy(err)
    );
    text.lines()
        .filter(|l| {
            l.starts_with("start:") || l.starts_with("end:") || l.contains("invalid time window")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn now_relative_forms_resolve_as_pcps() {
    if !test_support::have_tool("pmval") {
        return;
    }
    let forms = [
        "@Mon",
        "@Thursday",
        "@10",
        "@10am",
        "@11pm",
        "@November 9",
        "@Monday 10:00",
        "@Mon 10:00",
        "@Monday Nov 9 10:00",
        "@March 3 2024",
    ];
    for spec in forms {
        let args = [
            "-z",
            "-t",
            "1h",
            "-S",
            spec,
            "-a",
            &archive(),
            "sample.long.one",
        ];
        let reference = Command::new("pmval")
            .args(args)
            .env("TZ", "UTC")
            .output()
            .expect("run PCP's pmval");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        // (-z: both resolve and print in the archive's zone)
        pmval::run(&argv, &mut out, &mut err);
        assert_eq!(
            header(&out, &err),
            header(&reference.stdout, &reference.stderr),
            "-S {spec}"
        );
    }
}
