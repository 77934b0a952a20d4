//! The benchmarks' floor for an `.xz` file of several blocks: its blocks
//! decoded on every core, where its stream's index places them, the bytes
//! thrown away (`compress::xz_by_blocks`). Exits 2, having decoded nothing,
//! where a file is not of several blocks (the benchmark then runs `xz -dc`).
//! Usage: unxz FILE...

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        let decoded = std::fs::File::open(&path)
            .and_then(|f| archive_format::compress::xz_by_blocks(&f, &|_, _| Ok(())));
        match decoded {
            Ok(true) => {}
            Ok(false) => status = ExitCode::from(2),
            Err(e) => {
                eprintln!("unxz: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    status
}
