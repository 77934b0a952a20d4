#![no_main]
//! The push's HTTP reply parser, the `/logger/label` reply scan and the TLS
//! configuration's parser: any bytes give a reply or an error, never a panic;
//! what parses keeps its body whole.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(reply) = pmlogpush::http::parse_reply(data) {
        assert!(reply.body.len() <= data.len());
        let _ = pmlogpush::logger::archive_id(&String::from_utf8_lossy(&reply.body));
    }
    let _ = pmlogpush::logger::archive_id(&String::from_utf8_lossy(data));
    let _ = pmlogpush::tls::Settings::parse(&String::from_utf8_lossy(data));
});
