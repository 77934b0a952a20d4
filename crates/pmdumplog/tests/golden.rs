//! Golden tests: our pmdumplog, run in-process, against the output of PCP 6.0.3's
//! pmdumplog kept under testdata/golden (made by scripts/regen-testdata.sh). These
//! need no PCP installation.

#[test]
fn matches_reference_goldens() {
    test_support::assert_goldens("golden", 40, pmdumplog::run);
}
