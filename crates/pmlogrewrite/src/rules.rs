//! What the rewriting rules ask for, once every configuration file is read
//! and checked: the global clause's label and time changes, and each metric's
//! changes (kept as pmlogrewrite keeps them: the metric last named first).

use archive_format::types::{Desc, Timestamp};

/// What a metric clause changes (pmlogrewrite's flag bits).
pub mod change {
    pub const PMID: u32 = 1;
    pub const NAME: u32 = 2;
    pub const TYPE: u32 = 4;
    pub const INDOM: u32 = 8;
    pub const SEM: u32 = 16;
    pub const UNITS: u32 = 32;
    pub const DELETE: u32 = 64;
    pub const RESCALE: u32 = 128;
}

/// Which value of a metric moved to another instance domain is kept
/// (`OUTPUT ...`): all of them, or one chosen or computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    #[default]
    All,
    First,
    Last,
    /// The value of one instance (`INST n`, `INAME "name"`).
    One,
    Min,
    Max,
    Sum,
    Avg,
}

/// PM_IN_NULL.
pub const NO_INST: i32 = -1;

/// One metric of the input named by the rules, and its changes.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSpec {
    /// Its (first) name in the input.
    pub old_name: String,
    pub old: Desc,
    /// The descriptor as written (the changed fields).
    pub new: Desc,
    pub new_name: Option<String>,
    /// [`change`] bits.
    pub flags: u32,
    /// With a new instance domain: the value (or values) kept.
    pub output: Output,
    /// The instance `OUTPUT INST` picks, or the output value's instance.
    pub one_inst: i32,
    /// The instance `OUTPUT INAME` picks, until found in the domain.
    pub one_name: Option<String>,
}

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

/// One instance of an instance domain named by an indom rule, and its
/// changes (`iname`, `inst`).
#[derive(Debug, Clone, PartialEq)]
pub struct InstSpec {
    pub old_inst: i32,
    pub old_name: String,
    pub new_inst: i32,
    pub new_name: Option<String>,
    /// [`inst`] bits.
    pub flags: u32,
}

/// What an instance clause changes.
pub mod inst {
    pub const CHANGE_INST: u32 = 1;
    pub const CHANGE_INAME: u32 = 2;
    pub const DELETE: u32 = 4;
}

/// An instance domain of the input named by an indom rule, and its changes.
#[derive(Debug, Clone, PartialEq)]
pub struct IndomSpec {
    pub old: archive_format::types::InDom,
    pub new: archive_format::types::InDom,
    /// `indom -> duplicate d.s`: the domain is written as it was, and again
    /// as the new one.
    pub duplicate: bool,
    /// Every instance the input ever has in the domain (libpcp's
    /// `pmGetInDomArchive` order), with its changes.
    pub insts: Vec<InstSpec>,
}

impl IndomSpec {
    /// Whether the domain or any of its instances changes.
    pub fn changes(&self) -> bool {
        self.new != self.old || self.insts.iter().any(|i| i.flags != 0)
    }
}

/// A help text record named by a text rule, or following its metric's or
/// instance domain's new identifier, and its changes.
#[derive(Debug, Clone, PartialEq)]
pub struct TextSpec {
    /// `PM_TEXT_*` bits.
    pub ttype: u32,
    pub old_id: u32,
    pub new_id: u32,
    /// The text as the input's lookup finds it, or as the rule names it
    /// (only the record with that text changes).
    pub old_text: String,
    pub new_text: Option<String>,
    /// [`text`] bits.
    pub flags: u32,
}

/// What a text rule changes (pmlogrewrite's bits).
pub mod text {
    /// Named by the rule being read.
    pub const ACTIVE: u32 = 1;
    pub const CHANGE_ID: u32 = 2;
    pub const CHANGE_TEXT: u32 = 8;
    pub const DELETE: u32 = 16;
}

/// A label record's sets named by a label rule, or following its metric's or
/// instance domain's new identifier, and their changes (pmlogrewrite's
/// `labelspec_t`).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelSpec {
    /// `PM_LABEL_*` type (the same before and after).
    pub ltype: u32,
    pub old_id: u32,
    pub new_id: u32,
    /// The instance of an instances rule (-1: all of them).
    pub old_instance: i32,
    pub new_instance: i32,
    /// The label's name (quoted, as JSON) and value the rule selects by.
    pub old_label: Option<String>,
    pub old_value: Option<String>,
    pub new_label: Option<String>,
    pub new_value: Option<String>,
    /// `NEW` labels, as one set.
    pub new_labels: Option<archive_format::codec::meta::LabelSet>,
    /// [`label`] bits.
    pub flags: u32,
    /// The instance domain rule whose instances change, for an instance
    /// domain's labels.
    pub ip: Option<usize>,
}

/// What a label rule changes (pmlogrewrite's bits).
pub mod label {
    /// Named by the rule being read.
    pub const ACTIVE: u32 = 0x01;
    pub const CHANGE_ID: u32 = 0x02;
    pub const CHANGE_LABEL: u32 = 0x04;
    pub const CHANGE_INSTANCE: u32 = 0x08;
    pub const CHANGE_VALUE: u32 = 0x10;
    pub const DELETE: u32 = 0x20;
    pub const NEW: u32 = 0x40;
}

/// Every rule.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    pub global: Global,
    /// The metrics the rules name, in the order first named (pmlogrewrite's
    /// list is the reverse).
    pub metrics: Vec<MetricSpec>,
    /// Help text moved with its metric, in the order found.
    pub texts: Vec<TextSpec>,
    /// The instance domains the rules name, in the order first named.
    pub indoms: Vec<IndomSpec>,
    /// Label records named, in the order first named (pmlogrewrite's list is
    /// the reverse).
    pub labels: Vec<LabelSpec>,
}

impl Rules {
    /// Whether anything is rewritten (`-q` makes no output otherwise).
    pub fn any_change(&self) -> bool {
        self.global != Global::default()
            || self.metrics.iter().any(|m| m.flags != 0)
            || self.indoms.iter().any(IndomSpec::changes)
            || self.texts.iter().any(|t| t.flags & !text::ACTIVE != 0)
            || self.labels.iter().any(|l| l.flags != 0 || l.ip.is_some())
    }

    /// A help text record as the rules rewrite it: `None` where it is
    /// deleted, else its identifier and text (the first rule for its type,
    /// identifier and text).
    pub fn text_record<'t>(
        &'t self,
        ttype: u32,
        ident: u32,
        body: &'t str,
    ) -> Option<(u32, &'t str)> {
        let spec = self
            .texts
            .iter()
            .rev()
            .find(|t| t.ttype == ttype && t.old_id == ident && t.old_text == body);
        let Some(t) = spec else {
            return Some((ident, body));
        };
        if t.flags & text::DELETE != 0 {
            return None;
        }
        let id = if t.flags & text::CHANGE_ID != 0 {
            t.new_id
        } else {
            ident
        };
        let body = match (&t.new_text, t.flags & text::CHANGE_TEXT != 0) {
            (Some(n), true) => n.as_str(),
            _ => body,
        };
        Some((id, body))
    }

    /// The rule of an instance domain that changes.
    pub fn indom(&self, indom: archive_format::types::InDom) -> Option<&IndomSpec> {
        self.indoms
            .iter()
            .find(|i| i.old == indom && i.new != i.old)
    }

    /// The instance changes a metric's values take (those of the domain it
    /// is defined over, where any instance there changes).
    pub fn inst_changes(&self, m: &MetricSpec) -> Option<&IndomSpec> {
        if m.old.indom.is_null() {
            return None;
        }
        self.indoms
            .iter()
            .find(|i| i.old == m.old.indom && i.insts.iter().any(|x| x.flags != 0))
    }

    /// The rules of the metric with this PMID in the input (the first named
    /// with any change).
    pub fn metric(&self, pmid: archive_format::types::PmId) -> Option<&MetricSpec> {
        self.metrics
            .iter()
            .find(|m| m.old.pmid == pmid && (m.flags != 0 || self.inst_changes(m).is_some()))
    }

    /// The metrics whose values the rules change: renumbered, retyped,
    /// rescaled, deleted, moved to another domain, or over a domain whose
    /// instances change (a record holding none of them is copied as it is;
    /// names, semantics and units live in the metadata alone).
    pub fn touched(&self) -> std::collections::HashSet<archive_format::types::PmId> {
        use change::{DELETE, INDOM, PMID, RESCALE, TYPE};
        let values = PMID | TYPE | INDOM | DELETE | RESCALE;
        self.metrics
            .iter()
            .filter(|m| {
                self.metric(m.old.pmid)
                    .is_some_and(|m| m.flags & values != 0 || self.inst_changes(m).is_some())
            })
            .map(|m| m.old.pmid)
            .collect()
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
