//! A JSON Schema validator's finding as a sentence each language can say.
//!
//! The `jsonschema` crate explains a failure in English (`"name" is a required property`).
//! Schema conformance and the doctor's check of a tool's `inputSchema` show that to a class
//! that may read Portuguese or Spanish, so the failure is said from its kind instead
//! (`schema_text.*`): the common keywords each with their own sentence, the values and names
//! quoted as they are, and any other keyword by a sentence that names it and the JSON pointer
//! of the value that fails it. JSON outputs keep the English ([`Said::english`]).

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::i18n::Said;

/// The longest quoted value, in characters; a longer one is cut with `…`.
const VALUE_LIMIT: usize = 80;

/// A JSON value as a sentence quotes it: compact JSON, cut at [`VALUE_LIMIT`].
fn quoted(value: &Value) -> String {
    crate::analysis::compare::short(value, VALUE_LIMIT)
}

/// Names as a sentence lists them: each in backquotes, joined by `, `.
fn names<S: AsRef<str>>(names: &[S]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    quoted.join(", ")
}

/// Where a failure is: the instance's JSON pointer, `/` for the whole value.
pub fn at(error: &ValidationError<'_>) -> String {
    let at = error.instance_path().as_str();
    if at.is_empty() { "/" } else { at }.to_string()
}

/// What `error` says, as a sentence (see the module documentation).
pub fn said(error: &ValidationError<'_>) -> Said {
    let value = || quoted(error.instance());
    let limit =
        |key: &'static str, limit: u64| Said::new(key).with("value", value()).with("limit", limit);
    let bound = |key: &'static str, limit: &Value| {
        Said::new(key)
            .with("value", value())
            .with("limit", quoted(limit))
    };
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| quoted(property), str::to_string);
            Said::new("schema_text.required").with("name", name)
        }
        ValidationErrorKind::Type { kind } => {
            let types: Vec<String> = match kind {
                TypeKind::Single(t) => vec![t.to_string()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
            };
            Said::new("schema_text.type")
                .with("value", value())
                .with("types", names(&types))
        }
        ValidationErrorKind::Enum { options } => Said::new("schema_text.enum")
            .with("value", value())
            .with("options", quoted(options)),
        ValidationErrorKind::Constant { expected_value } => Said::new("schema_text.const")
            .with("value", value())
            .with("expected", quoted(expected_value)),
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            Said::new("schema_text.additional")
                .with("count", unexpected.len())
                .with("names", names(unexpected))
        }
        ValidationErrorKind::MinLength { limit: n } => limit("schema_text.min_length", *n),
        ValidationErrorKind::MaxLength { limit: n } => limit("schema_text.max_length", *n),
        ValidationErrorKind::MinItems { limit: n } => limit("schema_text.min_items", *n),
        ValidationErrorKind::MaxItems { limit: n } => limit("schema_text.max_items", *n),
        ValidationErrorKind::MinProperties { limit: n } => limit("schema_text.min_properties", *n),
        ValidationErrorKind::MaxProperties { limit: n } => limit("schema_text.max_properties", *n),
        ValidationErrorKind::Minimum { limit: n } => bound("schema_text.minimum", n),
        ValidationErrorKind::Maximum { limit: n } => bound("schema_text.maximum", n),
        ValidationErrorKind::ExclusiveMinimum { limit: n } => {
            bound("schema_text.exclusive_minimum", n)
        }
        ValidationErrorKind::ExclusiveMaximum { limit: n } => {
            bound("schema_text.exclusive_maximum", n)
        }
        ValidationErrorKind::Pattern { pattern } => Said::new("schema_text.pattern")
            .with("value", value())
            .with("pattern", pattern),
        ValidationErrorKind::Format { format } => Said::new("schema_text.format")
            .with("value", value())
            .with("format", format),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            Said::new("schema_text.no_branch").with("value", value())
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            Said::new("schema_text.several_branches").with("value", value())
        }
        ValidationErrorKind::FalseSchema => Said::new("schema_text.false_schema")
            .with("value", value())
            .with("at", at(error)),
        ValidationErrorKind::UniqueItems => {
            Said::new("schema_text.unique_items").with("value", value())
        }
        ValidationErrorKind::Referencing(_) => Said::new("schema_text.reference"),
        other => Said::new("schema_text.other")
            .with("keyword", other.keyword())
            .with("at", at(error)),
    }
}

/// [`said`], followed by where the failure is (`(at /properties/a/type)`): for a finding
/// shown without its pointer beside it, such as the doctor's.
pub fn said_at(error: &ValidationError<'_>) -> Said {
    Said::new("schema_text.at")
        .with_said("problem", said(error))
        .with("at", at(error))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::i18n::{Language, Words, shared};

    /// The first error of `instance` against `schema`.
    fn first(schema: Value, instance: Value) -> Said {
        let validator = jsonschema::options()
            .build(&schema)
            .expect("a valid schema");
        let error = validator.iter_errors(&instance).next().expect("an error");
        said(&error)
    }

    #[test]
    fn each_common_keyword_has_its_own_sentence_in_every_language() {
        let cases = [
            (
                json!({"required": ["name"]}),
                json!({}),
                "schema_text.required",
                "name",
            ),
            (
                json!({"type": "string"}),
                json!(12),
                "schema_text.type",
                "`string`",
            ),
            (
                json!({"type": ["string", "null"]}),
                json!(1),
                "schema_text.type",
                "`null`",
            ),
            (
                json!({"enum": ["C", "F"]}),
                json!("K"),
                "schema_text.enum",
                "[\"C\",\"F\"]",
            ),
            (
                json!({"const": "text"}),
                json!("image"),
                "schema_text.const",
                "\"text\"",
            ),
            (
                json!({"properties": {"a": {}}, "additionalProperties": false}),
                json!({"a": 1, "extra": 1}),
                "schema_text.additional",
                "`extra`",
            ),
            (
                json!({"minLength": 3}),
                json!("ab"),
                "schema_text.min_length",
                "3",
            ),
            (
                json!({"maxItems": 1}),
                json!([1, 2]),
                "schema_text.max_items",
                "1",
            ),
            (json!({"minimum": 5}), json!(2), "schema_text.minimum", "5"),
            (
                json!({"pattern": "^a"}),
                json!("b"),
                "schema_text.pattern",
                "^a",
            ),
            (
                json!({"uniqueItems": true}),
                json!([1, 1]),
                "schema_text.unique_items",
                "[1,1]",
            ),
            (
                json!({"multipleOf": 2}),
                json!(3),
                "schema_text.other",
                "multipleOf",
            ),
        ];
        for (schema, instance, key, needle) in cases {
            let said = first(schema, instance);
            assert_eq!(said.keys(), [key], "{said:?}");
            let strings = shared();
            for lang in Language::ALL {
                assert!(strings.has(lang, key), "{key} in {lang:?}");
                let text = said.say(Words::of(lang));
                assert!(text.contains(needle), "{lang:?}: {needle} in {text}");
                assert!(
                    !text.contains('{'),
                    "{lang:?}: a placeholder left in {text}"
                );
            }
            let (pt, es) = (
                said.say(Words::of(Language::Pt)),
                said.say(Words::of(Language::Es)),
            );
            assert_ne!(pt, said.english(), "{key}: the same in Portuguese");
            assert_ne!(es, said.english(), "{key}: the same in Spanish");
        }
    }

    #[test]
    fn a_long_value_is_cut() {
        let said = first(json!({"type": "string"}), json!(["x".repeat(200)]));
        let text = said.english();
        assert!(text.contains('…') && text.len() < 200, "{text}");
    }

    #[test]
    fn the_other_keywords_are_named_with_their_place() {
        let schema = json!({"properties": {"n": {"multipleOf": 2}}});
        let validator = jsonschema::options()
            .build(&schema)
            .expect("a valid schema");
        let instance = json!({"n": 3});
        let error = validator.iter_errors(&instance).next().expect("an error");
        let text = said(&error).say(Words::of(Language::Pt));
        assert!(
            text.contains("`multipleOf`") && text.contains("/n"),
            "{text}"
        );
        let text = said_at(&error).say(Words::of(Language::Es));
        assert!(text.ends_with("(en /n)"), "{text}");
    }
}
