//! The command lines pmlc refuses, as PCP's pmlc refuses them: glibc's messages
//! for the options, then pmlc's own (which of `-P`, `-p`, a socket and a PID,
//! the port, the PID, `-h` alone), then the usage, and the exit status.

/// Mistakes alone and together: pmlc goes on after one, as PCP's does.
const REFUSED: &[&str] = &[
    "x",
    "0",
    "5 6",
    "-~ x",
    "-~ 5",
    "-~ -%",
    "-~ --nosuch x",
    "-p 0 x",
    "-p x -p 5",
    "-~ -p x",
    "-h localhost",
    "-h local:",
    "-h unix:/x 5",
    "-h unix:/tmp/s -P",
    "-P 5",
    "-P -P",
    "-p 4330 -P",
    "-?",
];

fn ours(args: &[&str]) -> (i32, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = pmlc::run(
        &args,
        &mut std::io::Cursor::new(Vec::new()),
        &mut out,
        &mut err,
    );
    (status, String::from_utf8_lossy(&err).into_owned())
}

fn pcp(args: &[&str]) -> (i32, String) {
    let o = std::process::Command::new("pmlc")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("PCP's pmlc runs");
    let status = o.status.code().unwrap_or(-1);
    (status, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn refused_as_pcp_refuses_them() {
    if !test_support::have_tool("pmlc") {
        return;
    }
    for line in REFUSED {
        let args: Vec<&str> = line.split_whitespace().collect();
        let want = pcp(&args);
        assert_ne!(want.0, 0, "PCP's pmlc {line} runs");
        assert_eq!(ours(&args), want, "pmlc {line}");
    }
}
