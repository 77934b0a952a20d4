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
    /// The archive's end; `i32::MAX` seconds when it could not be found (libpcp's
    /// sentinel: a leading `-` then does not count back from it).
    pub end: Timestamp,
}

impl Bounds {
    /// Whether the end is known (see [`Bounds::end`]).
    pub fn end_known(&self) -> bool {
        self.end.sec < i32::MAX as i64
    }
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
    // getdate(3)'s one-letter military zones: `2020-11-09T09:30:00` (the T is
    // zone T, UTC+7), `2020-11-08x`, `Nov 8 22:30:00 2020 x`
    if let Some((rest, zone)) = military_zone(s) {
        return parse_absolute_in(&rest, &zone, at, at_date);
    }
    parse_absolute_in(s, tz, at, at_date)
}

/// The zone of a one-letter military zone name, as getdate(3) takes them: `a` to
/// `m` (no `j`) are 1 to 12 hours west of UTC, `n` to `y` 1 to 12 hours east, `z`
/// is UTC.
fn military_offset(c: char) -> Option<i32> {
    let c = c.to_ascii_lowercase();
    let hours = match c {
        'a'..='i' => -(c as i32 - 'a' as i32 + 1),
        'k'..='m' => -(c as i32 - 'k' as i32 + 10),
        'n'..='y' => c as i32 - 'n' as i32 + 1,
        'z' => 0,
        _ => return None,
    };
    Some(hours * 3600)
}

/// An absolute time with one military zone letter (and only one): the text
/// without it, and the zone.
fn military_zone(s: &str) -> Option<(String, TimeZone)> {
    let zone = |c: char| {
        let off = jiff::tz::Offset::from_seconds(military_offset(c)?).ok()?;
        Some(TimeZone::fixed(off))
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    // a last word of one letter
    if let Some((last, before)) = words.split_last() {
        let mut cs = last.chars();
        if let (Some(c), None) = (cs.next(), cs.next()) {
            if c.is_ascii_alphabetic() && !before.is_empty() {
                return Some((before.join(" "), zone(c)?));
            }
        }
    }
    // a letter right after an ISO date: `YYYY-MM-DDx` or `YYYY-MM-DDThh:mm:ss`
    let first = *words.first()?;
    let date_len = first
        .char_indices()
        .find(|(_, c)| c.is_ascii_alphabetic())
        .map(|(k, _)| k)?;
    let (date, tail) = first.split_at(date_len);
    let mut t = tail.chars();
    let c = t.next()?;
    let time: String = t.collect();
    if date.split('-').count() != 3
        || date
            .split('-')
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    if !time
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b':' || b == b'.')
    {
        return None;
    }
    let mut rest = vec![date.to_string()];
    if !time.is_empty() {
        rest.push(time);
    }
    rest.extend(words[1..].iter().map(|w| w.to_string()));
    Some((rest.join(" "), zone(c)?))
}

fn parse_absolute_in(
    s: &str,
    tz: &TimeZone,
    at: bool,
    at_date: Option<Timestamp>,
) -> Option<Timestamp> {
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

/// The text libpcp's `__pmParseTime` gives for a time spec it cannot take: the
/// spec (after a leading `@`, `-` or `+`, which the parser has taken), then a caret
/// under where its ctime or interval parser stopped, and what it wanted. With
/// `end_known`, a leading `-` counts back from the end (archives).
pub fn time_error(spec: &str, end_known: bool) -> String {
    let s = spec.trim_start();
    let (text, (at, msg)) = if let Some(r) = s.strip_prefix('@') {
        (r, ctime_stop(r))
    } else if let Some(r) = s.strip_prefix('-').filter(|_| end_known) {
        (r, (interval_stop(r), WHAT))
    } else {
        let r = s.strip_prefix('+').unwrap_or(s);
        (r, (interval_stop(r), WHAT))
    };
    let pad: String = text[..at]
        .chars()
        .map(|c| if c.is_ascii_graphic() { ' ' } else { c })
        .collect();
    format!("{text}\n{pad}^ -- {msg}\n")
}

const WHAT: &str = "unexpected value";
const MORE: &str = "more information expected";

/// Skips blanks from byte `i` of `b`.
fn blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// strtol's reach from `i` (blanks, a sign, digits): the value and where it ends,
/// or `None` when no digits follow.
fn int_at(b: &[u8], i: usize) -> Option<(i64, usize)> {
    let mut j = blanks(b, i);
    let neg = matches!(b.get(j), Some(b'-'));
    if matches!(b.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let d = j;
    let mut v: i64 = 0;
    while j < b.len() && b[j].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add((b[j] - b'0') as i64);
        j += 1;
    }
    (j > d).then_some((if neg { -v } else { v }, j))
}

/// strtod's reach from `i` (blanks, sign, digits with one point, an exponent).
fn double_at(b: &[u8], i: usize) -> Option<(f64, usize)> {
    let start = blanks(b, i);
    let mut j = start;
    if matches!(b.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let digits = |mut k: usize| {
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let int_end = digits(j);
    let mut end = int_end;
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if end == j || (end == j + 1 && b.get(j) == Some(&b'.')) {
        return None;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut k = end + 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if digits(k) > k {
            end = digits(k);
        }
    }
    let v = std::str::from_utf8(&b[start..end]).ok()?.parse().ok()?;
    Some((v, end))
}

/// Where `__pmParseCtime` stops on `s`, and its complaint.
fn ctime_stop(s: &str) -> (usize, &'static str) {
    let b = s.as_bytes();
    // a three-letter code (day or month name) at `i`: where it ends
    let code = |i: usize, names: &[&str]| -> Option<usize> {
        let i = blanks(b, i);
        if !b.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        let mut j = i;
        let mut word = String::new();
        while j < b.len() && word.len() < 3 && b[j].is_ascii_alphabetic() {
            word.push(b[j].to_ascii_lowercase() as char);
            j += 1;
        }
        names.contains(&word.as_str()).then_some(j)
    };
    let ranged = |i: usize, lo: i64, hi: i64| int_at(b, i).filter(|(v, _)| (lo..=hi).contains(v));
    let mut i = 0;
    let day = code(i, &DAYS);
    if let Some(j) = day {
        i = j;
    }
    let mut mon = None;
    if let Some(j) = code(i, &MONTHS) {
        mon = Some(());
        i = j;
    }
    let mut mday = None;
    if let Some((v, j)) = ranged(i, 0, 31) {
        mday = Some(v);
        i = j;
    }
    let mut hour = None;
    if let Some((v, j)) = ranged(i, 0, 23) {
        hour = Some(v);
        i = j;
    }
    if mday == Some(0) && hour.is_some() {
        mday = None;
    }
    let colon = |i: usize| {
        let k = blanks(b, i);
        (b.get(k) == Some(&b':')).then_some(k + 1)
    };
    if hour.is_none()
        && mday.is_some_and(|d| d <= 23)
        && (mon.is_none() || b.get(blanks(b, i)) == Some(&b':'))
    {
        hour = mday;
        mday = None;
    }
    let mut min = None;
    if let Some(j) = colon(i) {
        i = j;
        min = Some(0);
        if let Some((v, j)) = ranged(i, 0, 59) {
            min = Some(v);
            i = j;
        }
        if let Some(j) = colon(i) {
            i = j;
            if let Some((_, j)) = double_at(b, i).filter(|(v, _)| (0.0..=61.0).contains(v)) {
                i = j;
            }
        }
        if hour.is_none() {
            hour = Some(0);
        }
    }
    if let Some(j) = code(i, &["am", "pm"]).or_else(|| {
        // two-letter codes end at a non-letter
        let k = blanks(b, i);
        let w = b.get(k..k + 2)?;
        let ok = (w.eq_ignore_ascii_case(b"am") || w.eq_ignore_ascii_case(b"pm"))
            && !b.get(k + 2).is_some_and(|c| c.is_ascii_alphabetic());
        ok.then_some(k + 2)
    }) {
        i = if hour.is_none_or(|h| h > 12) {
            j - 2
        } else {
            j
        };
    }
    let mut year = None;
    if let Some((v, j)) = ranged(i, 1900, 9999) {
        year = Some(v);
        i = j;
    }
    let i = blanks(b, i);
    if i < b.len() {
        return (i, WHAT);
    }
    let more = (day.is_some() && mon.is_none() && mday.is_none())
        || (hour.is_some() && min.is_none() && mday.is_none() && mon.is_none() && year.is_none());
    (i, if more { MORE } else { WHAT })
}

/// Where `pmParseInterval` stops on `s`.
fn interval_stop(s: &str) -> usize {
    const UNITS: [&str; 13] = [
        "millisecond",
        "second",
        "minute",
        "hour",
        "day",
        "msec",
        "sec",
        "min",
        "hr",
        "s",
        "m",
        "h",
        "d",
    ];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some((_, j)) = double_at(b, i).filter(|(v, _)| (0.0..=i32::MAX as f64).contains(v))
        else {
            // (stopped past the blanks it skipped)
            i = blanks(b, i);
            break;
        };
        i = blanks(b, j);
        if i >= b.len() {
            break;
        }
        let mut k = i;
        while k < b.len() && b[k].is_ascii_alphabetic() {
            k += 1;
        }
        let mut word = &s[i..k];
        if word.len() > 1 && (word.ends_with('s') || word.ends_with('S')) {
            word = &word[..word.len() - 1];
        }
        if !word.is_empty() && !UNITS.iter().any(|u| u.eq_ignore_ascii_case(word)) {
            break;
        }
        i = k;
    }
    if s.is_empty() {
        0
    } else {
        i.min(s.len())
    }
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
    fn military_zones_are_getdates() {
        // a to m (no j) west of UTC, n to y east, z UTC: T is UTC+7
        assert_eq!(military_offset('a'), Some(-3600));
        assert_eq!(military_offset('M'), Some(-12 * 3600));
        assert_eq!(military_offset('t'), Some(7 * 3600));
        assert_eq!(military_offset('y'), Some(12 * 3600));
        assert_eq!(military_offset('z'), Some(0));
        assert_eq!(military_offset('j'), None);
        let utc = TimeZone::UTC;
        let t = parse_absolute("@2020-11-09T09:30:00", &utc, None).expect("ISO with T");
        assert_eq!(t.sec, 1_604_889_000); // 2020-11-09 02:30:00 UTC
        let z = parse_absolute("@Nov 9 02:30:00 2020 z", &utc, None).expect("ctime with z");
        assert_eq!(z, t);
        // two zones: neither parser takes it
        assert_eq!(parse_absolute("@2020-11-09T09:30:00Z", &utc, None), None);
    }

    #[test]
    fn error_text_points_where_libpcp_stops() {
        assert_eq!(
            time_error("@garbage", true),
            "garbage\n^ -- unexpected value\n"
        );
        assert_eq!(
            time_error("@2020-11-08 25:00:00", true),
            "2020-11-08 25:00:00\n    ^ -- unexpected value\n"
        );
        assert_eq!(
            time_error("@Nov 8 25:00", true),
            "Nov 8 25:00\n      ^ -- unexpected value\n"
        );
        assert_eq!(
            time_error("@12:61", true),
            "12:61\n   ^ -- unexpected value\n"
        );
        assert_eq!(time_error("+5 zz", true), "5 zz\n  ^ -- unexpected value\n");
        assert_eq!(time_error("-3 qq", true), "3 qq\n  ^ -- unexpected value\n");
        assert_eq!(
            time_error("@Mon", true),
            "Mon\n   ^ -- more information expected\n"
        );
    }

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
