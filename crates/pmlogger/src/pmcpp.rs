//! The preprocessing PCP's pmlogger runs its configuration through (`pmcpp -rs`):
//! `%`-prefixed directives (`%include "file"` or `<file>`, nested up to 5 deep;
//! `%shell 'command'`; `%define name [value]`; `%undef`; `%ifdef`/`%ifndef`,
//! `%else`, `%endif`, not nested), macros used only as `%name` or `%{name}`,
//! `#` lines left alone (comments for the configuration's lexer). Like pmcpp, the
//! output has one line per input line, and a line marker `# N "file"` wherever
//! the input continues from another place, so errors name the original lines.
//! Pure but for reading included files and running `%shell` commands.

use std::path::{Path, PathBuf};

/// The deepest `%include` nesting pmcpp allows.
const MAX_DEPTH: usize = 5;

struct State<'a> {
    macros: Vec<(String, String)>,
    dirs: &'a [PathBuf],
    out: String,
}

fn is_macro_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A directive's argument: a quoted string (either quote) or the first word.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(r) = s.strip_prefix(q) {
            return r.split(q).next().unwrap_or("");
        }
    }
    s.split_whitespace().next().unwrap_or("")
}

impl State<'_> {
    fn lookup(&self, name: &str) -> Option<&str> {
        self.macros
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `%name` and `%{name}` replaced by their values; other text as it is.
    fn substitute(&self, line: &str) -> String {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(p) = rest.find('%') {
            out.push_str(&rest[..p]);
            let after = &rest[p + 1..];
            let (name, used) = if let Some(b) = after.strip_prefix('{') {
                match b.find('}') {
                    Some(e) => (&b[..e], e + 2),
                    None => ("", 0),
                }
            } else {
                let n = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..n], n)
            };
            match self.lookup(name).filter(|_| is_macro_name(name)) {
                Some(v) => {
                    out.push_str(v);
                    rest = &after[used..];
                }
                None => {
                    out.push('%');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    fn find_include(&self, name: &str, from: &Path) -> Option<PathBuf> {
        let direct = PathBuf::from(name);
        if direct.is_absolute() || direct.exists() {
            return direct.exists().then_some(direct);
        }
        let mut dirs: Vec<PathBuf> = Vec::new();
        if let Some(d) = from.parent().filter(|d| !d.as_os_str().is_empty()) {
            dirs.push(d.to_path_buf());
        }
        dirs.extend(self.dirs.iter().cloned());
        dirs.push(cli_common::pcpconf::dir("PCP_VAR_DIR", "/var/lib/pcp").join("pmns"));
        dirs.into_iter().map(|d| d.join(name)).find(|p| p.exists())
    }

    fn file(&mut self, text: &str, name: &str, path: &Path, depth: usize) -> Result<(), String> {
        self.out.push_str(&format!("# 1 \"{name}\"\n"));
        // the state of an %ifdef block: None outside, Some(keeping lines)
        let mut cond: Option<bool> = None;
        let mut marker_due = false;
        for (n, line) in text.lines().enumerate() {
            let lineno = n + 1;
            let err = |m: String| format!("pmcpp: {name}[{lineno}]: {m}");
            let directive = line.trim_start().strip_prefix('%').map(|d| {
                let word = d.split_whitespace().next().unwrap_or("");
                (word, d[word.len()..].trim())
            });
            if let Some((word, arg)) = directive {
                if self.conditional(word, arg, &mut cond).map_err(err)? {
                    self.out.push('\n');
                    continue;
                }
            }
            if cond == Some(false) {
                self.out.push('\n');
                continue;
            }
            let done = match directive {
                Some((word, arg)) => self.directive(word, arg, path, depth, &err)?,
                None => None,
            };
            match done {
                Some(included) => marker_due |= included,
                // not a directive: text for the lexer (which will refuse it)
                None => self.line(line, lineno, name, &mut marker_due),
            }
        }
        if cond.is_some() {
            return Err(format!("pmcpp: {name}: %ifdef or %ifndef without %endif"));
        }
        Ok(())
    }

    /// `%ifdef`, `%ifndef`, `%else` and `%endif`: `true` when `word` is one of
    /// them (`cond` is the block's state: `None` outside one, else whether its
    /// lines are kept).
    fn conditional(&self, word: &str, arg: &str, cond: &mut Option<bool>) -> Result<bool, String> {
        match word {
            "ifdef" | "ifndef" => {
                if cond.is_some() {
                    return Err("nested %ifdef or %ifndef".into());
                }
                let defined = self.lookup(unquote(arg)).is_some();
                *cond = Some(if word == "ifdef" { defined } else { !defined });
            }
            "else" => {
                let Some(c) = *cond else {
                    return Err("%else without %ifdef or %ifndef".into());
                };
                *cond = Some(!c);
            }
            "endif" => {
                if cond.take().is_none() {
                    return Err("%endif without %ifdef or %ifndef".into());
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `%define`, `%undef`, `%include` and `%shell` in `path`, at include depth
    /// `depth`: `None` when `word` is none of them, else whether text was
    /// included (a line marker is due after it).
    fn directive(
        &mut self,
        word: &str,
        arg: &str,
        path: &Path,
        depth: usize,
        err: &dyn Fn(String) -> String,
    ) -> Result<Option<bool>, String> {
        match word {
            "define" => {
                let name_end = arg.find(char::is_whitespace).unwrap_or(arg.len());
                let m = &arg[..name_end];
                if !is_macro_name(m) {
                    return Err(err(format!("bad macro name \"{m}\"")));
                }
                let v = arg[name_end..].trim();
                let v = if v.starts_with(['"', '\'']) {
                    unquote(v)
                } else {
                    v
                };
                self.macros.push((m.to_string(), v.to_string()));
                self.out.push('\n');
            }
            "undef" => {
                let m = unquote(arg);
                self.macros.retain(|(n, _)| n != m);
                self.out.push('\n');
            }
            "include" => {
                if depth >= MAX_DEPTH {
                    return Err(err("%include nested too deeply".into()));
                }
                let inc = arg
                    .trim()
                    .trim_start_matches(['"', '<'])
                    .trim_end_matches(['"', '>']);
                let p = self
                    .find_include(inc, path)
                    .ok_or_else(|| err(format!("Cannot open include file \"{inc}\"")))?;
                let bytes = std::fs::read(&p)
                    .map_err(|e| err(format!("Cannot read \"{}\": {e}", p.display())))?;
                let text = String::from_utf8_lossy(&bytes).into_owned();
                self.file(&text, &p.to_string_lossy(), &p, depth + 1)?;
                return Ok(Some(true));
            }
            "shell" => {
                let cmd = unquote(arg);
                let o = std::process::Command::new("/bin/sh")
                    .arg("-c")
                    .arg(cmd)
                    .output()
                    .map_err(|e| err(format!("%shell \"{cmd}\": {e}")))?;
                if !o.status.success() {
                    return Err(err(format!("%shell \"{cmd}\" failed: {}", o.status)));
                }
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                self.file(&text, &format!("<shell {cmd}>"), path, depth + 1)?;
                return Ok(Some(true));
            }
            _ => return Ok(None),
        }
        Ok(Some(false))
    }

    fn line(&mut self, line: &str, lineno: usize, name: &str, marker_due: &mut bool) {
        if *marker_due {
            self.out.push_str(&format!("# {lineno} \"{name}\"\n"));
            *marker_due = false;
        }
        let l = self.substitute(line);
        self.out.push_str(&l);
        self.out.push('\n');
    }
}

/// Expands a configuration named `name`; `dirs` are searched for `%include` after
/// the configuration's own directory.
pub fn expand(text: &str, name: &str, dirs: &[PathBuf]) -> Result<String, String> {
    let mut st = State {
        macros: Vec::new(),
        dirs,
        out: String::with_capacity(text.len() + 32),
    };
    st.file(text, name, Path::new(name), 0)?;
    Ok(st.out)
}

/// A line marker's line number (`# N "file"`), if `line` is one.
pub fn marker(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("# ")?;
    let (n, file) = rest.split_once(' ')?;
    (file.starts_with('"') && file.ends_with('"'))
        .then(|| n.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_conditionals_and_markers() {
        let text = "%define freq '10 sec'\n%define detail\n# a comment\nlog mandatory on %freq { a }\n%ifdef detail\nlog mandatory on %{freq} { b }\n%else\nnot kept\n%endif\n%ifndef detail\nnot kept either\n%endif\n%undef freq\nx %freq y 50%\n";
        let out = expand(text, "cfg", &[]).expect("expands");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "# 1 \"cfg\"");
        // one output line per input line
        assert_eq!(lines.len(), 1 + text.lines().count());
        assert_eq!(lines[4], "log mandatory on 10 sec { a }");
        assert_eq!(lines[6], "log mandatory on 10 sec { b }");
        assert!(!out.contains("not kept"));
        assert_eq!(lines[14], "x %freq y 50%");
        assert_eq!(lines[3], "# a comment");
    }

    #[test]
    fn includes_shell_and_errors() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(
            dir.path().join("macros"),
            "%define m 'hinv.ncpu'\nlog mandatory on once { %m }\n",
        )
        .expect("write");
        let cfg = dir.path().join("config");
        let text = "%include \"macros\"\nlog mandatory on 1 sec { %m }\n%shell 'echo log mandatory on 2 sec x'\nend\n";
        let out = expand(text, &cfg.to_string_lossy(), &[]).expect("expands");
        assert!(out.contains("log mandatory on once { hinv.ncpu }"), "{out}");
        assert!(
            out.contains(&format!(
                "# 2 \"{}\"\nlog mandatory on 1 sec {{ hinv.ncpu }}",
                cfg.display()
            )),
            "{out}"
        );
        assert!(out.contains("log mandatory on 2 sec x"));
        assert!(out.contains("# 4 \""), "{out}");
        assert_eq!(marker("# 12 \"file\""), Some(12));
        assert_eq!(marker("# comment"), None);
        for bad in [
            "%include \"nonesuch\"\n",
            "%ifdef a\n%ifdef b\n",
            "%endif\n",
            "%ifdef a\n",
            "%define 9x\n",
        ] {
            assert!(expand(bad, "cfg", &[]).is_err(), "{bad}");
        }
    }
}
