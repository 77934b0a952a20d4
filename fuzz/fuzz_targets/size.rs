#![no_main]
use libfuzzer_sys::fuzz_target;

// pmlogsize's accounting of any file, with every detail asked for.
fuzz_target!(|data: &[u8]| {
    let want = pmlogsize::Want {
        detail: true,
        replication: true,
        verbose: 1,
        threshold: Some(50),
    };
    let _ = pmlogsize::report_of(data, &want);
});
