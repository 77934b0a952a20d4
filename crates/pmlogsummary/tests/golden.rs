//! Golden tests: our pmlogsummary, run in-process, against the output of PCP
//! 6.0.3's kept under testdata/golden-pmlogsummary (made by
//! scripts/regen-golden-pmlogsummary.sh). These need no PCP installation.

#[test]
fn matches_reference_goldens() {
    test_support::assert_goldens("golden-pmlogsummary", 50, pmlogsummary::run);
}
