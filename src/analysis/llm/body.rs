//! A request's body as a run of [`super::llm_exchanges`] reads it: its `tools` parsed once
//! per distinct list and shared after, its other members parsed or skipped as the run needs
//! ([`Reading`]). Apart from the exchange itself because this is where the bytes are: a real
//! host's request is kilobytes of tools and conversation, sent again every turn.

use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::wire::api::ApiShape;
use crate::wire::convert;

/// How much of each request a run reads.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    #[default]
    Whole,
    /// The model and the tools: what [`super::llm_counts`] reads.
    Counts,
}

/// The `tools` parameters of the last few distinct lists read, by their JSON text and the
/// shape that read them: an agent loop sends the same tools with every request (kilobytes of
/// schemas, most of a request), so a run of requests parses each list once and shares it
/// after. A few, not one: a real host alternates between lists (Claude Code sends one tool
/// more once a search loaded it, and its first list again at the next prompt), and with one
/// kept every turn parsed its list again, a copy per request: on a recorded Claude Code
/// session those copies held as much memory as the trace's own text.
#[derive(Debug, Default)]
pub(in crate::analysis) struct LastTools {
    /// The most recently used last; at most [`RECENT_TOOL_LISTS`].
    recent: Vec<(ApiShape, String, Arc<[Value]>)>,
    /// How much of each request the run that keeps them reads.
    reading: Reading,
}

/// How many distinct `tools` lists [`LastTools`] keeps.
pub(super) const RECENT_TOOL_LISTS: usize = 8;

impl LastTools {
    /// None kept yet, for a run that reads as `reading` says.
    pub(super) fn reading(reading: Reading) -> LastTools {
        LastTools {
            recent: Vec::new(),
            reading,
        }
    }

    /// The entries of a list read before as `text` by `shape`, made the most recent.
    fn get(&mut self, shape: ApiShape, text: &str) -> Option<Arc<[Value]>> {
        let at = self
            .recent
            .iter()
            .rposition(|(s, t, _)| *s == shape && t == text)?;
        let hit = self.recent.remove(at);
        let entries = Arc::clone(&hit.2);
        self.recent.push(hit);
        Some(entries)
    }

    /// Keeps `entries`, read from `text` by `shape`, as the most recent list.
    fn put(&mut self, shape: ApiShape, text: &str, entries: &Arc<[Value]>) {
        if self.recent.len() == RECENT_TOOL_LISTS {
            self.recent.remove(0);
        }
        self.recent
            .push((shape, text.to_string(), Arc::clone(entries)));
    }
}

/// A request body: every member as a [`Value`] but `tools`, kept as its JSON text (the last
/// one where it repeats, as a [`Value`] keeps it).
struct Body<'a> {
    members: Map<String, Value>,
    tools: Option<&'a RawValue>,
}

/// Reads a [`Body`]; with [`Reading::Counts`], every member but `model` and `tools` is skipped
/// unread.
struct BodySeed(Reading);

impl<'de> DeserializeSeed<'de> for BodySeed {
    type Value = Body<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Body<'de>, D::Error> {
        struct V(Reading);
        impl<'de> Visitor<'de> for V {
            type Value = Body<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body<'de>, A::Error> {
                let mut body = Body {
                    members: Map::new(),
                    tools: None,
                };
                while let Some(key) = map.next_key::<String>()? {
                    if key == "tools" {
                        body.tools = Some(map.next_value()?);
                    } else if self.0 == Reading::Counts && key != "model" {
                        map.next_value::<IgnoredAny>()?;
                    } else {
                        let value = map.next_value()?;
                        body.members.insert(key, value);
                    }
                }
                Ok(body)
            }
        }
        d.deserialize_map(V(self.0))
    }
}

/// A request's body as a [`Value`] object without its `tools`, and the entries of `tools`
/// when it is an array (shared with `last` when they are the same text); `None` where the
/// body is not a JSON object or its `tools` not JSON (nothing is read from it then).
pub(super) fn request_body(
    shape: ApiShape,
    text: &str,
    last: &mut LastTools,
) -> Option<(Value, Arc<[Value]>)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Body { members, tools } = BodySeed(last.reading).deserialize(&mut de).ok()?;
    de.end().ok()?;
    let entries = match tools {
        None => Arc::default(),
        Some(raw) => match last.get(shape, raw.get()) {
            Some(entries) => entries,
            None => match serde_json::from_str::<Value>(raw.get()).ok()? {
                Value::Array(entries) => {
                    let entries: Arc<[Value]> = convert::tool_entries(shape, entries).into();
                    last.put(shape, raw.get(), &entries);
                    entries
                }
                _ => Arc::default(),
            },
        },
    };
    Some((Value::Object(members), entries))
}
