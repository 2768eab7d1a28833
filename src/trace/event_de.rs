//! Reading [`Event`]s (and their [`HttpInfo`] and [`ProcessInfo`]) from JSON, by hand.
//!
//! Loading is reading a million of these. serde's derive with a flattened `extra` map buffers
//! every member of an object into an intermediate tree before it looks at any of them; these
//! readers take each member as it comes, keep the ones they know and put the others, as they
//! were, in `extra`. They read what the derive read: a missing required member, a duplicated
//! known member or a wrong type is the same error, and `null` reads as absent for the optional
//! members.
//!
//! A trace line is read by [`Event::from_line`]: a line as the writer writes it by hand
//! ([`canonical`]), then the payload's string taken as it lies in the line and unescaped once
//! ([`super::escape::unescape`]); any line neither reads exactly as serde_json would is read
//! again by serde_json, for its answer or its error.

use std::borrow::Cow;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::event::{Channel, Event, HttpInfo, Lane, ProcessInfo, time_serde};
use super::shared::Shared;

mod canonical;

/// A member name, borrowed when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// Sets `slot` once; a second time is serde's "duplicate field" error.
fn once<T, E: serde::de::Error>(slot: &mut Option<T>, name: &'static str, v: T) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(v);
    Ok(())
}

/// Reads the members of an object: `known` takes the ones it knows (returning `false` for any
/// other), and every other member is kept, as it was, in the returned map.
fn members<'de, A: MapAccess<'de>>(
    map: &mut A,
    mut known: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<Map<String, Value>, A::Error> {
    let mut extra = Map::new();
    while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
        if !known(&key, map)? {
            let value = map.next_value::<Value>()?;
            extra.insert(key.into_owned(), value);
        }
    }
    Ok(extra)
}

/// An object read by [`members`]: implement `read`, get `Deserialize`.
trait FromMembers: Sized {
    const EXPECTING: &'static str;
    fn read<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

struct ObjectVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: FromMembers> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::read(map)
    }
}

fn object<'de, D: Deserializer<'de>, T: FromMembers>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(ObjectVisitor(std::marker::PhantomData))
}

/// The timestamp of an event, read with [`time_serde`].
struct Time(DateTime<Utc>);

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        time_serde::deserialize(d).map(Time)
    }
}

/// Reads `raw` as serde_json would into a `Box<str>` (`BORROWED: false`), or from the string
/// as it lies in the line (`true`; see [`Event::from_line`]).
fn raw_member<'de, A: MapAccess<'de>, const BORROWED: bool>(
    map: &mut A,
) -> Result<Option<Box<str>>, A::Error> {
    if !BORROWED {
        return map.next_value::<Option<Box<str>>>();
    }
    match map.next_value::<Option<&'de serde_json::value::RawValue>>()? {
        None => Ok(None),
        Some(literal) => super::escape::unescape(literal.get())
            .map(Some)
            .ok_or_else(|| A::Error::custom("a payload for serde_json to read")),
    }
}

/// An event read by [`Event::from_line`].
struct Line(Event);

impl FromMembers for Line {
    const EXPECTING: &'static str = "a trace event";
    fn read<'de, A: MapAccess<'de>>(map: A) -> Result<Line, A::Error> {
        read_event::<A, true>(map).map(Line)
    }
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d)
    }
}

impl Event {
    /// The event one line of a trace holds: what `serde_json::from_slice::<Event>` reads,
    /// the same event or the same error, without serde_json's copies of the payload.
    pub fn from_line(line: &[u8]) -> Result<Event, serde_json::Error> {
        if let Some(event) = canonical::read(line) {
            return Ok(event);
        }
        serde_json::from_slice::<Line>(line)
            .map(|l| l.0)
            .or_else(|_| serde_json::from_slice::<Event>(line))
    }
}

impl FromMembers for Event {
    const EXPECTING: &'static str = "a trace event";
    fn read<'de, A: MapAccess<'de>>(map: A) -> Result<Event, A::Error> {
        read_event::<A, false>(map)
    }
}

/// The members of an event read so far: [`read_event`] fills them from nothing,
/// [`canonical`] from the members it read by hand.
#[derive(Default)]
struct Slots {
    seq: Option<u64>,
    time: Option<DateTime<Utc>>,
    from: Option<Lane>,
    to: Option<Lane>,
    channel: Option<Channel>,
    raw: Option<Option<Box<str>>>,
    raw_b64: Option<Option<Box<str>>>,
    process: Option<Option<ProcessInfo>>,
    http: Option<Option<HttpInfo>>,
}

impl Slots {
    /// Reads the rest of an event's members into these slots, its payload as [`raw_member`]
    /// says; a member already in a slot is serde's "duplicate field". Returns the members it
    /// does not know.
    fn read<'de, A: MapAccess<'de>, const BORROWED: bool>(
        &mut self,
        map: &mut A,
    ) -> Result<Map<String, Value>, A::Error> {
        members(map, |key, map| {
            match key {
                "seq" => once(&mut self.seq, "seq", map.next_value::<u64>()?)?,
                "time" => once(&mut self.time, "time", map.next_value::<Time>()?.0)?,
                "from" => once(&mut self.from, "from", map.next_value::<Lane>()?)?,
                "to" => once(&mut self.to, "to", map.next_value::<Lane>()?)?,
                "channel" => once(&mut self.channel, "channel", map.next_value::<Channel>()?)?,
                "raw" => once(&mut self.raw, "raw", raw_member::<A, BORROWED>(map)?)?,
                "raw_b64" => once(
                    &mut self.raw_b64,
                    "raw_b64",
                    map.next_value::<Option<Box<str>>>()?,
                )?,
                "process" => once(
                    &mut self.process,
                    "process",
                    map.next_value::<Option<ProcessInfo>>()?,
                )?,
                "http" => once(
                    &mut self.http,
                    "http",
                    map.next_value::<Option<HttpInfo>>()?,
                )?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// The event these members make, `extra` being the members no slot took.
    fn event<E: serde::de::Error>(self, extra: Map<String, Value>) -> Result<Event, E> {
        let mut event = Event {
            seq: self.seq.ok_or_else(|| E::missing_field("seq"))?,
            time: self.time.ok_or_else(|| E::missing_field("time"))?,
            from: self.from.ok_or_else(|| E::missing_field("from"))?,
            to: self.to.ok_or_else(|| E::missing_field("to"))?,
            channel: self.channel.ok_or_else(|| E::missing_field("channel"))?,
            raw: self.raw.flatten(),
            aside: None,
        };
        event.set_raw_b64(self.raw_b64.flatten());
        event.set_process(self.process.flatten());
        event.set_http(self.http.flatten());
        if !extra.is_empty() {
            *event.extra_mut() = extra;
        }
        Ok(event)
    }
}

/// The members of an event, its payload read as [`raw_member`] says.
fn read_event<'de, A: MapAccess<'de>, const BORROWED: bool>(mut map: A) -> Result<Event, A::Error> {
    let mut slots = Slots::default();
    let extra = slots.read::<A, BORROWED>(&mut map)?;
    slots.event(extra)
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d)
    }
}

impl FromMembers for HttpInfo {
    const EXPECTING: &'static str = "struct HttpInfo";
    fn read<'de, A: MapAccess<'de>>(mut map: A) -> Result<HttpInfo, A::Error> {
        let (mut method, mut url, mut status) = (None, None, None);
        let (mut headers, mut redacted) = (None, None);
        let extra = members(&mut map, |key, map| {
            match key {
                "method" => once(&mut method, "method", map.next_value::<Option<Shared>>()?)?,
                "url" => once(&mut url, "url", map.next_value::<Option<Shared>>()?)?,
                "status" => once(&mut status, "status", map.next_value::<Option<u16>>()?)?,
                "headers" => once(&mut headers, "headers", map.next_value()?)?,
                "redacted" => once(&mut redacted, "redacted", map.next_value()?)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(HttpInfo {
            method: method.flatten(),
            url: url.flatten(),
            status: status.flatten(),
            headers: headers.unwrap_or_default(),
            redacted: redacted.unwrap_or_default(),
            extra: extra.into(),
        })
    }
}

impl<'de> Deserialize<'de> for HttpInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d)
    }
}

impl FromMembers for ProcessInfo {
    const EXPECTING: &'static str = "struct ProcessInfo";
    fn read<'de, A: MapAccess<'de>>(mut map: A) -> Result<ProcessInfo, A::Error> {
        let (mut event, mut command, mut cwd, mut env) = (None, None, None, None);
        let (mut pid, mut code, mut signal, mut detail) = (None, None, None, None);
        let extra = members(&mut map, |key, map| {
            match key {
                "event" => once(&mut event, "event", map.next_value::<String>()?)?,
                "command" => once(&mut command, "command", map.next_value()?)?,
                "cwd" => once(&mut cwd, "cwd", map.next_value::<Option<String>>()?)?,
                "env" => once(&mut env, "env", map.next_value()?)?,
                "pid" => once(&mut pid, "pid", map.next_value::<Option<u32>>()?)?,
                "code" => once(&mut code, "code", map.next_value::<Option<i32>>()?)?,
                "signal" => once(&mut signal, "signal", map.next_value::<Option<i32>>()?)?,
                "detail" => once(&mut detail, "detail", map.next_value::<Option<String>>()?)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(ProcessInfo {
            event: event.ok_or_else(|| A::Error::missing_field("event"))?,
            command: command.unwrap_or_default(),
            cwd: cwd.flatten(),
            env: env.unwrap_or_default(),
            pid: pid.flatten(),
            code: code.flatten(),
            signal: signal.flatten(),
            detail: detail.flatten(),
            extra,
        })
    }
}

impl<'de> Deserialize<'de> for ProcessInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_and_process_read_like_the_derive_did() {
        let http: HttpInfo = serde_json::from_str(
            r#"{"status":200,"headers":[["a","b"]],"sse_event":"message","url":null}"#,
        )
        .expect("http");
        assert_eq!(http.status, Some(200));
        assert_eq!(http.headers, vec![("a".into(), "b".into())]);
        assert_eq!(http.extra.get("sse_event"), Some(&Value::from("message")));
        assert!(http.url.is_none() && http.method.is_none() && http.redacted.is_empty());
        assert_eq!(
            serde_json::to_string(&http).expect("write"),
            r#"{"status":200,"headers":[["a","b"]],"sse_event":"message"}"#
        );
        let p: ProcessInfo =
            serde_json::from_str(r#"{"event":"exit","signal":9,"later":[1]}"#).expect("process");
        assert_eq!((p.event.as_str(), p.signal), ("exit", Some(9)));
        assert_eq!(p.extra.get("later"), Some(&serde_json::json!([1])));
        let err = serde_json::from_str::<ProcessInfo>(r#"{"pid":1}"#).expect_err("no event");
        assert!(err.to_string().contains("missing field `event`"), "{err}");
        let err = serde_json::from_str::<HttpInfo>(r#"{"status":1,"status":2}"#).expect_err("dup");
        assert!(
            err.to_string().contains("duplicate field `status`"),
            "{err}"
        );
        let err = serde_json::from_str::<HttpInfo>(r#"{"status":"x"}"#).expect_err("type");
        assert!(err.to_string().contains("invalid type"), "{err}");
    }

    #[test]
    fn escaped_member_names_are_the_names_they_spell() {
        let line = r#"{"se\u0071":1,"time":"2026-11-29T22:52:27.123456Z","from":"host","to":"llm","channel":"note","k\"ey":2}"#;
        let e: Event = serde_json::from_str(line).expect("event");
        assert_eq!(e.seq, 1);
        assert_eq!(e.extra().get("k\"ey"), Some(&Value::from(2)));
    }

    #[test]
    fn a_line_reads_as_serde_json_reads_it_the_same_event_or_the_same_error() {
        let head = r#"{"seq":1,"time":"2026-11-29T22:52:27.123456Z","from":"host","to":"s","channel":"stdio""#;
        let raws = [
            r#""{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}""#,
            r#""plain""#,
            r#""""#,
            r#""\u00e9\ud83d\ude00\/\b\f\n\r\t\\""#,
            r#""\ud800""#,
            r#""\udc00x""#,
            r#"null"#,
            r#"12"#,
            r#"{"a":1}"#,
            r#""unterminated"#,
            r#""bad \x escape""#,
            "\"a\u{1}b\"",
        ];
        for raw in raws {
            for line in [
                format!("{head},\"raw\":{raw}}}"),
                format!("{head},\"raw\": {raw} ,\"later\":[1]}}"),
                format!("{head},\"raw\":{raw},\"raw\":\"again\"}}"),
            ] {
                let ours = Event::from_line(line.as_bytes()).map_err(|e| e.to_string());
                let serde =
                    serde_json::from_slice::<Event>(line.as_bytes()).map_err(|e| e.to_string());
                assert_eq!(ours, serde, "{line}");
            }
        }
    }
}
