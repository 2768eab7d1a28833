//! The stored record: a header line, then one [`Event`] per line.
//!
//! Events hold only what was observed: who sent it to whom, over which channel, when, and the
//! exact text. Fields this version does not know are kept in `extra` so that rewriting a trace
//! written by a newer Sightline loses nothing.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

pub use super::lane::{Channel, Lane};
use super::shared::Shared;

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The `sightline_trace` value written in the header. Bumped only for incompatible changes;
/// readers accept every version up to their own.
pub const TRACE_FORMAT_VERSION: u64 = 1;

/// Line 1 of a trace file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub sightline_trace: u64,
    /// When recording started (RFC 3339 UTC).
    pub created: String,
    pub sightline_version: String,
    #[serde(default)]
    pub title: String,
    /// Fields this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Header {
    pub fn new(title: impl Into<String>) -> Self {
        Header {
            sightline_trace: TRACE_FORMAT_VERSION,
            created: format_time(now()),
            sightline_version: env!("CARGO_PKG_VERSION").to_string(),
            title: title.into(),
            extra: Map::new(),
        }
    }
}

/// Reads a string without keeping it (borrowed when the input allows) and maps it with `f`.
pub(super) fn map_str<'de, D: Deserializer<'de>, T>(d: D, f: fn(&str) -> T) -> Result<T, D::Error> {
    struct V<T>(fn(&str) -> T);
    impl<T> serde::de::Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
            Ok((self.0)(v))
        }
    }
    d.deserialize_str(V(f))
}

/// Details of a `process` event: a spawn (or a failed spawn) or an exit. (`Deserialize` is
/// written by hand in [`super::event_de`], as for [`Event`].)
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ProcessInfo {
    /// `"spawn"`, `"spawn-failed"` or `"exit"`.
    pub event: String,
    /// Program and arguments, for spawns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Names of the environment variables set for the child; values are never recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Exit code, for exits that were not caused by a signal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// The signal number that ended the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Why a spawn failed, or what Sightline had to do to stop the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The largest HTTP body Sightline takes in (the Anthropic API's own request limit): what the
/// recording proxies read of a request, the mock and the scripted model accept, an imported
/// HAR entry may hold.
pub const BODY_LIMIT: usize = 32 * 1024 * 1024;

/// An `llm-http` response's `http` field: the time its status and headers arrived (the first
/// byte), beside the event's own time, when its body ended (the last byte).
pub const FIRST_BYTE: &str = "first_byte";

/// The HTTP side of an `http` or `llm-http` event: the request line or the status, and the
/// headers in the order they were sent, with every credential already redacted.
/// (`Deserialize` is written by hand in [`super::event_de`], as for [`Event`].)
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct HttpInfo {
    /// For requests: `POST`, `GET`, `DELETE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Shared>,
    /// For requests: the full URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Shared>,
    /// For responses: the status code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// `[name, value]` pairs, in order, duplicates kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(Shared, Shared)>,
    /// Where a credential was replaced by `[redacted]` in the payload, as `[start, end)` byte
    /// ranges of the recorded bytes: outside them the payload is exactly what crossed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<[usize; 2]>,
    /// The other fields, kept as they were: an SSE event's `sse_id`, `sse_event` and `retry`,
    /// and those this version does not know.
    #[serde(flatten)]
    pub extra: Extra,
}

impl HttpInfo {
    /// Header pairs as a record keeps them: each name and value shared with the equal ones
    /// made before on this thread ([`super::shared::intern`]), as a trace read from a file has them.
    pub fn headers_of(pairs: Vec<(String, String)>) -> Vec<(Shared, Shared)> {
        use super::shared::intern;
        pairs
            .into_iter()
            .map(|(name, value)| (intern(&name), intern(&value)))
            .collect()
    }
}

/// The fields of an event this version does not know, kept as they were. Nearly every event
/// has none, so the map is allocated only when there is one: the type dereferences to a
/// [`Map`] (empty when there are none) and allocates on the first write.
#[derive(Clone, Default)]
pub struct Extra(Option<Box<Map<String, Value>>>);

static NO_FIELDS: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

impl Extra {
    pub fn new() -> Self {
        Extra(None)
    }
}

impl std::ops::Deref for Extra {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        self.0.as_deref().unwrap_or(&NO_FIELDS)
    }
}

impl std::ops::DerefMut for Extra {
    fn deref_mut(&mut self) -> &mut Map<String, Value> {
        self.0.get_or_insert_with(Box::default)
    }
}

impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Self {
        Extra((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl PartialEq for Extra {
    fn eq(&self, other: &Extra) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Extra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// A short name for the common signals (`SIGKILL` for 9). The numbers are the ones POSIX
/// fixes (the same on Linux and macOS), written out so a trace reads the same in the browser.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "signal",
    }
}

/// One thing that crossed (or happened), as recorded.
///
/// A trace holds a million of these, so an event is kept small (96 bytes): what few events
/// have (a payload that is not UTF-8, process or HTTP details, fields this version does not
/// know) is boxed together in one [`Aside`], allocated only for the events that have some. Read
/// those parts with [`Event::raw_b64`], [`Event::process`], [`Event::http`] and
/// [`Event::extra`].
///
/// `Serialize` and `Deserialize` ([`super::event_de`]) are written by hand: the derive with a
/// flattened `extra` buffers every field of every line before it looks at them, which made
/// loading big traces slow.
#[derive(Debug, Clone)]
pub struct Event {
    /// 0, 1, 2, ... in recording order.
    pub seq: u64,
    pub time: DateTime<Utc>,
    pub from: Lane,
    pub to: Lane,
    pub channel: Channel,
    /// The exact text that crossed (for stdio: the line without its `\n`).
    pub raw: Option<Box<str>>,
    /// The parts most events lack; `None` when the event has none of them.
    pub(super) aside: Option<Box<Aside>>,
}

/// The parts of an [`Event`] that most events lack, boxed together.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Aside {
    /// The exact bytes, base64, when they are not UTF-8.
    raw_b64: Option<Box<str>>,
    process: Option<Box<ProcessInfo>>,
    /// For `http` and `llm-http` events: request line or status, and headers.
    http: Option<HttpInfo>,
    /// Fields this version does not know, kept as they were.
    extra: Extra,
}

/// What an event without an [`Aside`] reads as.
static NO_ASIDE: Aside = Aside {
    raw_b64: None,
    process: None,
    http: None,
    extra: Extra(None),
};

impl Aside {
    fn is_empty(&self) -> bool {
        self.raw_b64.is_none()
            && self.process.is_none()
            && self.http.is_none()
            && self.extra.is_empty()
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Event) -> bool {
        self.seq == other.seq
            && self.time == other.time
            && self.from == other.from
            && self.to == other.to
            && self.channel == other.channel
            && self.raw == other.raw
            && self.aside() == other.aside()
    }
}

impl Serialize for Event {
    /// The members in the order the file has always had them, unknown ones last.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("seq", &self.seq)?;
        map.serialize_entry("time", &format_time(self.time))?;
        map.serialize_entry("from", &self.from)?;
        map.serialize_entry("to", &self.to)?;
        map.serialize_entry("channel", &self.channel)?;
        if let Some(raw) = &self.raw {
            map.serialize_entry("raw", raw)?;
        }
        let aside = self.aside();
        if let Some(b64) = &aside.raw_b64 {
            map.serialize_entry("raw_b64", b64)?;
        }
        if let Some(process) = &aside.process {
            map.serialize_entry("process", process)?;
        }
        if let Some(http) = &aside.http {
            map.serialize_entry("http", http)?;
        }
        for (key, value) in aside.extra.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Event {
    /// An event whose payload is `bytes`: stored as `raw` when UTF-8 (no copy unless `bytes`
    /// has spare capacity), else `raw_b64`.
    pub fn with_bytes(
        seq: u64,
        time: DateTime<Utc>,
        from: Lane,
        to: Lane,
        channel: Channel,
        bytes: Vec<u8>,
    ) -> Self {
        let (raw, raw_b64) = match String::from_utf8(bytes) {
            Ok(text) => (Some(text.into_boxed_str()), None),
            Err(err) => (
                None,
                Some(
                    base64::engine::general_purpose::STANDARD
                        .encode(err.as_bytes())
                        .into(),
                ),
            ),
        };
        let mut event = Event {
            seq,
            time,
            from,
            to,
            channel,
            raw,
            aside: None,
        };
        event.set_raw_b64(raw_b64);
        event
    }

    fn aside(&self) -> &Aside {
        self.aside.as_deref().unwrap_or(&NO_ASIDE)
    }

    /// The aside, made on first use.
    fn aside_mut(&mut self) -> &mut Aside {
        self.aside.get_or_insert_with(Box::default)
    }

    /// Drops the aside when nothing is left in it.
    fn tidy(&mut self) {
        if self.aside.as_ref().is_some_and(|a| a.is_empty()) {
            self.aside = None;
        }
    }

    /// The exact bytes, base64, when they are not UTF-8 (then [`Self::raw`] is `None`).
    pub fn raw_b64(&self) -> Option<&str> {
        self.aside().raw_b64.as_deref()
    }

    pub fn set_raw_b64(&mut self, b64: Option<Box<str>>) {
        if b64.is_some() || self.aside.is_some() {
            self.aside_mut().raw_b64 = b64;
            self.tidy();
        }
    }

    /// For `process` events: what was spawned or how it ended.
    pub fn process(&self) -> Option<&ProcessInfo> {
        self.aside().process.as_deref()
    }

    pub fn process_mut(&mut self) -> Option<&mut ProcessInfo> {
        self.aside.as_mut()?.process.as_deref_mut()
    }

    pub fn set_process(&mut self, process: Option<ProcessInfo>) {
        if process.is_some() || self.aside.is_some() {
            self.aside_mut().process = process.map(Box::new);
            self.tidy();
        }
    }

    /// For `http` and `llm-http` events: request line or status, and headers.
    pub fn http(&self) -> Option<&HttpInfo> {
        self.aside().http.as_ref()
    }

    pub fn http_mut(&mut self) -> Option<&mut HttpInfo> {
        self.aside.as_mut()?.http.as_mut()
    }

    pub fn set_http(&mut self, http: Option<HttpInfo>) {
        if http.is_some() || self.aside.is_some() {
            self.aside_mut().http = http;
            self.tidy();
        }
    }

    /// The event with these HTTP details.
    pub fn with_http(mut self, http: HttpInfo) -> Self {
        self.set_http(Some(http));
        self
    }

    /// The event with these process details.
    pub fn with_process(mut self, process: ProcessInfo) -> Self {
        self.set_process(Some(process));
        self
    }

    /// Fields this version does not know, kept as they were.
    pub fn extra(&self) -> &Map<String, Value> {
        &self.aside().extra
    }

    /// The unknown fields, to add to (the aside is made if the event had none).
    pub fn extra_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.aside_mut().extra
    }

    /// The exact bytes that crossed. `None` when the event has no payload or its base64 is corrupt.
    pub fn bytes(&self) -> Option<Cow<'_, [u8]>> {
        if let Some(raw) = &self.raw {
            return Some(Cow::Borrowed(raw.as_bytes()));
        }
        let b64 = self.raw_b64()?;
        base64::engine::general_purpose::STANDARD
            .decode(b64.as_bytes())
            .ok()
            .map(Cow::Owned)
    }

    /// The payload as text for display; bytes that are not UTF-8 shown as U+FFFD.
    pub fn text(&self) -> Cow<'_, str> {
        match (&self.raw, self.bytes()) {
            (Some(raw), _) => Cow::Borrowed(&**raw),
            (None, Some(bytes)) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
            (None, None) => Cow::Borrowed(""),
        }
    }
}

/// The trace clock: UTC at the microsecond precision the file stores, so an event in memory
/// equals the same event read back.
pub fn now() -> DateTime<Utc> {
    use chrono::SubsecRound as _;
    Utc::now().trunc_subsecs(6)
}

/// RFC 3339, UTC, microseconds: `2026-11-29T22:52:27.123456Z`.
pub fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub(super) mod time_serde {
    use chrono::{DateTime, Utc};
    use serde::Deserializer;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        super::map_str(d, parse)?.map_err(serde::de::Error::custom)
    }

    /// An event's `time` from its text (RFC 3339), or why it is not one.
    pub fn parse(s: &str) -> Result<DateTime<Utc>, String> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| format!("`time` is not RFC 3339 ({e}): {s}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_fields_allocate_only_when_present() {
        let mut extra = Extra::new();
        assert!(extra.is_empty() && extra.0.is_none());
        assert_eq!(extra, Extra::from(Map::new()));
        extra.insert("k".into(), Value::Null);
        assert_eq!(extra.len(), 1);
        assert_ne!(extra, Extra::new());
    }

    #[test]
    fn an_event_is_small_and_what_few_have_is_boxed_only_when_present() {
        assert!(size_of::<Event>() <= 96, "{}", size_of::<Event>());
        let plain = Event::with_bytes(
            7,
            Utc::now(),
            Lane::Host,
            Lane::server("w"),
            Channel::Http,
            b"x".to_vec(),
        );
        assert!(plain.aside.is_none());
        let mut e = plain.clone().with_http(HttpInfo {
            status: Some(200),
            ..HttpInfo::default()
        });
        assert_eq!(e.http().and_then(|h| h.status), Some(200));
        assert_ne!(e, plain);
        e.set_http(None);
        assert!(e.aside.is_none(), "an emptied aside is dropped");
        assert_eq!(e, plain);
        e.extra_mut().insert("later".into(), Value::from(1));
        assert_eq!(
            serde_json::to_string(&e).expect("write"),
            serde_json::to_string(&plain)
                .expect("write")
                .replace("\"}", r#"","later":1}"#)
        );
        e.extra_mut().clear();
        assert_eq!(e, plain, "an empty aside reads as none");
        let mut p = plain.with_process(ProcessInfo {
            event: "exit".into(),
            ..ProcessInfo::default()
        });
        if let Some(info) = p.process_mut() {
            info.code = Some(3);
        }
        assert_eq!(p.process().and_then(|i| i.code), Some(3));
        assert!(p.http().is_none() && p.raw_b64().is_none() && p.extra().is_empty());
    }

    #[test]
    fn non_utf8_payload_goes_to_base64_and_back() {
        let bytes = vec![0xff, 0xfe, b'a', b'\n'];
        let e = Event::with_bytes(
            0,
            Utc::now(),
            Lane::Host,
            Lane::Llm,
            Channel::Stdio,
            bytes.clone(),
        );
        assert!(e.raw.is_none());
        assert_eq!(e.bytes().as_deref(), Some(bytes.as_slice()));
        assert_eq!(e.text(), "\u{fffd}\u{fffd}a\n");
    }

    #[test]
    fn events_read_like_the_derive_did() {
        let base = r#""seq":1,"time":"2026-11-29T22:52:27.123456Z","from":"host","to":"llm","channel":"note""#;
        let e: Event = serde_json::from_str(&format!(r#"{{{base},"raw":null}}"#)).expect("null");
        assert_eq!(
            (e.raw.as_deref(), e.raw_b64(), e.extra().len()),
            (None, None, 0)
        );
        let e: Event =
            serde_json::from_str(&format!(r#"{{"z":1,{base},"a\"b":[2]}}"#)).expect("extra");
        assert_eq!(e.extra().keys().collect::<Vec<_>>(), ["z", "a\"b"]);
        let missing = r#"{"seq":1,"from":"host","to":"llm","channel":"note"}"#;
        let err = serde_json::from_str::<Event>(missing).expect_err("no time");
        assert!(err.to_string().contains("missing field `time`"), "{err}");
        let twice = format!(r#"{{{base},"seq":2}}"#);
        assert!(serde_json::from_str::<Event>(&twice).is_err());
        let bad_time = base.replace("2026-11-29T", "yesterday ");
        let err = serde_json::from_str::<Event>(&format!("{{{bad_time}}}")).expect_err("time");
        assert!(err.to_string().contains("not RFC 3339"), "{err}");
    }

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let line = r#"{"seq":3,"time":"2026-11-29T22:52:27.123456Z","from":"host","to":"server:w","channel":"telepathy","raw":"x","future":{"a":[1,2]}}"#;
        let e: Event = serde_json::from_str(line).expect("parse");
        assert_eq!(e.channel, Channel::Other("telepathy".into()));
        assert_eq!(serde_json::to_string(&e).expect("serialize"), line);
    }
}
