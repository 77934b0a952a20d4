//! A metric's statistics finished as PCP's `printsummary` finishes them (discrete
//! values held to the end of the window, averages divided out, counts without the
//! marks), one [`Row`] per instance, and the rows written as PCP's text.

use archive_format::types::{sem, Desc, InDom};
use std::io::{self, Write};

use crate::opts::Opts;
use crate::stats::{Inst, Metric};
use crate::tv::Tv;

/// The time window the statistics cover.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub start: Tv,
    pub finish: Tv,
    /// Its length in seconds (what a counter's span is compared with).
    pub span: f64,
    /// Longer than a day: times are written with their date.
    pub days: bool,
}

impl Window {
    pub fn new(start: Tv, finish: Tv) -> Window {
        Window {
            start,
            finish,
            span: finish.real() - start.real(),
            days: finish.sub_clip(start).sec > 86400,
        }
    }
}

/// How an instance is named.
#[derive(Debug, Clone, PartialEq)]
pub enum InstName {
    /// A metric without instance domain.
    Single,
    /// An instance the archive names.
    Named(String),
    /// An instance the archive has no name for.
    Number(i32),
}

/// One bin of the value distribution: its upper bound (`None`: the metric has a
/// single value, and the bins after the first are empty) and its count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    pub upper: Option<f64>,
    pub count: u32,
}

/// The finished statistics of one instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub stocave: f64,
    pub timeave: f64,
    pub sum: f64,
    pub min: f64,
    pub mintime: Tv,
    pub max: f64,
    pub maxtime: Tv,
    pub count: u32,
    pub bins: Vec<Bin>,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub metric: String,
    pub inst: InstName,
    /// A counter whose values cover a tenth of the window or less (PCP's `*`).
    pub partial: bool,
    /// `None`: a counter with too little data for a rate.
    pub figures: Option<Figures>,
    pub units: String,
}

/// The rows of `m` reported as `name`: every instance, or those `wanted` names
/// (`name_of` gives an instance's name in the archive).
pub fn rows(
    name: &str,
    mut m: Metric,
    w: &Window,
    wanted: &[String],
    name_of: impl Fn(InDom, i32) -> Option<String>,
) -> Vec<Row> {
    let mut out = Vec::new();
    let units = match m.desc.units.to_string() {
        u if u.is_empty() => "none".to_string(),
        u => u,
    };
    for d in &mut m.insts {
        if m.desc.sem == sem::DISCRETE {
            d.hold_to(w.finish);
        }
        let span = d.lasttime.sub_clip(d.firsttime).real();
        let counter = m.desc.sem == sem::COUNTER;
        let partial = counter && span / w.span <= 0.1;
        let inst = match name_of(m.desc.indom, d.inst) {
            None if !wanted.is_empty() && m.desc.indom.0 == u32::MAX => break,
            None if m.desc.indom.0 == u32::MAX => InstName::Single,
            None => InstName::Number(d.inst),
            Some(n) if !wanted.is_empty() && !wanted.contains(&n) => continue,
            Some(n) => InstName::Named(n),
        };
        let figures = (!counter || span > 0.0).then(|| finish(d, &m.desc, m.scale, span));
        out.push(Row {
            metric: name.to_string(),
            inst,
            partial,
            figures,
            units: units.clone(),
        });
    }
    out
}

/// The averages divided out, the count without marks, the bins laid out.
fn finish(d: &Inst, desc: &Desc, scale: f64, span: f64) -> Figures {
    let stocave = d.stocave / d.count as f64;
    let timeave = if desc.sem == sem::COUNTER {
        d.timeave / (span * scale)
    } else if span == 0.0 {
        // a single value
        d.timeave
    } else {
        d.timeave / span
    };
    let mut count = d.count;
    if desc.sem == sem::DISCRETE {
        // less the marks and the end added
        count = count.wrapping_sub(d.markcount as u32).wrapping_sub(1);
    }
    let n = d.bins.len();
    let bins = (0..n)
        .map(|j| Bin {
            upper: (j == 0 || d.min != d.max)
                .then(|| (d.max - d.min) / n as f64 * (j + 1) as f64 + d.min),
            count: if j > 0 && d.min == d.max {
                0
            } else {
                d.bins[j]
            },
        })
        .collect();
    Figures {
        stocave,
        timeave,
        sum: d.sum,
        min: d.min,
        mintime: d.mintime,
        max: d.max,
        maxtime: d.maxtime,
        count,
        bins,
    }
}

/// C's `%.*f` (a negative precision is the default, 6).
pub fn fixed(x: f64, precision: i32) -> String {
    let p = if precision < 0 { 6 } else { precision as usize };
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    format!("{x:.p$}")
}

/// PCP's text: how each field is written.
pub struct Text<'a> {
    pub o: &'a Opts,
    pub w: Window,
    pub tz: &'a cli_common::TimeZone,
}

impl Text<'_> {
    /// The `-H` line.
    pub fn header(&self, out: &mut dyn Write) -> io::Result<()> {
        let d = self.o.delimiter as char;
        let mut s = String::from("metric");
        let bins = [(self.o.nbins > 0, "bins")];
        for (on, n) in self.o.cols.named().into_iter().chain(bins) {
            if on {
                s.push(d);
                s.push_str(n);
            }
        }
        writeln!(out, "{s}{d}units")
    }

    /// A time as `printstamp` writes it: with its date in quotes over a day.
    fn stamp(&self, t: Tv, s: &mut String) {
        if self.w.days {
            s.push_str(&format!("'{}'", t.dated(self.tz)));
        } else {
            s.push_str(&t.clock(self.tz));
        }
    }

    pub fn row(&self, r: &Row, out: &mut dyn Write) -> io::Result<()> {
        let (c, d, p) = (&self.o.cols, self.o.delimiter as char, self.o.precision);
        let mut s = String::with_capacity(128);
        if r.partial {
            s.push('*');
        }
        s.push_str(&r.metric);
        s.push(d);
        match &r.inst {
            InstName::Single => {}
            InstName::Named(n) => s.push_str(&format!("[\"{n}\"]")),
            InstName::Number(i) => s.push_str(&format!("[{}]", *i as u32)),
        }
        let Some(f) = &r.figures else {
            return writeln!(out, "{s}{d}- insufficient archive data.");
        };
        let num = |on: bool, x: f64, s: &mut String| {
            if on {
                s.push(d);
                s.push_str(&fixed(x, p));
            }
        };
        num(c.stocave, f.stocave, &mut s);
        num(c.timeave, f.timeave, &mut s);
        num(c.sum, f.sum, &mut s);
        num(c.min, f.min, &mut s);
        if c.mintime {
            s.push(d);
            self.stamp(f.mintime, &mut s);
        }
        num(c.max, f.max, &mut s);
        if c.maxtime {
            s.push(d);
            self.stamp(f.maxtime, &mut s);
        }
        if c.count {
            s.push_str(&format!("{d}{}", f.count));
        }
        for b in &f.bins {
            match b.upper {
                Some(u) => s.push_str(&format!("{d}[<={}]{d}{}", fixed(u, p), b.count)),
                None => s.push_str(&format!("{d}[]{d}{}", b.count)),
            }
        }
        writeln!(out, "{s}{d}{}", r.units)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_is_c_printf() {
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(1.5, 0), "2");
        assert_eq!(fixed(1.0 / 3.0, -1), "0.333333");
        assert_eq!(fixed(f64::NAN, 3), "nan");
        assert_eq!(fixed(-f64::NAN, 3), "-nan");
        assert_eq!(fixed(f64::NEG_INFINITY, 3), "-inf");
    }

    #[test]
    fn windows_over_a_day_show_dates() {
        let w = Window::new(
            Tv { sec: 0, usec: 0 },
            Tv {
                sec: 86401,
                usec: 0,
            },
        );
        assert!(w.days);
        assert_eq!(w.span, 86401.0);
        assert!(
            !Window::new(
                Tv::default(),
                Tv {
                    sec: 86400,
                    usec: 999
                }
            )
            .days
        );
    }
}
