//! The keys the scenario format has, read from its types, so that `--set` refuses a key it
//! does not have with the keys it does (a misspelt `host.prefx` names `host.prefix`), rather
//! than the TOML reader's English.
//!
//! The names come from each struct's `Deserialize`: serde hands a struct's field names to the
//! deserializer it reads from, so a deserializer that only records them learns them.

use serde::Deserialize;
use serde::de::{self, Visitor};

use super::{ElicitationAnswer, HostOptions, Scenario};

/// A deserializer that records the field names a struct asks for, then stops.
struct Fields<'a>(&'a mut &'static [&'static str]);

impl<'de> de::Deserializer<'de> for Fields<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The field names of `T`.
fn fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Fields(&mut names));
    names
}

/// For a `--set` key (split at its dots) that the format does not have: the table it names
/// (`host`, or empty for the top level) and the keys that table has. `None` when the key is
/// known, or lies deeper than the tables checked here (the TOML reader judges those).
pub(super) fn unknown(parts: &[&str]) -> Option<(String, &'static [&'static str])> {
    let (table, known, name) = match parts {
        [name, ..] if !fields::<Scenario>().contains(name) => ("", fields::<Scenario>(), *name),
        ["host", name, ..] if !fields::<HostOptions>().contains(name) => {
            ("host", fields::<HostOptions>(), *name)
        }
        ["host", "elicitation", name] => ("host.elicitation", fields::<ElicitationAnswer>(), *name),
        _ => return None,
    };
    (!known.contains(&name)).then(|| (table.to_string(), known))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_read_from_the_types() {
        assert!(fields::<Scenario>().contains(&"servers"));
        assert!(fields::<HostOptions>().contains(&"refetch_on_list_changed"));
        assert!(
            !fields::<HostOptions>().contains(&"user"),
            "skipped: never in a file"
        );
        assert_eq!(unknown(&["host", "prefix"]), None);
        assert_eq!(
            unknown(&["host", "prefx"]).map(|(t, _)| t),
            Some("host".into())
        );
        assert_eq!(unknown(&["modle"]).map(|(t, _)| t), Some(String::new()));
        assert_eq!(unknown(&["script", "anything"]), None);
    }
}
