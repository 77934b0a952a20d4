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
    /// (Boxed slices: most metrics have one name, and a `Vec` would keep room
    /// for four.)
    by_pmid: HashMap<PmId, Box<[String]>>,
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
        }
    }

    /// Adds `name` for `pmid`. A name already in the tree is left as it is.
    pub fn insert(&mut self, name: &str, pmid: PmId) {
        if name.is_empty() {
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
            }
            cur = next;
        }
    }

    /// Builds the per-PMID name lists; call after the last insert.
    pub fn finish(&mut self) {
        let mut visit: Vec<(PmId, String)> = Vec::new();
        self.walk(0, &mut String::new(), &mut visit);
        let mut by_pmid: HashMap<PmId, Vec<String>> = HashMap::new();
        for (pmid, name) in visit.into_iter().rev() {
            by_pmid.entry(pmid).or_default().push(name);
        }
        self.by_pmid = by_pmid
            .into_iter()
            .map(|(pmid, names)| (pmid, names.into_boxed_slice()))
            .collect();
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
        self.by_pmid.get(&pmid).map(|v| &v[..]).unwrap_or(&[])
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

    /// The children of `name` in libpcp's `pmGetChildrenStatus` order (newest
    /// first), each with whether it is a leaf; `Some(empty)` for a leaf, `None`
    /// for a name not in the namespace.
    pub fn children(&self, name: &str) -> Option<Vec<(&str, bool)>> {
        let n = self.find(name)?;
        let node = &self.nodes[n];
        if node.pmid.is_none() && node.children.is_empty() && n != 0 {
            return None;
        }
        Some(
            node.children
                .iter()
                .rev()
                .map(|&c| (self.nodes[c].name.as_str(), self.nodes[c].pmid.is_some()))
                .collect(),
        )
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

/// Where and why an ASCII PMNS file could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmnsParseError {
    /// 1-based line of the problem, when it has one.
    pub line: Option<usize>,
    /// Text of that line and the byte column of the problem in it.
    pub text: String,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for PmnsParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PmnsParseError {}

/// The PMID libpcp gives a dynamic subtree (`domain:*:*`): domain 511, the real
/// domain in the cluster field.
const DYNAMIC_PMID_DOMAIN: u32 = 511;

/// A child in a PMNS section: its name, and its PMID when it is a leaf.
type Child = (String, Option<PmId>);

struct Tok {
    text: String,
    line: usize,
    col: usize,
}

impl Pmns {
    /// Parses an ASCII namespace file (the format of `pmns(5)`: sections
    /// `path { child [pmid] ... }` starting at `root`, PMIDs as `domain:cluster:item`
    /// or `domain:*:*`, C comments and simple `#define` macros), as
    /// `pmLoadASCIINameSpace` does. Children keep the file's order, which is the
    /// order libpcp lists and traverses them in.
    pub fn parse_ascii(text: &str) -> std::result::Result<Pmns, PmnsParseError> {
        let lines: Vec<&str> = text.lines().collect();
        let (toks, macros) = ascii_tokens(&lines)?;
        let sections = ascii_sections(&lines, &toks, &macros)?;
        let leaves = ascii_leaves(&sections)?;
        // Our tree lists children newest first (as libpcp's archive namespace): insert
        // in reverse so that the walk follows the file's order.
        let mut p = Pmns::new();
        for (name, pmid) in leaves.iter().rev() {
            p.insert(name, *pmid);
        }
        p.finish();
        Ok(p)
    }
}

type PmnsResult<T> = std::result::Result<T, PmnsParseError>;

/// An error at `line` (1-based) and byte `col` of an ASCII namespace.
fn error_at(lines: &[&str], line: usize, col: usize, message: String) -> PmnsParseError {
    PmnsParseError {
        line: Some(line),
        text: lines.get(line - 1).copied().unwrap_or("").to_string(),
        column: col,
        message,
    }
}

/// An error of the namespace as a whole.
fn error_whole(message: String) -> PmnsParseError {
    PmnsParseError {
        line: None,
        text: String::new(),
        column: 0,
        message,
    }
}

/// The tokens of an ASCII namespace (names, PMIDs, braces), with C comments and
/// preprocessor lines removed, and its `#define`s.
fn ascii_tokens(lines: &[&str]) -> PmnsResult<(Vec<Tok>, HashMap<String, String>)> {
    let mut macros: HashMap<String, String> = HashMap::new();
    let mut toks: Vec<Tok> = Vec::new();
    let mut in_comment = false;
    for (ln, raw) in lines.iter().enumerate() {
        let line = ln + 1;
        let trimmed = raw.trim_start();
        if !in_comment && trimmed.starts_with('#') {
            let mut w = trimmed[1..].split_whitespace();
            if w.next() == Some("define") {
                if let Some(name) = w.next() {
                    let value = w.collect::<Vec<_>>().join(" ");
                    macros.insert(name.to_string(), value);
                }
            }
            continue;
        }
        let b = raw.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'*');
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if in_comment {
                let end = c == b'*' && b.get(i + 1) == Some(&b'/');
                in_comment = !end;
                i += if end { 2 } else { 1 };
            } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
                in_comment = true;
                i += 2;
            } else if c.is_ascii_whitespace() {
                i += 1;
            } else if c == b'{' || c == b'}' {
                let text = (c as char).to_string();
                toks.push(Tok { text, line, col: i });
                i += 1;
            } else if word(c) {
                let start = i;
                while i < b.len() && word(b[i]) {
                    i += 1;
                }
                let text = raw[start..i].to_string();
                toks.push(Tok {
                    text,
                    line,
                    col: start,
                });
            } else {
                return Err(error_at(lines, line, i, "Expected NAME or }".into()));
            }
        }
    }
    Ok((toks, macros))
}

/// A PMID token (`domain:cluster:item`, `domain:*:*` for a dynamic subtree), its
/// parts expanded where they name `#define`s.
fn ascii_pmid(lines: &[&str], t: &Tok, macros: &HashMap<String, String>) -> PmnsResult<PmId> {
    let e = t
        .text
        .split(':')
        .map(|p| macros.get(p).map(String::as_str).unwrap_or(p))
        .collect::<Vec<_>>()
        .join(":");
    let f: Vec<&str> = e.split(':').collect();
    let num = |s: &str, max: u32| s.parse::<u32>().ok().filter(|v| *v <= max);
    let bad = || error_at(lines, t.line, t.col, "Illegal PMID".into());
    if f.len() != 3 {
        return Err(bad());
    }
    let dom = num(f[0], 510).ok_or_else(bad)?;
    if f[1] == "*" && f[2] == "*" {
        return Ok(PmId::new(DYNAMIC_PMID_DOMAIN, dom, 0));
    }
    let cl = num(f[1], 4095).ok_or_else(bad)?;
    let it = num(f[2], 1023).ok_or_else(bad)?;
    Ok(PmId::new(dom, cl, it))
}

/// The sections (`path { child [pmid] ... }`) in file order.
fn ascii_sections(
    lines: &[&str],
    toks: &[Tok],
    macros: &HashMap<String, String>,
) -> PmnsResult<Vec<(String, Vec<Child>)>> {
    let err = |t: &Tok, msg: String| error_at(lines, t.line, t.col, msg);
    let mut sections: Vec<(String, Vec<Child>)> = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let head = &toks[k];
        if head.text == "{" || head.text == "}" || head.text.contains(':') {
            return Err(err(head, "Expected NAME".into()));
        }
        match toks.get(k + 1) {
            Some(t) if t.text == "{" => {}
            Some(t) => return Err(err(t, "Expected {".into())),
            None => return Err(err(head, "Expected {".into())),
        }
        let path = head.text.clone();
        if sections.iter().any(|(p, _)| *p == path) {
            return Err(err(head, format!("Duplicate non-terminal name \"{path}\"")));
        }
        k += 2;
        let mut children: Vec<Child> = Vec::new();
        loop {
            let Some(t) = toks.get(k) else {
                let l = lines.len().max(1);
                return Err(error_at(lines, l, 0, "Expected NAME, PMID or }".into()));
            };
            if t.text == "}" {
                k += 1;
                break;
            }
            if t.text == "{" || t.text.contains(':') || t.text.contains('.') {
                return Err(err(t, "Expected NAME or }".into()));
            }
            let mut pmid = None;
            if let Some(n) = toks.get(k + 1) {
                if n.text.contains(':') || macros.contains_key(&n.text) {
                    pmid = Some(ascii_pmid(lines, n, macros)?);
                }
            }
            if children.iter().any(|(c, _)| *c == t.text) {
                let msg = format!("Duplicate name \"{}\" in subtree for \"{path}\"", t.text);
                return Err(err(t, msg));
            }
            children.push((t.text.clone(), pmid));
            k += if pmid.is_some() { 2 } else { 1 };
        }
        sections.push((path, children));
    }
    Ok(sections)
}

/// Every leaf, depth-first from `root` in file order, with libpcp's complaints
/// about a missing root, an undefined non-terminal or a disconnected subtree.
fn ascii_leaves(sections: &[(String, Vec<Child>)]) -> PmnsResult<Vec<(String, PmId)>> {
    if !sections.iter().any(|(p, _)| p == "root") {
        return Err(error_whole("Missing root node in name space".into()));
    }
    let mut leaves: Vec<(String, PmId)> = Vec::new();
    let mut used = vec![false; sections.len()];
    let mut stack: Vec<(String, usize)> = vec![("root".into(), 0)];
    while let Some((path, next)) = stack.pop() {
        let Some(si) = sections.iter().position(|(p, _)| *p == path) else {
            continue;
        };
        used[si] = true;
        let children = &sections[si].1;
        if next >= children.len() {
            continue;
        }
        stack.push((path.clone(), next + 1));
        let (name, pmid) = &children[next];
        let full = if path == "root" {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        match pmid {
            Some(p) => leaves.push((full, *p)),
            None if !sections.iter().any(|(p, _)| *p == full) => {
                return Err(error_whole(format!(
                    "Cannot find definition for non-terminal node \"{name}\" in name space"
                )));
            }
            None => stack.push((full, 0)),
        }
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(error_whole(format!(
            "Disconnected subtree (\"{}\") in name space",
            sections[i].0
        )));
    }
    Ok(leaves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_pmns_keeps_file_order() {
        let text = "/* test */\n#define S 29\nroot {\n    foo\n    bar\tS:0:5\n}\nfoo {\n    colour 29:0:5\n    x 29:0:6\n}\n";
        let p = Pmns::parse_ascii(text).expect("parses");
        assert_eq!(p.names(PmId::new(29, 0, 5)), ["bar", "foo.colour"]);
        let t: Vec<String> = p.traverse("foo").into_iter().map(|(n, _)| n).collect();
        assert_eq!(t, ["foo.colour", "foo.x"]);
        assert_eq!(p.lookup("foo.x"), Lookup::Leaf(PmId::new(29, 0, 6)));
    }

    #[test]
    fn ascii_pmns_errors() {
        let e = Pmns::parse_ascii("root {\n  foo 29:0:5\n  bar\n}\n").unwrap_err();
        assert!(e.message.contains("non-terminal node \"bar\""), "{e}");
        let e = Pmns::parse_ascii("root {\n  foo 29:0:5\n  foo 29:0:6\n}\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.starts_with("Duplicate name"), "{e}");
        let e = Pmns::parse_ascii("root {\n  foo 29:0\n}\n").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (Some(2), "Illegal PMID"));
        let e = Pmns::parse_ascii("root {\n foo 1:1:1\n}\nzzz {\n y 1:1:2\n}\n").unwrap_err();
        assert!(e.message.contains("Disconnected subtree (\"zzz\")"), "{e}");
    }

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

    #[test]
    fn a_name_added_again_keeps_its_first_pmid() {
        let mut p = Pmns::new();
        let (first, second) = (PmId::new(29, 0, 5), PmId::new(29, 0, 6));
        p.insert("sample.colour", first);
        p.insert("sample.colour", second);
        // a leaf grows no children, and a non-leaf becomes no leaf
        p.insert("sample.colour.red", second);
        p.insert("sample", second);
        p.finish();
        assert_eq!(p.lookup("sample.colour"), Lookup::Leaf(first));
        assert_eq!(p.lookup("sample.colour.red"), Lookup::Unknown);
        assert_eq!(p.lookup("sample"), Lookup::NonLeaf);
        assert_eq!(p.names(first), ["sample.colour"]);
        assert!(p.names(second).is_empty());
    }
}
