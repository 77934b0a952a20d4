//! pmlogpush sends a whole archive to a `/logger` receiver: the files the receiver
//! stores are the archive's, and its failures are PCP's messages.

use test_support::receiver::{Mode, Receiver};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn push(args: &[&str]) -> (i32, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = pmlogpush::run(&args, &mut out, &mut err);
    (code, String::from_utf8_lossy(&err).into_owned())
}

fn port(r: &Receiver) -> String {
    r.url.rsplit(':').next().expect("port").to_string()
}

#[test]
fn the_stored_files_are_the_archives() {
    for name in ["sample_v2", "sample_v3", "marks"] {
        let r = Receiver::start(Mode::Store);
        let base = root().join("testdata/archives").join(name);
        let (code, err) = push(&["-v", "-p", &port(&r), base.to_str().expect("path")]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(
            err.contains("pushLabel: label POST result: {\"archive\":1,"),
            "{err}"
        );
        for (file, bytes) in r.files() {
            let ext = file.rsplit('.').next().expect("ext");
            let src = std::fs::read(base.with_extension(ext)).expect("source");
            assert_eq!(bytes, src, "{name}: {file}");
        }
        assert_eq!(r.files().len(), 3, "{name}");
    }
}

#[test]
fn a_late_reply_is_waited_for() {
    // libpcp times out connecting, never waiting for a reply (a loaded pmproxy
    // may take seconds to answer)
    let r = Receiver::start(Mode::LateLabel(std::time::Duration::from_millis(1500)));
    let base = root().join("testdata/archives/sample_v3");
    let (code, err) = push(&["-p", &port(&r), base.to_str().expect("path")]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(r.files().len(), 3);
}

#[test]
fn refusals_are_said_as_pcp_says_them() {
    let base = root().join("testdata/archives/sample_v3");
    let base = base.to_str().expect("path");
    let r = Receiver::start(Mode::RefuseLabel(409));
    let (code, err) = push(&["-p", &port(&r), base]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "pmlogpush: HTTP error: conflict (409) - archive already exists\n"
        )
    );
    let r = Receiver::start(Mode::RefuseWrite(410, 1));
    let (code, err) = push(&["-p", &port(&r), base]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "pmlogpush: /logger/volume/0/1 HTTP error: server error (410)\n"
        )
    );
    let free = test_support::free_port().to_string();
    let (code, err) = push(&["-p", &free, base]);
    let want = format!(
        "pmlogpush: http://localhost:{free} /logger/label POST failed: Connection refused\n"
    );
    assert_eq!((code, err), (1, want));
}
