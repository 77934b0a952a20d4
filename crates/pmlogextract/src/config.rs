//! The `-c` configuration file: metric names (leaf or subtree), each with an
//! optional instance list in brackets (names, quoted names or internal ids, commas
//! optional), `#` comments; names are looked up in every input's namespace.

use crate::meta::Selection;
use archive_format::{Archive, PmId};
use foldhash::HashMap;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Num(i64),
    Open,
    Close,
    Comma,
    Eof,
}

/// Tokens with their line numbers, up to the end or the first lexical error.
type Lexed = (Vec<(Tok, usize)>, Option<(usize, String)>);

fn lex(text: &str) -> Lexed {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'[' => {
                out.push((Tok::Open, line));
                i += 1;
            }
            b']' => {
                out.push((Tok::Close, line));
                i += 1;
            }
            b',' => {
                out.push((Tok::Comma, line));
                i += 1;
            }
            b'"' | b'\'' => {
                let q = c;
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != q {
                    if b[j] == b'\n' {
                        line += 1;
                    }
                    j += 1;
                }
                if j >= b.len() {
                    return (out, Some((line, "unterminated string".into())));
                }
                out.push((Tok::Str(text[start..j].to_string()), line));
                i = j + 1;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                let word = &text[start..i];
                let tok = match word.parse::<i64>() {
                    Ok(n) => Tok::Num(n),
                    Err(_) => Tok::Name(word.to_string()),
                };
                out.push((tok, line));
            }
            other => {
                return (
                    out,
                    Some((line, format!("Unexpected character '{}'", other as char))),
                );
            }
        }
    }
    out.push((Tok::Eof, line));
    (out, None)
}

/// An instance given in the file.
#[derive(Debug, Clone)]
enum InstSpec {
    Name(String),
    Id(i32),
}

/// Loads the file; returns what it selects and the warnings to print, or the
/// messages of a fatal error.
///
/// Long on purpose: the configuration's grammar as one parser, a clause per arm,
/// in the order of the reference's grammar.
pub fn load(
    path: &str,
    inputs: &[(&str, &Archive)],
) -> Result<(Selection, Vec<String>), Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![format!(
            "pmlogextract: Cannot open config file \"{path}\": {}",
            archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5))
        )]
    })?;
    // specs before a lexical error are looked up (and warned about) first
    let (toks, lex_error) = lex(&text);
    let mut specs: Vec<(String, usize, Option<Vec<InstSpec>>)> = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let (tok, line) = &toks[k];
        k += 1;
        let name = match tok {
            Tok::Name(n) => n.clone(),
            Tok::Comma | Tok::Eof => continue,
            _ => {
                return Err(vec![format!(
                    "Specification error in configuration file ({path})\n[line {line}] syntax error"
                )])
            }
        };
        let mut insts = None;
        // the reference reports a spec at the line its parser has reached: the
        // closing bracket, or the token after the name
        let mut at = toks.get(k).map(|t| t.1).unwrap_or(*line);
        if matches!(toks.get(k), Some((Tok::Open, _))) {
            k += 1;
            let mut list = Vec::new();
            loop {
                match toks.get(k) {
                    Some((Tok::Close, l)) => {
                        at = *l;
                        k += 1;
                        break;
                    }
                    Some((Tok::Comma, _)) => k += 1,
                    Some((Tok::Name(n), _)) | Some((Tok::Str(n), _)) => {
                        list.push(InstSpec::Name(n.clone()));
                        k += 1;
                    }
                    Some((Tok::Num(n), _)) => {
                        list.push(InstSpec::Id(*n as i32));
                        k += 1;
                    }
                    None => break,
                    Some((_, bad)) => {
                        return Err(vec![format!(
                            "Specification error in configuration file ({path})\n[line {bad}] syntax error"
                        )])
                    }
                }
            }
            insts = Some(list);
        }
        if k >= toks.len() && lex_error.is_some() {
            // cut short by the lexical error: not a spec
            break;
        }
        specs.push((name, at, insts));
    }
    let mut sel = Selection::default();
    let mut warnings = Vec::new();
    let mut all: HashMap<PmId, Option<Vec<i32>>> = HashMap::default();
    for (name, line, insts) in specs {
        let mut found = false;
        for (_, a) in inputs {
            let md = a.metadata();
            for (leaf, pmid) in md.pmns.traverse(&name) {
                let Some(desc) = md.desc(pmid) else { continue };
                found = true;
                sel.named = true;
                sel.indoms.insert(desc.indom.0);
                let ids: Option<Vec<i32>> = match insts.as_ref() {
                    None => None,
                    Some(list) => {
                        let union = md.indom_union(desc.indom);
                        let mut ids = Vec::new();
                        for s in list {
                            let id = match s {
                                InstSpec::Id(i) => union.iter().find(|(x, _)| x == i),
                                InstSpec::Name(n) => {
                                    union.iter().find(|(_, x)| **x == **n).or_else(|| {
                                        union.iter().find(|(_, x)| x.split(' ').next() == Some(n))
                                    })
                                }
                            };
                            match id {
                                Some((i, _)) => ids.push(*i),
                                None => {
                                    let shown = match s {
                                        InstSpec::Id(i) => i.to_string(),
                                        InstSpec::Name(n) => n.clone(),
                                    };
                                    warnings.push(format!(
                                        "Warning [{path}, line {line}]\nInstance \"{shown}\" is not defined for the metric \"{leaf}\""
                                    ));
                                }
                            }
                        }
                        if ids.is_empty() {
                            warnings.push(format!(
                                "Warning [{path}, line {line}]\nNone of the instances for metric \"{leaf}\" are valid, metric not extracted"
                            ));
                            continue;
                        }
                        Some(ids)
                    }
                };
                let entry = all.entry(pmid).or_insert_with(|| Some(Vec::new()));
                match (entry.as_mut(), ids) {
                    (Some(cur), Some(ids)) => {
                        for i in ids {
                            if !cur.contains(&i) {
                                cur.push(i);
                            }
                        }
                    }
                    _ => *entry = None,
                }
            }
        }
        if !found {
            warnings.push(format!(
                "Warning [{path}, line {line}]\nProblem with lookup for metric \"{name}\" ... metric ignored\nReason: Unknown metric name"
            ));
        }
    }
    sel.metrics = all;
    if let Some((line, what)) = lex_error {
        warnings.push(format!(
            "Specification error in configuration file ({path})\n[line {line}] {what}"
        ));
        return Err(warnings);
    }
    Ok((sel, warnings))
}

/// Whether a selection keeps anything (with nothing found, the reference keeps
/// everything).
pub fn selects(sel: &Selection) -> bool {
    sel.named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_names_instances_and_comments() {
        let (t, e) = lex("# c\nkernel.all.load [ \"1 minute\", 15 ]\nhinv.ncpu, x\n");
        assert!(e.is_none());
        let toks: Vec<Tok> = t.into_iter().map(|x| x.0).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Name("kernel.all.load".into()),
                Tok::Open,
                Tok::Str("1 minute".into()),
                Tok::Comma,
                Tok::Num(15),
                Tok::Close,
                Tok::Name("hinv.ncpu".into()),
                Tok::Comma,
                Tok::Name("x".into()),
                Tok::Eof,
            ]
        );
        assert!(lex("a [\"unterminated]").1.is_some());
        let (toks, err) = lex("a [bin-1]");
        assert_eq!(err, Some((1, "Unexpected character '-'".into())));
        assert_eq!(toks.len(), 3, "the tokens before the error are kept");
    }
}
