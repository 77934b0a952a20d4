//! Errors. Pure decoders return the cheap, `Copy` [`DecodeError`] (an offset and what was
//! wrong); the I/O layer lifts it into [`Error`], which also names the file. Every error
//! maps to the PCP error code ([`Error::pm_err`]) whose text ([`pm_err_str`]) the
//! reference tools print.

use std::fmt;
use std::path::{Path, PathBuf};

pub use crate::errtab::PM_ERRORS;

pub const PM_ERR_NODATA: i32 = -12354;
pub const PM_ERR_NAME: i32 = -12357;
pub const PM_ERR_IPC: i32 = -12366;
pub const PM_ERR_TEXT: i32 = -12349;
pub const PM_ERR_NOTHOST: i32 = -12369;
pub const PM_ERR_BADDERIVE: i32 = -12409;
pub const PM_ERR_PMID: i32 = -12358;
pub const PM_ERR_PERMISSION: i32 = -12387;
pub const PM_ERR_INDOM: i32 = -12359;
pub const PM_ERR_INST: i32 = -12360;
pub const PM_ERR_CONV: i32 = -12362;
pub const PM_ERR_TRUNC: i32 = -12363;
pub const PM_ERR_SIGN: i32 = -12364;
pub const PM_ERR_EOL: i32 = -12370;
pub const PM_ERR_MODE: i32 = -12371;
pub const PM_ERR_LABEL: i32 = -12372;
pub const PM_ERR_LOGREC: i32 = -12373;
pub const PM_ERR_LOGOVERLAP: i32 = -12401;
pub const PM_ERR_LOGHOST: i32 = -12402;
pub const PM_ERR_LOGFILE: i32 = -12375;
pub const PM_ERR_PMID_LOG: i32 = -12378;
pub const PM_ERR_INDOM_LOG: i32 = -12379;
pub const PM_ERR_PROFILE: i32 = -12365;
pub const PM_ERR_INST_LOG: i32 = -12380;
pub const PM_ERR_NONLEAF: i32 = -12394;
pub const PM_ERR_TYPE: i32 = -12397;
pub const PM_ERR_LOGCHANGETYPE: i32 = -12404;
pub const PM_ERR_LOGCHANGESEM: i32 = -12405;
pub const PM_ERR_LOGCHANGEINDOM: i32 = -12406;
pub const PM_ERR_LOGCHANGEUNITS: i32 = -12407;
pub const PM_ERR_RECTYPE: i32 = -12412;
pub const PM_ERR_FEATURE: i32 = -12413;
pub const PM_ERR_TOOSMALL: i32 = -12443;
pub const PM_ERR_TOOBIG: i32 = -12444;
pub const ENOENT: i32 = -2;

/// A libpcp message in PCP 7's words: its archive errors no longer say "log"
/// ("Illegal label record at start of a PCP archive file").
pub fn in_pcp7_words(msg: &str) -> String {
    msg.replace("PCP archive log", "PCP archive")
        .replace("Empty archive log file", "Empty archive file")
}

/// The text PCP's `pmErrStr` gives for `code`: PCP codes from the table, other negative
/// codes as the C library's `strerror(-code)`.
pub fn pm_err_str(code: i32) -> String {
    if let Some((_, _, msg)) = PM_ERRORS.iter().find(|(c, _, _)| *c == code) {
        return (*msg).to_string();
    }
    if code < 0 && code > -4096 {
        let s = std::io::Error::from_raw_os_error(-code).to_string();
        // std appends " (os error N)"; libc's strerror does not.
        return match s.rfind(" (os error") {
            Some(i) => s[..i].to_string(),
            None => s,
        };
    }
    format!("Unknown or illegal error code ({code})")
}

/// What a pure decoder found wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The data ends before the structure does.
    Truncated,
    /// A label record is malformed (PM_ERR_LABEL).
    Label(&'static str),
    /// A record is malformed (PM_ERR_LOGREC).
    Record(&'static str),
    /// Unknown metadata record type (PM_ERR_RECTYPE).
    RecType(i32),
    /// Unknown archive feature bits (PM_ERR_FEATURE).
    Feature(u32),
    /// Any other PCP error code, with a description.
    Pcp(i32, &'static str),
}

impl DecodeErrorKind {
    /// The PCP error code the reference reports for this problem.
    pub fn pm_err(&self) -> i32 {
        match self {
            DecodeErrorKind::Truncated | DecodeErrorKind::Record(_) => PM_ERR_LOGREC,
            DecodeErrorKind::Label(_) => PM_ERR_LABEL,
            DecodeErrorKind::RecType(_) => PM_ERR_RECTYPE,
            DecodeErrorKind::Feature(_) => PM_ERR_FEATURE,
            DecodeErrorKind::Pcp(c, _) => *c,
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeErrorKind::Truncated => f.write_str("data ends inside a record"),
            DecodeErrorKind::Label(s) | DecodeErrorKind::Record(s) => f.write_str(s),
            DecodeErrorKind::RecType(t) => write!(f, "unknown metadata record type {t}"),
            DecodeErrorKind::Feature(b) => write!(f, "unsupported feature bits 0x{b:x}"),
            DecodeErrorKind::Pcp(_, s) => f.write_str(s),
        }
    }
}

/// A decoding failure at a byte offset (relative to the start of the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError {
    pub offset: u64,
    pub kind: DecodeErrorKind,
}

impl DecodeError {
    pub fn new(offset: u64, kind: DecodeErrorKind) -> Self {
        DecodeError { offset, kind }
    }
    /// The same error with its offset moved by `by` (for a decoder that was given
    /// a slice starting `by` bytes into the file).
    pub fn shifted(mut self, by: u64) -> Self {
        self.offset += by;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte offset {}: {}", self.offset, self.kind)
    }
}

impl std::error::Error for DecodeError {}

/// An error from the archive library: what went wrong, with the file and byte offset
/// where that is known, and the PCP error code that the reference tools would report.
#[derive(Debug)]
pub struct Error(Box<Inner>);

#[derive(Debug)]
struct Inner {
    code: i32,
    path: Option<PathBuf>,
    offset: Option<u64>,
    detail: String,
}

impl Error {
    /// An error with a PCP (or negative errno) code.
    pub fn pcp(code: i32, detail: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            code,
            path: None,
            offset: None,
            detail: detail.into(),
        }))
    }
    pub fn decode(path: &Path, e: DecodeError) -> Self {
        Error(Box::new(Inner {
            code: e.kind.pm_err(),
            path: Some(path.to_path_buf()),
            offset: Some(e.offset),
            detail: e.kind.to_string(),
        }))
    }
    pub fn io(path: &Path, e: &std::io::Error) -> Self {
        let code = e.raw_os_error().map(|n| -n).unwrap_or(-5);
        Error(Box::new(Inner {
            code,
            path: Some(path.to_path_buf()),
            offset: None,
            detail: e.to_string(),
        }))
    }
    pub fn at(mut self, path: &Path, offset: Option<u64>) -> Self {
        self.0.path = Some(path.to_path_buf());
        if offset.is_some() {
            self.0.offset = offset;
        }
        self
    }
    /// The PCP error code (`PM_ERR_*`, or `-errno`).
    pub fn pm_err(&self) -> i32 {
        self.0.code
    }
    /// `pmErrStr` of [`Self::pm_err`]: what the reference tools print.
    pub fn pm_message(&self) -> String {
        pm_err_str(self.0.code)
    }
    pub fn path(&self) -> Option<&Path> {
        self.0.path.as_deref()
    }
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }
    pub fn detail(&self) -> &str {
        &self.0.detail
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.0.path {
            write!(f, "{}: ", p.display())?;
        }
        if let Some(o) = self.0.offset {
            write!(f, "byte offset {o}: ")?;
        }
        write!(f, "{}: {}", self.pm_message(), self.0.detail)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcp7_drops_log_from_archive_errors() {
        assert_eq!(
            in_pcp7_words(&pm_err_str(PM_ERR_LABEL)),
            "Illegal label record at start of a PCP archive file"
        );
        assert_eq!(
            in_pcp7_words(&pm_err_str(PM_ERR_NODATA)),
            "Empty archive file"
        );
        assert_eq!(
            in_pcp7_words("No such file or directory"),
            "No such file or directory"
        );
    }

    #[test]
    fn error_strings() {
        assert_eq!(pm_err_str(PM_ERR_EOL), "End of PCP archive log");
        assert_eq!(pm_err_str(-2), "No such file or directory");
        assert_eq!(
            pm_err_str(PM_ERR_LABEL),
            "Illegal label record at start of a PCP archive log file"
        );
    }

    #[test]
    fn errors_name_file_and_offset() {
        let e = Error::decode(
            Path::new("x.meta"),
            DecodeError::new(40, DecodeErrorKind::Record("bad trailer")),
        );
        assert_eq!(e.pm_err(), PM_ERR_LOGREC);
        let s = e.to_string();
        assert!(
            s.contains("x.meta") && s.contains("40") && s.contains("bad trailer"),
            "{s}"
        );
    }
}
