//! What the integration tests share: the project's test archives, and PCP's
//! pmlogrewrite.

use std::path::{Path, PathBuf};

/// PCP 6.0.3's pmlogrewrite (not on PATH: it lives with PCP's admin tools).
pub const REFERENCE: &str = "/usr/lib/pcp/bin/pmlogrewrite";

/// The project's test archive `name`, as a base name.
pub fn archive(name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/archives")
        .join(name);
    p.to_string_lossy().into_owned()
}
