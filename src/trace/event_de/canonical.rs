//! Reading an event line as the writer writes it ([`crate::trace::writer`]), by hand.
//!
//! Nearly every line a trace holds was written by Sightline in one shape: `{"seq":N,"time":"…",
//! "from":"…","to":"…","channel":"…"`, the payload as `,"raw":"…"`, then any other members and
//! `}`. serde_json reads the payload's string twice before it is unescaped (once to find its
//! end, once to check it is UTF-8); here the string is found, unescaped and checked in one pass
//! ([`unescape_prefix`]), which on a trace of LLM requests is most of the loading. The members
//! after the payload (HTTP details, process details, fields a later version added) are few and
//! small, and serde's reader reads them ([`Slots::read`]). Any line that strays from the shape
//! by a byte (white space, escapes in the route, members in another order) is left to the
//! general reader, which gives the same event or the error serde_json gives.

use super::Slots;
use crate::trace::escape::unescape_prefix;
use crate::trace::event::{Channel, Event, Lane, time_serde};

/// The event `line` holds when it has the writer's shape and reads exactly as serde_json
/// would read it; `None` sends the line to the general reader.
pub(super) fn read(line: &[u8]) -> Option<Event> {
    let mut at = Cursor(line);
    at.tag(b"{\"seq\":")?;
    let seq = at.number()?;
    at.tag(b",\"time\":")?;
    let time = time_serde::parse(at.plain()?).ok()?;
    at.tag(b",\"from\":")?;
    let from = Lane::from(at.plain()?);
    at.tag(b",\"to\":")?;
    let to = Lane::from(at.plain()?);
    at.tag(b",\"channel\":")?;
    let channel = Channel::named(at.plain()?);
    let raw = match at.tag(b",\"raw\":\"") {
        Some(()) => {
            let (text, used) = unescape_prefix(at.0)?;
            at.0 = &at.0[used..];
            Some(text)
        }
        None => None,
    };
    let mut slots = Slots {
        seq: Some(seq),
        time: Some(time),
        from: Some(from),
        to: Some(to),
        channel: Some(channel),
        raw: raw.map(Some),
        ..Slots::default()
    };
    let extra = match at.0.split_first()? {
        (b'}', after)
            if after
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) =>
        {
            serde_json::Map::new()
        }
        // The other members, read as an object of their own by the general reader's rules (a
        // member read above, repeated, is its "duplicate field" error: the line is read again).
        (b',', more) => {
            let mut object = Vec::with_capacity(more.len() + 1);
            object.push(b'{');
            object.extend_from_slice(more);
            let mut de = serde_json::Deserializer::from_slice(&object);
            let extra = serde::de::DeserializeSeed::deserialize(Rest(&mut slots), &mut de).ok()?;
            de.end().ok()?;
            extra
        }
        _ => return None,
    };
    slots.event::<serde_json::Error>(extra).ok()
}

/// What is left of a line, read from the front.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// Steps over `tag` when the line goes on with it.
    fn tag(&mut self, tag: &[u8]) -> Option<()> {
        self.0 = self.0.strip_prefix(tag)?;
        Some(())
    }

    /// A `u64` as serde_json writes one: digits, no leading zero, then a `,`.
    fn number(&mut self) -> Option<u64> {
        let digits = self.0.iter().take_while(|b| b.is_ascii_digit()).count();
        let (text, rest) = self.0.split_at(digits);
        if text.is_empty() || (text[0] == b'0' && text.len() > 1) || rest.first() != Some(&b',') {
            return None;
        }
        self.0 = rest;
        text.iter().try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
    }

    /// A string with nothing to unescape (a time, a lane, a channel), without its quotes.
    fn plain(&mut self) -> Option<&'a str> {
        let rest = self.0.strip_prefix(b"\"")?;
        let end = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest[end] != b'"' {
            return None;
        }
        self.0 = &rest[end + 1..];
        std::str::from_utf8(&rest[..end]).ok()
    }
}

/// The members of a line after its payload, read into the slots the hand-read ones filled.
struct Rest<'s>(&'s mut Slots);

impl<'de> serde::de::DeserializeSeed<'de> for Rest<'_> {
    type Value = serde_json::Map<String, serde_json::Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Rest<'_> {
    type Value = serde_json::Map<String, serde_json::Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the rest of a trace event")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        self.0.read::<A, true>(&mut map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#"{"seq":7,"time":"2026-11-29T22:52:27.123456Z","from":"host","to":"server:w","channel":"llm-http""#;

    /// What the general reader (serde_json) makes of `line`: the same event, or an error.
    fn serde(line: &[u8]) -> Result<Event, String> {
        serde_json::from_slice::<Event>(line).map_err(|e| e.to_string())
    }

    #[test]
    fn the_writers_lines_are_read_here_as_serde_json_reads_them() {
        let written = [
            format!("{HEAD},\"raw\":\"{{\\\"a\\\":[1,\\\"\\u00e9\\\\n\\\"]}}\"}}\n"),
            format!("{HEAD},\"raw\":\"\"}}"),
            format!("{HEAD}}}\r\n"),
            format!("{HEAD},\"raw\":\"x\",\"http\":{{\"status\":200,\"headers\":[[\"a\",\"b\"]]}}}}\n"),
            format!("{HEAD},\"raw_b64\":\"eA==\"}}"),
            format!("{HEAD},\"raw\":\"x\",\"later\":{{\"k\":[1,2]}},\"more\":null}}"),
            format!("{HEAD},\"raw\":null}}"),
            r#"{"seq":0,"time":"2026-11-29T22:52:27Z","from":"user","to":"host","channel":"note","raw":"é ✓ 😀"}"#.to_string(),
        ];
        for line in &written {
            let here = read(line.as_bytes());
            assert!(here.is_some(), "read here: {line}");
            assert_eq!(
                here.ok_or_else(String::new),
                serde(line.as_bytes()),
                "{line}"
            );
        }
    }

    #[test]
    fn a_line_off_the_writers_shape_is_left_to_the_general_reader() {
        let off = [
            // White space, another order, escapes in the route, numbers serde reads otherwise.
            format!("{} }}", HEAD.replace(":7,", ": 7,")),
            HEAD.replace("\"seq\":7,", "\"seq\":07,") + "}",
            HEAD.replace("\"seq\":7,", "\"seq\":7.0,") + "}",
            HEAD.replace("\"seq\":7,", "\"seq\":18446744073709551616,") + "}",
            HEAD.replace("\"host\"", "\"ho\\u0073t\"") + "}",
            // A payload serde_json refuses, or reads as no text.
            format!("{HEAD},\"raw\":\"a\u{1}b\"}}"),
            format!("{HEAD},\"raw\":\"\\x\"}}"),
            format!("{HEAD},\"raw\":\"\\ud800\"}}"),
            format!("{HEAD},\"raw\":\"unterminated}}"),
            // A member repeated after the payload, something after the object.
            format!("{HEAD},\"raw\":\"a\",\"raw\":\"b\"}}"),
            format!("{HEAD},\"raw\":\"a\",\"seq\":8}}"),
            format!("{HEAD},\"raw\":\"a\"}} x"),
            format!("{HEAD},\"raw\":\"a\"}}}}"),
            format!("{HEAD},\"raw\":\"a\","),
        ];
        for line in &off {
            assert!(read(line.as_bytes()).is_none(), "left alone: {line}");
            let general = Event::from_line(line.as_bytes()).map_err(|e| e.to_string());
            assert_eq!(general, serde(line.as_bytes()), "{line}");
        }
        // Bytes that are not UTF-8, in the payload or the route.
        for bad in [
            [HEAD.as_bytes(), b",\"raw\":\"a\xffb\"}"].concat(),
            [HEAD.as_bytes(), b",\"raw\":\"\xc3\\n\"}"].concat(),
            HEAD.replace("host", "h\u{1}st").into_bytes(),
            [
                &HEAD.as_bytes()[..70],
                b"\xe2\x82",
                &HEAD.as_bytes()[70..],
                b"}",
            ]
            .concat(),
        ] {
            assert!(read(&bad).is_none());
            let general = Event::from_line(&bad).map_err(|e| e.to_string());
            assert!(
                general.is_err() && serde(&bad).is_err(),
                "refused both ways"
            );
        }
    }
}
