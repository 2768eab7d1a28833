//! Trace and span ids, derived from the trace itself, and W3C `traceparent` parsing.
//!
//! Ids are hashes, not random numbers, so one recording is always one trace id and a span keeps
//! its id however often the trace is exported: a backend that receives the same trace twice
//! (live, then from the file) sees the same spans, not copies. The keys of the hashes use only
//! what a session merge does not change (times, lanes, JSON-RPC ids, call ids), never `seq`.

use sha2::{Digest as _, Sha256};

use crate::trace::Header;

/// A 16-byte trace id.
pub type TraceId = [u8; 16];
/// An 8-byte span id.
pub type SpanId = [u8; 8];

/// The trace id of a recording: from the session name when the trace belongs to a session (so
/// every proxy of the session streams into one trace), else from the header's start time and
/// title (one `run`, one trace).
pub fn trace_id(header: &Header) -> TraceId {
    let mut h = Sha256::new();
    match header.extra.get("session").and_then(|v| v.as_str()) {
        Some(session) => {
            h.update(b"sightline session\0");
            h.update(session.as_bytes());
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

/// A valid W3C `traceparent` (version 00): trace id, parent span id, flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    pub trace_id: TraceId,
    pub span_id: SpanId,
    pub flags: u8,
}

/// Parses `00-<32 hex>-<16 hex>-<2 hex>`; anything else (other versions with this layout are
/// read the same way, as the W3C spec asks) is `None`. All-zero ids are invalid.
pub fn parse_traceparent(s: &str) -> Option<TraceParent> {
    let parts: Vec<&str> = s.trim().split('-').collect();
    let [version, trace, span, flags, ..] = parts.as_slice() else {
        return None;
    };
    if version.len() != 2 || *version == "ff" || !is_lower_hex(version) {
        return None;
    }
    if *version == "00" && parts.len() != 4 {
        return None;
    }
    let trace_id: TraceId = hex(trace)?;
    let span_id: SpanId = hex(span)?;
    let [flags]: [u8; 1] = hex(flags)?;
    if trace_id == [0; 16] || span_id == [0; 8] {
        return None;
    }
    Some(TraceParent {
        trace_id,
        span_id,
        flags,
    })
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N || !is_lower_hex(s) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Lower-case hex of an id, as OTLP/JSON and `traceparent` spell it.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_is_read_strictly() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let p = parse_traceparent(good).expect("valid");
        assert_eq!(to_hex(&p.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(to_hex(&p.span_id), "00f067aa0ba902b7");
        assert_eq!(p.flags, 1);
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad:?}");
        }
        // A later version may append fields.
        assert!(
            parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x")
                .is_some()
        );
    }

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
        let t = trace_id(&a);
        assert_ne!(span_id(&t, "mcp", &[b"1"]), span_id(&t, "mcp", &[b"2"]));
        assert_eq!(span_id(&t, "mcp", &[b"1"]), span_id(&t, "mcp", &[b"1"]));
    }
}
