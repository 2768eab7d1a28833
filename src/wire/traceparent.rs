//! W3C Trace Context's `traceparent`, as SEP-414 carries it in an MCP request's
//! `params._meta`: read strictly, so the OpenTelemetry export joins a caller's trace only on a
//! valid value and `validate` reports the others. Pure code, no I/O.

/// A valid W3C `traceparent` (version 00): trace id, parent span id, flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
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
    let trace_id: [u8; 16] = hex(trace)?;
    let span_id: [u8; 8] = hex(span)?;
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

/// Why a `traceparent` value is not a valid W3C one. Its `Display` is the English; `analysis`
/// says it in each language from the variant and the value quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A string not of the form `00-<32 hex>-<16 hex>-<2 hex>` with ids not all zero: the
    /// value, cut at 80 characters.
    Malformed(String),
    /// A JSON value that is not a string: its JSON, cut at 80 characters.
    NotString(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Malformed(shown) => write!(
                f,
                "`{shown}` is not a W3C traceparent (00-<32 lower-case hex>-<16 lower-case \
                 hex>-<2 hex>, ids not all zero); the OpenTelemetry export ignores it"
            ),
            Problem::NotString(shown) => write!(
                f,
                "`{shown}` is not a W3C traceparent (not a string); the OpenTelemetry export \
                 ignores it"
            ),
        }
    }
}

/// Why `s` is not a valid `traceparent`, or `None` when it is.
pub fn problem(s: &str) -> Option<Problem> {
    if parse_traceparent(s).is_some() {
        return None;
    }
    Some(Problem::Malformed(s.chars().take(80).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

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
}
