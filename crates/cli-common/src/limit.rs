//! `-s` and `-v` of pmlogger, and `-v` of pmlogextract (as PCP 6.3.2's): a number of
//! samples, a size in bytes, or a time, as libpcp's `ParseSize` reads them.

use std::time::Duration;

/// A number of samples, a size in bytes, or a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Samples(u64),
    Bytes(u64),
    Time(Duration),
}

/// `-s`/`-v`, as `ParseSize` reads them: the number `strtol` takes from the front
/// (blanks and a sign first) must be positive; alone it is samples; followed by a
/// size unit (`b`, `k`/`kb`/`kib`/`kbyte`/`kilobyte`/`kibibyte`, the same for `m`
/// and `g`, any case, a final `s` chopped) bytes; else the whole is read as a time.
pub fn limit(s: &str) -> Option<Limit> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = body.bytes().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || neg {
        return None;
    }
    let n: u64 = body[..digits].parse().ok()?;
    if n == 0 {
        return None;
    }
    let rest = body[digits..].to_ascii_lowercase();
    if rest.is_empty() {
        return Some(Limit::Samples(n));
    }
    let unit = rest.strip_suffix('s').unwrap_or(&rest);
    let mult: Option<u64> = match unit {
        "b" | "byte" => Some(1),
        "k" | "kb" | "kib" | "kbyte" | "kilobyte" | "kibibyte" => Some(1 << 10),
        "m" | "mb" | "mib" | "mbyte" | "megabyte" | "mebibyte" => Some(1 << 20),
        "g" | "gb" | "gib" | "gbyte" | "gigabyte" | "gibibyte" => Some(1 << 30),
        _ => None,
    };
    if let Some(m) = mult {
        return n.checked_mul(m).map(Limit::Bytes);
    }
    let ns = crate::window::parse_interval(s)?;
    (ns > 0).then(|| Limit::Time(Duration::from_nanos(ns.min(u64::MAX as i128) as u64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_samples_and_times() {
        assert_eq!(limit("3"), Some(Limit::Samples(3)));
        assert_eq!(limit("8kb"), Some(Limit::Bytes(8192)));
        assert_eq!(limit("300b"), Some(Limit::Bytes(300)));
        assert_eq!(limit("100Mb"), Some(Limit::Bytes(100 << 20)));
        assert_eq!(limit("2gbytes"), Some(Limit::Bytes(2 << 30)));
        assert_eq!(limit(" +4"), Some(Limit::Samples(4)));
        assert_eq!(limit("3secs"), Some(Limit::Time(Duration::from_secs(3))));
        assert_eq!(
            limit("1.5hours"),
            Some(Limit::Time(Duration::from_secs(5400)))
        );
        // strtol's number must be positive first: "0.5min" is refused, "2 gbytes"
        // is neither a size nor a time
        for bad in [
            "0", "-5", "bogus", "0kb", "", "0.5min", "-5kb", "2 gbytes", "10x",
        ] {
            assert_eq!(limit(bad), None, "{bad}");
        }
    }
}
