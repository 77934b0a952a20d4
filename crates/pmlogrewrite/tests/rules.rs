//! Rules applied to the project's archives: the files PCP's pmlogrewrite
//! writes for the same rules (where it is installed), and what the rewritten
//! archive holds when read back.

use archive_format::types::{vtype, PmId};
use std::path::Path;
use test_support::run_tool;

mod common;
use common::{archive, REFERENCE};

const RULES: &str = "\
global { hostname -> renamed.example.com }
metric sample.long.one { pmid -> 29.99.1 type -> U64 }
metric sample.colour { name -> sample.color sem -> discrete }
metric sample.bin { delete }
";

#[test]
fn rules_rewrite_as_pcps_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules");
    std::fs::write(&rules, RULES).expect("writes");
    let rules = rules.to_string_lossy().into_owned();
    let ours = dir.path().join("ours").to_string_lossy().into_owned();
    let (code, out, err) = run_tool(
        pmlogrewrite::run,
        &["-c", &rules, &archive("sample_v3"), &ours],
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let a = archive_format::Archive::open(&ours).expect("opens");
    assert_eq!(a.label().hostname, "renamed.example.com");
    let m = a.metadata();
    let one = m.desc(PmId::new(29, 99, 1)).expect("renumbered");
    assert_eq!(one.vtype, vtype::U64);
    assert!(
        m.names(PmId::new(29, 0, 6)).is_empty(),
        "sample.bin deleted"
    );
    if !Path::new(REFERENCE).exists() {
        test_support::skip("PCP's pmlogrewrite is not installed");
        return;
    }
    let theirs = dir.path().join("theirs").to_string_lossy().into_owned();
    let st = std::process::Command::new(REFERENCE)
        .args(["-c", &rules, &archive("sample_v3"), &theirs])
        .status()
        .expect("runs");
    assert!(st.success());
    for ext in ["0", "meta", "index"] {
        let a = std::fs::read(format!("{ours}.{ext}")).expect("ours");
        let b = std::fs::read(format!("{theirs}.{ext}")).expect("theirs");
        assert!(a == b, "{ext} differs");
    }
}
