//! Label sets as pmlogrewrite edits them, apart from any file: the labels a
//! rule makes (`{"name":value}` read as libpcp's `__pmAddLabels` reads it:
//! names checked, sorted, merged into a set with the new value winning), and
//! the edits made in place of a set's JSON (a label found by its quoted name
//! or value, cut out, renamed, or given a new value), offsets and all, with
//! the quirks of pmlogrewrite's own edits kept (a renamed label keeps its old
//! value offset).

use archive_format::codec::meta::{LabelEntry, LabelSet};

/// `-EINVAL`: a label that is not valid JSON or has a bad name.
pub(crate) const EINVAL: i32 = -22;
/// `-E2BIG`: too many labels, or too long.
pub(crate) const E2BIG: i32 = -7;
/// `PM_MAXLABELS`.
const MAX_LABELS: usize = 255;
/// `PM_MAXLABELJSONLEN`.
const MAX_JSON: usize = 65535;
/// `PM_IN_NULL`.
const IN_NULL: i32 = -1;

/// One label as parsed: name (unquoted), value (JSON as written), flags.
type Parsed = (Vec<u8>, Vec<u8>, u8);

/// `__pmAddLabels`: the labels of the JSON object `text`, each flagged
/// `flags`, merged into `set` (a label of the same name replaced), or a new
/// set (its instance `PM_IN_NULL`). `Err` is the PCP error code.
pub(crate) fn add_labels(set: Option<&LabelSet>, text: &str, flags: u8) -> Result<LabelSet, i32> {
    if text.len() + 1 >= MAX_JSON {
        return Err(E2BIG);
    }
    let mut new = parse_object(text.as_bytes(), flags)?;
    new.sort_by(|a, b| a.0.cmp(&b.0));
    if new.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(EINVAL);
    }
    let Some(old) = set else {
        return Ok(build(IN_NULL, &new));
    };
    let mut merged: Vec<Parsed> = entries(old)
        .into_iter()
        .filter(|(n, _, _)| new.iter().all(|x| x.0 != *n))
        .collect();
    merged.extend(new);
    merged.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(build(old.inst, &merged))
}

/// A set's labels as (name, value, flags).
fn entries(set: &LabelSet) -> Vec<Parsed> {
    archive_format::labels::entries(set)
        .map(|(n, v, f)| (n.as_bytes().to_vec(), v.as_bytes().to_vec(), f))
        .collect()
}

/// The set of `labels` in order: `{"name":value,...}` with each one's
/// offsets (the JSON empty where there are none).
fn build(inst: i32, labels: &[Parsed]) -> LabelSet {
    let mut json: Vec<u8> = Vec::new();
    let mut out = Vec::with_capacity(labels.len());
    if !labels.is_empty() {
        json.push(b'{');
        for (i, (name, value, flags)) in labels.iter().enumerate() {
            if i > 0 {
                json.push(b',');
            }
            json.push(b'"');
            let name_off = json.len() as u16;
            json.extend_from_slice(name);
            json.extend_from_slice(b"\":");
            let value_off = json.len() as u16;
            json.extend_from_slice(value);
            out.push(LabelEntry {
                name_off,
                name_len: name.len() as u8,
                flags: *flags,
                value_off,
                value_len: value.len() as u16,
            });
        }
        json.push(b'}');
    }
    LabelSet {
        inst,
        json: text_of(json),
        nlabels: out.len() as i32,
        labels: out,
    }
}

fn text_of(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The labels of a flat JSON object, whitespace outside strings dropped.
fn parse_object(b: &[u8], flags: u8) -> Result<Vec<Parsed>, i32> {
    let mut p = Scan { b, at: 0 };
    p.ws();
    p.eat(b'{')?;
    let mut out = Vec::new();
    p.ws();
    if p.peek() == Some(b'}') {
        p.at += 1;
    } else {
        loop {
            p.ws();
            let name = p.string()?;
            let name = name[1..name.len() - 1].to_vec();
            verify_name(&name)?;
            p.ws();
            p.eat(b':')?;
            p.ws();
            let value = p.value()?;
            if out.len() >= MAX_LABELS {
                return Err(E2BIG);
            }
            out.push((name, value, flags));
            p.ws();
            match p.next() {
                Some(b',') => continue,
                Some(b'}') => break,
                _ => return Err(EINVAL),
            }
        }
    }
    p.ws();
    if p.at != b.len() {
        return Err(EINVAL);
    }
    Ok(out)
}

/// A label name: a letter, then letters, digits and underscores.
fn verify_name(name: &[u8]) -> Result<(), i32> {
    if name.is_empty() {
        return Err(EINVAL);
    }
    if name.len() >= MAX_LABELS {
        return Err(E2BIG);
    }
    let ok = name[0].is_ascii_alphabetic()
        && name[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    if ok {
        Ok(())
    } else {
        Err(EINVAL)
    }
}

/// A cursor over JSON text.
struct Scan<'a> {
    b: &'a [u8],
    at: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.at += usize::from(c.is_some());
        c
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), i32> {
        if self.next() == Some(c) {
            Ok(())
        } else {
            Err(EINVAL)
        }
    }
    /// A quoted string as written (quotes and escapes kept).
    fn string(&mut self) -> Result<Vec<u8>, i32> {
        let start = self.at;
        self.eat(b'"')?;
        loop {
            match self.next() {
                Some(b'"') => return Ok(self.b[start..self.at].to_vec()),
                Some(b'\\') => {
                    self.next().ok_or(EINVAL)?;
                }
                Some(c) if c >= 0x20 => {}
                _ => return Err(EINVAL),
            }
        }
    }
    /// A value as written: a string, a literal, a number, or an array or
    /// object taken whole (without its whitespace).
    fn value(&mut self) -> Result<Vec<u8>, i32> {
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b'[') | Some(b'{') => self.nested(),
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(&c))
                {
                    self.at += 1;
                }
                Ok(self.b[start..self.at].to_vec())
            }
            _ => {
                for word in [&b"true"[..], b"false", b"null"] {
                    if self.b[self.at..].starts_with(word) {
                        self.at += word.len();
                        return Ok(word.to_vec());
                    }
                }
                Err(EINVAL)
            }
        }
    }
    /// An array or object, its brackets balanced, whitespace outside strings
    /// dropped.
    fn nested(&mut self) -> Result<Vec<u8>, i32> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err(EINVAL),
                Some(b'"') => out.extend(self.string()?),
                Some(c) if c.is_ascii_whitespace() => self.at += 1,
                Some(c) => {
                    self.at += 1;
                    out.push(c);
                    match c {
                        b'[' | b'{' => depth += 1,
                        b']' | b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(out);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// `find_label`: the first label from `from` on with the quoted name
/// `name` and the value `value` (either may be any).
pub(crate) fn find_label(
    set: &LabelSet,
    from: usize,
    name: Option<&str>,
    value: Option<&str>,
) -> Option<usize> {
    let json = set.json.as_bytes();
    let slice = |off: usize, len: usize| json.get(off..off + len);
    (from..set.labels.len()).find(|&i| {
        let l = &set.labels[i];
        let name_ok = name.is_none_or(|n| {
            (l.name_off as usize)
                .checked_sub(1)
                .and_then(|o| slice(o, l.name_len as usize + 2))
                == Some(n.as_bytes())
        });
        let value_ok = value.is_none_or(|v| {
            slice(l.value_off as usize, l.value_len as usize) == Some(v.as_bytes())
        });
        name_ok && value_ok
    })
}

/// `extract_label`: label `ix` cut out of the set, with its comma (the last
/// label left empties the set).
pub(crate) fn extract_label(set: &mut LabelSet, ix: usize) {
    if set.labels.len() <= 1 {
        set.labels.clear();
        set.nlabels = 0;
        set.json.clear();
        return;
    }
    let l = set.labels[ix];
    let size = l.name_len as usize + l.value_len as usize + 4;
    let last = ix == set.labels.len() - 1;
    let pos = (l.name_off as usize).saturating_sub(if last { 2 } else { 1 });
    let mut json = std::mem::take(&mut set.json).into_bytes();
    let end = (pos + size).min(json.len());
    json.drain(pos.min(end)..end);
    set.json = text_of(json);
    if !last {
        for k in &mut set.labels[ix + 1..] {
            k.name_off = k.name_off.wrapping_sub(size as u16);
            k.value_off = k.value_off.wrapping_sub(size as u16);
        }
    }
    set.labels.remove(ix);
    set.nlabels = set.labels.len() as i32;
}

/// The bytes `[at, at + len)` of a set's JSON replaced by `new`, and every
/// later label moved by the change in length.
fn splice(set: &mut LabelSet, i: usize, at: usize, len: usize, new: &[u8]) -> i32 {
    let mut json = std::mem::take(&mut set.json).into_bytes();
    let (at, end) = (at.min(json.len()), (at + len).min(json.len()));
    json.splice(at..end, new.iter().copied());
    set.json = text_of(json);
    let delta = new.len() as i32 - len as i32;
    for k in &mut set.labels[i + 1..] {
        k.name_off = (k.name_off as i32 + delta) as u16;
        k.value_off = (k.value_off as i32 + delta) as u16;
    }
    delta
}

/// `change_labels` as pmlogrewrite calls it: every label renamed to `new`
/// (quoted); each keeps its old value offset.
pub(crate) fn rename(set: &mut LabelSet, new: &str) {
    let inner = new.get(1..new.len().saturating_sub(1)).unwrap_or("");
    for i in 0..set.labels.len() {
        let l = set.labels[i];
        let delta = splice(
            set,
            i,
            l.name_off as usize,
            l.name_len as usize,
            inner.as_bytes(),
        );
        set.labels[i].name_len = (l.name_len as i32 + delta) as u8;
    }
}

/// `change_values`: each label's value (or each one whose value is `old`)
/// made `new`.
pub(crate) fn revalue(set: &mut LabelSet, old: Option<&str>, new: &str) {
    for i in 0..set.labels.len() {
        let l = set.labels[i];
        if let Some(o) = old {
            let json = set.json.as_bytes();
            let here = json.get(l.value_off as usize..l.value_off as usize + l.value_len as usize);
            if here != Some(o.as_bytes()) {
                continue;
            }
        }
        let delta = splice(
            set,
            i,
            l.value_off as usize,
            l.value_len as usize,
            new.as_bytes(),
        );
        set.labels[i].value_len = (l.value_len as i32 + delta) as u16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(s: &LabelSet) -> Vec<String> {
        entries(s)
            .into_iter()
            .map(|(n, v, _)| format!("{}={}", text_of(n), text_of(v)))
            .collect()
    }

    #[test]
    fn new_labels_are_sorted_and_merged_with_the_new_value_winning() {
        let a = add_labels(None, r#"{"zeta":1}"#, 1).unwrap();
        assert_eq!((a.inst, a.json.as_str()), (-1, r#"{"zeta":1}"#));
        let b = add_labels(Some(&a), r#"{"alpha":"x"}"#, 1).unwrap();
        assert_eq!(b.json, r#"{"alpha":"x","zeta":1}"#);
        let c = add_labels(Some(&b), r#"{"zeta":null}"#, 1).unwrap();
        assert_eq!(names(&c), ["alpha=\"x\"", "zeta=null"]);
        assert_eq!(c.labels[1].name_off, 14);
        assert_eq!(c.labels[1].value_off, 20);
    }

    #[test]
    fn bad_names_and_json_are_refused() {
        assert_eq!(add_labels(None, r#"{"1a":1}"#, 1), Err(EINVAL));
        assert_eq!(add_labels(None, r#"{"a-b":1}"#, 1), Err(EINVAL));
        assert_eq!(add_labels(None, r#"{"a":}"#, 1), Err(EINVAL));
        assert_eq!(add_labels(None, r#"{"a":1,"a":2}"#, 1), Err(EINVAL));
        let long = format!("{{\"{}\":1}}", "a".repeat(300));
        assert_eq!(add_labels(None, &long, 1), Err(E2BIG));
    }

    #[test]
    fn a_label_is_cut_with_its_comma() {
        let mut s = add_labels(None, r#"{"a":1,"bb":"two","c":3}"#, 1).unwrap();
        let k = find_label(&s, 0, Some("\"bb\""), None).unwrap();
        extract_label(&mut s, k);
        assert_eq!(s.json, r#"{"a":1,"c":3}"#);
        assert_eq!(names(&s), ["a=1", "c=3"]);
        extract_label(&mut s, 1);
        assert_eq!(s.json, r#"{"a":1}"#);
        extract_label(&mut s, 0);
        assert_eq!((s.nlabels, s.json.as_str()), (0, ""));
    }

    #[test]
    fn renaming_keeps_the_old_value_offset_as_pmlogrewrite_does() {
        let mut s = add_labels(None, r#"{"a":1,"b":2}"#, 1).unwrap();
        rename(&mut s, "\"longer\"");
        assert_eq!(s.json, r#"{"longer":1,"longer":2}"#);
        assert_eq!(s.labels[0].name_len, 6);
        assert_eq!(s.labels[0].value_off, 5, "unchanged");
        assert_eq!(s.labels[1].name_off, 13);
    }

    #[test]
    fn values_change_in_place() {
        let mut s = add_labels(None, r#"{"a":1,"b":2}"#, 1).unwrap();
        revalue(&mut s, Some("2"), "\"two\"");
        assert_eq!(s.json, r#"{"a":1,"b":"two"}"#);
        assert_eq!(names(&s), ["a=1", "b=\"two\""]);
        assert_eq!(find_label(&s, 0, None, Some("\"two\"")), Some(1));
    }

    proptest! {
        /// Labels made from names and values read back the same, in name order.
        #[test]
        fn made_labels_read_back(
            labels in proptest::collection::btree_map("[a-z][a-z0-9_]{0,8}", "-?[0-9]{1,6}|\"[a-z ]{0,6}\"|true|null", 0..6)
        ) {
            let body: Vec<String> = labels.iter().map(|(n, v)| format!("\"{n}\": {v}")).collect();
            let s = add_labels(None, &format!("{{ {} }}", body.join(" , ")), 2).unwrap();
            let want: Vec<String> = labels.iter().map(|(n, v)| format!("{n}={v}")).collect();
            prop_assert_eq!(names(&s), want);
            prop_assert!(s.labels.iter().all(|l| l.flags == 2));
        }
    }
}
