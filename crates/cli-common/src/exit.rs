//! Exits as the PCP tools do: `tool: message` on stderr and a non-zero status.

use std::io::Write;

/// Prints `prog: msg` to stderr.
pub fn warn(prog: &str, msg: &str) {
    let _ = writeln!(std::io::stderr(), "{prog}: {msg}");
}

/// True when an I/O error is a closed pipe (`pmdumplog ... | head`): not a failure.
pub fn is_broken_pipe(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}
