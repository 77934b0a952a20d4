//! The archive's namespace (PMNS): metric names from the descriptor records, in a tree,
//! with lookups by name and PMID that return names in the order libpcp does.
//!
//! libpcp inserts new children at the front of their parent's child list and fills its
//! PMID-to-name hash by a depth-first walk, pushing each leaf on the front of its
//! bucket; so the names of one PMID come out in the reverse of depth-first visit order,
//! and a subtree is traversed newest child first.

use crate::types::PmId;
use std::collections::HashMap;

#[derive(Debug, Clone, Default)]
struct Node {
    name: String,
    /// Children in insertion order (libpcp's list is the reverse).
    children: Vec<usize>,
    pmid: Option<PmId>,
}

/// A metric namespace.
#[derive(Debug, Clone)]
pub struct Pmns {
    nodes: Vec<Node>,
    /// Names per PMID, in pmNameAll order (built by [`Pmns::finish`]).
    by_pmid: HashMap<PmId, Vec<String>>,
    leaves: HashMap<String, PmId>,
}

impl Default for Pmns {
    fn default() -> Self {
        Self::new()
    }
}

/// Result of looking a name up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Leaf(PmId),
    NonLeaf,
    Unknown,
}

impl Pmns {
    pub fn new() -> Self {
        Pmns {
            nodes: vec![Node::default()],
            by_pmid: HashMap::new(),
            leaves: HashMap::new(),
        }
    }

    /// Adds `name` for `pmid`. A name already in the tree is left as it is.
    pub fn insert(&mut self, name: &str, pmid: PmId) {
        if name.is_empty() || self.leaves.contains_key(name) {
            return;
        }
        let mut cur = 0usize;
        let parts: Vec<&str> = name.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let found = self.nodes[cur]
                .children
                .iter()
                .copied()
                .find(|&c| self.nodes[c].name == *part);
            let next = match found {
                Some(c) => c,
                None => {
                    if self.nodes[cur].pmid.is_some() {
                        return; // a leaf cannot grow children
                    }
                    self.nodes.push(Node {
                        name: (*part).to_string(),
                        children: Vec::new(),
                        pmid: None,
                    });
                    let id = self.nodes.len() - 1;
                    self.nodes[cur].children.push(id);
                    id
                }
            };
            if i == parts.len() - 1 {
                if self.nodes[next].pmid.is_some() || !self.nodes[next].children.is_empty() {
                    return;
                }
                self.nodes[next].pmid = Some(pmid);
                self.leaves.insert(name.to_string(), pmid);
            }
            cur = next;
        }
    }

    /// Builds the per-PMID name lists; call after the last insert.
    pub fn finish(&mut self) {
        let mut visit: Vec<(PmId, String)> = Vec::new();
        self.walk(0, &mut String::new(), &mut visit);
        self.by_pmid.clear();
        for (pmid, name) in visit.into_iter().rev() {
            self.by_pmid.entry(pmid).or_default().push(name);
        }
    }

    fn walk(&self, node: usize, prefix: &mut String, out: &mut Vec<(PmId, String)>) {
        for &c in self.nodes[node].children.iter().rev() {
            let len = prefix.len();
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix.push_str(&self.nodes[c].name);
            if let Some(p) = self.nodes[c].pmid {
                out.push((p, prefix.clone()));
            } else {
                self.walk(c, prefix, out);
            }
            prefix.truncate(len);
        }
    }

    /// All names of `pmid`, in libpcp's `pmNameAll` order.
    pub fn names(&self, pmid: PmId) -> &[String] {
        self.by_pmid.get(&pmid).map(|v| v.as_slice()).unwrap_or(&[])
    }

    fn find(&self, name: &str) -> Option<usize> {
        let mut cur = 0usize;
        if name.is_empty() {
            return Some(0);
        }
        for part in name.split('.') {
            cur = self.nodes[cur]
                .children
                .iter()
                .copied()
                .find(|&c| self.nodes[c].name == part)?;
        }
        Some(cur)
    }

    pub fn lookup(&self, name: &str) -> Lookup {
        match self.find(name) {
            None => Lookup::Unknown,
            Some(n) => match self.nodes[n].pmid {
                Some(p) => Lookup::Leaf(p),
                None if n == 0 || !self.nodes[n].children.is_empty() => Lookup::NonLeaf,
                None => Lookup::Unknown,
            },
        }
    }

    /// Every leaf name below `name` (or `name` itself if it is a leaf), in
    /// `pmTraversePMNS` order.
    pub fn traverse(&self, name: &str) -> Vec<(String, PmId)> {
        let Some(n) = self.find(name) else {
            return Vec::new();
        };
        if let Some(p) = self.nodes[n].pmid {
            return vec![(name.to_string(), p)];
        }
        let mut out = Vec::new();
        let mut prefix = name.to_string();
        self.walk(n, &mut prefix, &mut out);
        out.into_iter().map(|(p, s)| (s, p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_libpcp_order() {
        let mut p = Pmns::new();
        let id = PmId::new(29, 0, 5);
        p.insert("sample.colour", id);
        p.insert("sample.dupnames.four.colour", id);
        p.insert("sample.bin", PmId::new(29, 0, 6));
        p.finish();
        // reverse depth-first visit order, newest child first
        assert_eq!(
            p.names(id),
            ["sample.colour", "sample.dupnames.four.colour"]
        );
        assert_eq!(p.lookup("sample"), Lookup::NonLeaf);
        assert_eq!(p.lookup("sample.bin"), Lookup::Leaf(PmId::new(29, 0, 6)));
        assert_eq!(p.lookup("nosuch"), Lookup::Unknown);
        let t: Vec<String> = p.traverse("sample").into_iter().map(|x| x.0).collect();
        assert_eq!(
            t,
            ["sample.bin", "sample.dupnames.four.colour", "sample.colour"]
        );
    }
}
