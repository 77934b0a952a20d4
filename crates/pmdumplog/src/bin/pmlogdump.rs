//! `pmlogdump`: PCP 6.0.4's name of pmdumplog, the same tool (see its crate).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = pmdumplog::run_as(
        &pmdumplog::PMLOGDUMP,
        &args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code)
}
