//! `-n pmnsfile`: loading an ASCII namespace with libpcp's messages when it fails.

use archive_format::error::pm_err_str;
use archive_format::metadata::Metadata;
use archive_format::pmns::Pmns;
use std::io::{self, Write};

/// `-n` when it was given: `Ok(None)` without it, `Ok(Some(namespace))`, or
/// `Err(())` once PCP's messages for a namespace that would not load are printed.
#[allow(clippy::result_unit_err)]
pub fn load_option(
    prog: &str,
    file: Option<&str>,
    err: &mut dyn Write,
) -> io::Result<Result<Option<Pmns>, ()>> {
    match file {
        None => Ok(Ok(None)),
        Some(f) => Ok(load(prog, f, err)?.map(Some).ok_or(())),
    }
}

/// Loads `file`; on failure prints what PCP's tools print (the parser's complaint,
/// then `prog: Cannot load namespace from "file": reason`) and gives `None`.
pub fn load(prog: &str, file: &str, err: &mut dyn Write) -> io::Result<Option<Pmns>> {
    let text = match std::fs::read(file) {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) => {
            writeln!(err, "Error Parsing ASCII PMNS: Cannot open \"{file}\"")?;
            let code = -e.raw_os_error().unwrap_or(2);
            writeln!(
                err,
                "{prog}: Cannot load namespace from \"{file}\": {}",
                pm_err_str(code)
            )?;
            return Ok(None);
        }
    };
    match Pmns::parse_ascii(&text) {
        Ok(p) => Ok(Some(p)),
        Err(e) => {
            match e.line {
                Some(l) => {
                    let body = e.text.trim_start();
                    let indent = e.text.len() - body.len();
                    writeln!(err, "[{file}:{l}] Error Parsing ASCII PMNS: {}", e.message)?;
                    writeln!(err, "    {body}")?;
                    writeln!(err, "{:w$}^", "", w = 4 + e.column.saturating_sub(indent))?;
                }
                None => writeln!(err, "Error Parsing ASCII PMNS: {}", e.message)?,
            }
            writeln!(
                err,
                "{prog}: Cannot load namespace from \"{file}\": Problems parsing PMNS definitions"
            )?;
            Ok(None)
        }
    }
}

/// `-n`'s namespace cut down to the metrics the archive has (`pmTrimNameSpace`),
/// in the file's order.
pub fn trim(p: &Pmns, meta: &Metadata) -> Pmns {
    let mut t = Pmns::new();
    // inserted last first: the trimmed namespace lists in the file's order
    for (name, pmid) in p.traverse("").into_iter().rev() {
        if meta.desc(pmid).is_some() {
            t.insert(&name, pmid);
        }
    }
    t.finish();
    t
}

#[cfg(test)]
mod tests {
    #[test]
    fn missing_file_message() {
        let mut err = Vec::new();
        let got = super::load("tool", "/no/such/pmns", &mut err).expect("write");
        assert!(got.is_none());
        assert_eq!(
            String::from_utf8_lossy(&err),
            "Error Parsing ASCII PMNS: Cannot open \"/no/such/pmns\"\ntool: Cannot load namespace from \"/no/such/pmns\": No such file or directory\n"
        );
    }
}
