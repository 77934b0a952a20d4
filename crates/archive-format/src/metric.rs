//! What a Rust program reaches for first, without knowing libpcp: a metric by name
//! ([`Archive::metric`]), its instances' names, and its values as typed samples at
//! a regular step over a window ([`Metric::samples`], interpolated as `pmFetch` does
//! in `PM_MODE_INTERP`, counters included as their raw values).

use std::sync::Arc;

use crate::atom::{extract, Atom};
use crate::codec::result::OwnedValue;
use crate::pmns::Lookup;
use crate::replay::{Delta, Mode, Replay};
use crate::{Archive, Desc, Result, Timestamp};

/// A metric of an open archive.
#[derive(Debug, Clone)]
pub struct Metric<'a> {
    archive: &'a Archive,
    pub name: String,
    pub desc: Desc,
}

/// One sample of a metric: its time, and each instance's value (instance `-1` for
/// a singular metric).
#[derive(Debug, Clone)]
pub struct Sample {
    pub stamp: Timestamp,
    vtype: i32,
    values: Vec<(i32, OwnedValue)>,
}

impl Sample {
    /// Each instance and its value as its type (numbers, strings, aggregates).
    pub fn values(&self) -> impl Iterator<Item = (i32, Atom<'_>)> + '_ {
        self.values
            .iter()
            .filter_map(|(inst, v)| Some((*inst, extract(self.vtype, &v.as_value())?)))
    }

    /// The value of instance `inst`, as its type.
    pub fn value(&self, inst: i32) -> Option<Atom<'_>> {
        self.values().find(|(i, _)| *i == inst).map(|(_, v)| v)
    }

    /// Each instance's value as a double (numeric metrics).
    pub fn f64s(&self) -> impl Iterator<Item = (i32, f64)> + '_ {
        self.values().filter_map(|(i, v)| Some((i, v.as_f64()?)))
    }
}

impl Archive {
    /// The metric named `name` (a leaf of the archive's namespace), `None` when the
    /// archive has no such metric or no descriptor for it.
    pub fn metric(&self, name: &str) -> Option<Metric<'_>> {
        let Lookup::Leaf(pmid) = self.metadata().pmns.lookup(name) else {
            return None;
        };
        Some(Metric {
            archive: self,
            name: name.to_string(),
            desc: *self.metadata().desc(pmid)?,
        })
    }
}

impl<'a> Metric<'a> {
    /// The name of instance `inst` in the instance domain in force at `t` (or the
    /// first one, before it), `None` for a singular metric or an unknown instance.
    pub fn instance_name(&self, inst: i32, t: Timestamp) -> Option<Arc<str>> {
        let snap = self.archive.metadata().indom_at(self.desc.indom, t)?;
        snap.instances.find(inst).map(|(_, name)| name.clone())
    }

    /// Samples every `step` from `start` (the archive's start when `None`) to the
    /// archive's end, interpolated as libpcp's `pmFetch` does.
    pub fn samples(&self, start: Option<Timestamp>, step: Delta) -> Samples<'a> {
        let mut replay = Replay::new(self.archive);
        let from = start.unwrap_or(self.archive.label().start);
        replay.set_mode(Mode::Interp, Some(from), step);
        Samples {
            replay,
            desc: self.desc,
            done: false,
        }
    }
}

/// The samples of one metric; see [`Metric::samples`].
pub struct Samples<'a> {
    replay: Replay<'a>,
    desc: Desc,
    done: bool,
}

impl Iterator for Samples<'_> {
    type Item = Result<Sample>;

    fn next(&mut self) -> Option<Result<Sample>> {
        if self.done {
            return None;
        }
        let fetched = match self.replay.fetch(&[self.desc.pmid]) {
            Ok(f) => f,
            Err(e) => {
                self.done = true;
                // the end of the archive ends the samples; anything else is an error
                return (e.pm_err() != crate::error::PM_ERR_EOL).then_some(Err(e));
            }
        };
        let values = fetched
            .sets
            .into_iter()
            .next()
            .map(|set| set.values)
            .unwrap_or_default();
        Some(Ok(Sample {
            stamp: fetched.stamp,
            vtype: self.desc.vtype,
            values,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_v3() -> Archive {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/archives/sample_v3"
        );
        Archive::open(path).expect("the committed test archive")
    }

    #[test]
    fn a_metric_by_name_and_its_samples() {
        let a = sample_v3();
        assert!(a.metric("no.such.metric").is_none());
        assert!(a.metric("sample").is_none(), "a non-leaf is not a metric");
        let m = a
            .metric("sample.long.one")
            .expect("sample.long.one is recorded");
        assert_eq!(m.name, "sample.long.one");
        let samples: Vec<Sample> = m
            .samples(None, Delta::from_millis(100))
            .collect::<Result<_>>()
            .expect("samples");
        assert!(samples.len() > 1, "{} samples", samples.len());
        assert!(samples.windows(2).all(|w| w[1].stamp > w[0].stamp));
        let values: Vec<f64> = samples
            .iter()
            .filter_map(|s| s.value(-1)?.as_f64())
            .collect();
        assert!(!values.is_empty());
        assert!(
            values.iter().all(|v| *v == 1.0),
            "sample.long.one is 1: {values:?}"
        );
    }

    #[test]
    fn instance_names_of_a_domain() {
        let a = sample_v3();
        let m = a
            .metric("sample.colour")
            .expect("sample.colour is recorded");
        let start = a.label().start;
        assert_eq!(m.instance_name(0, start).as_deref(), Some("red"));
        assert_eq!(m.instance_name(1234, start), None);
    }
}
