//! pmlogcompress's settings (`PCP_COMPRESS_*`): from the environment, else
//! from its defaults file (sh assignments), else built in, with the script's
//! `-V -V` words for where each came from. Where the default file is not
//! installed (a PCP older than 7), PCP 7.2's defaults are built in.

use std::io::{self, Write};

/// PCP 7.2's `$PCP_SYSCONF_DIR/pmlogcompress/defaults`.
pub const BUILT_IN: &str = "PCP_COMPRESS_PROGS='zstd:xz:bzip2:gzip'
PCP_COMPRESS_MIN_FILESIZE=4096
PCP_COMPRESS_ZSTD_MIN_FILESIZE=52428800
PCP_COMPRESS_ZSTD_ARGS='--rm --quiet'
PCP_COMPRESS_XZ_ARGS='-2 --block-size=10MiB'
PCP_COMPRESS_BZIP2_ARGS=''
PCP_COMPRESS_GZIP_ARGS=''
";

/// The defaults file and what it holds.
pub struct Config {
    /// Its name, as messages give it.
    pub path: String,
    text: String,
    /// Variables already settled (environment, command line, or read once).
    settled: Vec<(String, String)>,
}

/// A value as sh reads `VAR=value`: one pair of quotes taken off.
fn unquote(v: &str) -> String {
    let v = v.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    v.to_string()
}

impl Config {
    /// The defaults file `path` (`None`: the installed one, else the built-in
    /// text); `Err` with the script's message where a named file is missing.
    pub fn load(path: Option<&str>, prog: &str) -> Result<Config, String> {
        let installed = cli_common::pcpconf::dir("PCP_SYSCONF_DIR", "/etc/pcp")
            .join("pmlogcompress/defaults")
            .to_string_lossy()
            .into_owned();
        let named = path.map(str::to_string);
        let file = named.clone().unwrap_or(installed);
        match std::fs::read_to_string(&file) {
            Ok(text) => Ok(Config {
                path: file,
                text,
                settled: Vec::new(),
            }),
            Err(_) if named.is_none() => Ok(Config {
                path: file,
                text: BUILT_IN.to_string(),
                settled: Vec::new(),
            }),
            Err(_) => Err(format!(
                "{prog}: Error: configuration file ({file}) not found"
            )),
        }
    }

    /// The variables the file assigns, in its order.
    fn names(&self) -> Vec<String> {
        self.text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| l.split('=').next().map(str::to_string))
            .collect()
    }

    /// `-V -V`: the file's variables the environment sets.
    pub fn say_environment(&self, err: &mut dyn Write) -> io::Result<()> {
        for var in self.names() {
            if let Ok(v) = std::env::var(&var) {
                writeln!(err, "Info: {var} set from environment: {v}")?;
            }
        }
        Ok(())
    }

    /// A value given on the command line.
    pub fn set(
        &mut self,
        var: &str,
        value: &str,
        verbose: u32,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        if verbose > 1 {
            writeln!(err, "Info: {var} set from command line: {value}")?;
        }
        self.settled.push((var.to_string(), value.to_string()));
        Ok(())
    }

    /// The script's `_get_var`: the environment's value where it is not
    /// empty, else the file's, else `default`; said under `-V -V`.
    pub fn get(
        &mut self,
        var: &str,
        default: Option<&str>,
        verbose: u32,
        err: &mut dyn Write,
    ) -> io::Result<String> {
        if let Some((_, v)) = self.settled.iter().find(|(k, _)| k == var) {
            return Ok(v.clone());
        }
        let value = match std::env::var(var).ok().filter(|v| !v.is_empty()) {
            Some(v) => v,
            None => {
                let prefix = format!("{var}=");
                let line = self.text.lines().find(|l| l.starts_with(&prefix));
                match (line, default) {
                    (Some(l), _) => {
                        let v = unquote(&l[prefix.len()..]);
                        if verbose > 1 {
                            writeln!(err, "Info: {var} set from {}: {v}", self.path)?;
                        }
                        v
                    }
                    (None, Some(d)) => {
                        if verbose > 1 {
                            writeln!(
                                err,
                                "Info: {var} not set in {}, using default {d}",
                                self.path
                            )?;
                        }
                        d.to_string()
                    }
                    (None, None) => {
                        if verbose > 1 {
                            writeln!(err, "Info: {var} not set in {}", self.path)?;
                        }
                        String::new()
                    }
                }
            }
        };
        self.settled.push((var.to_string(), value.clone()));
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_from_the_file_and_are_said() {
        let mut c = Config {
            path: "defaults".into(),
            text: BUILT_IN.into(),
            settled: Vec::new(),
        };
        let mut err = Vec::new();
        let v = c.get("PCP_COMPRESS_XZ_ARGS", None, 2, &mut err).unwrap();
        assert_eq!(v, "-2 --block-size=10MiB");
        let none = c.get("PCP_COMPRESS_OTHER", Some("7"), 2, &mut err).unwrap();
        assert_eq!(none, "7");
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "Info: PCP_COMPRESS_XZ_ARGS set from defaults: -2 --block-size=10MiB\n\
             Info: PCP_COMPRESS_OTHER not set in defaults, using default 7\n"
        );
    }
}
