//! The small pieces every narration sentence is built from: a quote on one line without
//! invisible characters, a list of names cut at a few, a JSON field read without fuss.

use serde_json::Value;

use crate::wire::text;

/// What counts as hidden is decided in one place for the whole crate.
pub(super) use crate::analysis::chars::is_invisible;

/// Longest quoted text (a prompt, a result, a log line), in characters.
pub(super) const QUOTE_CHARS: usize = 90;
/// Most names listed in one sentence before `+N`.
pub(super) const LIST_NAMES: usize = 6;

pub(super) fn str_at<'a>(v: Option<&'a Value>, key: &str) -> Option<&'a str> {
    v?.get(key)?.as_str()
}

pub(super) fn array_at<'a>(v: Option<&'a Value>, key: &str) -> &'a [Value] {
    v.and_then(|v| v.get(key))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// For each object of `items`, the first of `fields` it has, listed.
pub(super) fn names_of(items: &[Value], fields: &[&str]) -> String {
    let names: Vec<&str> = items
        .iter()
        .filter_map(|item| fields.iter().find_map(|f| str_at(Some(item), f)))
        .collect();
    list(&names)
}

/// The keys of a JSON object, comma-separated; `{}` when there are none.
pub(super) fn keys_of(v: Option<&Value>) -> String {
    let keys: Vec<&str> = v
        .and_then(Value::as_object)
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if keys.is_empty() {
        "{}".to_string()
    } else {
        list(&keys)
    }
}

/// `a, b, c`, at most [`LIST_NAMES`] names and then `+N`; `—` for none.
pub(super) fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "—".to_string();
    }
    let mut out = names
        .iter()
        .take(LIST_NAMES)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LIST_NAMES {
        out.push_str(&format!(", +{}", names.len() - LIST_NAMES));
    }
    out
}

/// The segments of `text` between pairs of backticks.
pub(super) fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Text for quoting in a sentence: on one line, without invisible characters, at most `max`
/// characters (then `…`).
pub(super) fn quote(text: &str, max: usize) -> String {
    let visible: String = text.chars().filter(|c| !is_invisible(*c)).collect();
    let one_line = text::one_line(&visible);
    if one_line.chars().count() <= max {
        return one_line;
    }
    // The `…` counts: the quote takes at most `max` characters in the sentence.
    text::clip_words(&one_line, max.saturating_sub(1)).into_owned()
}

/// Drops the period after a closing quote that already ends with one (`“Done.”.`).
pub(super) fn tidy(text: &str) -> String {
    text.replace(".”.", ".”")
        .replace("?”.", "?”")
        .replace("!”.", "!”")
}

/// The `name` of every `tools` entry of an LLM request (`function.name` for Chat), with the
/// entry itself.
pub(super) fn entries_by_name(entries: &[Value]) -> Vec<(&str, &Value)> {
    entries
        .iter()
        .filter_map(|e| {
            let name = str_at(Some(e), "name").or_else(|| str_at(e.get("function"), "name"))?;
            Some((name, e))
        })
        .collect()
}
