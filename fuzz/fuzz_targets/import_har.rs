//! The HAR importer, with the product's header redaction and SSE parser: any text is imported
//! or refused without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::trace::import::har;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(imported) = har::parse(&text, None, sightline_fuzz::import_hooks()) {
        sightline_fuzz::check_imported(&imported, usize::MAX);
    }
});
