//! pminfo against PCP's on the project's own archives (the whole corpus is the
//! conformance suite's) and on the local pmcd with the sample agent, `--version`,
//! `--help`, and `--json` carrying what the text output says.

use std::path::{Path, PathBuf};
use test_support::{have_tool, run_tool};

fn archive(name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/archives")
        .join(name);
    p.to_string_lossy().into_owned()
}

const SETS: &[&[&str]] = &[
    &[],
    &["-m"],
    &["-dI"],
    &["-tT"],
    &["-f"],
    &["-l"],
    &["-s"],
    &["-v"],
    &["-x", "-Z", "UTC"],
];

#[test]
fn same_output_as_pcp_on_our_archives() {
    if !have_tool("pminfo") {
        return;
    }
    let mut compared = 0;
    for a in ["sample_v2", "sample_v3", "pmi_v2", "marks"] {
        for set in SETS {
            let mut args: Vec<String> = set.iter().map(|s| s.to_string()).collect();
            args.extend(["-a".to_string(), archive(a)]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, err) = run_tool(pminfo::run, &refs);
            let p = std::process::Command::new("pminfo")
                .args(&args)
                .env("TZ", "UTC")
                .output()
                .expect("pminfo runs");
            assert_eq!(out, String::from_utf8_lossy(&p.stdout), "{a} {set:?}");
            assert_eq!(err, String::from_utf8_lossy(&p.stderr), "{a} {set:?}");
            assert_eq!(code, p.status.code().unwrap_or(-1), "{a} {set:?}");
            compared += 1;
        }
    }
    assert_eq!(compared, 4 * SETS.len());
}

/// Damaged archives where the fetches' file position shows: records before the
/// label's start (read, as pminfo's origin is time 0), and an index whose first
/// volume is missing (each fetch reads on from the last).
#[test]
fn one_file_position_across_fetches_on_damaged_archives() {
    let dir = Path::new("/var/lib/pcp/testsuite/badarchives");
    if !have_tool("pminfo") {
        return;
    }
    if !dir.is_dir() {
        test_support::skip("PCP's QA corpus is not installed");
        return;
    }
    for a in ["badlog-4", "badti-2", "badti-4"] {
        let path = dir.join(a).to_string_lossy().into_owned();
        let args = ["-f", "-a", &path];
        let (code, out, err) = run_tool(pminfo::run, &args);
        let p = std::process::Command::new("pminfo")
            .args(args)
            .env("TZ", "UTC")
            .output()
            .expect("pminfo runs");
        assert_eq!(out, String::from_utf8_lossy(&p.stdout), "{a}");
        assert_eq!(err, String::from_utf8_lossy(&p.stderr), "{a}");
        assert_eq!(code, p.status.code().unwrap_or(-1), "{a}");
    }
}

/// Whether the local pmcd answers with the sample agent; when it does not,
/// [`test_support::skip`]s.
fn sample_agent_up() -> bool {
    let p = std::process::Command::new("pminfo")
        .args(["-f", "sample.long.one"])
        .output();
    let up = p.is_ok_and(|p| String::from_utf8_lossy(&p.stdout).contains("value 1"));
    if !up {
        test_support::skip("no local pmcd with the sample agent (scripts/start-pmcd.sh --sample)");
    }
    up
}

#[test]
fn same_output_as_pcp_on_the_local_pmcd() {
    if !have_tool("pminfo") || !sample_agent_up() {
        return;
    }
    let conf = std::env::temp_dir().join(format!("pminfo-live-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        "my.sum = sample.long.one + sample.long.ten\nmy.bad = no.such + 1\n",
    )
    .expect("writes the configuration");
    let conf = conf.to_string_lossy().into_owned();
    let cases: &[&[&str]] = &[
        &["-dmtTfl", "sample.long.one", "sample.bin"],
        &["-F", "-f", "sample.needprofile"],
        &[
            "-f",
            "-b",
            "2",
            "sample.long.one",
            "no.such",
            "event",
            "kernel.cpu.util.user",
        ],
        &["-c", &conf, "-df", "my"],
        &["-mtT", "29.0.6", "29.2"],
        &["-h", "localhost:1", "sample.long.one"],
    ];
    for args in cases {
        let (code, out, err) = run_tool(pminfo::run, args);
        let p = std::process::Command::new("pminfo")
            .args(*args)
            .output()
            .expect("pminfo runs");
        assert_eq!(out, String::from_utf8_lossy(&p.stdout), "{args:?}");
        assert_eq!(err, String::from_utf8_lossy(&p.stderr), "{args:?}");
        assert_eq!(code, p.status.code().unwrap_or(-1), "{args:?}");
    }
    let _ = std::fs::remove_file(&conf);
}

#[test]
fn json_lines_carry_the_names_and_values_of_the_text() {
    let a = archive("sample_v3");
    let (code, text, _) = run_tool(pminfo::run, &["-a", &a, "-f", "sample.colour"]);
    assert_eq!(code, 0);
    let (code, json, _) = run_tool(pminfo::run, &["-a", &a, "-f", "--json", "sample.colour"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect("one JSON line");
    assert_eq!(v["name"], "sample.colour");
    let values = v["values"].as_array().expect("values");
    assert!(!values.is_empty());
    for x in values {
        let line = format!(
            "    inst [{} or \"{}\"] value {}",
            x["inst"],
            x["name"].as_str().unwrap(),
            x["value"].as_str().unwrap()
        );
        assert!(text.lines().any(|l| l == line), "{line} not in {text}");
    }
}

#[test]
fn version_and_help() {
    let (code, out, _) = run_tool(pminfo::run, &["--version"]);
    assert_eq!(code, 0);
    test_support::assert_version("pminfo", out.as_bytes());
    let (code, _, err) = run_tool(pminfo::run, &["--help"]);
    assert_eq!(code, 1);
    test_support::assert_help_lists("pminfo", err.as_bytes(), &["--json"]);
}
