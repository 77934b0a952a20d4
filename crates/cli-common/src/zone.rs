//! Time zones, interpreted as glibc's `tzset` interprets `$TZ` (which is what the
//! reference tools do: they set `TZ` and call `localtime`).

use jiff::tz::TimeZone;

/// Parses a `TZ` value as glibc does:
/// 1. empty means UTC;
/// 2. a leading `:` is dropped; an absolute path is a TZif file;
/// 3. the name of a file in the system zoneinfo directory;
/// 4. a POSIX TZ string (`EST-10`, `AEST-10AEDT,M10.1.0,M4.1.0/3`, `EST-11EST-10,87/2:00,297/2:00`);
/// 5. a POSIX string with a DST name but no rules gets glibc's default rules
///    (`posixrules`, i.e. America/New_York: `M3.2.0,M11.1.0`).
///
/// Anything else is UTC (glibc falls back to UTC with the given name).
pub fn parse_tz(tz: &str) -> TimeZone {
    if tz.is_empty() {
        return TimeZone::UTC;
    }
    let name = tz.strip_prefix(':').unwrap_or(tz);
    if name.starts_with('/') {
        if let Ok(data) = std::fs::read(name) {
            if let Ok(z) = TimeZone::tzif(name, &data) {
                return z;
            }
        }
        return TimeZone::UTC;
    }
    if !tz.starts_with(':') || !name.is_empty() {
        if let Some(z) = from_zoneinfo(name) {
            return z;
        }
    }
    if let Ok(z) = TimeZone::posix(name) {
        return z;
    }
    if let Ok(z) = TimeZone::posix(&format!("{name},M3.2.0,M11.1.0")) {
        return z;
    }
    // glibc: an unparsable offset part means UTC under the given name
    TimeZone::UTC
}

/// The zone file `name` in the zoneinfo directory (`$TZDIR`, else
/// `/usr/share/zoneinfo`), read as glibc reads it: the file of that name, if there
/// is one (not a look-up in an index of every zone, which means reading every
/// directory of the database first).
fn from_zoneinfo(name: &str) -> Option<TimeZone> {
    use std::path::{Component, Path};
    let rel = Path::new(name);
    if name.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let dir = std::env::var_os("TZDIR")
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/usr/share/zoneinfo".into());
    let data = std::fs::read(Path::new(&dir).join(rel)).ok()?;
    TimeZone::tzif(name, &data).ok()
}

/// The zone the process runs in: `$TZ` if set, else the system zone.
pub fn local() -> TimeZone {
    match std::env::var("TZ") {
        Ok(tz) => parse_tz(&tz),
        Err(_) => TimeZone::try_system().unwrap_or(TimeZone::UTC),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;

    fn hour(tz: &str, secs: i64) -> i8 {
        Timestamp::from_second(secs)
            .unwrap()
            .to_zoned(parse_tz(tz))
            .hour()
    }

    #[test]
    fn posix_and_julian_rules() {
        // 1997-02-24 23:45:08 UTC
        let t = 856_827_908;
        assert_eq!(hour("EST-10", t), 9);
        assert_eq!(hour("EST-11EST-10,91/2:00,301/2:00", t), 10);
        assert_eq!(hour("UTC", t), 23);
        assert_eq!(hour("", t), 23);
    }

    #[test]
    fn dst_name_without_rules_uses_us_rules() {
        // 2022-04-03 06:50 UTC: northern summer, so AEDT (UTC+11) under the default rules
        assert_eq!(hour("AEST-10AEDT", 1_648_968_655), 17);
        // 2022-01-12 15:06 UTC: AEST (UTC+10)
        assert_eq!(hour("AEST-10AEDT", 1_642_000_000), 1);
    }
}
