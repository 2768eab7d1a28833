//! The wrap config editor: any config text is wrapped or refused without a panic; what it
//! writes parses back to what it meant, and wrapping again changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::tap::wrap::{self, WrapOptions};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mut config) = wrap::parse_config(&text) else {
        return;
    };
    let options = WrapOptions {
        sightline: "/usr/local/bin/sightline".into(),
        trace_dir: Some("/tmp/traces".into()),
        session: None,
        http_port: 6280,
        port_is_free: |_| true,
    };
    if wrap::wrap(&mut config, &options).is_err() {
        return;
    }
    let rendered = wrap::render_like(&config, &text);
    let reparsed = wrap::parse_config(&rendered).expect("what wrap writes parses");
    assert_eq!(reparsed, config, "what wrap writes is what it meant");
    let mut again = config.clone();
    wrap::wrap(&mut again, &options).expect("a wrapped config wraps");
    assert_eq!(again, config, "wrapping twice changes nothing");
    let _ = wrap::http_routes(&config);
    let _ = wrap::unwrap(&mut config);
});
