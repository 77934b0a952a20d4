//! What the rewriting rules ask for, once every configuration file is read
//! and checked: the global clause's label and time changes.

use archive_format::types::Timestamp;

/// The global clause (`GLOBAL { ... }`): the label's fields, and a shift of
/// every timestamp.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Global {
    pub hostname: Option<String>,
    pub timezone: Option<String>,
    pub zoneinfo: Option<String>,
    pub features: Option<u32>,
    /// `TIME -> delta`: added to every timestamp (negative: `-`).
    pub time: Option<Shift>,
}

/// A signed time shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shift {
    pub negative: bool,
    pub sec: i64,
    pub nsec: u32,
}

impl Shift {
    /// `t` moved by the shift. A shift of less than a second moves nothing
    /// (pmlogrewrite shifts only where the whole seconds are not 0).
    pub fn apply(&self, t: Timestamp) -> Timestamp {
        if self.sec == 0 {
            return t;
        }
        let (mut sec, mut nsec) = (t.sec, t.nsec as i64);
        if self.negative {
            sec -= self.sec;
            nsec -= self.nsec as i64;
            if nsec < 0 {
                nsec += 1_000_000_000;
                sec -= 1;
            }
        } else {
            sec += self.sec;
            nsec += self.nsec as i64;
            if nsec >= 1_000_000_000 {
                nsec -= 1_000_000_000;
                sec += 1;
            }
        }
        Timestamp::new(sec, nsec as u32)
    }
}

/// Every rule.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    pub global: Global,
}

impl Rules {
    /// Whether anything is rewritten (`-q` makes no output otherwise).
    pub fn any_change(&self) -> bool {
        self.global != Global::default()
    }

    /// A timestamp as the output has it.
    pub fn stamp(&self, t: Timestamp) -> Timestamp {
        match &self.global.time {
            Some(s) => s.apply(t),
            None => t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_carry_across_the_second() {
        let s = Shift {
            negative: true,
            sec: 1,
            nsec: 500_000_000,
        };
        assert_eq!(
            s.apply(Timestamp::new(10, 200_000_000)),
            Timestamp::new(8, 700_000_000)
        );
        let s = Shift {
            negative: false,
            sec: 2,
            nsec: 900_000_000,
        };
        assert_eq!(
            s.apply(Timestamp::new(10, 200_000_000)),
            Timestamp::new(13, 100_000_000)
        );
        let under_a_second = Shift {
            negative: false,
            sec: 0,
            nsec: 900_000_000,
        };
        assert_eq!(
            under_a_second.apply(Timestamp::new(10, 0)),
            Timestamp::new(10, 0)
        );
    }
}
