//! What the PCP-compatible command-line tools share: time zones as glibc's `tzset`
//! reads them ([`zone`]), the archive clock of `-z`/`-Z`/`-S`/`-T` ([`clock`]), PCP's timestamp text ([`timefmt`]), the PCPIntro(1) time
//! window and interval syntax ([`window`]), `tool: message` exits ([`exit`]), work
//! spread over the cores with its output kept in order ([`parallel`]), standard
//! output written at a place where it is a file ([`placed`]), one
//! definition of each tool's options ([`spec`]) and the run shell around a tool
//! ([`shell`]).

pub mod about;
pub mod cleanup;
pub mod clock;
pub mod context;
pub mod debug;
pub mod exit;
pub mod getopt;
pub mod limit;
pub mod metricspec;
pub mod notify;
pub mod parallel;
pub mod pcpconf;
pub mod placed;
pub mod pmns;
pub mod shell;
pub mod spec;
pub mod timefmt;
pub mod window;
pub mod zone;

pub use jiff::tz::TimeZone;
