//! The Claude Desktop log importer: any text imports without a panic, as events numbered
//! 0, 1, 2, ... and warnings numbered by line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::trace::import::claude_desktop;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count();
    for name in [None, Some("weather")] {
        let imported = claude_desktop::parse(&text, name);
        sightline_fuzz::check_imported(&imported, lines);
    }
});
