//! `pmlogcompress`: compress the files of PCP archives. All the work is in the
//! library half of this crate.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = pmlogcompress::run(
        &args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code)
}
