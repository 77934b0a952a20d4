//! Timestamps as PCP prints them.

use archive_format::Timestamp;
use jiff::tz::TimeZone;

/// Broken-down local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tm {
    pub year: i32,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    /// 0 = Sunday.
    pub weekday: u8,
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Converts seconds since the epoch to local time in `tz`.
pub fn local_tm(sec: i64, tz: &TimeZone) -> Tm {
    let ts = jiff::Timestamp::from_second(sec.clamp(-377_705_116_800, 253_402_207_199))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let z = ts.to_zoned(tz.clone());
    Tm {
        year: z.year() as i32,
        month: z.month() as u8,
        day: z.day() as u8,
        hour: z.hour() as u8,
        minute: z.minute() as u8,
        second: z.second() as u8,
        weekday: z.weekday().to_sunday_zero_offset() as u8,
    }
}

/// C's `ctime`: `Sun Apr  3 06:50:55 2022` (no newline).
pub fn ctime(sec: i64, tz: &TimeZone) -> String {
    let t = local_tm(sec, tz);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[t.weekday as usize % 7],
        MONTHS[(t.month as usize + 11) % 12],
        t.day,
        t.hour,
        t.minute,
        t.second,
        t.year
    )
}

/// `HH:MM:SS.ffffff` (v2, `digits` = 6), `HH:MM:SS.fffffffff` (v3, 9) or
/// `HH:MM:SS.fff` (`pmPrintStamp`, 3): the fraction cut, not rounded.
pub fn stamp(t: Timestamp, digits: usize, tz: &TimeZone) -> String {
    let tm = local_tm(t.sec, tz);
    let digits = digits.min(9);
    let frac = t.nsec / 10u32.pow(9 - digits as u32);
    format!(
        "{:02}:{:02}:{:02}.{:0w$}",
        tm.hour,
        tm.minute,
        tm.second,
        frac,
        w = digits
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_and_stamp() {
        let utc = TimeZone::UTC;
        assert_eq!(ctime(1_648_968_655, &utc), "Sun Apr  3 06:50:55 2022");
        assert_eq!(
            stamp(Timestamp::new(1_648_968_655, 401_624_349), 9, &utc),
            "06:50:55.401624349"
        );
        assert_eq!(
            stamp(Timestamp::new(1_648_968_655, 401_624_349), 6, &utc),
            "06:50:55.401624"
        );
        assert_eq!(
            stamp(Timestamp::new(1_648_968_655, 401_924_349), 3, &utc),
            "06:50:55.401"
        );
    }
}
