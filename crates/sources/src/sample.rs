//! A deterministic metric source: every value type, a changing instance domain, help
//! text and event records of both resolutions, with the sample agent's names and
//! PMIDs (domain 29). Values depend only on the fetch count, so two recordings of the
//! same configuration hold the same values.

use crate::vs;
use crate::{label, now, Metric, MetricSource, SourceError};
use archive_format::codec::event::EventArrayBuilder;
use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_DPTR};
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp, Units};

pub const COLOUR_INDOM: InDom = InDom((29 << 22) | 1);
pub const BIN_INDOM: InDom = InDom((29 << 22) | 2);
pub const EVENT_INDOM: InDom = InDom((29 << 22) | 10);

const fn pmid(item: u32) -> PmId {
    PmId((29 << 22) | item)
}

const EVENT_TYPE: PmId = pmid(127);
const EVENT_STRING: PmId = pmid(134);

fn metric(
    name: &'static str,
    item: u32,
    ty: i32,
    indom: InDom,
    sm: i32,
    units: Units,
    help: &'static str,
) -> Metric {
    Metric {
        name,
        desc: Desc {
            pmid: pmid(item),
            vtype: ty,
            indom,
            sem: sm,
            units,
        },
        help,
    }
}

/// The metrics: name, item, type, instance domain, semantics, units and help text.
#[rustfmt::skip]
const METRICS: &[(&str, u32, i32, InDom, i32, Units, &str)] = &[
    ("sample.seconds", 2, vtype::U32, InDom::NULL, sem::COUNTER, Units(0x0100_3000), "elapsed time (seconds)"),
    ("sample.colour", 5, vtype::I32, COLOUR_INDOM, sem::INSTANT, Units(0), "Metrics with a \"saw-tooth\" trend over time"),
    ("sample.bin", 6, vtype::I32, BIN_INDOM, sem::INSTANT, Units(0), "Several constant instances, some come and go"),
    ("sample.long.one", 10, vtype::I32, InDom::NULL, sem::INSTANT, Units(0), "1 as a 32-bit integer"),
    ("sample.float.million", 18, vtype::FLOAT, InDom::NULL, sem::INSTANT, Units(0), "1000000 as a float"),
    ("sample.longlong.million", 23, vtype::I64, InDom::NULL, sem::INSTANT, Units(0), "1000000 as a 64-bit integer"),
    ("sample.double.million", 28, vtype::DOUBLE, InDom::NULL, sem::INSTANT, Units(0), "1000000 as a double"),
    ("sample.string.hullo", 31, vtype::STRING, InDom::NULL, sem::DISCRETE, Units(0), "K&R have a lot to answer for"),
    ("sample.aggregate.hullo", 34, vtype::AGGREGATE, InDom::NULL, sem::INSTANT, Units(0), "aggregate value"),
    ("sample.ulong.million", 96, vtype::U32, InDom::NULL, sem::INSTANT, Units(0), "1000000 as a 32-bit unsigned integer"),
    ("sample.ulonglong.million", 101, vtype::U64, InDom::NULL, sem::INSTANT, Units(0), "1000000 as a 64-bit unsigned integer"),
    ("sample.event.type", 127, vtype::I32, InDom::NULL, sem::INSTANT, Units(0), "event type parameter"),
    ("sample.event.param_string", 134, vtype::STRING, InDom::NULL, sem::INSTANT, Units(0), "string event parameter"),
    ("sample.event.records", 136, vtype::EVENT, EVENT_INDOM, sem::INSTANT, Units(0), "dummy event records"),
    ("sample.event.highres_records", 139, vtype::HIGHRES_EVENT, EVENT_INDOM, sem::INSTANT, Units(0), "dummy high resolution event records"),
];

/// The sample source.
pub struct Sample {
    metrics: Vec<Metric>,
    /// Fetches so far.
    n: u64,
    host: String,
}

impl Default for Sample {
    fn default() -> Self {
        Sample::new()
    }
}

impl Sample {
    pub fn new() -> Sample {
        let metrics = METRICS
            .iter()
            .map(|&(name, item, ty, indom, sm, units, help)| {
                metric(name, item, ty, indom, sm, units, help)
            })
            .collect();
        Sample {
            metrics,
            n: 0,
            host: "sample".into(),
        }
    }

    fn bins(&self) -> Vec<(i32, String)> {
        // nine bins, one of them missing in turn: the instance domain changes
        let gone = (self.n % 9) as i32;
        (1..=9)
            .filter(|k| *k != gone + 1)
            .map(|k| (k * 100, format!("bin-{}", k * 100)))
            .collect()
    }

    fn events(&self, highres: bool, stamp: Timestamp, inst: i32) -> OwnedValue {
        let mut b = EventArrayBuilder::new(highres);
        let k = (self.n % 3) as i32 + 1;
        for r in 0..k {
            let t = Timestamp::new(stamp.sec - (k - r) as i64, stamp.nsec);
            b.add_record(t, 1);
            b.add_param(EVENT_TYPE, vtype::I32 as u8, &(r + inst).to_be_bytes());
            if r == 0 {
                let s = format!("fetch #{}", self.n);
                let mut bytes = s.into_bytes();
                bytes.push(0);
                b.add_param(EVENT_STRING, vtype::STRING as u8, &bytes);
            }
        }
        if self.n % 4 == 3 {
            b.add_missed(stamp, 2);
        }
        OwnedValue::Block {
            vtype: if highres {
                vtype::HIGHRES_EVENT
            } else {
                vtype::EVENT
            } as u8,
            data: b.finish().into(),
        }
    }
}

impl MetricSource for Sample {
    fn name(&self) -> &'static str {
        "@sample"
    }
    fn hostname(&self) -> String {
        self.host.clone()
    }
    fn timezone(&self) -> (String, String) {
        ("UTC".into(), ":Etc/UTC".into())
    }
    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }
    fn instances(&mut self, indom: InDom) -> Vec<(i32, String)> {
        match indom {
            COLOUR_INDOM => vec![(0, "red".into()), (1, "green".into()), (2, "blue".into())],
            BIN_INDOM => self.bins(),
            EVENT_INDOM => vec![(0, "fungus".into()), (1, "bogus".into())],
            _ => Vec::new(),
        }
    }
    fn long_help(&self, pmid: PmId) -> &'static str {
        match pmid.0 & 0x3ff {
            2 => "Seconds since the source was created; a counter that grows by one\nfor every second of recording.",
            5 => "Three instances (red, green, blue) whose values climb by one per\nfetch and fall back every hundred fetches.",
            6 => "Up to nine instances, bin-100 to bin-900, whose value is the bin\nnumber. Some bins come and go between fetches, so the instance\ndomain changes over an archive.",
            10 => "The constant 1, stored as a signed 32-bit integer.",
            18 => "The constant 1000000, stored as a 32-bit float.",
            23 => "The constant 1000000, stored as a signed 64-bit integer.",
            _ => "A value of this type as the sample source keeps it; see the one-line\nhelp for what it holds.",
        }
    }
    fn indom_help(&self, indom: InDom) -> Option<(&'static str, &'static str)> {
        match indom {
            COLOUR_INDOM => Some((
                "Instance domain \"colour\" of the sample source",
                "Three instances: red, green and blue.",
            )),
            BIN_INDOM => Some((
                "Instance domain \"bin\" of the sample source",
                "Instances numbered 100 to 900 in steps of 100, named bin-N;\nsome are absent from time to time.",
            )),
            EVENT_INDOM => Some((
                "Instance domain of the event-record metrics",
                "Two streams of event records: fungus and bogus.",
            )),
            _ => None,
        }
    }
    fn labels(&mut self, ltype: u8, ident: u32) -> Vec<LabelSet> {
        let one = |ltype: u8, labels: &[(&str, &str, bool)]| {
            LabelSet::from_labels(-1, ltype, labels)
                .into_iter()
                .collect()
        };
        match (ltype, ident) {
            (label::CONTEXT, _) => crate::context_labels(&self.hostname())
                .into_iter()
                .collect(),
            (label::DOMAIN, 29) => one(
                ltype,
                &[
                    ("agent", "\"sample\"", false),
                    ("role", "\"testing\"", false),
                ],
            ),
            (label::CLUSTER, c) if c == pmid(0).0 => one(ltype, &[("cluster", "\"zero\"", false)]),
            (label::INDOM, i) if i == COLOUR_INDOM.0 => one(ltype, &[("model", "\"RGB\"", false)]),
            (label::INSTANCES, i) => {
                let indom = InDom(i);
                self.instances(indom)
                    .into_iter()
                    .filter_map(|(inst, _)| {
                        let value = inst.to_string();
                        let labels: &[(&str, &str, bool)] = if indom == BIN_INDOM {
                            &[("bin", value.as_str(), false)]
                        } else {
                            &[]
                        };
                        LabelSet::from_labels(inst, ltype, labels)
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }
    fn fetch(&mut self, pmids: &[PmId]) -> Result<(Timestamp, Vec<OwnedValueSet>), SourceError> {
        let stamp = now();
        let n = self.n;
        let mut out = Vec::with_capacity(pmids.len());
        for &p in pmids {
            let set = match p.0 & 0x3ff {
                2 => vs::u32(p, n as u32),
                5 => vs::u32s(
                    p,
                    (0..3).map(|i| (i, (100 * (i + 1) + (n % 100) as i32) as u32)),
                ),
                6 => vs::u32s(p, self.bins().into_iter().map(|(i, _)| (i, i as u32))),
                10 => vs::u32(p, 1),
                18 => vs::f32s(p, [(-1, 1e6)]),
                23 => vs::block(p, vtype::I64, &1_000_000i64.to_be_bytes()),
                28 => vs::f64s(p, [(-1, 1e6)]),
                31 => vs::strings(p, [(-1, "hullo world!")]),
                34 => vs::block(p, vtype::AGGREGATE, b"hullo world!"),
                96 => vs::u32(p, 1_000_000),
                101 => vs::u64(p, 1_000_000),
                136 | 139 => OwnedValueSet {
                    pmid: p,
                    numval: 2,
                    valfmt: VAL_DPTR,
                    values: (0..2)
                        .map(|i| (i, self.events(p.0 & 0x3ff == 139, stamp, i)))
                        .collect(),
                },
                _ => vs::none(p),
            };
            out.push(set);
        }
        self.n += 1;
        Ok((stamp, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_every_kind() {
        let mut s = Sample::new();
        let ctx = s.labels(label::CONTEXT, u32::MAX);
        assert_eq!(ctx.len(), 1);
        assert!(
            ctx[0].json.contains(r#""hostname":"sample""#),
            "{}",
            ctx[0].json
        );
        let dom = s.labels(label::DOMAIN, 29);
        assert_eq!(dom[0].json, r#"{"agent":"sample","role":"testing"}"#);
        assert!(s.labels(label::DOMAIN, 60).is_empty());
        let bins = s.labels(label::INSTANCES, BIN_INDOM.0);
        let want: Vec<(i32, String)> = s
            .instances(BIN_INDOM)
            .into_iter()
            .map(|(i, _)| (i, format!(r#"{{"bin":{i}}}"#)))
            .collect();
        let got: Vec<(i32, String)> = bins.into_iter().map(|b| (b.inst, b.json)).collect();
        assert_eq!(got, want);
        let colours = s.labels(label::INSTANCES, COLOUR_INDOM.0);
        assert_eq!(colours.len(), 3);
        assert!(colours.iter().all(|c| c.nlabels == 0 && c.json.is_empty()));
        assert!(s.indom_help(BIN_INDOM).is_some());
        assert!(!s.long_help(pmid(6)).is_empty());
    }
}
