//! The logging state of one metric, and how `__pmControlLog` requests change it
//! (`man 3 __pmControlLog`): mandatory on/off fix the state; mandatory maybe hands
//! control to advisory requests, which are ignored while a mandatory state holds. A
//! delta of 0 means "log once". Pure and fully tested; pmlogger's configuration and
//! pmlc's requests both go through it.

/// `PM_LOG_MANDATORY`, `PM_LOG_ADVISORY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Mandatory,
    Advisory,
}

/// `PM_LOG_ON`, `PM_LOG_OFF`, `PM_LOG_MAYBE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    On,
    Off,
    Maybe,
}

/// A metric's state, as the status word of `__pmControlLog` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogState {
    /// Being logged.
    pub on: bool,
    /// Set by a mandatory request (on or off); advisory requests cannot change it.
    pub mandatory: bool,
    /// Logging interval in milliseconds; 0 = once.
    pub delta_ms: u32,
    /// Values of the metric are in the archive already (`PMLC_GET_INLOG`).
    pub inlog: bool,
    /// The metric is available from the source (`PMLC_GET_AVAIL`).
    pub avail: bool,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlError {
    /// `advisory maybe` is not a request (PM_ERR_BADREQ... in PCP: EINVAL).
    AdvisoryMaybe,
}

impl LogState {
    /// Applies one request; returns the new state. An advisory request under a
    /// mandatory state leaves it unchanged.
    pub fn control(self, c: Control, s: Switch, delta_ms: u32) -> Result<LogState, ControlError> {
        let mut n = self;
        match (c, s) {
            (Control::Mandatory, Switch::On) => {
                n.on = true;
                n.mandatory = true;
                n.delta_ms = delta_ms;
            }
            (Control::Mandatory, Switch::Off) => {
                n.on = false;
                n.mandatory = true;
            }
            (Control::Mandatory, Switch::Maybe) => {
                n.mandatory = false;
            }
            (Control::Advisory, Switch::Maybe) => return Err(ControlError::AdvisoryMaybe),
            (Control::Advisory, _) if self.mandatory => {}
            (Control::Advisory, Switch::On) => {
                n.on = true;
                n.delta_ms = delta_ms;
            }
            (Control::Advisory, Switch::Off) => {
                n.on = false;
            }
        }
        Ok(n)
    }

    /// Logged once only.
    pub fn once(&self) -> bool {
        self.on && self.delta_ms == 0
    }

    /// The status word bits of `__pmControlLog`: on (1), mandatory (2), available
    /// (4), in log (8), and the interval in the high half (seconds x 1000 + ms as PCP
    /// packs it: the delta in ms shifted left 16 bits).
    pub fn status_word(&self) -> u32 {
        let mut w = 0u32;
        if self.on {
            w |= 1;
        }
        if self.mandatory {
            w |= 2;
        }
        if self.avail {
            w |= 4;
        }
        if self.inlog {
            w |= 8;
        }
        w | (self.delta_ms.min(0xffff) << 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Control::*;
    use Switch::*;

    #[test]
    fn mandatory_on_and_off_fix_the_state() {
        let s = LogState::default().control(Mandatory, On, 1000).unwrap();
        assert!(s.on && s.mandatory && s.delta_ms == 1000);
        // advisory cannot change a mandatory state
        assert_eq!(s.control(Advisory, Off, 0).unwrap(), s);
        let off = s.control(Mandatory, Off, 0).unwrap();
        assert!(!off.on && off.mandatory);
        assert_eq!(off.control(Advisory, On, 500).unwrap(), off);
    }

    #[test]
    fn maybe_hands_control_to_advisory() {
        let s = LogState::default()
            .control(Mandatory, On, 1000)
            .unwrap()
            .control(Mandatory, Maybe, 0)
            .unwrap();
        assert!(s.on && !s.mandatory);
        let a = s.control(Advisory, On, 250).unwrap();
        assert!(a.on && a.delta_ms == 250);
        let b = a.control(Advisory, Off, 0).unwrap();
        assert!(!b.on && !b.mandatory);
        assert_eq!(
            b.control(Advisory, Maybe, 0),
            Err(ControlError::AdvisoryMaybe)
        );
    }

    #[test]
    fn delta_zero_is_once_and_status_word_packs_flags() {
        let mut s = LogState::default().control(Mandatory, On, 0).unwrap();
        assert!(s.once());
        s.inlog = true;
        s.avail = true;
        assert_eq!(s.status_word(), 1 | 2 | 4 | 8);
        let t = LogState::default().control(Advisory, On, 2000).unwrap();
        assert_eq!(t.status_word(), 1 | (2000 << 16));
    }
}
