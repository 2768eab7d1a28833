//! A Server-Sent Events parser, after the WHATWG `text/event-stream` format.
//!
//! Lines end with CRLF, LF or CR (a CRLF split across two reads counts once). A line is a
//! field `name: value` (one space after the colon dropped), a comment starting with `:`, or a
//! blank line that dispatches the event built so far. `data:` lines are joined with `\n`;
//! `event:` names the event; `id:` sets the last event ID, which every later event carries;
//! `retry:` (digits only) sets the reconnection time. An event with no `data:` line is not
//! dispatched. A UTF-8 byte order mark at the very start is skipped; invalid UTF-8 becomes
//! U+FFFD in `data`, and the exact bytes are kept beside it (`raw_data`) for a recorder.
//!
//! One deliberate leniency: [`SseParser::finish`] dispatches an event whose blank line never
//! came (the stream ended right after its last `data:` line), where a browser would drop it.
//! A recorder should show what was sent, and servers that forget the final blank line exist.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; `None` for the default type, `message`.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event ID when the event was dispatched (it carries over between events).
    pub id: Option<String>,
    /// The `retry:` value given in this event's block, in milliseconds.
    pub retry: Option<u64>,
    /// The data's exact bytes when they are not UTF-8 (`data` then holds U+FFFD in their
    /// place); `None` when `data` is exact.
    pub raw_data: Option<Vec<u8>>,
}

impl SseEvent {
    /// The event type: the `event:` field, or `message`.
    pub fn kind(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }

    /// The event as `text/event-stream` text, which [`SseParser`] reads back as this event:
    /// its `id:`, `event:` and `retry:` fields when set, one `data:` line per line of `data`
    /// (one `data: ` line for empty data), and the blank line that dispatches it.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.data.len() + 16);
        if let Some(id) = &self.id {
            out.push_str(&format!("id: {id}\n"));
        }
        if let Some(event) = &self.event {
            out.push_str(&format!("event: {event}\n"));
        }
        if let Some(retry) = self.retry {
            out.push_str(&format!("retry: {retry}\n"));
        }
        for line in self.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
        out
    }
}

/// An incremental parser: feed it bytes as they arrive, take the events they complete.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    after_cr: bool,
    first_line_seen: bool,
    event: Option<String>,
    data: String,
    /// The data's bytes, kept only once a line of this event was not UTF-8.
    raw_data: Option<Vec<u8>>,
    retry: Option<u64>,
    last_id: Option<String>,
    reconnection_time: Option<u64>,
}

impl SseParser {
    pub fn new() -> Self {
        SseParser::default()
    }

    /// Parses a whole stream.
    pub fn parse(bytes: &[u8]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events = parser.feed(bytes);
        events.extend(parser.finish());
        events
    }

    /// Consumes `chunk` and returns the events it completes.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            // The previous chunk ended with CR: a LF here belongs to the same line ending.
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
            self.after_cr = false;
        }
        while let Some(at) = memchr::memchr2(b'\n', b'\r', rest) {
            self.line.extend_from_slice(&rest[..at]);
            let ending = rest[at];
            rest = &rest[at + 1..];
            self.end_line(&mut out);
            if ending == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
        out
    }

    /// Ends the stream: a last line without its line ending is processed, and an event still
    /// waiting for its blank line is dispatched.
    pub fn finish(mut self) -> Option<SseEvent> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut out);
        }
        self.dispatch(&mut out);
        out.pop()
    }

    /// The reconnection time from the latest valid `retry:` field, in milliseconds.
    pub fn reconnection_time(&self) -> Option<u64> {
        self.reconnection_time
    }

    /// Handles the line gathered so far; its buffer is kept (emptied) for the next line, so a
    /// stream of events allocates no buffer per line.
    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let mut bytes = std::mem::take(&mut self.line);
        self.handle_line(&bytes, out);
        bytes.clear();
        self.line = bytes;
    }

    fn handle_line(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        let lossy = String::from_utf8_lossy(bytes);
        // Borrowed exactly when the line is valid UTF-8.
        let exact = matches!(lossy, std::borrow::Cow::Borrowed(_));
        let mut line: &str = &lossy;
        let bom = !self.first_line_seen && bytes.starts_with("\u{feff}".as_bytes());
        if !self.first_line_seen {
            self.first_line_seen = true;
            if let Some(stripped) = line.strip_prefix('\u{feff}') {
                line = stripped;
            }
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return; // a comment
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                if !exact && self.raw_data.is_none() {
                    self.raw_data = Some(self.data.as_bytes().to_vec());
                }
                if let Some(raw) = &mut self.raw_data {
                    let line = &bytes[if bom { 3 } else { 0 }..];
                    let value = line
                        .iter()
                        .position(|&b| b == b':')
                        .map_or(&[][..], |at| &line[at + 1..]);
                    raw.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
                    raw.push(b'\n');
                }
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                    self.reconnection_time = Some(ms);
                }
            }
            _ => {} // unknown fields are ignored
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take().filter(|name| !name.is_empty());
        let retry = self.retry.take();
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the `\n` after the last data line
        let raw_data = self.raw_data.take().map(|mut raw| {
            raw.pop();
            raw
        });
        out.push(SseEvent {
            event,
            data,
            id: self.last_id.clone(),
            retry,
            raw_data,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: Option<&str>, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent {
            event: event.map(str::to_string),
            data: data.to_string(),
            id: id.map(str::to_string),
            retry: None,
            raw_data: None,
        }
    }

    #[test]
    fn events_data_lines_and_blank_line_dispatch() {
        let text = "event: message_start\ndata: {\"a\":1}\n\ndata: one\ndata: two\n\n";
        assert_eq!(
            SseParser::parse(text.as_bytes()),
            vec![
                ev(Some("message_start"), "{\"a\":1}", None),
                ev(None, "one\ntwo", None)
            ]
        );
    }

    #[test]
    fn crlf_and_lone_cr_line_endings() {
        let text = "event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n";
        let events = SseParser::parse(text.as_bytes());
        assert_eq!(
            events,
            vec![
                ev(Some("a"), "1", None),
                ev(Some("b"), "2", None),
                ev(None, "3", None)
            ]
        );
    }

    #[test]
    fn comments_ids_retry_and_unknown_fields() {
        let text = ": keep-alive\nid: 7\nretry: 1500\nfoo: bar\ndata: x\n\ndata: y\n\nid\ndata: z\n\nretry: soon\ndata: w\n\n";
        let mut parser = SseParser::new();
        let events = parser.feed(text.as_bytes());
        assert_eq!(events.len(), 4);
        assert_eq!(events[0].id.as_deref(), Some("7"));
        assert_eq!(events[0].retry, Some(1500));
        assert_eq!(
            events[1].id.as_deref(),
            Some("7"),
            "the last id carries over"
        );
        assert_eq!(events[1].retry, None);
        assert_eq!(events[2].id.as_deref(), Some(""), "a bare `id` resets it");
        assert_eq!(events[3].retry, None, "non-digit retry is ignored");
        assert_eq!(parser.reconnection_time(), Some(1500));
    }

    #[test]
    fn colon_spacing_empty_data_and_events_without_data() {
        let text = "data:no-space\n\ndata:  two spaces\n\ndata\n\ndata:\n\nevent: lonely\n\ndata: after\n\n";
        assert_eq!(
            SseParser::parse(text.as_bytes()),
            vec![
                ev(None, "no-space", None),
                ev(None, " two spaces", None),
                ev(None, "", None),
                ev(None, "", None),
                ev(None, "after", None),
            ],
            "an event with no data is not dispatched and its type does not leak"
        );
    }

    #[test]
    fn chunks_split_anywhere_give_the_same_events() {
        let text = "\u{feff}event: delta\r\ndata: h\u{e9}llo \u{1f600}\r\n\r\ndata: [DONE]\r\n\r\n";
        let whole = SseParser::parse(text.as_bytes());
        assert_eq!(
            whole,
            vec![
                ev(Some("delta"), "h\u{e9}llo \u{1f600}", None),
                ev(None, "[DONE]", None)
            ]
        );
        let bytes = text.as_bytes();
        for size in 1..bytes.len() {
            let mut parser = SseParser::new();
            let mut events = Vec::new();
            for chunk in bytes.chunks(size) {
                events.extend(parser.feed(chunk));
            }
            events.extend(parser.finish());
            assert_eq!(events, whole, "chunk size {size}");
        }
    }

    #[test]
    fn finish_dispatches_a_last_event_without_its_blank_line() {
        assert_eq!(
            SseParser::parse(b"data: a\n\ndata: [DONE]"),
            vec![ev(None, "a", None), ev(None, "[DONE]", None)]
        );
        assert_eq!(SseParser::parse(b"event: x\n"), vec![]);
        assert_eq!(SseParser::parse(b""), vec![]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let events = SseParser::parse(b"data: ok\ndata: a\xffb\ndata:c\n\ndata: d\n\n");
        let mut lossy = ev(None, "ok\na\u{fffd}b\nc", None);
        lossy.raw_data = Some(b"ok\na\xffb\nc".to_vec());
        assert_eq!(events, vec![lossy, ev(None, "d", None)]);
    }

    #[test]
    fn an_event_written_as_text_reads_back_as_itself() {
        let events = [
            SseEvent {
                event: Some("message".into()),
                data: "{\"a\":1}\nsecond line".into(),
                id: Some("7".into()),
                retry: Some(3000),
                raw_data: None,
            },
            SseEvent {
                data: String::new(),
                id: Some("7".into()),
                ..SseEvent::default()
            },
        ];
        let text: String = events.iter().map(SseEvent::text).collect();
        assert_eq!(SseParser::parse(text.as_bytes()), events);
    }
}
