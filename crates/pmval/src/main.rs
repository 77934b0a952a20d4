//! `pmval`: one metric's values from an archive. The work is in the library half.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = pmval::run(&args, &mut stdout.lock(), &mut stderr.lock());
    std::process::exit(code);
}
