//! Times as PCP 6.0.3's pmlogsummary does its arithmetic on them: `struct
//! timeval`s (microseconds; a v3 archive's nanoseconds cut off), differences
//! clipped at zero, and seconds as `pmtimevalToReal` forms them.

use archive_format::types::Timestamp;

/// A `struct timeval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Tv {
    pub sec: i64,
    pub usec: i64,
}

impl Tv {
    /// A record's or a window's time, to the microsecond.
    pub fn of(t: Timestamp) -> Tv {
        Tv {
            sec: t.sec,
            usec: (t.nsec / 1000) as i64,
        }
    }

    /// `pmPrintStamp`: `HH:MM:SS.mmm` in `tz` (a time of exactly a million
    /// microseconds, as libpcp's window arithmetic can leave, shows `.1000`).
    pub fn clock(self, tz: &cli_common::TimeZone) -> String {
        let tm = cli_common::timefmt::local_tm(self.sec, tz);
        let (h, m, s, ms) = (tm.hour, tm.minute, tm.second, self.usec / 1000);
        format!("{h:02}:{m:02}:{s:02}.{ms:03}")
    }

    /// The date and `pmPrintStamp`'s time: `Thu Nov 24 18:22:48.123 2016` (the
    /// first ten characters of `pmCtime`, the clock, the year).
    pub fn dated(self, tz: &cli_common::TimeZone) -> String {
        let c = cli_common::timefmt::ctime(self.sec, tz);
        let year: String = c.get(20..).unwrap_or_default().chars().take(4).collect();
        format!(
            "{} {} {year}",
            c.get(..10).unwrap_or_default(),
            self.clock(tz)
        )
    }

    pub fn timestamp(self) -> Timestamp {
        Timestamp::new(self.sec, (self.usec.clamp(0, 999_999) * 1000) as u32)
    }

    /// `self - b` (`pmtimevalDec`), negative results clipped to zero.
    pub fn sub_clip(self, b: Tv) -> Tv {
        let mut sec = self.sec.wrapping_sub(b.sec);
        let mut usec = self.usec - b.usec;
        if usec < 0 {
            usec += 1_000_000;
            sec = sec.wrapping_sub(1);
        }
        if sec < 0 {
            return Tv::default();
        }
        Tv { sec, usec }
    }

    /// `self + b` (`pmtimevalInc`).
    pub fn plus(self, b: Tv) -> Tv {
        let mut sec = self.sec.wrapping_add(b.sec);
        let mut usec = self.usec + b.usec;
        if usec >= 1_000_000 {
            usec -= 1_000_000;
            sec = sec.wrapping_add(1);
        }
        Tv { sec, usec }
    }

    /// Seconds, as `pmtimevalToReal` gives them.
    pub fn real(self) -> f64 {
        if (0..1_000_000).contains(&self.usec) {
            self.timestamp().as_real_libpcp()
        } else {
            self.sec as f64 + self.usec as f64 / 1e6
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_clip_at_zero_and_borrow() {
        let a = Tv { sec: 10, usec: 100 };
        let b = Tv {
            sec: 9,
            usec: 900_000,
        };
        assert_eq!(
            a.sub_clip(b),
            Tv {
                sec: 0,
                usec: 100_100
            }
        );
        assert_eq!(b.sub_clip(a), Tv::default());
        assert_eq!(
            b.plus(b),
            Tv {
                sec: 19,
                usec: 800_000
            }
        );
        assert_eq!(
            Tv {
                sec: 1,
                usec: 500_000
            }
            .real(),
            1.5
        );
        let t = Tv::of(Timestamp::new(5, 123_456_789));
        assert_eq!(
            t,
            Tv {
                sec: 5,
                usec: 123_456
            }
        );
    }
}
