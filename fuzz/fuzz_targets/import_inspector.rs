//! The MCP Inspector export importer: any text is imported or refused without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::trace::import::inspector;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mtime = chrono::DateTime::from_timestamp(1_750_000_000, 0).expect("a time");
    if let Ok(imported) = inspector::parse(&text, None, mtime) {
        sightline_fuzz::check_imported(&imported, usize::MAX);
    }
});
