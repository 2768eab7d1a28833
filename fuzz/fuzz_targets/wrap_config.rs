//! The wrap config editor: any config text is wrapped or refused without a panic; what it
//! writes parses back to what it meant, and wrapping again changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::tap::wrap::{self, WrapOptions};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(config) = wrap::parse_config(&text) else {
        return;
    };
    let options = WrapOptions {
        sightline: "/usr/local/bin/sightline".into(),
        trace_dir: Some("/tmp/traces".into()),
        session: None,
        http_port: 6280,
        port_is_free: |_| true,
        proxy_args: Vec::new(),
    };
    let Ok(wrapped) = wrap::wrap(&text, &options) else {
        return;
    };
    wrap::parse_config(&wrapped.text).expect("what wrap writes parses");
    let again = wrap::wrap(&wrapped.text, &options).expect("a wrapped config wraps");
    assert_eq!(again.text, wrapped.text, "wrapping twice changes nothing");
    let _ = wrap::http_routes(&wrapped.text);
    if let Ok(restored) = wrap::unwrap(&wrapped.text) {
        wrap::parse_config(&restored.text).expect("what unwrap writes parses");
    }
    drop(config);
});
