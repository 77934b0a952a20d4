//! The PCPIntro(1) time syntax: intervals (`pmParseInterval`) and time windows
//! (`pmParseTimeWindow`) for `-S`, `-T` (and later `-O`, `-A`).
//!
//! Supported forms:
//! - intervals: a number with an optional unit (`msec`, `millisecond(s)`, `s`, `sec(s)`,
//!   `second(s)`, `m`, `min(s)`, `minute(s)`, `h`, `hour(s)`, `d`, `day(s)`), several
//!   of them summed (`1h30m`, `1 hour 30 mins`); a bare number means seconds;
//! - `+interval`: after the start of the archive (for `-T`: after the window start);
//! - `-interval`: before the end of the archive;
//! - absolute times, optionally after `@`: `YYYY-MM-DD HH:MM[:SS]`, ctime-like
//!   `[Day] Mon DD HH:MM[:SS[.frac]] [YYYY]`, and `HH:MM[:SS[.frac]]` (today's date).

use archive_format::Timestamp;
use jiff::tz::TimeZone;

/// Parses an interval into nanoseconds.
pub fn parse_interval(s: &str) -> Option<i128> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let b = s.as_bytes();
    let mut i = 0;
    let mut total: f64 = 0.0;
    let mut any = false;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        if start == i {
            return None;
        }
        let num: f64 = s[start..i].parse().ok()?;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let ustart = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let unit = s[ustart..i].to_ascii_lowercase();
        let mult = match unit.as_str() {
            "" | "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
            "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 1e-3,
            "us" | "usec" | "usecs" | "microsecond" | "microseconds" => 1e-6,
            "ns" | "nsec" | "nsecs" | "nanosecond" | "nanoseconds" => 1e-9,
            "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
            "d" | "day" | "days" => 86400.0,
            _ => return None,
        };
        total += num * mult;
        any = true;
    }
    if !any {
        return None;
    }
    Some((total * 1e9).round() as i128)
}

/// A time-window bound relative to which a spec is resolved.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub start: Timestamp,
    pub end: Timestamp,
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

fn parse_hms(s: &str) -> Option<(i8, i8, i8, u32)> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let h: i8 = parts[0].parse().ok()?;
    let m: i8 = parts[1].parse().ok()?;
    let (sec, nsec) = if parts.len() == 3 {
        let (a, f) = parts[2].split_once('.').unwrap_or((parts[2], ""));
        let sec: i8 = a.parse().ok()?;
        let mut frac = f.to_string();
        if !frac.chars().all(|c| c.is_ascii_digit()) || frac.len() > 9 {
            return None;
        }
        while frac.len() < 9 {
            frac.push('0');
        }
        (sec, frac.parse().ok()?)
    } else {
        (0, 0)
    };
    if !(0..24).contains(&h) || !(0..60).contains(&m) || !(0..61).contains(&sec) {
        return None;
    }
    Some((h, m, sec, nsec))
}

fn to_ts(y: i16, mo: i8, d: i8, hms: (i8, i8, i8, u32), tz: &TimeZone) -> Option<Timestamp> {
    let dt = jiff::civil::DateTime::new(y, mo, d, hms.0, hms.1, hms.2.min(59), 0).ok()?;
    let z = dt.to_zoned(tz.clone()).ok()?;
    Some(Timestamp::new(z.timestamp().as_second(), hms.3))
}

/// Parses an absolute date/time in `tz`. Fields left out default to today's date,
/// except after `@` (ctime form), where they default to the date of `at_date` (the
/// archive's start), as libpcp's `__pmParseCtime` does.
pub fn parse_absolute(s: &str, tz: &TimeZone, at_date: Option<Timestamp>) -> Option<Timestamp> {
    let s = s.trim();
    let (s, at) = match s.strip_prefix('@') {
        Some(r) => (r.trim(), true),
        None => (s, false),
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    let today = match at_date.filter(|_| at) {
        Some(t) => jiff::Timestamp::new(t.sec, 0)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned(tz.clone()),
        None => jiff::Zoned::now().with_time_zone(tz.clone()),
    };
    // YYYY-MM-DD HH:MM[:SS]
    if let Some(date) = words.first().filter(|w| w.contains('-')) {
        let p: Vec<&str> = date.split('-').collect();
        if p.len() == 3 {
            let y: i16 = p[0].parse().ok()?;
            let mo: i8 = p[1].parse().ok()?;
            let d: i8 = p[2].parse().ok()?;
            let hms = match words.get(1) {
                Some(t) => {
                    let h = parse_hms(t)?;
                    if h.3 != 0 {
                        return None;
                    }
                    h
                }
                None => (0, 0, 0, 0),
            };
            if words.len() > 2 {
                return None;
            }
            return to_ts(y, mo, d, hms, tz);
        }
        return None;
    }
    let mut w = words.as_slice();
    if let Some(first) = w.first() {
        if DAYS.contains(&first.to_ascii_lowercase().get(..3).unwrap_or(""))
            && first.len() >= 3
            && first.chars().all(|c| c.is_ascii_alphabetic())
        {
            w = &w[1..];
        }
    }
    let (mut y, mut mo, mut d) = (today.year(), today.month(), today.day());
    let mut month_given = false;
    if let Some(first) = w.first() {
        let l = first.to_ascii_lowercase();
        if let Some(k) = MONTHS.iter().position(|m| l.starts_with(m)) {
            mo = k as i8 + 1;
            d = w.get(1)?.parse().ok()?;
            w = &w[2..];
            month_given = true;
        }
    }
    let hms = parse_hms(w.first()?)?;
    if let Some(year) = w.get(1) {
        y = year.parse().ok()?;
        if w.len() > 2 {
            return None;
        }
    } else if at {
        // __pmConvertTime: a partial time earlier than the origin in its most
        // significant given field means the next such time
        if month_given {
            if mo < today.month() {
                y += 1;
            }
        } else if hms.0 < today.hour() {
            let next = jiff::civil::Date::new(y, mo, d).ok()?.tomorrow().ok()?;
            (y, mo, d) = (next.year(), next.month(), next.day());
        }
    }
    to_ts(y, mo, d, hms, tz)
}

/// Resolves a `-S`/`-T`/`-O` spec as libpcp's `__pmParseTime` does.
/// `relative_to_start` is where `+interval` counts from and what a partial `@` time
/// completes from (the archive's start for `-S`, the window's start for `-T` and
/// `-O`); `end` is where `-interval` counts back from.
pub fn resolve(
    spec: &str,
    relative_to_start: Timestamp,
    end: Timestamp,
    tz: &TimeZone,
) -> Option<Timestamp> {
    let s = spec.trim();
    if let Some(rest) = s.strip_prefix('+') {
        let n = parse_interval(rest)?;
        return Some(Timestamp::from_nanos(relative_to_start.as_nanos() + n));
    }
    if let Some(rest) = s.strip_prefix('-') {
        if end.sec >= i32::MAX as i64 {
            return getdate_relative(rest, relative_to_start);
        }
        let n = parse_interval(rest)?;
        return Some(Timestamp::from_nanos(end.as_nanos() - n));
    }
    parse_absolute(s, tz, Some(relative_to_start))
}

/// `-N unit` when the archive's end is unknown: libpcp does not count back from the
/// end then but hands the text to its getdate(3) parser, which wants a unit word
/// (`-1sec` works, `-1` and `-1s` do not): from now, or, with a space before the
/// unit, from `start`. Months and years (calendar units) are not taken.
fn getdate_relative(rest: &str, start: Timestamp) -> Option<Timestamp> {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let n: i128 = rest[..digits].parse().ok()?;
    let after = &rest[digits..];
    let unit = after.trim_start();
    let spaced = unit.len() != after.len();
    let secs: i128 = match unit.to_ascii_lowercase().trim_end_matches('s') {
        "fortnight" => 14 * 86400,
        "week" => 7 * 86400,
        "day" => 86400,
        "hour" => 3600,
        "minute" | "min" => 60,
        "second" | "sec" => 1,
        _ => return None,
    };
    let from = if spaced {
        start
    } else {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Timestamp::new(now.as_secs() as i64, 0)
    };
    Some(Timestamp::from_nanos(
        from.as_nanos() - n * secs * 1_000_000_000,
    ))
}

/// Resolves `-S start` and `-T finish` against an archive's bounds.
pub fn parse_window(
    start: Option<&str>,
    finish: Option<&str>,
    b: Bounds,
    tz: &TimeZone,
) -> Result<(Timestamp, Timestamp), String> {
    let s = match start {
        Some(spec) => resolve(spec, b.start, b.end, tz).ok_or_else(|| spec.to_string())?,
        None => b.start,
    };
    let e = match finish {
        Some(spec) => resolve(spec, s, b.end, tz).ok_or_else(|| spec.to_string())?,
        None => b.end,
    };
    Ok((s, e))
}

/// A resolved time window: `-S`, `-T`, `-O` and `-A` as `pmParseTimeWindow` treats
/// them for an archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: Timestamp,
    pub finish: Timestamp,
    pub origin: Timestamp,
}

/// The window options as given on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowArgs<'a> {
    pub start: Option<&'a str>,
    pub finish: Option<&'a str>,
    pub origin: Option<&'a str>,
    pub align: Option<&'a str>,
}

/// Resolves a whole window. `-A interval` moves the start up to the next multiple of
/// the interval (counted from the epoch) unless that passes the end, and is also the
/// default origin; `-O` is
/// relative to the window (`+` from its start, `-` back from its end) and is kept
/// inside it. On error, returns the offending spec.
pub fn resolve_window(w: WindowArgs<'_>, b: Bounds, tz: &TimeZone) -> Result<Window, String> {
    let (mut start, finish) = parse_window(w.start, w.finish, b, tz)?;
    if let Some(a) = w.align {
        let step = parse_interval(a)
            .filter(|n| *n > 0)
            .ok_or_else(|| a.to_string())?;
        let n = start.as_nanos();
        let aligned = Timestamp::from_nanos((n + step - 1).div_euclid(step) * step);
        // an alignment that would leave the window is not applied
        if aligned <= finish {
            start = aligned;
        }
    }
    let origin = match w.origin {
        Some(spec) => {
            let o = resolve(spec, start, finish, tz).ok_or_else(|| spec.to_string())?;
            if o < start {
                start
            } else if o > finish {
                finish
            } else {
                o
            }
        }
        None => start,
    };
    Ok(Window {
        start,
        finish,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minus_with_unknown_end_needs_a_unit_word() {
        let utc = TimeZone::UTC;
        let b = Bounds {
            start: Timestamp::new(1_000_000_000, 0),
            end: Timestamp::new(i32::MAX as i64, 0),
        };
        assert_eq!(
            parse_window(None, Some("-1"), b, &utc),
            Err("-1".to_string())
        );
        assert_eq!(
            parse_window(None, Some("-1s"), b, &utc),
            Err("-1s".to_string())
        );
        let (_, e) = parse_window(None, Some("-2 min"), b, &utc).unwrap();
        assert_eq!(e, Timestamp::new(999_999_880, 0));
        let (_, e) = parse_window(None, Some("-1sec"), b, &utc).unwrap();
        assert!(e.sec > 1_700_000_000 && e.sec < i32::MAX as i64);
    }

    #[test]
    fn window_align_and_origin() {
        let utc = TimeZone::UTC;
        let b = Bounds {
            start: Timestamp::new(1_000_000_032, 48_000_000),
            end: Timestamp::new(1_000_000_098, 68_000_000),
        };
        let w = resolve_window(
            WindowArgs {
                align: Some("10sec"),
                ..Default::default()
            },
            b,
            &utc,
        )
        .expect("window");
        assert_eq!(w.start, Timestamp::new(1_000_000_040, 0));
        assert_eq!(w.origin, w.start);
        let w = resolve_window(
            WindowArgs {
                origin: Some("-10"),
                ..Default::default()
            },
            b,
            &utc,
        )
        .expect("window");
        assert_eq!(w.origin, Timestamp::new(1_000_000_088, 68_000_000));
        let w = resolve_window(
            WindowArgs {
                origin: Some("+1000"),
                ..Default::default()
            },
            b,
            &utc,
        )
        .expect("window");
        assert_eq!(w.origin, b.end);
    }

    #[test]
    fn intervals() {
        assert_eq!(parse_interval("30sec"), Some(30_000_000_000));
        assert_eq!(parse_interval("1h30m"), Some(5_400_000_000_000));
        assert_eq!(parse_interval("1.5 hours"), Some(5_400_000_000_000));
        assert_eq!(parse_interval("250msec"), Some(250_000_000));
        assert_eq!(parse_interval("2"), Some(2_000_000_000));
        assert_eq!(parse_interval("xyz"), None);
    }

    #[test]
    fn windows() {
        let b = Bounds {
            start: Timestamp::new(1000, 0),
            end: Timestamp::new(2000, 0),
        };
        let utc = TimeZone::UTC;
        let (s, e) = parse_window(Some("+2"), Some("+3"), b, &utc).unwrap();
        assert_eq!((s.sec, e.sec), (1002, 1005));
        let (s, e) = parse_window(None, Some("-5s"), b, &utc).unwrap();
        assert_eq!((s.sec, e.sec), (1000, 1995));
        assert!(parse_window(Some("xyz"), None, b, &utc).is_err());
    }

    #[test]
    fn absolute_forms() {
        let utc = TimeZone::UTC;
        let want = Some(Timestamp::new(1_648_968_658, 0));
        assert_eq!(
            parse_absolute("@ Sun Apr  3 06:50:58 2022", &utc, None),
            want
        );
        assert_eq!(parse_absolute("Apr 3 06:50:58 2022", &utc, None), want);
        assert_eq!(parse_absolute("2022-04-03 06:50:58", &utc, None), want);
        assert_eq!(parse_absolute("2022-04-03 06:50:58.5", &utc, None), None);
        // a partial '@' time earlier than its origin's hour is the next day's
        let origin = Timestamp::new(1_648_968_658, 0);
        let next_day = parse_absolute("@05:00:00", &utc, Some(origin)).expect("parses");
        assert_eq!(next_day.sec, origin.sec + 86_400 - 6_658);
        let same_day = parse_absolute("@06:00:00", &utc, Some(origin)).expect("parses");
        assert_eq!(same_day.sec, origin.sec - 3_058);
    }
}
