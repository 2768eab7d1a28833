//! JSON-RPC classification of one recorded payload: any bytes get a kind, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::trace;

fuzz_target!(|data: &[u8]| {
    let message = trace::classify(data);
    let _ = (&message.params, &message.result, &message.error);
    // Classification reads the bytes; it must not depend on anything but them.
    assert_eq!(
        format!("{message:?}"),
        format!("{:?}", trace::classify(data))
    );
});
