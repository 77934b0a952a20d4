//! The index's space: whole entries against the label. Pure.

use crate::share::pct;
use crate::Report;
use std::fmt::Write;

/// The index file `file` (decompressed) of a `version` archive, its label
/// ending at `start`.
pub fn report(file: &[u8], start: usize, version: u32) -> Report {
    let size = file.len() as i64;
    let entry = if version >= 3 { 32 } else { 20 };
    let n = (file.len().saturating_sub(start) / entry) as i64;
    let bytes = n * entry as i64;
    let ohead = start as i64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  index: {bytes} bytes [{}%, {n} entries]",
        pct(bytes, size)
    );
    let _ = writeln!(out, "  overhead: {ohead} bytes [{}%]", pct(ohead, size));
    let left = size - (bytes + ohead);
    if left != 0 {
        let _ = writeln!(out, "  unaccounted for: {left} bytes");
    }
    Report { out, err: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_entries_count_and_the_rest_is_unaccounted() {
        let file = vec![0u8; 132 + 2 * 20 + 7];
        let r = report(&file, 132, 2);
        assert_eq!(
            r.out,
            "  index: 40 bytes [22%, 2 entries]\n  overhead: 132 bytes [74%]\n  unaccounted for: 7 bytes\n"
        );
    }
}
