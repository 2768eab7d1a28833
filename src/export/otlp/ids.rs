//! Trace and span ids, derived from the trace itself (the W3C `traceparent` parser they are
//! read against is [`crate::wire::traceparent`]).
//!
//! Ids are hashes, not random numbers, so one recording is always one trace id and a span keeps
//! its id however often the trace is exported: a backend that receives the same trace twice
//! (live, then from the file) sees the same spans, not copies. The keys of the hashes use only
//! what a session merge does not change (times, lanes, JSON-RPC ids, call ids), never `seq`.

use sha2::{Digest as _, Sha256};

use crate::trace::Header;
pub use crate::wire::traceparent::{TraceParent, parse_traceparent};

/// A 16-byte trace id.
pub type TraceId = [u8; 16];
/// An 8-byte span id.
pub type SpanId = [u8; 8];

/// The trace id of a recording: from the session name when the trace belongs to a session (so
/// every proxy of the session streams into one trace), else from the header's start time and
/// title (one `run`, one trace). A member's header names the session as its proxy was given it
/// (`demo`, or a folder's path), the folder's merged header by the folder's name: the name is
/// the path's last component either way, so the members' live spans and the session's export
/// share one trace.
pub fn trace_id(header: &Header) -> TraceId {
    let mut h = Sha256::new();
    match header.extra.get("session").and_then(|v| v.as_str()) {
        Some(session) => {
            let name = std::path::Path::new(session)
                .file_name()
                .map_or(session.as_bytes(), |n| n.as_encoded_bytes());
            h.update(b"sightline session\0");
            h.update(name);
        }
        None => {
            h.update(b"sightline trace\0");
            h.update(header.created.as_bytes());
            h.update(b"\0");
            h.update(header.title.as_bytes());
        }
    }
    let digest = h.finalize();
    let mut id = [0u8; 16];
    id.copy_from_slice(&digest[..16]);
    if id == [0; 16] {
        id[15] = 1; // all-zero is invalid
    }
    id
}

/// The id of a span of `trace`, from what identifies it (`kind` names the span family, `key`
/// its instance).
pub fn span_id(trace: &TraceId, kind: &str, key: &[&[u8]]) -> SpanId {
    let mut h = Sha256::new();
    h.update(trace);
    h.update(kind.as_bytes());
    for part in key {
        h.update(b"\0");
        h.update(part);
    }
    let digest = h.finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    if id == [0; 8] {
        id[7] = 1;
    }
    id
}

/// Lower-case hex of an id, as OTLP/JSON and `traceparent` spell it.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_recording_is_one_trace_id() {
        let mut a = Header::new("weather");
        a.created = "2026-12-01T08:00:00.000000Z".into();
        let mut b = a.clone();
        assert_eq!(trace_id(&a), trace_id(&b));
        b.created = "2026-12-01T08:00:00.000001Z".into();
        assert_ne!(trace_id(&a), trace_id(&b));
        // Every member of a session shares the session's id, whatever its start time.
        a.extra.insert("session".into(), "demo".into());
        b.extra.insert("session".into(), "demo".into());
        assert_eq!(trace_id(&a), trace_id(&b));
        // Given as a folder's path, the session is the folder's name.
        b.extra.insert("session".into(), "/tmp/x/demo/".into());
        assert_eq!(trace_id(&a), trace_id(&b));
        let t = trace_id(&a);
        assert_ne!(span_id(&t, "mcp", &[b"1"]), span_id(&t, "mcp", &[b"2"]));
        assert_eq!(span_id(&t, "mcp", &[b"1"]), span_id(&t, "mcp", &[b"1"]));
    }
}
