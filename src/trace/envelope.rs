//! Reading the few members of a JSON-RPC message that correlation needs, in one pass and
//! without building a JSON tree.
//!
//! Correlation needs a dozen members of every message of a trace, and a [`serde_json::Value`]
//! of each would cost a map and a string allocation per member, for every message. These
//! readers walk the text once and keep only those members, borrowed from the payload where it
//! has no escapes. Everything else is still parsed (every string, number and
//! nesting level, through `deserialize_any`), so a payload is valid here exactly when it is a
//! valid `Value`; a duplicated member keeps its last value, as `Value` does.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A value read and thrown away, parsed as [`Value`] would parse it.
pub(super) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// A member name, borrowed when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor)
            .map(|s| Key(s.unwrap_or_default()))
    }
}

/// A value kept only when it is a string: `None` for any other JSON value.
pub(super) struct MaybeStr<'de>(pub Option<Cow<'de, str>>);

impl<'de> Deserialize<'de> for MaybeStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor).map(MaybeStr)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        SkipVisitor.visit_map(map).map(|_| None)
    }
}

/// The members of an object this version reads; any other JSON value reads as the default.
pub(super) trait Members<'de>: Default {
    /// Reads the value of member `key` from `map` (skipping it when it is not wanted).
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// An object's wanted members; the default when the value is not an object.
pub(super) struct Obj<T>(pub T);

impl<'de, T: Members<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Members<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Obj<T>, A::Error> {
                let mut out = T::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    out.member(&key, &mut map)?;
                }
                Ok(Obj(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Obj<T>, A::Error> {
                SkipVisitor.visit_seq(seq)?;
                Ok(Obj(T::default()))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Obj<T>, E> {
                Ok(Obj(T::default()))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Obj<T>, E> {
                Ok(Obj(T::default()))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Obj<T>, E> {
                Ok(Obj(T::default()))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Obj<T>, E> {
                Ok(Obj(T::default()))
            }
            fn visit_str<E>(self, _: &str) -> Result<Obj<T>, E> {
                Ok(Obj(T::default()))
            }
            fn visit_unit<E>(self) -> Result<Obj<T>, E> {
                Ok(Obj(T::default()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

fn str_member<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    Ok(map.next_value::<MaybeStr<'de>>()?.0)
}

fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<Skip>().map(|_| ())
}

/// `{"name": ...}`: an object whose `name` is all that is wanted.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Named<'a> {
    pub name: Option<Cow<'a, str>>,
}

impl<'de> Members<'de> for Named<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "name" => self.name = str_member(map)?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// The members of a `_meta` object correlation reads.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Meta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`, when a string.
    pub protocol_version: Option<Cow<'a, str>>,
    /// `io.modelcontextprotocol/subscriptionId`, any JSON value.
    pub subscription_id: Option<Value>,
    /// `io.modelcontextprotocol/serverInfo`'s `name`, when a string.
    pub server_name: Option<Cow<'a, str>>,
}

impl<'de> Members<'de> for Meta<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            super::analyze::META_PROTOCOL_VERSION => self.protocol_version = str_member(map)?,
            super::analyze::META_SUBSCRIPTION_ID => self.subscription_id = Some(map.next_value()?),
            "io.modelcontextprotocol/serverInfo" => {
                self.server_name = map.next_value::<Obj<Named<'de>>>()?.0.name
            }
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// The members of `params` correlation reads.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Params<'a> {
    pub name: Option<Cow<'a, str>>,
    pub uri: Option<Cow<'a, str>>,
    pub protocol_version: Option<Cow<'a, str>>,
    pub meta: Meta<'a>,
    /// Whether `requestState` or `inputResponses` is present (a multi-round-trip retry).
    pub retry: bool,
    /// `requestId` (of `notifications/cancelled`), any JSON value.
    pub request_id: Option<Value>,
}

impl<'de> Members<'de> for Params<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "name" => self.name = str_member(map)?,
            "uri" => self.uri = str_member(map)?,
            "protocolVersion" => self.protocol_version = str_member(map)?,
            "_meta" => self.meta = map.next_value::<Obj<Meta<'de>>>()?.0,
            "requestState" | "inputResponses" => {
                self.retry = true;
                skip(map)?
            }
            "requestId" => self.request_id = Some(map.next_value()?),
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// The members of a response's `result` correlation reads.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct ResultMembers<'a> {
    pub result_type: Option<Cow<'a, str>>,
    pub protocol_version: Option<Cow<'a, str>>,
    pub instructions: Option<Cow<'a, str>>,
    /// `serverInfo.name`, when a string.
    pub server_name: Option<Cow<'a, str>>,
    pub meta: Meta<'a>,
}

impl<'de> Members<'de> for ResultMembers<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "resultType" => self.result_type = str_member(map)?,
            "protocolVersion" => self.protocol_version = str_member(map)?,
            "instructions" => self.instructions = str_member(map)?,
            "serverInfo" => self.server_name = map.next_value::<Obj<Named<'de>>>()?.0.name,
            "_meta" => self.meta = map.next_value::<Obj<Meta<'de>>>()?.0,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// The members of an error response's `error`.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct ErrorMembers<'a> {
    /// `code` when it is an integer that fits an `i64`.
    pub code: Option<i64>,
    pub message: Option<Cow<'a, str>>,
}

impl<'de> Members<'de> for ErrorMembers<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "code" => self.code = map.next_value::<Value>()?.as_i64(),
            "message" => self.message = str_member(map)?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// The `jsonrpc` member: `"2.0"` (read without a copy: every message has it), or whatever
/// else it is, as JSON.
#[derive(Debug)]
pub(super) enum Version {
    Two,
    Other(Value),
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<Version, E> {
                Ok(match v {
                    "2.0" => Version::Two,
                    _ => Version::Other(Value::String(v.to_owned())),
                })
            }
            fn visit_bool<E>(self, v: bool) -> Result<Version, E> {
                Ok(Version::Other(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Version, E> {
                Ok(Version::Other(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Version, E> {
                Ok(Version::Other(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Version, E> {
                Ok(Version::Other(Value::from(v)))
            }
            fn visit_unit<E>(self) -> Result<Version, E> {
                Ok(Version::Other(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Version, A::Error> {
                Value::deserialize(SeqAccessDeserializer::new(seq)).map(Version::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Version, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map)).map(Version::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// The top-level members of a JSON-RPC object, each `Some` when present.
#[derive(Default, Debug)]
pub(super) struct Envelope<'a> {
    pub jsonrpc: Option<Version>,
    pub id: Option<Value>,
    /// Present; and the string, when it is one.
    pub method: Option<Option<Cow<'a, str>>>,
    pub params: Params<'a>,
    pub result: Option<ResultMembers<'a>>,
    pub error: Option<ErrorMembers<'a>>,
}

impl<'de> Members<'de> for Envelope<'de> {
    fn member<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "jsonrpc" => self.jsonrpc = Some(map.next_value()?),
            "id" => self.id = Some(map.next_value()?),
            "method" => self.method = Some(str_member(map)?),
            "params" => self.params = map.next_value::<Obj<Params<'de>>>()?.0,
            "result" => self.result = Some(map.next_value::<Obj<ResultMembers<'de>>>()?.0),
            "error" => self.error = Some(map.next_value::<Obj<ErrorMembers<'de>>>()?.0),
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// What a payload is at the top level.
pub(super) enum Top<'a> {
    Object(Box<Envelope<'a>>),
    /// An array, with its number of elements.
    Array(usize),
    /// A string, number, boolean or null.
    Scalar,
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
                let mut out = Envelope::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    out.member(&key, &mut map)?;
                }
                Ok(Top::Object(Box::new(out)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top<'de>, A::Error> {
                let mut n = 0;
                while seq.next_element::<Skip>()?.is_some() {
                    n += 1;
                }
                Ok(Top::Array(n))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Top<'de>, E> {
                Ok(Top::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Top<'de>, E> {
                Ok(Top::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Top<'de>, E> {
                Ok(Top::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Top<'de>, E> {
                Ok(Top::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<Top<'de>, E> {
                Ok(Top::Scalar)
            }
            fn visit_unit<E>(self) -> Result<Top<'de>, E> {
                Ok(Top::Scalar)
            }
        }
        d.deserialize_any(V)
    }
}
