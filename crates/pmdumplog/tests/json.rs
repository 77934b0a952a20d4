//! `--json` carries the same content as the reference's text dump: checked against the
//! committed goldens of sample_v3 (records, descriptors and sample.colour's values).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn golden(case: &str) -> String {
    std::fs::read_to_string(
        root()
            .join("testdata/golden/sample_v3")
            .join(case)
            .join("stdout"),
    )
    .expect("golden")
}

#[test]
fn json_lines_match_the_text_dump() {
    let arch = root().join("testdata/archives/sample_v3");
    let args: Vec<String> = vec!["--json".into(), arch.to_string_lossy().into_owned()];
    let mut out = Vec::new();
    let mut err = Vec::new();
    let status = pmdumplog::run(&args, &mut out, &mut err);
    assert_eq!(status, 0, "stderr: {}", String::from_utf8_lossy(&err));
    let text = String::from_utf8(out).expect("utf-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();

    // descriptors: as many as `pmdumplog -d` lists (golden case 03)
    let ndesc = golden("03")
        .lines()
        .filter(|l| l.starts_with("PMID:"))
        .count();
    assert_eq!(lines[0]["type"], "archive");
    assert_eq!(
        lines[0]["metrics"].as_array().expect("metrics").len(),
        ndesc
    );

    // records and marks: as many as `pmdumplog -a` prints (golden case 00)
    let a = golden("00");
    let nrec = a
        .lines()
        .filter(|l| l.contains(" metric") && l.starts_with(|c: char| c.is_ascii_digit()))
        .count();
    let nmark = a.lines().filter(|l| l.ends_with("<mark>")).count();
    let recs = lines.iter().filter(|l| l["type"] == "record").count();
    let marks = lines.iter().filter(|l| l["type"] == "mark").count();
    assert_eq!((recs, marks), (nrec, nmark));

    // every value of sample.colour, in order, as the text dump shows them
    let want: Vec<i64> = a
        .lines()
        .skip_while(|l| {
            !l.contains("(sample.dupnames.four.colour or sample.colour)")
                && !l.contains("(sample.colour")
        })
        .filter(|l| {
            l.contains("inst [")
                && (l.contains("\"red\"") || l.contains("\"green\"") || l.contains("\"blue\""))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse().ok())
        .collect();
    let got: Vec<i64> = lines
        .iter()
        .filter(|l| l["type"] == "record")
        .flat_map(|l| l["values"].as_array().cloned().unwrap_or_default())
        .filter(|v| v["pmid"] == "29.0.5")
        .flat_map(|v| v["instances"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| i["value"].as_i64())
        .collect();
    assert!(!got.is_empty());
    assert_eq!(got, want);
}
