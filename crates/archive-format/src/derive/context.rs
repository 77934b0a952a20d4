//! Derived metrics in a context, as libpcp gives them to every reader: their
//! names in the context's namespace beside the archive's (children, traversal,
//! lookups by name and PMID: domain 511, numbered in registration order), and a
//! derived metric bound to the archive's metrics and fetched through a
//! [`Replay`].
//!
//! libpcp binds a derived metric once, when it is first asked for; one that
//! fails to bind leaves the namespace's later listings ([`Context::failed`]).

use super::check::{check, Kind, Part, Unavailable};
use super::config::Registry;
use super::eval::{num_of, Evaluator, Operands, Values};
use super::value::Num;
use crate::atom::extract;
use crate::codec::result::{BlockData, OwnedValue, OwnedValueSet, VAL_DPTR, VAL_INSITU};
use crate::metadata::Metadata;
use crate::pmns::Lookup;
use crate::replay::{FetchResult, Replay};
use crate::types::{vtype, Desc, InDom, PmId, Timestamp};

/// libpcp's domain for derived metrics.
pub const DERIVED_DOMAIN: u32 = 511;

/// The PMID of the `k`th registered derived metric.
pub fn pmid_of(k: usize) -> PmId {
    PmId::new(DERIVED_DOMAIN, 0, k as u32 + 1)
}

/// A context's namespace: the archive's names and the registry's.
pub struct Context<'a> {
    pub meta: &'a Metadata,
    pub registry: &'a Registry,
    /// Each derived metric's binding, once made (libpcp's `DM_BIND`).
    bound: Vec<Option<Result<Bound, Unavailable>>>,
    /// Semantic errors of bindings not yet taken by [`Context::take_said`].
    said: Vec<String>,
}

/// What a name's children are (libpcp's `pmGetChildren`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Children {
    /// A metric.
    Leaf,
    /// The names below, each with whether it is a leaf.
    Node(Vec<(String, bool)>),
    /// Not in the namespace.
    Unknown,
}

impl<'a> Context<'a> {
    pub fn new(meta: &'a Metadata, registry: &'a Registry) -> Context<'a> {
        Context {
            meta,
            registry,
            bound: vec![None; registry.metrics.len()],
            said: Vec::new(),
        }
    }

    /// The PMID of `name`: the archive's metric, else the derived one.
    pub fn lookup(&self, name: &str) -> Option<PmId> {
        match self.meta.pmns.lookup(name) {
            Lookup::Leaf(p) => Some(p),
            _ => self.derived_index(name).map(pmid_of),
        }
    }

    /// The index of the derived metric `name` in the registry.
    pub fn derived_index(&self, name: &str) -> Option<usize> {
        self.registry.metrics.iter().position(|d| d.name == name)
    }

    /// The registry's index of a derived PMID.
    pub fn derived_of(&self, pmid: PmId) -> Option<usize> {
        if pmid.domain() != DERIVED_DOMAIN || pmid.cluster() != 0 || pmid.item() == 0 {
            return None;
        }
        let k = pmid.item() as usize - 1;
        (k < self.registry.metrics.len()).then_some(k)
    }

    /// The names of `pmid` (pmNameAll): the archive's, else the derived name.
    pub fn names(&self, pmid: PmId) -> Vec<String> {
        let names = self.meta.pmns.names(pmid);
        if !names.is_empty() {
            return names.to_vec();
        }
        self.derived_of(pmid)
            .map(|k| vec![self.registry.metrics[k].name.clone()])
            .unwrap_or_default()
    }

    /// Whether the derived metric `k` was bound and failed.
    pub fn failed(&self, k: usize) -> bool {
        matches!(self.bound.get(k), Some(Some(Err(_))))
    }

    /// The children of `name` (the archive's first, then the derived names not
    /// among them, in registration order), as libpcp's `pmGetChildrenStatus`.
    pub fn children(&self, name: &str) -> Children {
        let archive: Option<Vec<(String, bool)>> = self
            .meta
            .pmns
            .children(name)
            .map(|v| v.into_iter().map(|(n, l)| (n.to_string(), l)).collect());
        match (archive, self.derived_children(name)) {
            (a, Some(d)) if !d.is_empty() => {
                let mut out = a.unwrap_or_default();
                for (n, l) in d {
                    if !out.iter().any(|(o, _)| *o == n) {
                        out.push((n, l));
                    }
                }
                Children::Node(out)
            }
            (Some(a), _) if !a.is_empty() => Children::Node(a),
            (Some(_), _) | (None, Some(_)) => Children::Leaf,
            (None, None) => Children::Unknown,
        }
    }

    /// libpcp's `__dmchildren`: the next components of the derived names below
    /// `name` (`Some(empty)` where `name` is one), skipping those that failed
    /// to bind; `None` where no derived name is at or below it.
    fn derived_children(&self, name: &str) -> Option<Vec<(String, bool)>> {
        let mut out: Vec<(String, bool)> = Vec::new();
        for (k, d) in self.registry.metrics.iter().enumerate() {
            let rest = if name.is_empty() {
                Some(d.name.as_str())
            } else {
                d.name.strip_prefix(name).and_then(|r| {
                    if r.is_empty() {
                        Some(r)
                    } else {
                        r.strip_prefix('.')
                    }
                })
            };
            let Some(rest) = rest else { continue };
            if !d.anon && self.failed(k) {
                continue;
            }
            if rest.is_empty() {
                return Some(Vec::new());
            }
            let (next, leaf) = match rest.split_once('.') {
                Some((n, _)) => (n, false),
                None => (rest, true),
            };
            if !out.iter().any(|(o, _)| o == next) {
                out.push((next.to_string(), leaf));
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Every metric name at or below `name`, in `pmTraversePMNS` order; `None`
    /// where `name` is not in the namespace.
    pub fn traverse(&self, name: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        self.walk(name, &mut out)?;
        Some(out)
    }

    fn walk(&self, name: &str, out: &mut Vec<String>) -> Option<()> {
        match self.children(name) {
            Children::Unknown => None,
            Children::Leaf => {
                out.push(name.to_string());
                Some(())
            }
            Children::Node(kids) => {
                for (kid, _) in kids {
                    let full = if name.is_empty() {
                        kid
                    } else {
                        format!("{name}.{kid}")
                    };
                    self.walk(&full, out)?;
                }
                Some(())
            }
        }
    }

    /// The derived metric `k` bound to the archive's metrics and checked
    /// (libpcp's `__dmbind`), once: later calls get the same binding, with its
    /// evaluation not yet started. A failure is remembered, and the namespace's
    /// later listings leave the metric out.
    pub fn bind(&mut self, k: usize) -> Result<Bound, Unavailable> {
        let meta = self.meta;
        self.bind_with(k, &mut |n: &str| match meta.pmns.lookup(n) {
            Lookup::Leaf(p) => meta.desc(p).copied(),
            _ => None,
        })
    }

    /// [`Context::bind`] to the metrics `find` knows ([`bind_by`]): a pmcd's.
    pub fn bind_with(
        &mut self,
        k: usize,
        find: &mut dyn FnMut(&str) -> Option<Desc>,
    ) -> Result<Bound, Unavailable> {
        if let Some(b) = &self.bound[k] {
            return b.clone();
        }
        let b = bind_by(self.registry, k, find);
        if let Err(Unavailable::Semantics(msg)) = &b {
            self.said.push(msg.clone());
        }
        self.bound[k] = Some(b.clone());
        b
    }

    /// The semantic errors met binding since last asked: libpcp says each on
    /// standard error when it first binds the metric, for the caller to say.
    pub fn take_said(&mut self) -> Vec<String> {
        std::mem::take(&mut self.said)
    }
}

/// The derived metric `k` of `r` bound to the metrics of `m` and checked: its
/// descriptor (with its PMID), its evaluator and its operands.
pub fn bind(r: &Registry, k: usize, m: &Metadata) -> Result<Bound, Unavailable> {
    bind_by(r, k, &mut |n: &str| match m.pmns.lookup(n) {
        Lookup::Leaf(p) => m.desc(p).copied(),
        _ => None,
    })
}

/// The derived metric `k` of `r` bound to the metrics `find` knows (a name's
/// descriptor, its PMID in it; `None` where the name is unknown): for a
/// context that is not an archive, a pmcd's.
pub fn bind_by(
    r: &Registry,
    k: usize,
    find: &mut dyn FnMut(&str) -> Option<Desc>,
) -> Result<Bound, Unavailable> {
    let d = &r.metrics[k];
    let part = {
        let cell = std::cell::RefCell::new(&mut *find);
        let desc_of = |n: &str| (cell.borrow_mut())(n);
        check(&d.name, &d.expr, &desc_of)?
    };
    let mut names = Vec::new();
    operand_names(&part, &mut names);
    let operands = names
        .into_iter()
        .filter_map(|n| find(&n).map(|d| (n, d.pmid, d)))
        .collect();
    let desc = Desc {
        pmid: pmid_of(k),
        ..part.desc
    };
    Ok(Bound {
        desc,
        eval: Evaluator::new(part),
        operands,
    })
}

/// The metrics an expression names, each once, in the order they come.
fn operand_names(p: &Part, out: &mut Vec<String>) {
    match &p.kind {
        Kind::Metric(n) if !out.contains(n) => out.push(n.clone()),
        Kind::Binary { left, right, .. } => {
            operand_names(left, out);
            operand_names(right, out);
        }
        Kind::Ternary { guard, yes, no } => {
            operand_names(guard, out);
            operand_names(yes, out);
            operand_names(no, out);
        }
        Kind::Neg(e) | Kind::Not(e) | Kind::Scalar(e) => operand_names(e, out),
        Kind::Filter { expr, .. } | Kind::Rescale { expr, .. } => operand_names(expr, out),
        Kind::Func { metric, .. } => operand_names(metric, out),
        _ => {}
    }
}

/// A derived metric bound to an archive: its descriptor, its evaluation, and
/// the archive's metrics it is computed from (name, PMID, descriptor).
#[derive(Debug, Clone)]
pub struct Bound {
    pub desc: Desc,
    pub eval: Evaluator,
    pub operands: Vec<(String, PmId, Desc)>,
}

impl Bound {
    /// The PMIDs of the archive's metrics the expression reads.
    pub fn operand_pmids(&self) -> Vec<PmId> {
        self.operands.iter().map(|(_, p, _)| *p).collect()
    }

    /// One fetch of the derived metric in the replay's mode: its operands
    /// fetched, and its values computed, as one value set of its PMID.
    pub fn fetch(&mut self, r: &mut Replay<'_>) -> crate::Result<FetchResult> {
        let pmids = self.operand_pmids();
        // an expression of constants alone still moves the replay on: a record
        // (raw modes), or an interval (interpolation)
        let res = if pmids.is_empty() && r.mode() != crate::replay::Mode::Interp {
            FetchResult {
                stamp: r.fetch_archive()?.stamp,
                sets: Vec::new(),
            }
        } else {
            r.fetch(&pmids)?
        };
        let set = self.evaluate(&res, r.archive().metadata());
        Ok(FetchResult {
            stamp: res.stamp,
            sets: vec![set],
        })
    }

    /// The derived metric's value set computed from `res`, a fetch holding its
    /// operands (and any other metrics), as the next fetch of it would give it:
    /// for a reader that fetches the operands itself with other metrics (one
    /// replay for all), in order.
    pub fn evaluate(&mut self, res: &FetchResult, meta: &Metadata) -> OwnedValueSet {
        self.evaluate_with(res, meta)
    }

    /// [`Bound::evaluate`] with instances named by `insts` (a pmcd's).
    pub fn evaluate_with(&mut self, res: &FetchResult, insts: &dyn InstanceNames) -> OwnedValueSet {
        let ops = Fetched {
            names: &self.operands,
            res,
            insts,
        };
        match self.eval.evaluate(&ops) {
            Ok(vals) => value_set(self.desc.pmid, &vals),
            Err(n) => OwnedValueSet {
                pmid: self.desc.pmid,
                numval: n,
                valfmt: 0,
                values: Vec::new(),
            },
        }
    }
}

/// The values of a derived metric as a value set, as libpcp returns them: 32-bit
/// values in the value word, the others in blocks.
fn value_set(pmid: PmId, vals: &[(i32, Num)]) -> OwnedValueSet {
    let block = |ty: i32, b: &[u8]| OwnedValue::Block {
        vtype: ty as u8,
        data: BlockData::from_slice(b),
    };
    let values: Vec<(i32, OwnedValue)> = vals
        .iter()
        .map(|&(i, v)| {
            let v = match v {
                Num::I32(x) => OwnedValue::Insitu(x as u32),
                Num::U32(x) => OwnedValue::Insitu(x),
                Num::I64(x) => block(vtype::I64, &x.to_be_bytes()),
                Num::U64(x) => block(vtype::U64, &x.to_be_bytes()),
                Num::F32(x) => block(vtype::FLOAT, &x.to_bits().to_be_bytes()),
                Num::F64(x) => block(vtype::DOUBLE, &x.to_bits().to_be_bytes()),
            };
            (i, v)
        })
        .collect();
    let insitu = values
        .iter()
        .all(|(_, v)| matches!(v, OwnedValue::Insitu(_)));
    OwnedValueSet {
        pmid,
        numval: values.len() as i32,
        valfmt: if insitu { VAL_INSITU } else { VAL_DPTR },
        values,
    }
}

/// The instances of a context's instance domains at a time, as a derived
/// metric's filters ask for them.
pub trait InstanceNames {
    /// The instance named `name` in `indom` at `t`.
    fn instance(&self, indom: InDom, name: &str, t: Timestamp) -> Option<i32>;
    /// The name of `inst` in `indom` at `t`.
    fn instance_name(&self, indom: InDom, inst: i32, t: Timestamp) -> Option<String>;
}

impl InstanceNames for Metadata {
    fn instance(&self, indom: InDom, name: &str, t: Timestamp) -> Option<i32> {
        let snap = self.indom_at(indom, t)?;
        snap.instances
            .iter()
            .find(|(_, n)| &**n == name)
            .map(|(i, _)| *i)
    }
    fn instance_name(&self, indom: InDom, inst: i32, t: Timestamp) -> Option<String> {
        let snap = self.indom_at(indom, t)?;
        snap.name_of(inst).map(str::to_string)
    }
}

/// The operands' values of one fetch, as the evaluation asks for them.
struct Fetched<'a> {
    names: &'a [(String, PmId, Desc)],
    res: &'a FetchResult,
    insts: &'a dyn InstanceNames,
}

impl Operands for Fetched<'_> {
    fn values(&self, metric: &str) -> Values {
        let Some((_, pmid, desc)) = self.names.iter().find(|(n, _, _)| n == metric) else {
            return Err(0);
        };
        // the fetch's set of the operand, wherever the fetch has it
        let Some(set) = self.res.sets.iter().find(|s| s.pmid == *pmid) else {
            return Err(0);
        };
        if set.numval <= 0 {
            return Err(set.numval);
        }
        Ok(set
            .values
            .iter()
            .filter_map(|(i, v)| Some((*i, num_of(&extract(desc.vtype, &v.as_value())?)?)))
            .collect())
    }
    fn instance(&self, indom: InDom, name: &str) -> Option<i32> {
        self.insts.instance(indom, name, self.res.stamp)
    }
    fn instance_name(&self, indom: InDom, inst: i32) -> Option<String> {
        self.insts.instance_name(indom, inst, self.res.stamp)
    }
    fn stamp(&self) -> Timestamp {
        self.res.stamp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Archive;

    fn archive() -> Archive {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/archives/sample_v3");
        Archive::open(p.to_str().unwrap()).expect("sample_v3 opens")
    }

    #[test]
    fn derived_names_follow_the_archive_s_and_fail_out_of_listings() {
        let a = archive();
        let mut r = Registry::new();
        r.register("sample.twice", "2 * sample.long.one").unwrap();
        r.register("sample.bad", "no.such.metric + 1").unwrap();
        r.register("zzz.x", "1").unwrap();
        let mut ctx = Context::new(a.metadata(), &r);
        let root = match ctx.children("") {
            Children::Node(k) => k,
            other => panic!("{other:?}"),
        };
        let names: Vec<&str> = root.iter().map(|(n, _)| n.as_str()).collect();
        let sample = names.iter().position(|n| *n == "sample").unwrap();
        assert_eq!(&names[names.len() - 2..], ["event", "zzz"]);
        assert!(sample < names.len() - 2, "{names:?}");
        let all = ctx.traverse("sample").unwrap();
        assert_eq!(&all[all.len() - 2..], ["sample.twice", "sample.bad"]);
        assert_eq!(ctx.lookup("sample.bad"), Some(pmid_of(3)));
        assert!(matches!(ctx.bind(3), Err(Unavailable::Operand(_))));
        let all = ctx.traverse("sample").unwrap();
        assert_eq!(all.last().map(String::as_str), Some("sample.twice"));
        assert_eq!(ctx.children("sample.twice"), Children::Leaf);
        assert_eq!(ctx.children("no.such"), Children::Unknown);
        assert_eq!(ctx.names(pmid_of(2)), vec!["sample.twice".to_string()]);
    }

    #[test]
    fn a_bound_metric_fetches_its_values_from_its_operands() {
        let a = archive();
        let mut r = Registry::new();
        r.register("sample.twice", "2 * sample.long.one").unwrap();
        let mut b = bind(&r, 2, a.metadata()).expect("binds");
        assert_eq!(b.desc.pmid, pmid_of(2));
        let mut rp = Replay::new(&a);
        rp.set_mode(
            crate::replay::Mode::Forw,
            None,
            crate::replay::Delta::from_millis(0),
        );
        let res = b.fetch(&mut rp).expect("a fetch");
        let set = &res.sets[0];
        assert_eq!(set.numval, 1);
        assert_eq!(
            set.values[0].1.as_value(),
            crate::codec::result::Value::Insitu(2)
        );
    }
}
