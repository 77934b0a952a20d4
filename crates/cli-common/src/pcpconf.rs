//! PCP's directory settings (`PCP_TMP_DIR`, `PCP_RUN_DIR`, ...): the environment,
//! else `$PCP_CONF` (default `/etc/pcp.conf`), else the given default, as
//! libpcp's `pmGetConfig` finds them.

use std::path::PathBuf;

/// The directory `var` names.
pub fn dir(var: &str, default: &str) -> PathBuf {
    PathBuf::from(setting(var).unwrap_or_else(|| default.to_string()))
}

/// A setting of PCP's: the environment, else `$PCP_CONF` (default
/// `/etc/pcp.conf`); `None` where neither has it.
pub fn setting(var: &str) -> Option<String> {
    if let Ok(d) = std::env::var(var) {
        return Some(d);
    }
    let conf = std::env::var("PCP_CONF").unwrap_or_else(|_| "/etc/pcp.conf".into());
    let key = format!("{var}=");
    std::fs::read_to_string(conf).ok().and_then(|t| {
        t.lines().find_map(|l| {
            l.trim()
                .strip_prefix(key.as_str())
                .map(|v| v.trim().trim_matches('"').to_string())
        })
    })
}

/// `$PCP_TMP_DIR`, where pmloggers leave their map files (under `pmlogger/`).
pub fn tmp_dir() -> PathBuf {
    dir("PCP_TMP_DIR", "/var/lib/pcp/tmp")
}

/// `$PCP_RUN_DIR`, where pmcd's and pmlogger's unix sockets are.
pub fn run_dir() -> PathBuf {
    dir("PCP_RUN_DIR", "/run/pcp")
}

/// `$PCP_TMP_DIR/pmlogger`: the pmloggers' map files (and the `primary` link).
pub fn logger_map_dir() -> PathBuf {
    tmp_dir().join("pmlogger")
}

/// Where pmlogger's unix sockets go, in the order tried: `$PCP_RUN_DIR`, then
/// `$HOME/.pcp/run` (for a user who cannot write the first).
pub fn logger_socket_dirs() -> Vec<PathBuf> {
    let mut v = vec![run_dir()];
    if let Some(home) = std::env::var_os("HOME") {
        v.push(PathBuf::from(home).join(".pcp").join("run"));
    }
    v
}

/// This machine's host name (gethostname), `localhost` where it has none.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// The archive libpcp's option parsing names when a time window option comes
/// without a source: `$PCP_ARCHIVE_DIR/<this host>`.
pub fn local_archive() -> String {
    let dir = dir("PCP_ARCHIVE_DIR", "/var/log/pcp/pmlogger");
    dir.join(hostname()).to_string_lossy().into_owned()
}
