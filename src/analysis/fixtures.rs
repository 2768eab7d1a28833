//! Real recordings the analysis's unit tests share: the primitives tour in both revisions (every
//! primitive, server requests, progress), the weather loop and a rug pull. One list, so a test
//! that checks a shortcut against the whole analysis reads the same traces as the others.

/// The recordings, as their files hold them.
pub const RECORDINGS: [&str; 4] = [
    include_str!("../../tests/fixtures/narration/primitives-tour-2026-07-28.jsonl"),
    include_str!("../../benches/fixtures/primitives-tour-2025-11-25.jsonl"),
    include_str!("../../tests/fixtures/narration/weather.jsonl"),
    include_str!("../../tests/fixtures/narration/rug-pull.jsonl"),
];
