//! The archive clock the PCP tools share: the zone times are shown in (`-z`, the
//! archive's; `-Z TZ`; else local), the `Note:` line PCP prints when it is not the
//! local one, and the `-S`/`-T` window inside the archive's bounds with PCP's
//! "invalid time window" error.

use archive_format::{Label, Timestamp};
use jiff::tz::TimeZone;

use crate::window::{parse_window, time_error, Bounds};
use crate::zone;

/// PCP's options of the archive clock as a tool holds them: `-S` and `-T` as
/// given, and the zone of `-Z TZ` or `-z`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockOpts {
    pub start: Option<String>,
    pub finish: Option<String>,
    pub tz: Option<String>,
    pub hostzone: bool,
}

impl ClockOpts {
    /// Takes option `c` with its argument when it is `-S`, `-T`, `-Z` or `-z`:
    /// `None` for another option, else PCP's message when both `-Z` and `-z`
    /// are given.
    pub fn take(&mut self, c: char, arg: Option<String>) -> Option<Result<(), String>> {
        match c {
            'S' => self.start = arg,
            'T' => self.finish = arg,
            'Z' | 'z' => return Some(zone_opt(c, arg, &mut self.tz, &mut self.hostzone)),
            _ => return None,
        }
        Some(Ok(()))
    }

    /// `-S` or `-T` was given.
    pub fn windowed(&self) -> bool {
        self.start.is_some() || self.finish.is_some()
    }

    /// The zone for an archive with this label, and PCP's note ([`zone_for`]).
    pub fn zone_for(&self, label: &Label) -> (TimeZone, Option<String>) {
        zone_for(self.hostzone, self.tz.as_deref(), label)
    }

    /// The `-S`/`-T` window inside `bounds` ([`window`]).
    pub fn window(&self, bounds: Bounds, tz: &TimeZone) -> Result<(Timestamp, Timestamp), String> {
        window(self.start.as_deref(), self.finish.as_deref(), bounds, tz)
    }
}

/// The zone `-z`/`-Z` choose for an archive with this label, and the note PCP
/// prints for the choice (with its blank line), `None` for local time.
pub fn zone_for(hostzone: bool, tz: Option<&str>, label: &Label) -> (TimeZone, Option<String>) {
    if hostzone {
        let note = format!(
            "Note: timezone set to local timezone of host \"{}\" from archive\n\n",
            label.hostname
        );
        (zone::parse_tz(&label.timezone), Some(note))
    } else if let Some(t) = tz {
        (
            zone::parse_tz(t),
            Some(format!("Note: timezone set to \"TZ={t}\"\n\n")),
        )
    } else {
        (zone::local(), None)
    }
}

/// `-Z TZ` (`key` `'Z'`) or `-z`: sets `tz` or `hostzone`, and gives PCP's message
/// when the other one was given too.
pub fn zone_opt(
    key: char,
    arg: Option<String>,
    tz: &mut Option<String>,
    hostzone: &mut bool,
) -> Result<(), String> {
    let both = if key == 'Z' {
        *tz = arg;
        *hostzone
    } else {
        *hostzone = true;
        tz.is_some()
    };
    match both {
        true => Err("at most one of -Z and -z allowed".into()),
        false => Ok(()),
    }
}

/// An archive's bounds: its label's start, and its end where it is known (else
/// the far future, as libpcp takes an unknown end).
pub fn bounds(label: &Label, end: Option<Timestamp>) -> Bounds {
    Bounds {
        start: label.start,
        end: end.unwrap_or(Timestamp::new(i32::MAX as i64, 0)),
    }
}

/// The archive's end, or `None` once libpcp's warning (from `pmGetContextOptions`
/// or `pmGetArchiveEnd`'s callers) is said where it cannot be found: `name` is
/// the archive as the user gave it.
pub fn archive_end(
    prog: &str,
    a: &archive_format::Archive,
    name: &str,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> std::io::Result<Option<Timestamp>> {
    archive_end_worded(prog, a, name, &|m| m.to_string(), out, err)
}

/// [`archive_end`] with libpcp's message put in other words (a later PCP's).
pub fn archive_end_worded(
    prog: &str,
    a: &archive_format::Archive,
    name: &str,
    words: &dyn Fn(&str) -> String,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> std::io::Result<Option<Timestamp>> {
    let e = match a.end_time() {
        Ok(t) => return Ok(Some(t)),
        Err(e) => e,
    };
    out.flush()?;
    let msg = words(&e.pm_message());
    writeln!(err, "{prog}: Cannot locate end of archive {name}: {msg}")?;
    writeln!(
        err,
        "\nWARNING: This archive is sufficiently damaged that it may not be possible to"
    )?;
    writeln!(
        err,
        "         produce complete information.  Continuing and hoping for the best.\n"
    )?;
    Ok(None)
}

/// The `-S`/`-T` window inside `bounds`, or PCP's message for a bad one (without
/// the `tool: ` before it).
pub fn window(
    start: Option<&str>,
    finish: Option<&str>,
    bounds: Bounds,
    tz: &TimeZone,
) -> Result<(Timestamp, Timestamp), String> {
    parse_window(start, finish, bounds, tz).map_err(|spec| invalid_window(&spec, bounds))
}

/// PCP's message for a window it could not read.
pub fn invalid_window(spec: &str, bounds: Bounds) -> String {
    format!(
        "invalid time window.\n{}",
        time_error(spec, bounds.end_known())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label() -> Label {
        Label {
            version: 3,
            pid: 1,
            start: Timestamp::new(1_000_000, 0),
            vol: 0,
            features: 0,
            hostname: "bozo".into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
        }
    }

    #[test]
    fn clock_options_taken_from_the_command_line() {
        let mut c = ClockOpts::default();
        assert_eq!(c.take('x', None), None, "not a clock option");
        assert!(!c.windowed());
        assert_eq!(c.take('S', Some("@10:00".into())), Some(Ok(())));
        assert!(c.windowed());
        assert_eq!(c.take('T', Some("+1h".into())), Some(Ok(())));
        assert_eq!(c.take('z', None), Some(Ok(())));
        assert_eq!(
            c.take('Z', Some("UTC".into())),
            Some(Err("at most one of -Z and -z allowed".into()))
        );
        assert_eq!(c.start.as_deref(), Some("@10:00"));
        assert_eq!(c.finish.as_deref(), Some("+1h"));
        assert!(c.hostzone);
        // -z: the archive's zone, with PCP's note
        let mut c = ClockOpts::default();
        c.take('z', None);
        let (tz, note) = c.zone_for(&label());
        assert_eq!(tz.iana_name(), Some("UTC"));
        assert!(note.is_some_and(|n| n.contains("host \"bozo\"")));
    }

    #[test]
    fn notes_for_the_zones_pcp_names() {
        let (_, note) = zone_for(true, None, &label());
        assert_eq!(
            note.as_deref(),
            Some("Note: timezone set to local timezone of host \"bozo\" from archive\n\n")
        );
        let (tz, note) = zone_for(false, Some("UTC"), &label());
        assert_eq!(
            note.as_deref(),
            Some("Note: timezone set to \"TZ=UTC\"\n\n")
        );
        assert_eq!(tz.iana_name(), Some("UTC"));
        assert_eq!(zone_for(false, None, &label()).1, None);
    }

    #[test]
    fn one_of_z_and_capital_z() {
        let (mut tz, mut host) = (None, false);
        assert_eq!(
            zone_opt('Z', Some("UTC".into()), &mut tz, &mut host),
            Ok(())
        );
        assert_eq!(tz.as_deref(), Some("UTC"));
        let e = zone_opt('z', None, &mut tz, &mut host);
        assert_eq!(e.unwrap_err(), "at most one of -Z and -z allowed");
        assert!(host);
        let (mut tz, mut host) = (None, false);
        assert_eq!(zone_opt('z', None, &mut tz, &mut host), Ok(()));
        assert!(zone_opt('Z', Some("UTC".into()), &mut tz, &mut host).is_err());
    }

    #[test]
    fn windows_and_their_errors() {
        let b = bounds(&label(), Some(Timestamp::new(1_000_100, 0)));
        let tz = zone::parse_tz("UTC");
        let (s, e) = window(Some("+10"), Some("-10"), b, &tz).expect("a window");
        assert_eq!((s.sec, e.sec), (1_000_010, 1_000_090));
        let msg = window(Some("bogus"), None, b, &tz).unwrap_err();
        assert!(msg.starts_with("invalid time window.\n"), "{msg}");
        assert!(!bounds(&label(), None).end_known());
    }
}
