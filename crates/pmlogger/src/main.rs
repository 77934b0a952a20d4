//! `pmlogger`: record metrics into a PCP archive. The work is in the library half.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stderr = std::io::stderr();
    let code = pmlogger::run(&args, &mut stderr.lock());
    std::process::exit(code);
}
