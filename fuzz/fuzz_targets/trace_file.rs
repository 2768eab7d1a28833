//! The trace reader and what every command does next: loading any bytes as a trace (a bad
//! line is a warning, never a panic), then analysing the events and reading their payloads.
//! Each line also reads as serde_json reads it: `Event::from_line`'s own unescaping of the
//! payload gives the same event, or the same error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::trace;

fuzz_target!(|data: &[u8]| {
    for line in data.split(|&b| b == b'\n') {
        let ours = trace::Event::from_line(line).map_err(|e| e.to_string());
        let serde = serde_json::from_slice::<trace::Event>(line).map_err(|e| e.to_string());
        assert_eq!(ours, serde, "{:?}", String::from_utf8_lossy(line));
    }
    let Ok(loaded) = trace::load_from_reader(data) else {
        return;
    };
    assert!(
        loaded.warnings.iter().all(|w| w.line >= 2),
        "line 1 is the header"
    );
    assert!(loaded.warnings.is_sorted_by_key(|w| w.line));
    for event in &loaded.events {
        if event.raw.is_some() || event.raw_b64().is_some() {
            let _ = event.text();
            let _ = event.bytes();
        }
    }
    let analysis = trace::analyze(&loaded.events);
    assert_eq!(analysis.derived.len(), loaded.events.len());
    for d in &analysis.derived {
        if let Some(us) = d.latency_us() {
            assert!(us >= 0, "a latency is never negative");
        }
    }
});
