//! Derived-metric expressions registered one after another, as PCP's
//! pmRegisterDerivedMetric(3) took them (testdata/golden-derive/syntax.tsv, made
//! by scripts/make-derive-goldens.py): the same accepted, and for the rest the
//! same message, marker and diagnostic.

use archive_format::derive::parse_after;

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

#[test]
fn every_expression_as_libpcp_takes_it() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/golden-derive/syntax.tsv"
    );
    let bytes = std::fs::read(path).expect("goldens");
    // the file is Latin-1 (each byte a character)
    let text: String = bytes.iter().map(|&b| b as char).collect();
    let mut in_matchinst = false;
    let (mut same, mut all, mut first_diff) = (0, 0, Vec::new());
    for (n, line) in text.lines().filter(|l| !l.starts_with('#')).enumerate() {
        let Some((expr, want)) = line.split_once('\t') else {
            continue;
        };
        let want = unescape(want);
        let got = match parse_after(expr, &mut in_matchinst) {
            Ok(_) => "OK".to_string(),
            Err(e) => e.render(&format!("g.m{n}"), expr),
        };
        all += 1;
        if got == want {
            same += 1;
        } else if first_diff.len() < 15 {
            first_diff.push(format!("{expr:?}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    println!("derived-metric syntax: {same} of {all} identical");
    assert!(all > 1000, "{all} expressions");
    assert!(
        first_diff.is_empty(),
        "{same} of {all}:\n{}",
        first_diff.join("\n")
    );
}

/// Units strings as PCP's pmParseUnitsStr(3) read them
/// (testdata/golden-derive/units.tsv): the same units and multiplier, or the
/// same message.
#[test]
fn units_as_libpcp_reads_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/golden-derive/units.tsv"
    );
    let text = std::fs::read_to_string(path).expect("goldens");
    let (mut same, mut all, mut diffs) = (0, 0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((s, want)) = line.split_once('\t') else {
            continue;
        };
        let s = s.replace("\\t", "\t");
        let got = archive_format::unitstr::parse_units(&s);
        let ok = match (want.strip_prefix("error: "), &got) {
            (Some(msg), Err(e)) => msg == e,
            (None, Ok((units, mult))) => {
                let (word, m) = want.split_once(' ').unwrap_or_default();
                let m: f64 = m.parse().unwrap_or(f64::NAN);
                u32::from_str_radix(word, 16) == Ok(units.0) && m.to_bits() == mult.to_bits()
            }
            _ => false,
        };
        all += 1;
        if ok {
            same += 1;
        } else if diffs.len() < 15 {
            diffs.push(format!("{s:?}: want {want}, got {got:?}"));
        }
    }
    println!("units strings: {same} of {all} identical");
    assert!(all > 2000, "{all} strings");
    assert!(diffs.is_empty(), "{same} of {all}:\n{}", diffs.join("\n"));
}

/// Derived metrics over testdata/archives/sample_v3 as PCP's libpcp checked them
/// when it opened the archive (testdata/golden-derive/semantics.tsv): the same
/// descriptor, the same semantic error, or unavailable alike.
#[test]
fn semantics_as_libpcp_checks_them() {
    use archive_format::derive::check::{check, Unavailable};
    use archive_format::derive::parse;
    use archive_format::pmns::Lookup;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata");
    let a = archive_format::Archive::open(format!("{root}/archives/sample_v3")).expect("archive");
    let meta = a.metadata();
    let lookup = |name: &str| match meta.pmns.lookup(name) {
        Lookup::Leaf(p) => meta.desc(p).copied(),
        _ => None,
    };
    let text =
        std::fs::read_to_string(format!("{root}/golden-derive/semantics.tsv")).expect("goldens");
    let (mut same, mut all, mut diffs) = (0, 0, Vec::new());
    for (n, line) in text.lines().filter(|l| !l.starts_with('#')).enumerate() {
        let Some((expr, want)) = line.split_once('\t') else {
            continue;
        };
        let name = format!("d.m{n}");
        let got = match parse(expr).map(|node| check(&name, &node, &lookup)) {
            Err(e) => format!("syntax {e:?}"),
            Ok(Ok(p)) => {
                let d = p.desc;
                format!("{} {} {:08x} {:08x}", d.vtype, d.sem, d.indom.0, d.units.0)
            }
            Ok(Err(Unavailable::Operand(_))) => "unavailable".into(),
            Ok(Err(Unavailable::Semantics(m))) => format!("error: {m}"),
        };
        all += 1;
        if got == want {
            same += 1;
        } else if diffs.len() < 20 {
            diffs.push(format!("{expr:?}\n  want {want}\n  got  {got}"));
        }
    }
    println!("derived-metric semantics: {same} of {all} identical");
    assert!(all > 2000, "{all} expressions");
    assert!(diffs.is_empty(), "{same} of {all}:\n{}", diffs.join("\n"));
}

/// Configuration files as PCP's pmLoadDerivedConfig(3) loaded them
/// (testdata/golden-derive/config.tsv): the same count registered and the same
/// diagnostics.
#[test]
fn configurations_as_libpcp_loads_them() {
    use archive_format::derive::config::Registry;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/golden-derive");
    let text = std::fs::read_to_string(format!("{root}/config.tsv")).expect("goldens");
    let (mut same, mut all, mut diffs) = (0, 0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut f = line.splitn(3, '\t');
        let (Some(file), Some(count), Some(said)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let path = format!("{root}/config/{file}");
        let mut r = Registry::new();
        let mut err = Vec::new();
        let n = r
            .load_config(std::path::Path::new(&path), &mut err)
            .expect("reads");
        let got_said = String::from_utf8_lossy(&err).replace(&path, "{FILE}");
        let want_said = unescape(said);
        all += 1;
        if n.to_string() == count && got_said == want_said {
            same += 1;
        } else {
            diffs.push(format!(
                "{file}: want {count} {want_said:?}\n  got {n} {got_said:?}"
            ));
        }
    }
    println!("derived-metric configurations: {same} of {all} identical");
    assert!(all >= 8, "{all} files");
    assert!(diffs.is_empty(), "{same} of {all}:\n{}", diffs.join("\n"));
}
