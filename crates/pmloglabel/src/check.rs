//! The check: each file's label loaded in pmloglabel's order (the data
//! volumes, the index, the metadata), the first good one taken as the golden
//! label and every later one compared with it, with pmloglabel's messages.
//! The loader's state carries over from file to file as libpcp's does (a
//! label that fails to load keeps the numbers of the one before).

use archive_format::codec::rawlabel::{self, RawLabel};
use archive_format::error::pm_err_str;
use std::io::{self, Write};

/// One file's label as found: its bytes (the whole file, decompressed), or the
/// error opening it gave.
pub(crate) type Loaded<'a> = Result<&'a [u8], i32>;

/// The check's state.
#[derive(Debug, Default)]
pub(crate) struct Check {
    /// The golden label (the last one loaded until one is good).
    pub golden: RawLabel,
    /// The file the golden label came from, once it is good.
    gold: Option<String>,
    /// libpcp's label buffer, carried from file to file.
    label: RawLabel,
    /// Whether mismatches and bad labels are said (reading only, or `-v`).
    pub warnings: bool,
    /// 0, or 2 once a bad or mismatched label was found.
    pub status: i32,
}

impl Check {
    /// A check that says what it finds where `warnings`.
    pub fn new(warnings: bool) -> Check {
        Check {
            warnings,
            ..Check::default()
        }
    }

    /// One file: `bad` names it in "Bad ... label", `name` in the comparison.
    pub fn file(
        &mut self,
        file: Loaded,
        vol: i32,
        bad: &str,
        name: &str,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let sts = match file {
            Ok(bytes) => rawlabel::check(bytes, vol, &mut self.label).map(|_| ()),
            Err(e) => Err(e),
        };
        if let Err(e) = sts {
            if self.warnings {
                writeln!(err, "Bad {bad} label: {}", pm_err_str(e))?;
                self.status = 2;
            }
        }
        self.compare(file, name, sts.is_ok(), err)?;
        self.label.hostname = None;
        self.label.timezone = None;
        self.label.zoneinfo = None;
        Ok(())
    }

    /// pmloglabel's `compare_golden`.
    fn compare(
        &mut self,
        file: Loaded,
        name: &str,
        good: bool,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(goldfile) = self.gold.clone() else {
            self.golden = std::mem::take(&mut self.label);
            if good {
                self.gold = Some(name.to_string());
            }
            return Ok(());
        };
        if !self.warnings {
            return Ok(());
        }
        self.label.hostname = None;
        self.label.timezone = None;
        self.label.zoneinfo = None;
        let loaded = match file {
            Ok(bytes) => rawlabel::load(bytes, &mut self.label),
            Err(e) => Err(e),
        };
        if let Err(e) = loaded {
            return writeln!(err, "{name}: cannot load label record: {}", pm_err_str(e));
        }
        let (l, g) = (&self.label, &self.golden);
        let mut said = Vec::new();
        if l.version() != g.version() {
            said.push(format!(
                "Mismatched version ({:x}/{:x})",
                l.version(),
                g.version()
            ));
        }
        if l.pid != g.pid {
            said.push(format!("Mismatched PID ({}/{})", l.pid, g.pid));
        }
        let shown = |s: &Option<String>| s.clone().unwrap_or_else(|| "\"\"".into());
        let differ = |a: &Option<String>, b: &Option<String>| match (a, b) {
            (Some(a), Some(b)) => a != b,
            _ => true,
        };
        if differ(&l.hostname, &g.hostname) {
            said.push(format!(
                "Mismatched hostname ({}/{})",
                shown(&l.hostname),
                shown(&g.hostname)
            ));
        }
        if differ(&l.timezone, &g.timezone) {
            said.push(format!(
                "Mismatched timezone ({}/{})",
                shown(&l.timezone),
                shown(&g.timezone)
            ));
        }
        // the zone information is optional: compared where both have it
        if let (Some(a), Some(b)) = (&l.zoneinfo, &g.zoneinfo) {
            if a != b {
                said.push(format!("Mismatched zoneinfo ({a}/{b})"));
            }
        }
        for s in said {
            writeln!(err, "{s} between {name} and {goldfile}")?;
            self.status = 2;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::codec::label::{encode_label, Label};
    use archive_format::types::Timestamp;

    fn file(vol: i32, pid: i32, host: &str) -> Vec<u8> {
        let mut b = encode_label(&Label {
            version: 2,
            pid,
            start: Timestamp::new(0, 0),
            vol,
            features: 0,
            hostname: host.into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
        });
        b.push(0);
        b
    }

    #[test]
    fn a_later_file_is_compared_with_the_first_good_one() {
        let mut c = Check {
            warnings: true,
            ..Check::default()
        };
        let mut err = Vec::new();
        let (v0, meta) = (file(0, 5, "a"), file(-1, 6, "b"));
        c.file(Ok(&v0), 0, "data volume 0", "data volume 0", &mut err)
            .unwrap();
        c.file(
            Ok(&meta),
            -1,
            "metadata volume",
            "metadata volume",
            &mut err,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "Mismatched PID (6/5) between metadata volume and data volume 0\n\
             Mismatched hostname (b/a) between metadata volume and data volume 0\n"
        );
        assert_eq!(c.status, 2);
    }

    #[test]
    fn a_bad_first_label_is_said_and_the_next_good_one_is_golden() {
        let mut c = Check {
            warnings: true,
            ..Check::default()
        };
        let mut err = Vec::new();
        let (v0, ti) = (file(1, 5, "a"), file(-2, 5, "a"));
        c.file(Ok(&v0), 0, "data volume 0", "data volume 0", &mut err)
            .unwrap();
        c.file(Ok(&ti), -2, "temporal index", "temporal index", &mut err)
            .unwrap();
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "Bad data volume 0 label: Illegal label record at start of a PCP archive log file\n"
        );
        assert_eq!(c.gold.as_deref(), Some("temporal index"));
    }
}
