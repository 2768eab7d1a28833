//! The stdio tap's line splitter: whatever the bytes and however they are cut, the lines it
//! returns, each with its `\n`, followed by the unterminated tail, are the stream itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::tap::lines::LineSplitter;

fuzz_target!(|data: &[u8]| {
    let (chunks, stream) = sightline_fuzz::chunks(data);
    let mut splitter = LineSplitter::default();
    let mut rebuilt = Vec::with_capacity(stream.len());
    for chunk in &chunks {
        if let Some(lines) = splitter.feed(chunk) {
            assert!(!lines.is_empty());
            for line in lines.iter() {
                assert!(!line.contains(&b'\n'));
                rebuilt.extend_from_slice(line);
                rebuilt.push(b'\n');
            }
        }
    }
    if let Some(tail) = splitter.finish() {
        assert!(!tail.is_empty() && !tail.contains(&b'\n'));
        rebuilt.extend_from_slice(&tail);
    }
    assert_eq!(rebuilt, stream);
});
