//! POSIX extended regular expressions, as libpcp compiles `matchinst()`'s
//! filters: glibc's `regcomp(3)` (`REG_EXTENDED | REG_NOSUB`) and `regexec(3)`,
//! so that what a filter matches, and the message for one that does not compile,
//! are the reference's own (Rust's regex crate reads another syntax).
#![allow(unsafe_code)]

use std::ffi::CString;

/// A compiled expression.
pub struct Regex {
    re: Box<libc::regex_t>,
}

// SAFETY: a compiled regex_t is only read by regexec(3), which glibc makes safe
// to call from several threads at once on one expression; it is freed once, on
// drop, by its one owner.
unsafe impl Send for Regex {}
unsafe impl Sync for Regex {}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Regex")
    }
}

impl Regex {
    /// Compiles `pattern`; the error is regerror(3)'s message (at most 127
    /// bytes, as libpcp's buffer holds).
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let c = CString::new(pattern).map_err(|_| "Invalid regular expression".to_string())?;
        // SAFETY: regex_t is plain data that regcomp(3) fills in; zeroed is a
        // valid value to hand it.
        let mut re: Box<libc::regex_t> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `re` points at a regex_t and `c` is NUL-terminated; both live
        // across the call.
        let rc =
            unsafe { libc::regcomp(&mut *re, c.as_ptr(), libc::REG_EXTENDED | libc::REG_NOSUB) };
        if rc == 0 {
            return Ok(Regex { re });
        }
        let mut buf = [0u8; 128];
        // SAFETY: regerror(3) writes at most buf.len() bytes, NUL included, into
        // `buf`; `re` is the expression regcomp(3) failed on, as it asks.
        unsafe { libc::regerror(rc, &*re, buf.as_mut_ptr().cast(), buf.len()) };
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Err(String::from_utf8_lossy(&buf[..end]).into_owned())
    }

    /// Whether the expression matches somewhere in `s`.
    pub fn is_match(&self, s: &str) -> bool {
        let Ok(c) = CString::new(s) else {
            return false;
        };
        // SAFETY: `re` was compiled by regcomp(3) and not freed; `c` is
        // NUL-terminated; no match positions are asked for.
        unsafe { libc::regexec(&*self.re, c.as_ptr(), 0, std::ptr::null_mut(), 0) == 0 }
    }
}

impl Drop for Regex {
    fn drop(&mut self) {
        // SAFETY: `re` was compiled by regcomp(3) (only a compiled one is kept in
        // a Regex) and is freed once, here.
        unsafe { libc::regfree(&mut *self.re) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_syntax_and_glibc_messages() {
        let r = Regex::new("^(lo)|(vbir)").expect("compiles");
        assert!(r.is_match("lo"));
        assert!(r.is_match("vbir0"));
        assert!(!r.is_match("eth0"));
        assert!(Regex::new("[[:digit:]]+$")
            .expect("classes")
            .is_match("sda12"));
        // glibc's own words come back through regerror(3)
        assert_eq!(Regex::new("(").err().as_deref(), Some("Unmatched ( or \\("));
        assert_eq!(
            Regex::new("[[:foo:]]").err().as_deref(),
            Some("Invalid character class name")
        );
    }
}
