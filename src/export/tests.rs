//! The exports draw what the diagram says: the same labels in Mermaid, SVG and the summary.

use crate::analysis::diagram::{build, fixtures::streamable_http};
use crate::analysis::report;

#[test]
fn exports_show_the_http_labels() {
    let t = streamable_http();
    let r = report(&t.0);
    let d = build(&t.0, &r);
    let mermaid = crate::export::mermaid::render(&d, &t.0, &r);
    let svg = crate::export::svg::render(&d, &t.0, &r);
    for label in [
        "DELETE /mcp (end session)",
        "GET /mcp (open SSE stream)",
        "202 Accepted",
        "SSE priming event id p1",
        "404 Not Found",
    ] {
        assert!(mermaid.contains(label), "mermaid lacks {label}:\n{mermaid}");
        assert!(svg.contains(label), "svg lacks {label}");
    }
    // An error status is drawn as a failed arrow.
    assert!(
        mermaid.contains("--x") && mermaid.contains("404 Not Found · unknown or expired session"),
        "{mermaid}"
    );
    assert!(svg.contains(r#"class="row error error""#), "{svg}");

    // The text summary names them the same way.
    let t = streamable_http();
    let summary = crate::export::summary::text(&t.0, &report(&t.0));
    for line in [
        "C->S  DELETE /mcp (end session) (session 6fd170d9…)",
        "S->C  202 Accepted (to #3 notifications/initialized)",
        "S->C  404 Not Found (\"<pre>Cannot GET /nothere</pre>\", to #18 GET /nothere)  !! HTTP error",
    ] {
        assert!(summary.contains(line), "summary lacks {line}:\n{summary}");
    }
}

/// A trace file's event lines, read a line at a time through a small buffer, are the lines of
/// its text: CRLF endings, a last line without a newline, lines that are no event; a file that
/// is not UTF-8 is an error, as reading it into a `String` is.
#[test]
fn event_lines_read_a_line_at_a_time_are_those_of_the_text() {
    use crate::export::check::{event_lines, event_lines_read};
    let text = "{\"sightline_trace\":1}\r\n{\"seq\":0,\"x\":1}\r\n{\"seq\":12}\n\nnot an event {\"seq\":3}\n{\"seq\":7,\"raw\":\"é\"}";
    let lines = event_lines(text);
    let expected: crate::export::check::EventLines = [(0, 2), (12, 3), (7, 6)].into();
    assert_eq!(lines, expected);
    let small = std::io::BufReader::with_capacity(4, text.as_bytes());
    assert_eq!(event_lines_read(small).expect("utf-8"), expected);
    let mut bytes = text.as_bytes().to_vec();
    bytes.extend_from_slice(b"\n{\"seq\":8}\xff\n");
    assert!(event_lines_read(&bytes[..]).is_err());
}
