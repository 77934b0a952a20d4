//! Where the rows go: PCP's text, or ours beyond PCP, CSV (a header row, then a
//! row per metric and instance, with the columns asked for) and JSON (an object
//! per metric and instance, a line each). CSV and JSON carry the numbers at full
//! precision and times in RFC 3339 form in the reporting time zone.

use serde::Serialize;
use std::io::{self, Write};

use crate::opts::{Format, Opts};
use crate::report::{InstName, Row, Text, Window};
use crate::tv::Tv;

pub trait Sink {
    fn row(&mut self, r: &Row) -> io::Result<()>;
    /// The stream the header goes to (PCP's text only).
    fn text_out(&mut self) -> Option<&mut dyn Write>;
    fn finish(&mut self) -> io::Result<()>;
}

pub fn sink<'a>(
    o: &'a Opts,
    w: &Window,
    tz: &'a cli_common::TimeZone,
    out: &'a mut dyn Write,
) -> io::Result<Box<dyn Sink + 'a>> {
    Ok(match o.format {
        Format::Text => Box::new(TextSink {
            text: Text { o, w: *w, tz },
            out,
        }),
        Format::Csv => {
            let mut csv = csv::Writer::from_writer(out);
            csv.write_record(csv_header(o))?;
            Box::new(CsvSink { o, tz, csv })
        }
        Format::Json => Box::new(JsonSink { o, tz, out }),
    })
}

struct TextSink<'a> {
    text: Text<'a>,
    out: &'a mut dyn Write,
}

impl Sink for TextSink<'_> {
    fn row(&mut self, r: &Row) -> io::Result<()> {
        self.text.row(r, self.out)
    }
    fn text_out(&mut self) -> Option<&mut dyn Write> {
        Some(self.out)
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A time in RFC 3339 form, to the microsecond, in `tz`.
fn rfc3339(t: Tv, tz: &cli_common::TimeZone) -> String {
    let ts = t.timestamp();
    match jiff::Timestamp::new(ts.sec, ts.nsec as i32) {
        Ok(j) => j
            .to_zoned(tz.clone())
            .strftime("%Y-%m-%dT%H:%M:%S%.6f%:z")
            .to_string(),
        Err(_) => String::new(),
    }
}

/// The statistic columns asked for, by name, with their values in `r`.
fn columns(o: &Opts, r: &Row, tz: &cli_common::TimeZone) -> Vec<(&'static str, Field)> {
    let Some(f) = &r.figures else {
        return Vec::new();
    };
    let values = [
        Field::Num(f.stocave),
        Field::Num(f.timeave),
        Field::Num(f.sum),
        Field::Num(f.min),
        Field::Text(rfc3339(f.mintime, tz)),
        Field::Num(f.max),
        Field::Text(rfc3339(f.maxtime, tz)),
        Field::Count(f.count),
    ];
    o.cols
        .named()
        .into_iter()
        .zip(values)
        .filter(|((on, _), _)| *on)
        .map(|((_, n), v)| (n, v))
        .collect()
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum Field {
    Num(f64),
    Count(u32),
    Text(String),
}

impl Field {
    fn text(&self) -> String {
        match self {
            Field::Num(x) => x.to_string(),
            Field::Count(n) => n.to_string(),
            Field::Text(t) => t.clone(),
        }
    }
}

fn csv_header(o: &Opts) -> Vec<String> {
    let mut h = vec!["metric".to_string(), "instance".to_string()];
    let named = o.cols.named();
    h.extend(
        named
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n.to_string()),
    );
    for j in 1..=o.nbins {
        h.push(format!("bin{j}_upper"));
        h.push(format!("bin{j}_count"));
    }
    h.extend(["units".to_string(), "note".to_string()]);
    h
}

fn instance_text(i: &InstName) -> String {
    match i {
        InstName::Single => String::new(),
        InstName::Named(n) => n.clone(),
        InstName::Number(n) => n.to_string(),
    }
}

/// What PCP marks on a row: too little data, or a counter over a tenth of the
/// window or less.
fn note(r: &Row) -> &'static str {
    match (&r.figures, r.partial) {
        (None, _) => "insufficient archive data",
        (Some(_), true) => "partial",
        _ => "",
    }
}

struct CsvSink<'a> {
    o: &'a Opts,
    tz: &'a cli_common::TimeZone,
    csv: csv::Writer<&'a mut dyn Write>,
}

impl Sink for CsvSink<'_> {
    fn row(&mut self, r: &Row) -> io::Result<()> {
        let mut rec = vec![r.metric.clone(), instance_text(&r.inst)];
        let cols = columns(self.o, r, self.tz);
        let stats = self.o.cols.named().iter().filter(|(on, _)| *on).count();
        match cols.is_empty() {
            true => rec.extend(std::iter::repeat_n(String::new(), stats)),
            false => rec.extend(cols.iter().map(|(_, v)| v.text())),
        }
        for j in 0..self.o.nbins as usize {
            let b = r.figures.as_ref().and_then(|f| f.bins.get(j));
            rec.push(
                b.and_then(|b| b.upper)
                    .map(|u| u.to_string())
                    .unwrap_or_default(),
            );
            rec.push(b.map(|b| b.count.to_string()).unwrap_or_default());
        }
        rec.extend([r.units.clone(), note(r).to_string()]);
        self.csv.write_record(&rec).map_err(io::Error::from)
    }
    fn text_out(&mut self) -> Option<&mut dyn Write> {
        None
    }
    fn finish(&mut self) -> io::Result<()> {
        self.csv.flush()
    }
}

#[derive(Serialize)]
struct JsonBin {
    upper: Option<f64>,
    count: u32,
}

struct JsonSink<'a> {
    o: &'a Opts,
    tz: &'a cli_common::TimeZone,
    out: &'a mut dyn Write,
}

impl Sink for JsonSink<'_> {
    fn row(&mut self, r: &Row) -> io::Result<()> {
        let mut m = serde_json::Map::new();
        m.insert("metric".into(), r.metric.clone().into());
        m.insert(
            "instance".into(),
            match &r.inst {
                InstName::Single => serde_json::Value::Null,
                InstName::Named(n) => n.clone().into(),
                InstName::Number(n) => (*n).into(),
            },
        );
        for (name, v) in columns(self.o, r, self.tz) {
            m.insert(name.into(), serde_json::to_value(v)?);
        }
        if let Some(f) = r.figures.as_ref().filter(|f| !f.bins.is_empty()) {
            let bins: Vec<JsonBin> = f
                .bins
                .iter()
                .map(|b| JsonBin {
                    upper: b.upper,
                    count: b.count,
                })
                .collect();
            m.insert("bins".into(), serde_json::to_value(bins)?);
        }
        m.insert("units".into(), r.units.clone().into());
        if !note(r).is_empty() {
            m.insert("note".into(), note(r).into());
        }
        serde_json::to_writer(&mut *self.out, &m)?;
        self.out.write_all(b"\n")
    }
    fn text_out(&mut self) -> Option<&mut dyn Write> {
        None
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}
