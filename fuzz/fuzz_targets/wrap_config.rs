//! The wrap config editor: any config text, read as JSON and as TOML, is wrapped or refused
//! without a panic; what it writes parses back to what it meant, and wrapping again changes
//! nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::tap::wrap::{self, Format, WrapOptions};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for format in [Format::Json, Format::Toml] {
        let Ok(config) = format.parse(&text) else {
            continue;
        };
        let options = WrapOptions {
            sightline: "/usr/local/bin/sightline".into(),
            trace_dir: Some("/tmp/traces".into()),
            session: None,
            http_port: 6280,
            port_is_free: |_| true,
            proxy_args: Vec::new(),
        };
        let Ok(wrapped) = wrap::wrap_as(format, &text, &options) else {
            continue;
        };
        format.parse(&wrapped.text).expect("what wrap writes parses");
        let again = wrap::wrap_as(format, &wrapped.text, &options).expect("a wrapped config wraps");
        assert_eq!(again.text, wrapped.text, "wrapping twice changes nothing");
        let _ = wrap::http_routes_as(format, &wrapped.text);
        if let Ok(restored) = wrap::unwrap_as(format, &wrapped.text) {
            format.parse(&restored.text).expect("what unwrap writes parses");
        }
        drop(config);
    }
});
