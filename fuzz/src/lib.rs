//! The modules under fuzz, compiled from the product's own source files.
//!
//! Sightline is one package whose library also holds the desktop app, so depending on it
//! would build eframe, wgpu, tokio, rmcp and reqwest with coverage instrumentation: minutes of
//! CI for code no target reaches. The modules fuzzed here are the pure ones, which by the
//! architecture's rules use nothing else in the crate (`trace` uses no other module; the line
//! splitter, the wire module's SSE parser and header redaction, and the wrap editor use only
//! std, serde_json, memchr, toml_edit for Codex's config and, for the data dir, directories). So this crate compiles those very files (`#[path]`, not copies) under the same
//! module paths, with the same dependencies and features. A module that starts to use
//! another part of the crate breaks this build, which `.ci/fuzz` reports.

#![allow(dead_code, unused_imports)]

#[path = "../../src/trace/mod.rs"]
pub mod trace;

// Flat `#[path]`s (a `#[path]` inside an inline module resolves through a folder that does not
// exist here), re-exported under the product's module paths.
#[path = "../../src/tap/lines.rs"]
#[doc(hidden)]
pub mod tap_lines;
// `lines` spills a long line through its sibling, named as `super::long_line`.
#[path = "../../src/tap/long_line.rs"]
#[doc(hidden)]
pub mod long_line;
#[path = "../../src/tap/wrap.rs"]
#[doc(hidden)]
pub mod tap_wrap;
// `wrap` names trace files with its sibling's one file-name rule, as `super::paths::file_stem`.
#[path = "../../src/tap/paths.rs"]
#[doc(hidden)]
pub mod paths;
#[path = "../../src/wire/redact.rs"]
#[doc(hidden)]
pub mod wire_redact;
#[path = "../../src/wire/sse.rs"]
#[doc(hidden)]
pub mod wire_sse;
#[path = "../../src/wire/gate.rs"]
#[doc(hidden)]
pub mod wire_gate;
#[path = "../../src/wire/redact_url.rs"]
#[doc(hidden)]
pub mod wire_redact_url;
// The LLM APIs' shapes by URL (serde only): the HAR importer's test for an LLM exchange.
#[path = "../../src/wire/api.rs"]
#[doc(hidden)]
pub mod wire_api;
// The exports' escaping (std only): the Markdown handout's, the HTML page's, the SVG's.
#[path = "../../src/export/markup.rs"]
#[doc(hidden)]
pub mod export_markup;
// `redact_url` names its sibling as `super::redact`.
#[doc(hidden)]
pub use wire_redact as redact;

pub mod tap {
    pub use super::long_line;
    pub use super::paths;
    pub use super::tap_lines as lines;
    pub use super::tap_wrap as wrap;
}

pub mod export {
    pub use super::export_markup as markup;
}

pub mod wire {
    pub use super::wire_api as api;
    pub use super::wire_gate as gate;
    pub use super::wire_redact as redact;
    pub use super::wire_redact_url as redact_url;
    pub use super::wire_sse as sse;
}

/// The HTTP hooks the HAR importer gets in the product (`host::provider::import_hooks`): the
/// wire module's header redaction, SSE parser and LLM API shapes.
pub fn import_hooks() -> trace::import::HttpHooks {
    trace::import::HttpHooks {
        redact: wire::redact::redact_headers,
        sse_data: |bytes| {
            wire::sse::SseParser::parse(bytes)
                .into_iter()
                .map(|e| e.data)
                .collect()
        },
        is_llm: |url| wire::api::ApiShape::from_url(url).is_some(),
    }
}

/// Splits `data` into chunks whose sizes come from its own first bytes, so one input gives the
/// fuzzer both a stream and a way to cut it.
pub fn chunks(data: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let (sizes, rest) = data.split_at(data.len().min(8));
    let mut out = Vec::new();
    let mut left = rest;
    for &size in sizes
        .iter()
        .cycle()
        .take(if sizes.is_empty() { 0 } else { 4096 })
    {
        if left.is_empty() {
            break;
        }
        let n = (usize::from(size) % 64 + 1).min(left.len());
        let (chunk, after) = left.split_at(n);
        out.push(chunk);
        left = after;
    }
    if !left.is_empty() {
        out.push(left);
    }
    (out, rest)
}

/// What every importer promises: events numbered 0, 1, 2, ... and warnings numbered from 1
/// (at most `units`, the number of lines when the importer counts lines).
pub fn check_imported(imported: &trace::import::Imported, units: usize) {
    for (i, event) in imported.events.iter().enumerate() {
        assert_eq!(event.seq, i as u64, "events are numbered in order");
    }
    for warning in &imported.warnings {
        assert!(warning.number >= 1 && warning.number <= units, "{warning}");
    }
}
