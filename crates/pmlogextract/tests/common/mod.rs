//! Helpers shared by pmlogextract's integration tests.

use std::path::Path;

/// An output file's bytes with its label's pid zeroed (the one field that differs
/// between two runs of the same extraction).
pub fn masked(path: &Path) -> Vec<u8> {
    let mut b = std::fs::read(path).expect("output file");
    if b.len() >= 12 {
        b[8..12].copy_from_slice(&[0; 4]);
    }
    b
}
