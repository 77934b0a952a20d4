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

/// How many cases were the same, of how many, and the first that were not.
#[derive(Default)]
struct Score {
    same: usize,
    all: usize,
    diffs: Vec<String>,
}

impl Score {
    fn add(&mut self, same: bool, diff: impl FnOnce() -> String) {
        self.all += 1;
        if same {
            self.same += 1;
        } else if self.diffs.len() < 20 {
            self.diffs.push(diff());
        }
    }

    /// Says the score, and fails unless every one of at least `min` cases was
    /// the same.
    fn finish(self, what: &str, min: usize) {
        let (same, all) = (self.same, self.all);
        println!("{what}: {same} of {all} identical");
        assert!(all >= min, "{all} cases");
        assert!(
            self.diffs.is_empty(),
            "{same} of {all}:\n{}",
            self.diffs.join("\n")
        );
    }
}

/// A golden file of testdata/golden-derive, read as Latin-1 (each byte a
/// character, as the expressions were written).
fn golden(name: &str) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/golden-derive");
    let bytes = std::fs::read(format!("{dir}/{name}")).expect("goldens");
    bytes.iter().map(|&b| b as char).collect()
}

#[test]
fn every_expression_as_libpcp_takes_it() {
    let text = golden("syntax.tsv");
    let mut in_matchinst = false;
    let mut score = Score::default();
    for (n, line) in text.lines().filter(|l| !l.starts_with('#')).enumerate() {
        let Some((expr, want)) = line.split_once('\t') else {
            continue;
        };
        let want = unescape(want);
        let got = match parse_after(expr, &mut in_matchinst) {
            Ok(_) => "OK".to_string(),
            Err(e) => e.render(&format!("g.m{n}"), expr),
        };
        score.add(got == want, || {
            format!("{expr:?}\n  want {want:?}\n  got  {got:?}")
        });
    }
    score.finish("derived-metric syntax", 1000);
}

/// Units strings as PCP's pmParseUnitsStr(3) read them
/// (testdata/golden-derive/units.tsv): the same units and multiplier, or the
/// same message.
#[test]
fn units_as_libpcp_reads_them() {
    let text = golden("units.tsv");
    let mut score = Score::default();
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
        score.add(ok, || format!("{s:?}: want {want}, got {got:?}"));
    }
    score.finish("units strings", 2000);
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
    let text = golden("semantics.tsv");
    let mut score = Score::default();
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
        score.add(got == want, || {
            format!("{expr:?}\n  want {want}\n  got  {got}")
        });
    }
    score.finish("derived-metric semantics", 2000);
}

/// Configuration files as PCP's pmLoadDerivedConfig(3) loaded them
/// (testdata/golden-derive/config.tsv): the same count registered and the same
/// diagnostics.
#[test]
fn configurations_as_libpcp_loads_them() {
    use archive_format::derive::config::Registry;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/golden-derive");
    let text = golden("config.tsv");
    let mut score = Score::default();
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
        let same = n.to_string() == count && got_said == want_said;
        score.add(same, || {
            format!(
                "{file}: want {count} {want_said:?}
  got {n} {got_said:?}"
            )
        });
    }
    score.finish("derived-metric configurations", 8);
}
