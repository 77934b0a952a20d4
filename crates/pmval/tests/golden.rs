//! Golden tests: our pmval, run in-process, against the output of PCP 6.0.3's pmval
//! kept under testdata/golden-pmval (made by scripts/regen-testdata.sh). These need
//! no PCP installation.

#[test]
fn matches_reference_goldens() {
    test_support::assert_goldens("golden-pmval", 30, pmval::run);
}
