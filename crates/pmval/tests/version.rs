//! `--version`: PCP's first line (scripts parse it), then this project's; `--help`:
//! PCP's usage, then the options that are ours.

fn run(arg: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    pmval::run(&[arg.to_string()], &mut out, &mut err);
    (out, err)
}

#[test]
fn version_and_help_say_what_is_ours() {
    test_support::assert_version("pmval", &run("--version").0);
    test_support::assert_help_lists("pmval", &run("--help").1, &["--csv", "--json", "--nearest"]);
}
