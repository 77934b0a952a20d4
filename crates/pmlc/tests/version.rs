//! `--version` (ours; PCP's pmlc has none): PCP's form first, then this
//! project's; `--help`: PCP's usage, then the options that are ours.

fn run(arg: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut input = std::io::Cursor::new(Vec::new());
    pmlc::run(&[arg.to_string()], &mut input, &mut out, &mut err);
    (out, err)
}

#[test]
fn version_and_help_say_what_is_ours() {
    test_support::assert_version("pmlc", &run("--version").0);
    test_support::assert_help_lists(
        "pmlc",
        &run("--help").1,
        &["--pcp-exit-status", "--version"],
    );
}
