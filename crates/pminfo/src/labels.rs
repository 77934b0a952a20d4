//! Labels and series identifiers, as pminfo finds and prints them: the label
//! sets in force at the context's time, kept as pminfo keeps them (the last
//! domain's, instance domain's, cluster's and item's, and the context's from
//! its first lookup), merged with `pmMergeLabelSets`, and the SHA-1 series
//! identifiers computed from them.

use super::store::Store;
use super::Pminfo;
use archive_format::codec::meta::{label_type as lt, LabelSet};
use archive_format::labels::merge;
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp};
use sha1::{Digest, Sha1};
use std::io::{self, Write};

/// The last lookup of one kind: its key and what it found.
type Last<K> = Option<(K, Option<LabelSet>)>;

/// An instance domain's instances (`None` where pmGetInDom failed).
type Instances = Option<Vec<(i32, String)>>;

/// pminfo's caches of instance names and label sets.
#[derive(Default)]
pub(crate) struct Caches {
    /// The last instance domain's instances (`None`: pmGetInDom failed).
    names: Option<(InDom, Instances)>,
    /// The last instance domain's per-instance label sets.
    inst_labels: Option<(InDom, Vec<LabelSet>)>,
    context: Option<Option<LabelSet>>,
    domain: Last<u32>,
    indom: Last<InDom>,
    cluster: Last<(u32, u32)>,
    item: Last<PmId>,
}

/// A cached lookup: the last key's answer, or a new one.
fn cached<K: PartialEq + Copy>(
    slot: &mut Last<K>,
    key: K,
    find: impl FnOnce() -> Option<LabelSet>,
) -> Option<LabelSet> {
    match slot {
        Some((k, v)) if *k == key => v.clone(),
        _ => {
            let v = find();
            *slot = Some((key, v.clone()));
            v
        }
    }
}

impl Caches {
    /// The instances of `indom` (pmGetInDom at `t`), kept until another
    /// instance domain is asked for.
    fn instances(&mut self, a: &Store, indom: InDom, t: Timestamp) -> Option<&[(i32, String)]> {
        if self.names.as_ref().is_none_or(|(i, _)| *i != indom) {
            let list = a.instances(indom, t).ok();
            self.names = Some((indom, list));
        }
        self.names.as_ref()?.1.as_deref()
    }

    pub(crate) fn instance_name(
        &mut self,
        a: &Store,
        indom: InDom,
        inst: i32,
        t: Timestamp,
    ) -> Option<String> {
        self.instances(a, indom, t)?
            .iter()
            .find(|(i, _)| *i == inst)
            .map(|(_, n)| n.clone())
    }

    fn context(&mut self, a: &Store, t: Timestamp) -> Option<LabelSet> {
        self.context
            .get_or_insert_with(|| a.context_labels(t))
            .clone()
    }

    fn domain(&mut self, a: &Store, d: u32, t: Timestamp) -> Option<LabelSet> {
        cached(&mut self.domain, d, || a.label_set(lt::DOMAIN, d, t))
    }

    fn indom(&mut self, a: &Store, i: InDom, t: Timestamp) -> Option<LabelSet> {
        cached(&mut self.indom, i, || a.label_set(lt::INDOM, i.0, t))
    }

    fn cluster(&mut self, a: &Store, p: PmId, t: Timestamp) -> Option<LabelSet> {
        // kept by domain and cluster, looked up by the whole PMID (as pminfo does)
        let key = (p.domain(), p.cluster());
        cached(&mut self.cluster, key, || a.label_set(lt::CLUSTER, p.0, t))
    }

    fn item(&mut self, a: &Store, p: PmId, t: Timestamp) -> Option<LabelSet> {
        cached(&mut self.item, p, || a.label_set(lt::ITEM, p.0, t))
    }

    /// The per-instance label sets of `indom` (pmGetInstancesLabels).
    fn instance_sets(&mut self, a: &Store, indom: InDom, t: Timestamp) -> &[LabelSet] {
        if self.inst_labels.as_ref().is_none_or(|(i, _)| *i != indom) {
            let sets = a.instance_sets(indom, t);
            self.inst_labels = Some((indom, sets));
        }
        self.inst_labels.as_ref().map_or(&[], |(_, s)| s)
    }
}

/// A SHA-1 digest in hexadecimal.
/// (Names keep their raw bytes: the digest is of the bytes libpcp has.)
fn sha1_hex(parts: &[&str]) -> String {
    let mut h = Sha1::new();
    for p in parts {
        h.update(archive_format::text::to_bytes(p));
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The sets above one instance: context, domain, instance domain (and for
/// labels, cluster and item).
type Sets = Vec<Option<LabelSet>>;

/// `sets`, then an instance's own set, merged (pmMergeLabelSets).
fn merged(sets: &[Option<LabelSet>], own: Option<&LabelSet>, intrinsic: bool) -> Option<String> {
    let mut refs: Vec<Option<&LabelSet>> = sets.iter().map(Option::as_ref).collect();
    refs.push(own);
    merge(&refs, intrinsic)
}

impl Pminfo<'_> {
    /// The sets above a metric's values: context, `domain`'s, the instance
    /// domain's (where it has one, or `with_null_indom`), cluster and item.
    fn metric_sets(&mut self, d: &Desc, t: Timestamp, domain: u32, with_null_indom: bool) -> Sets {
        let a = &self.store;
        let c = &mut self.caches;
        let mut v = vec![c.context(a, t), c.domain(a, domain, t)];
        if with_null_indom || !d.indom.is_null() {
            v.push(c.indom(a, d.indom, t));
        }
        v.push(c.cluster(a, d.pmid, t));
        v.push(c.item(a, d.pmid, t));
        v
    }

    /// The sets above an instance domain: context, its domain, itself.
    fn indom_sets(&mut self, indom: InDom, t: Timestamp) -> Sets {
        let (a, c) = (&self.store, &mut self.caches);
        let context = c.context(a, t);
        let domain = c.domain(a, indom.domain(), t);
        vec![context, domain, c.indom(a, indom, t)]
    }

    /// The metric's merged labels as JSON (`null` for none).
    pub(crate) fn metric_labels_json(&mut self, d: &Desc, t: Timestamp) -> serde_json::Value {
        let sets = self.metric_sets(d, t, d.pmid.domain(), false);
        merged(&sets, None, false)
            .and_then(|j| serde_json::from_str(&j).ok())
            .unwrap_or(serde_json::Value::Null)
    }

    /// `-l`: the metric's merged labels.
    pub(crate) fn metric_labels(
        &mut self,
        d: &Desc,
        t: Timestamp,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let sets = self.metric_sets(d, t, d.pmid.domain(), false);
        match merged(&sets, None, false) {
            Some(json) => writeln!(out, "    labels {json}"),
            None => Ok(()),
        }
    }

    /// `-l`: an instance domain's merged labels (context, domain, itself).
    pub(crate) fn indom_labels(&mut self, indom: InDom, out: &mut dyn Write) -> io::Result<()> {
        let sets = self.indom_sets(indom, self.store.start());
        match merged(&sets, None, false) {
            Some(json) => writeln!(out, "    labels {json}"),
            None => Ok(()),
        }
    }

    /// Each instance with its own sets: the instance label sets, else the
    /// instances of the domain (`(instance, its set)`).
    fn each_instance(&mut self, indom: InDom, t: Timestamp) -> Vec<(i32, Option<LabelSet>)> {
        let sets = self.caches.instance_sets(&self.store, indom, t).to_vec();
        if !sets.is_empty() {
            return sets.into_iter().map(|s| (s.inst, Some(s))).collect();
        }
        self.caches
            .instances(&self.store, indom, t)
            .map(|l| l.iter().map(|(i, _)| (*i, None)).collect())
            .unwrap_or_default()
    }

    /// `-l`: every instance's merged labels.
    pub(crate) fn instance_labels(
        &mut self,
        d: &Desc,
        t: Timestamp,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if d.indom.is_null() {
            return Ok(());
        }
        // pminfo takes the domain of instance labels from the instance domain
        let base = self.metric_sets(d, t, d.indom.domain(), true);
        for (inst, own) in self.each_instance(d.indom, t) {
            let Some(json) = merged(&base, own.as_ref(), false) else {
                continue;
            };
            let name = self.caches.instance_name(&self.store, d.indom, inst, t);
            let name = name.as_deref().unwrap_or("DISAPPEARED");
            writeln!(out, "    inst [{inst} or \"{name}\"] labels {json}")?;
        }
        Ok(())
    }

    /// `-s`: the source's and the metric's series identifiers.
    pub(crate) fn metric_series(
        &mut self,
        name: &str,
        d: &Desc,
        t: Timestamp,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let context = self.caches.context(&self.store, t);
        if let Some(json) = merge(&[context.as_ref()], true) {
            let id = sha1_hex(&["{\"series\":\"source\",\"labels\":", &json, "}"]);
            writeln!(out, "    Source: {id}")?;
        }
        let sets = self.metric_sets(d, t, d.pmid.domain(), true);
        if let Some(json) = merged(&sets, None, true) {
            let text = format!(
                "{{\"series\":\"metric\",\"name\":\"{name}\",\"labels\":{json},\"semantics\":\"{}\",\"type\":\"{}\",\"units\":\"{}\"}}",
                sem::name(d.sem).unwrap_or("???"),
                vtype::short_name(d.vtype),
                d.units
            );
            writeln!(out, "    Series: {}", sha1_hex(&[&text]))?;
        }
        Ok(())
    }

    /// `-s`: every instance's series identifier.
    pub(crate) fn instance_series(
        &mut self,
        indom: InDom,
        t: Timestamp,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if indom.is_null() {
            return Ok(());
        }
        let base = self.indom_sets(indom, t);
        for (inst, own) in self.each_instance(indom, t) {
            let Some(json) = merged(&base, own.as_ref(), false) else {
                continue;
            };
            let name = self.caches.instance_name(&self.store, indom, inst, t);
            let text = format!(
                "{{\"series\":\"instance\",\"name\":\"{}\",\"labels\":{json}}}",
                name.as_deref().unwrap_or("???")
            );
            writeln!(
                out,
                "    inst [{inst} or \"{}\"] series {}",
                name.as_deref().unwrap_or("DISAPPEARED"),
                sha1_hex(&[&text])
            )?;
        }
        Ok(())
    }
}
