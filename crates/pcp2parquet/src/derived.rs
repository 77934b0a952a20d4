//! Derived metrics named by `-m`: those of PCP's global configuration (what every
//! PCP context has, `kernel.cpu.util.*`, `disk.dev.await` and the rest), bound to
//! the archive as libpcp binds them. Their values are computed from the same
//! fetches as the archive's metrics: each record holding an operand (raw, as
//! libpcp's forward fetches give them) or each interpolated sample (`-t`).

use archive_format::codec::result::OwnedValueSet;
use archive_format::derive::config::Registry;
use archive_format::derive::context::{Bound, Context};
use archive_format::replay::{FetchResult, FetchedSet};
use archive_format::{Archive, PmId, ResultRecord};

/// A derived metric chosen for export: its name and its binding.
pub struct Chosen {
    pub name: String,
    pub bound: Bound,
    /// Its one-line and long help, as its definition gives them (libpcp's help
    /// falls back to the one line).
    pub oneline: Option<String>,
    pub help: Option<String>,
    operands: Vec<PmId>,
}

/// Whether `name` is `spec` or below it.
fn under(name: &str, spec: &str) -> bool {
    name == spec || (name.starts_with(spec) && name.as_bytes().get(spec.len()) == Some(&b'.'))
}

/// The derived metrics `specs` name (each a name, or a subtree holding derived
/// names) that are not the archive's own names, bound to it; one that does not
/// bind (its operands are not in the archive) is left out.
pub fn select(a: &Archive, specs: &[String]) -> Vec<Chosen> {
    if specs.is_empty() {
        return Vec::new();
    }
    let var = cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp");
    let registry = Registry::global(&var, &mut std::io::sink());
    let mut ctx = Context::new(a.metadata(), &registry);
    let mut out = Vec::new();
    for (k, d) in registry.metrics.iter().enumerate() {
        let known = !matches!(
            a.metadata().pmns.lookup(&d.name),
            archive_format::pmns::Lookup::Unknown
        );
        if known || !specs.iter().any(|s| under(&d.name, s)) {
            continue;
        }
        if let Ok(bound) = ctx.bind(k) {
            let operands = bound.operand_pmids();
            if operands.is_empty() {
                // constants and the anonymous metrics: nothing an archive records
                continue;
            }
            out.push(Chosen {
                name: d.name.clone(),
                bound,
                oneline: d.oneline.clone(),
                help: d.helptext.clone().or_else(|| d.oneline.clone()),
                operands,
            });
        }
    }
    out
}

impl Chosen {
    pub fn pmid(&self) -> PmId {
        self.bound.desc.pmid
    }

    /// The operands fetched with the archive's metrics.
    pub fn operands(&self) -> &[PmId] {
        &self.operands
    }

    /// The values a forward fetch of the metric gives at this record: `None`
    /// where the record holds none of its operands (the fetch would pass it by).
    pub fn at_record(&mut self, rec: &ResultRecord<'_>, a: &Archive) -> Option<OwnedValueSet> {
        let sets: Vec<FetchedSet> = rec
            .vsets
            .iter()
            .filter(|vs| self.operands.contains(&vs.pmid))
            .map(FetchedSet::from_set)
            .collect();
        if sets.is_empty() {
            return None;
        }
        let res = FetchResult {
            stamp: rec.stamp,
            sets,
        };
        Some(self.bound.evaluate(&res, a.metadata()))
    }

    /// The values at an interpolated sample whose fetch held the operands.
    pub fn at_sample(&mut self, res: &FetchResult, a: &Archive) -> OwnedValueSet {
        self.bound.evaluate(res, a.metadata())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_subtrees() {
        assert!(under("disk.dev.await", "disk.dev"));
        assert!(under("disk.dev.await", "disk.dev.await"));
        assert!(!under("disk.devx.await", "disk.dev"));
        assert!(!under("disk.dev", "disk.dev.await"));
    }
}
