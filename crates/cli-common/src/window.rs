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

/// Parses an interval into nanoseconds, as `pmParseInterval` reads one: numbers
/// as `strtod` reads them (`1.5`, `.5`, `2.`, `1e2`, `0x10`; not negative), each
/// with an optional unit word (`millisecond`, `msec`, `microsecond`, `usec`,
/// `nanosecond`, `nsec`, `second`, `sec`, `s`, `minute`, `min`, `m`, `hour`, `hr`,
/// `h`, `day`, `d`, in any case, one trailing `s` dropped: so `ms` is minutes),
/// seconds without one, all summed (`1h30m`, `1 2 3`, `1.5.3` is 1.5 + 0.3).
pub fn parse_interval(s: &str) -> Option<i128> {
    scan_interval(s)
        .ok()
        .map(|secs| (secs * 1e9).round() as i128)
}

/// How `pmParseInterval` reads `s`: the interval in seconds, or the byte where it
/// stopped (see [`parse_interval`]).
fn scan_interval(s: &str) -> Result<f64, usize> {
    const UNITS: [(&str, f64); 17] = [
        ("millisecond", 1e-3),
        ("msec", 1e-3),
        ("microsecond", 1e-6),
        ("usec", 1e-6),
        ("nanosecond", 1e-9),
        ("nsec", 1e-9),
        ("second", 1.0),
        ("sec", 1.0),
        ("s", 1.0),
        ("minute", 60.0),
        ("min", 60.0),
        ("m", 60.0),
        ("hour", 3600.0),
        ("hr", 3600.0),
        ("h", 3600.0),
        ("day", 86400.0),
        ("d", 86400.0),
    ];
    let b = s.as_bytes();
    let mut i = blanks(b, 0);
    if i >= b.len() {
        return Err(0);
    }
    let mut total = 0.0;
    while i < b.len() {
        let Some((v, j)) = double_at(b, i).filter(|(v, _)| *v >= 0.0 && v.is_finite()) else {
            return Err(i);
        };
        i = blanks(b, j);
        let mut k = i;
        while k < b.len() && b[k].is_ascii_alphabetic() {
            k += 1;
        }
        let mut mult = 1.0;
        if k > i {
            let mut word = &s[i..k];
            if word.len() > 1 && (word.ends_with('s') || word.ends_with('S')) {
                word = &word[..word.len() - 1];
            }
            match UNITS.iter().find(|(u, _)| u.eq_ignore_ascii_case(word)) {
                Some((_, m)) => mult = *m,
                None => return Err(i),
            }
            i = blanks(b, k);
        }
        total += v * mult;
    }
    if total.is_finite() {
        Ok(total)
    } else {
        Err(i)
    }
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

/// Hours, minutes, seconds and nanoseconds.
type Hms = (i8, i8, i8, u32);

fn parse_hms(s: &str) -> Option<Hms> {
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
            let (hms, used) = match words.get(1) {
                Some(t) => {
                    let ((h, _), used) = time_word(t, words.get(2).copied())?;
                    if h.3 != 0 {
                        return None;
                    }
                    (h, 1 + used)
                }
                None => ((0, 0, 0, 0), 1),
            };
            if words.len() > used {
                return None;
            }
            return to_ts(y, mo, d, hms, tz);
        }
        return None;
    }
    let p = date_words(&words)?;
    // __pmParseCtime takes three-letter names, a month before its day, and a time
    // with its minutes unless a date is given; what it refuses libpcp hands to
    // getdate(3), whose missing fields come from now (a weekday alone is the next
    // such day, today included; a year is not moved on)
    let ctime = !p.long_names
        && !p.day_first
        && (p.mon.is_some() || p.wday.is_none())
        && (p.mon.is_some() || p.hms.is_some_and(|(_, whole)| whole));
    let hms = p.hms.map_or((0, 0, 0, 0), |(t, _)| t);
    // the date the given fields complete: the origin's for ctime, now's for
    // getdate (moved on to the weekday named alone)
    let base = if ctime {
        today.date()
    } else {
        let now = jiff::Zoned::now().with_time_zone(tz.clone());
        match (p.wday, p.mon) {
            (Some(wd), None) => {
                let ahead = (wd + 7 - now.weekday().to_sunday_zero_offset() as u32) % 7;
                now.date()
                    .checked_add(jiff::Span::new().days(ahead as i64))
                    .ok()?
            }
            _ => now.date(),
        }
    };
    let (mut y, mut mo, mut d) = (base.year(), base.month(), base.day());
    if let Some(m) = p.mon {
        mo = m;
        d = p.mday?;
    }
    if let Some(year) = p.year {
        y = year;
    } else if ctime && at {
        // __pmConvertTime: a partial time earlier than the origin in its most
        // significant given field means the next such time
        if p.mon.is_some() {
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

/// The fields of a ctime-like or getdate-like date: `[weekday] [month day | day
/// month] [time] [year]`, a time `H:M[:S[.frac]]` or an hour, either with `am` or
/// `pm` (joined or a word of its own).
struct DateWords {
    /// 0 for Sunday.
    wday: Option<u32>,
    mon: Option<i8>,
    mday: Option<i8>,
    /// The time, and whether it has its minutes.
    hms: Option<(Hms, bool)>,
    year: Option<i16>,
    /// A day or month named in full (`Monday`, `November`).
    long_names: bool,
    /// The day before the month (`9 Nov 2020`).
    day_first: bool,
}

fn date_words(w: &[&str]) -> Option<DateWords> {
    // a day or month name: three letters or the whole name
    fn name(word: &str, names: &[&str], full: &[&str]) -> Option<(usize, bool)> {
        let l = word.to_ascii_lowercase();
        if let Some(k) = names.iter().position(|n| *n == l) {
            return Some((k, false));
        }
        full.iter().position(|n| *n == l).map(|k| (k, true))
    }
    const FULL_DAYS: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    const FULL_MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let mday = |s: &str| s.parse::<i8>().ok().filter(|d| (1..=31).contains(d));
    let mut p = DateWords {
        wday: None,
        mon: None,
        mday: None,
        hms: None,
        year: None,
        long_names: false,
        day_first: false,
    };
    let mut i = 0;
    if let Some((k, long)) = w.first().and_then(|x| name(x, &DAYS, &FULL_DAYS)) {
        p.wday = Some(k as u32);
        p.long_names |= long;
        i += 1;
    }
    if let Some((k, long)) = w.get(i).and_then(|x| name(x, &MONTHS, &FULL_MONTHS)) {
        p.mon = Some(k as i8 + 1);
        p.long_names |= long;
        p.mday = Some(mday(w.get(i + 1)?)?);
        i += 2;
    } else if let (Some(d), Some((k, long))) = (
        w.get(i).and_then(|x| mday(x)),
        w.get(i + 1).and_then(|x| name(x, &MONTHS, &FULL_MONTHS)),
    ) {
        p.mday = Some(d);
        p.mon = Some(k as i8 + 1);
        p.long_names |= long;
        p.day_first = true;
        i += 2;
    }
    if let Some(word) = w.get(i) {
        let is_year = word.len() == 4 && word.bytes().all(|c| c.is_ascii_digit());
        if !is_year || p.mon.is_none() {
            let (t, used) = time_word(word, w.get(i + 1).copied())?;
            p.hms = Some(t);
            i += used;
        }
    }
    if let Some(word) = w.get(i) {
        p.year = Some(word.parse().ok().filter(|y| (1900..=9999).contains(y))?);
        i += 1;
    }
    (i == w.len()).then_some(p)
}

/// A time word (`10:30`, `10:30:15.5`, `10pm`, `10:30pm`, or `10` `pm` in two
/// words), and how many words it took; the flag tells whether it has minutes.
fn time_word(word: &str, next: Option<&str>) -> Option<((Hms, bool), usize)> {
    let meridian = |s: &str| match s.to_ascii_lowercase().as_str() {
        "am" => Some(false),
        "pm" => Some(true),
        _ => None,
    };
    let (core, pm, used) = match word.len().checked_sub(2).and_then(|k| {
        let (a, b) = (word.get(..k)?, word.get(k..)?);
        meridian(b).filter(|_| !a.is_empty()).map(|m| (a, m))
    }) {
        Some((a, m)) => (a, Some(m), 1),
        None => match next.and_then(meridian) {
            Some(m) => (word, Some(m), 2),
            None => (word, None, 1),
        },
    };
    let (mut t, whole) = if core.contains(':') {
        (parse_hms(core)?, true)
    } else {
        let h: i8 = core.parse().ok().filter(|h| (0..24).contains(h))?;
        ((h, 0, 0, 0), false)
    };
    if let Some(pm) = pm {
        if t.0 > 12 {
            return None;
        }
        t.0 = t.0 % 12 + if pm { 12 } else { 0 };
    }
    Some(((t, whole), used))
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
        return Some(plus_offset(relative_to_start, n));
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

/// `t` and `n` nanoseconds later, as libpcp's `__pmConvertHighResTime` adds them:
/// it carries into the seconds only past a whole second, so fractions that add
/// up to exactly one leave 1 000 000 000 nanoseconds (a time tools then print as
/// `HH:MM:SS.1000`, and compare as earlier than the next second).
fn plus_offset(t: Timestamp, n: i128) -> Timestamp {
    const NS: i128 = 1_000_000_000;
    if n < 0 {
        return Timestamp::from_nanos(t.as_nanos() + n);
    }
    let mut nsec = t.nsec as i128 + n % NS;
    let mut sec = t.sec as i128;
    if nsec > NS {
        nsec -= NS;
        sec += 1;
    }
    sec += n / NS;
    Timestamp {
        sec: sec.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        nsec: nsec as u32,
    }
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

/// C's `strtol(s, &end, 10)`: the value (saturated) and the text after it; 0 and
/// all of `s` when it does not start with a number.
pub fn strtol(s: &str) -> (i64, &str) {
    match int_at(s.as_bytes(), 0) {
        // int_at stops at an ASCII byte or the end: a char boundary
        Some((v, end)) => (v, &s[end..]),
        None => (0, s),
    }
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

/// strtod's reach from `i` (blanks, sign, digits with one point, an exponent; or
/// hexadecimal, `0x` digits with one point and a binary exponent).
fn double_at(b: &[u8], i: usize) -> Option<(f64, usize)> {
    let start = blanks(b, i);
    let mut j = start;
    if matches!(b.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    if let Some((v, end)) = hex_at(b, j) {
        return Some((if b[start] == b'-' { -v } else { v }, end));
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

/// A hexadecimal number at `j` as strtod reads one (`0x1A`, `0x1.8p3`): the
/// value and where it ends; `None` unless `0x` is followed by a hex digit.
fn hex_at(b: &[u8], j: usize) -> Option<(f64, usize)> {
    if b.get(j) != Some(&b'0') || !matches!(b.get(j + 1), Some(b'x' | b'X')) {
        return None;
    }
    let digit = |k: usize| b.get(k).and_then(|c| (*c as char).to_digit(16));
    let mut k = j + 2;
    let mut v = 0.0f64;
    let mut any = false;
    while let Some(d) = digit(k) {
        v = v * 16.0 + d as f64;
        any = true;
        k += 1;
    }
    if b.get(k) == Some(&b'.') {
        let mut scale = 1.0 / 16.0;
        let mut f = k + 1;
        while let Some(d) = digit(f) {
            v += d as f64 * scale;
            scale /= 16.0;
            any = true;
            f += 1;
        }
        if any {
            k = f;
        }
    }
    if !any {
        return None;
    }
    // a binary exponent: digits right after the p (strtod skips no blanks there)
    if matches!(b.get(k), Some(b'p' | b'P'))
        && b.get(k + 1)
            .is_some_and(|c| c.is_ascii_digit() || *c == b'+' || *c == b'-')
    {
        if let Some((e, end)) = int_at(b, k + 1) {
            v *= 2f64.powi(e.clamp(-2000, 2000) as i32);
            k = end;
        }
    }
    Some((v, k))
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

/// Where `pmParseInterval` stops on `s` (the byte its error's caret is under;
/// the length of `s` when it reads all of it).
pub fn interval_stop(s: &str) -> usize {
    scan_interval(s).err().unwrap_or(s.len()).min(s.len())
}

/// Resolves `-S start` and `-T finish` against an archive's bounds.
pub fn parse_window(
    start: Option<&str>,
    finish: Option<&str>,
    b: Bounds,
    tz: &TimeZone,
) -> Result<(Timestamp, Timestamp), String> {
    let s = match start {
        // a start before the archive's is its start (and -T counts from there)
        Some(spec) => resolve(spec, b.start, b.end, tz)
            .ok_or_else(|| spec.to_string())?
            .max(b.start),
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
        // pmParseInterval's reading: strtod's numbers, summed, a trailing s of a
        // unit dropped (ms is minutes), no negative numbers
        assert_eq!(parse_interval("1.5.3"), Some(1_800_000_000));
        assert_eq!(parse_interval("1.5.3m"), Some(19_500_000_000));
        assert_eq!(parse_interval("0x1p4"), Some(16_000_000_000));
        assert_eq!(parse_interval("1 2 3"), Some(6_000_000_000));
        assert_eq!(parse_interval("2ms"), Some(120_000_000_000));
        assert_eq!(parse_interval("1 usecs"), Some(1_000));
        assert_eq!(parse_interval("1us"), None);
        assert_eq!(parse_interval("-1"), None);
        assert_eq!(parse_interval("4.."), None);
        assert_eq!(interval_stop("4.."), 2);
        assert_eq!(interval_stop("1e"), 1);
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

    #[test]
    fn plus_offsets_carry_as_libpcp_does() {
        let t = Timestamp::new(20, 200_000_000);
        assert_eq!(
            plus_offset(t, 800_000_000),
            Timestamp {
                sec: 20,
                nsec: 1_000_000_000
            }
        );
        assert_eq!(plus_offset(t, 900_000_000), Timestamp::new(21, 100_000_000));
        assert_eq!(
            plus_offset(t, 2_500_000_000),
            Timestamp::new(22, 700_000_000)
        );
    }
}
