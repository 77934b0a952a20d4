//! Notices as libpcp's `pmNotifyErr` writes them: `[Fri Nov 27 12:44:04]
//! prog(pid) Kind: message`, with a newline after unless the message ends with one.

use std::io::Write;

/// Writes one notice of `kind` (`Info`, `Warning`, `Error`) from `prog`.
pub fn notice(out: &mut dyn Write, prog: &str, kind: &str, msg: &str) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let now = crate::timefmt::ctime(secs, &crate::zone::local());
    // ctime without its year
    let stamp = now.get(..now.len().saturating_sub(5)).unwrap_or(&now);
    let nl = if msg.ends_with('\n') { "" } else { "\n" };
    let pid = std::process::id();
    let _ = write!(out, "[{stamp}] {prog}({pid}) {kind}: {msg}{nl}");
}

/// PCP 7.1.4's warning for an archive left out of a multi-archive context.
pub fn skipped_archive(out: &mut dyn Write, prog: &str, name: &str, why: &str) {
    let msg = format!("initarchive: skipping corrupt/unreadable archive \"{name}\": {why}");
    notice(out, prog, "Warning", &msg);
}

/// PCP 7.1.4's warning for each archive a multi-archive context removed as its
/// records turned out corrupted, since the last call.
pub fn removed_archives(out: &mut dyn Write, prog: &str, a: &archive_format::Archive) {
    for (name, vol) in a.take_removed() {
        let msg = format!("__pmLogRead: removing corrupted archive \"{name}\" vol {vol}");
        notice(out, prog, "Warning", &msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_as_pmnotifyerr_writes_them() {
        let mut out = Vec::new();
        notice(&mut out, "pmval", "Warning", "x");
        notice(&mut out, "pmval", "Info", "y\n");
        let text = String::from_utf8(out).expect("utf8");
        let lines: Vec<&str> = text.lines().collect();
        let pid = std::process::id();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].ends_with(&format!("] pmval({pid}) Warning: x")),
            "{text}"
        );
        assert!(
            lines[1].ends_with(&format!("] pmval({pid}) Info: y")),
            "{text}"
        );
        // "[Tue Nov 24 00:59:51]": ctime without the year
        assert_eq!(lines[0].find(']'), Some(20), "{text}");
    }
}
