//! `pmlogdecompress`: decompress the files of PCP archives (see the crate).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = pmlogcompress::run_as(
        &pmlogcompress::DE_TOOL,
        &args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code)
}
