//! pmloglabel killed (SIGKILL) at moments from before its first write to after
//! its last: the next run completes or leaves the change, so every file's label
//! agrees, and no file of the killed run stays.

use archive_format::codec::label::decode_label;
use std::process::Command;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_pmloglabel");

fn hosts(base: &str) -> Vec<String> {
    ["0", "index", "meta"]
        .iter()
        .map(|e| {
            let bytes = std::fs::read(format!("{base}.{e}")).expect("reads");
            decode_label(&bytes).expect("a whole label").hostname
        })
        .collect()
}

#[test]
fn a_killed_change_is_all_or_nothing_after_the_next_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = test_support::wide_archive(dir.path(), 2000);
    for (k, micros) in [0u64, 300, 700, 1500, 3000, 6000, 20000].iter().enumerate() {
        let before = hosts(&base)[0].clone();
        let new = format!("host{k}");
        let mut child = Command::new(BIN)
            .args(["-h", &new, &base])
            .spawn()
            .expect("starts");
        std::thread::sleep(Duration::from_micros(*micros));
        let _ = child.kill();
        let _ = child.wait();
        // the next run completes a change a killed run began, and finds the
        // labels agree
        let check = Command::new(BIN).arg(&base).output().expect("runs");
        assert_eq!(check.status.code(), Some(0), "{check:?}");
        let now = hosts(&base);
        assert!(
            now.iter().all(|h| *h == now[0]) && (now[0] == before || now[0] == new),
            "labels {now:?} after a kill at {micros} us (was {before}, asked {new})"
        );
        assert_eq!(test_support::hidden_files(dir.path()), Vec::<String>::new());
    }
}
