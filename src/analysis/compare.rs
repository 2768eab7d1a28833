//! Structural comparison of two JSON values: what `replay` and `diff` call "differs".
//!
//! Two recordings of the same exchange never match byte for byte: ids are renumbered, keys come
//! in another order, a timestamp in `_meta` moves, a progress token is new. So responses are
//! compared as JSON values, member by member, and each difference is reported at its JSON
//! pointer (RFC 6901) with the old and the new value. A JSON string that itself holds JSON (a
//! tool result whose text is a serialized object) is parsed and compared as JSON, so a reordered
//! key inside it is no difference either. Numbers compare by value (`1` equals `1.0`).
//!
//! What is ignored is a list of [`Pattern`]s: JSON pointers where `*` stands for any one array
//! index or object key. [`Ignore::defaults`] holds what always varies between runs.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::canonical::canonical_json;
use crate::i18n::Words;

/// One place where two values differ. `old` is `None` when the member is new, `new` is `None`
/// when it is gone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// JSON pointer into the compared values (inside a JSON string: continued into its JSON).
    pub pointer: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

impl Difference {
    /// `"old" -> "new"` on one line (long values shortened), `(absent)` in the language of `w`
    /// for a missing side.
    pub fn values_line(&self, w: Words) -> String {
        let side = |v: Option<&Value>| {
            v.map_or_else(|| w.get("values.absent").to_string(), |v| short(v, 120))
        };
        format!("{} -> {}", side(self.old.as_ref()), side(self.new.as_ref()))
    }

    /// For two long strings (more than one line, or longer than 80 characters): a unified diff
    /// whose header names the two sides `old` and `new`.
    pub fn text_diff(&self, old: &str, new: &str) -> Option<String> {
        let (Some(Value::String(a)), Some(Value::String(b))) = (&self.old, &self.new) else {
            return None;
        };
        if !(a.contains('\n') || b.contains('\n') || a.len() > 80 || b.len() > 80) {
            return None;
        }
        let (a, b) = (with_newline(a), with_newline(b));
        Some(
            similar::TextDiff::from_lines(&a, &b)
                .unified_diff()
                .context_radius(2)
                .header(old, new)
                .to_string(),
        )
    }
}

fn with_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

/// A value for one line of text: JSON, cut to `limit` characters.
pub fn short(value: &Value, limit: usize) -> String {
    crate::wire::text::clip(&value.to_string(), limit).into_owned()
}

/// One segment of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Any,
    Key(String),
}

/// A JSON pointer in which `*` matches any one array index or object key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(Vec<Segment>);

/// A pattern that is not a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a JSON pointer: it must be empty or start with `/` (e.g. /result/content/*/text)"
)]
pub struct BadPointer(pub String);

impl Pattern {
    /// Parses `/a/*/b` (with RFC 6901's `~1` for `/` and `~0` for `~`).
    pub fn parse(text: &str) -> Result<Pattern, BadPointer> {
        if text.is_empty() {
            return Ok(Pattern(Vec::new()));
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(BadPointer(text.to_string()));
        };
        Ok(Pattern(
            rest.split('/')
                .map(|s| match s {
                    "*" => Segment::Any,
                    s => Segment::Key(s.replace("~1", "/").replace("~0", "~")),
                })
                .collect(),
        ))
    }

    fn matches(&self, path: &[String]) -> bool {
        self.0.len() == path.len()
            && self.0.iter().zip(path).all(|(s, p)| match s {
                Segment::Any => true,
                Segment::Key(k) => k == p,
            })
    }
}

/// What a comparison leaves out.
#[derive(Debug, Clone, Default)]
pub struct Ignore {
    patterns: Vec<Pattern>,
    /// Leave out what varies between any two runs (see [`Ignore::defaults`]).
    volatile: bool,
}

impl Ignore {
    /// Nothing ignored.
    pub fn none() -> Ignore {
        Ignore::default()
    }

    /// What varies between runs and says nothing about the server: the JSON-RPC `id` at the
    /// top level, progress tokens (`progressToken` anywhere, `_meta` or params), and any member
    /// of a `_meta` object whose name contains `time` or `date` (any case: `timestamp`,
    /// `io.modelcontextprotocol/serverTime`, `lastModified` is not one of them).
    pub fn defaults() -> Ignore {
        Ignore {
            patterns: Vec::new(),
            volatile: true,
        }
    }

    /// Adds a pattern to leave out.
    pub fn with(mut self, pattern: Pattern) -> Ignore {
        self.patterns.push(pattern);
        self
    }

    fn ignores(&self, path: &[String]) -> bool {
        if self.volatile && volatile(path) {
            return true;
        }
        self.patterns.iter().any(|p| p.matches(path))
    }
}

fn volatile(path: &[String]) -> bool {
    let Some(last) = path.last() else {
        return false;
    };
    if path.len() == 1 && last == "id" {
        return true;
    }
    if last == "progressToken" {
        return true;
    }
    let in_meta = path.len() >= 2 && path[path.len() - 2] == "_meta";
    let lower = last.to_ascii_lowercase();
    in_meta && (lower.contains("time") || lower.contains("date"))
}

/// Every difference between `old` and `new`, in document order.
pub fn compare(old: &Value, new: &Value, ignore: &Ignore) -> Vec<Difference> {
    // Equal values differ nowhere (`diff` compares thousands of results that repeat): no walk.
    if old == new {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk(&mut Vec::new(), old, new, ignore, &mut out);
    out
}

/// A JSON string's content as JSON, when it is an object or an array.
fn embedded(s: &str) -> Option<Value> {
    let t = s.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str(s).ok()
}

fn walk(path: &mut Vec<String>, a: &Value, b: &Value, ignore: &Ignore, out: &mut Vec<Difference>) {
    if ignore.ignores(path) {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, av) in x {
                path.push(key.clone());
                match y.get(key) {
                    Some(bv) => walk(path, av, bv, ignore, out),
                    None if !ignore.ignores(path) => out.push(Difference {
                        pointer: pointer(path),
                        old: Some(av.clone()),
                        new: None,
                    }),
                    None => {}
                }
                path.pop();
            }
            for (key, bv) in y {
                if x.contains_key(key) {
                    continue;
                }
                path.push(key.clone());
                if !ignore.ignores(path) {
                    out.push(Difference {
                        pointer: pointer(path),
                        old: None,
                        new: Some(bv.clone()),
                    });
                }
                path.pop();
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                path.push(i.to_string());
                match (x.get(i), y.get(i)) {
                    (Some(av), Some(bv)) => walk(path, av, bv, ignore, out),
                    (av, bv) if !ignore.ignores(path) => out.push(Difference {
                        pointer: pointer(path),
                        old: av.cloned(),
                        new: bv.cloned(),
                    }),
                    _ => {}
                }
                path.pop();
            }
        }
        (Value::String(x), Value::String(y)) if x != y => match (embedded(x), embedded(y)) {
            (Some(ja), Some(jb)) => walk(path, &ja, &jb, ignore, out),
            _ => out.push(Difference {
                pointer: pointer(path),
                old: Some(a.clone()),
                new: Some(b.clone()),
            }),
        },
        (Value::Number(_), Value::Number(_)) => {
            if canonical_json(a) != canonical_json(b) {
                out.push(Difference {
                    pointer: pointer(path),
                    old: Some(a.clone()),
                    new: Some(b.clone()),
                });
            }
        }
        _ if a == b => {}
        _ => out.push(Difference {
            pointer: pointer(path),
            old: Some(a.clone()),
            new: Some(b.clone()),
        }),
    }
}

fn pointer(path: &[String]) -> String {
    let mut out = String::new();
    for segment in path {
        let _ = write!(out, "/{}", segment.replace('~', "~0").replace('/', "~1"));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::i18n::Language;

    fn en() -> Words<'static> {
        Words::of(Language::En)
    }

    #[test]
    fn equal_values_in_another_key_order_and_number_spelling_do_not_differ() {
        let a = json!({"a": 1, "b": [1.0, {"c": "x"}]});
        let b: Value = serde_json::from_str(r#"{"b":[1,{"c":"x"}],"a":1.0}"#).unwrap();
        assert!(compare(&a, &b, &Ignore::none()).is_empty());
    }

    #[test]
    fn each_difference_has_its_pointer_and_both_values() {
        let a = json!({"result": {"content": [{"text": "15C"}], "gone": true}});
        let b = json!({"result": {"content": [{"text": "16C"}, {"text": "more"}], "new/k": 1}});
        let d = compare(&a, &b, &Ignore::none());
        let pointers: Vec<&str> = d.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/result/content/0/text",
                "/result/content/1",
                "/result/gone",
                "/result/new~1k"
            ]
        );
        assert_eq!(d[0].values_line(en()), r#""15C" -> "16C""#);
        assert_eq!(d[2].new, None);
        assert_eq!(d[3].old, None);
    }

    #[test]
    fn a_string_holding_json_is_compared_as_json() {
        let a = json!({"text": r#"{"temp": 15, "city": "Seoul"}"#});
        let b = json!({"text": r#"{"city":"Seoul","temp":15.0}"#});
        assert!(compare(&a, &b, &Ignore::none()).is_empty());
        let c = json!({"text": r#"{"city":"Seoul","temp":16}"#});
        let d = compare(&a, &c, &Ignore::none());
        assert_eq!(d[0].pointer, "/text/temp");
        assert_eq!(d[0].values_line(en()), "15 -> 16");
    }

    #[test]
    fn defaults_ignore_ids_progress_tokens_and_meta_times_only() {
        let a =
            json!({"id": 1, "params": {"_meta": {"progressToken": 3, "timestamp": "t1", "x": 1}}});
        let b =
            json!({"id": 7, "params": {"_meta": {"progressToken": 9, "timestamp": "t2", "x": 2}}});
        let d = compare(&a, &b, &Ignore::defaults());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].pointer, "/params/_meta/x");
        // An `id` below the top level is data.
        let d = compare(
            &json!({"r": {"id": 1}}),
            &json!({"r": {"id": 2}}),
            &Ignore::defaults(),
        );
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn patterns_with_stars_leave_out_any_index_or_key() {
        let ignore =
            Ignore::none().with(Pattern::parse("/result/content/*/text").expect("pointer"));
        let a = json!({"result": {"content": [{"text": "a", "type": "text"}]}});
        let b = json!({"result": {"content": [{"text": "b", "type": "image"}]}});
        let d = compare(&a, &b, &ignore);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].pointer, "/result/content/0/type");
        assert!(Pattern::parse("result").is_err());
        assert_eq!(
            Pattern::parse("/a~1b").expect("pointer").0,
            [Segment::Key("a/b".into())]
        );
    }

    #[test]
    fn long_texts_get_a_unified_diff() {
        let d = Difference {
            pointer: "/t".into(),
            old: Some(json!("line one\nline two\nline three")),
            new: Some(json!("line one\nline 2\nline three")),
        };
        let diff = d.text_diff("recorded", "replayed").expect("a diff");
        assert!(
            diff.contains("-line two") && diff.contains("+line 2"),
            "{diff}"
        );
        let short = Difference {
            pointer: "/t".into(),
            old: Some(json!("a")),
            new: Some(json!("b")),
        };
        assert!(short.text_diff("a", "b").is_none());
    }
}
