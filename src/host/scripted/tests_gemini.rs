//! The Gemini shape's streams: SSE records and the JSON array, merged back.

use super::test_support::{first_request, ok, summary, weather};
use super::*;

/// Gemini's stream: a record per text piece and per call, the last with `finishReason`; the
/// JSON-array form holds the same records; both merge back into the whole answer.
#[test]
fn gemini_streams_merge_into_the_whole_answer() {
    let script = weather();
    let request = first_request(ApiShape::Gemini, &["get_weather"]);
    let whole = ok(&script, ApiShape::Gemini, &request);
    let Ok(events) = respond_stream(&script, ApiShape::Gemini, &request) else {
        panic!("stream");
    };
    assert!(events.len() >= 3, "{events:?}");
    assert!(
        events
            .iter()
            .all(|e| e.starts_with("data: ") && e.ends_with("\r\n\r\n"))
    );
    let joined = events.concat();
    let sse = crate::wire::sse::SseParser::parse(joined.as_bytes());
    let merged = crate::wire::reassemble::reassemble(ApiShape::Gemini, &sse).expect("merges");
    assert_eq!(
        summary(ApiShape::Gemini, &merged),
        summary(ApiShape::Gemini, &whole)
    );
    let Ok(answer) = answer(&script, ApiShape::Gemini, &request, None) else {
        panic!("answer");
    };
    let array = stream::gemini_array(&answer).concat();
    assert!(array.starts_with('[') && array.ends_with(']'), "{array}");
    let merged = crate::wire::reassemble::gemini_json_array(&array).expect("merges");
    assert_eq!(
        merged,
        crate::wire::reassemble::reassemble(ApiShape::Gemini, &sse).expect("sse")
    );
}
