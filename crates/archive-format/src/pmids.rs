//! Well-known metrics by PMID: pmcd's own (domain 2), which pmlogger writes in
//! every archive's prologue and epilogue and which pmlogextract and the replay
//! look for, so that tools need not know them by number.

use crate::types::{InDom, PmId};

/// `pmcd.pmlogger.port`: the logger's control port, per pmlogger instance.
pub const PMLOGGER_PORT: PmId = PmId::new(2, 3, 0);
/// `pmcd.pmlogger.archive`: the archive's path.
pub const PMLOGGER_ARCHIVE: PmId = PmId::new(2, 3, 2);
/// `pmcd.pmlogger.host`: the host the logger records.
pub const PMLOGGER_HOST: PmId = PmId::new(2, 3, 3);
/// `pmcd.pid`: pmcd's process id.
pub const PMCD_PID: PmId = PmId::new(2, 0, 23);
/// `pmcd.seqnum`: pmcd's configuration sequence number.
pub const PMCD_SEQNUM: PmId = PmId::new(2, 0, 24);
/// The instances of `pmcd.pmlogger.*`: the loggers by process id.
pub const PMLOGGER_INDOM: InDom = InDom::new(2, 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_pcp_gives() {
        // as `pminfo -m` prints them
        assert_eq!(PMLOGGER_HOST.to_string(), "2.3.3");
        assert_eq!(PMLOGGER_PORT.to_string(), "2.3.0");
        assert_eq!(PMLOGGER_ARCHIVE.to_string(), "2.3.2");
        assert_eq!(PMCD_PID.to_string(), "2.0.23");
        assert_eq!(PMCD_SEQNUM.to_string(), "2.0.24");
        assert_eq!(PMLOGGER_INDOM.to_string(), "2.1");
    }
}
