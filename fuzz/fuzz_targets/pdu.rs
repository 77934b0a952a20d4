#![no_main]
//! The PDU decoders: pmlc and pmlogger's PDUs, and pmcd's replies. Whatever
//! decodes encodes back to a PDU that decodes to the same thing.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = pdu::decode(data) {
        assert_eq!(pdu::decode(&pdu::encode(&p)).ok(), Some(p));
    }
    let _ = pdu::pmcd::decode_reply(data);
});
