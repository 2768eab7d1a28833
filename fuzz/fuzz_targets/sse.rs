//! The SSE parser: no input panics it, and cutting a stream into chunks anywhere (inside a
//! CRLF, a UTF-8 sequence, the BOM) changes none of the events.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::wire::sse::SseParser;

fuzz_target!(|data: &[u8]| {
    let (chunks, stream) = sightline_fuzz::chunks(data);
    let whole = SseParser::parse(stream);
    let mut parser = SseParser::new();
    let mut cut = Vec::new();
    for chunk in &chunks {
        cut.extend(parser.feed(chunk));
    }
    let time = parser.reconnection_time();
    cut.extend(parser.finish());
    assert_eq!(cut, whole);
    let mut again = SseParser::new();
    again.feed(stream);
    assert_eq!(again.reconnection_time(), time);
});
