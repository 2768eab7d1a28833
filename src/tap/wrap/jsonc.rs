//! A JSON-with-comments reader that remembers where every value sits, so `wrap` can edit a
//! host's config in place.
//!
//! VS Code's `mcp.json` is JSONC: `//` and `/* */` comments and trailing commas are allowed,
//! and people use them. Parsing into a `serde_json::Value` and writing it back would drop the
//! comments, reorder nothing but re-spell every number and collapse duplicate keys. So the
//! config is read into a tree of byte spans instead, and `wrap` replaces or inserts text at
//! those spans; everything it does not touch stays byte for byte. A leading UTF-8 byte order
//! mark is accepted (and kept, since the text around it is never rewritten).

use serde_json::{Map, Value};

/// A syntax error, with where it is (1-based line and column, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One value of the document and the bytes it spans (`start..end`, string quotes included).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Members in the order written, duplicates kept.
    Object(Vec<Member>),
    Array(Vec<Node>),
    /// The decoded string.
    String(String),
    /// A number, `true`, `false` or `null`, as written.
    Scalar,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    /// Where the key's opening quote is.
    pub key_start: usize,
    pub value: Node,
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn elements(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(elements) => Some(elements),
            _ => None,
        }
    }

    /// The member named `key`; the last one when the key is repeated (as JSON readers do).
    pub fn get(&self, key: &str) -> Option<&Member> {
        self.members()?.iter().rev().find(|m| m.key == key)
    }

    /// The value as plain JSON (comments gone, duplicate keys: the last wins).
    pub fn value(&self, text: &str) -> Value {
        match &self.kind {
            Kind::Object(members) => {
                let mut map = Map::new();
                for m in members {
                    map.insert(m.key.clone(), m.value.value(text));
                }
                Value::Object(map)
            }
            Kind::Array(elements) => Value::Array(elements.iter().map(|e| e.value(text)).collect()),
            Kind::String(s) => Value::String(s.clone()),
            Kind::Scalar => {
                serde_json::from_str(&text[self.start..self.end]).unwrap_or(Value::Null)
            }
        }
    }
}

/// Parses `text` (JSON, or JSONC with comments and trailing commas, with or without a BOM).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut p = Parser { text, at: 0 };
    if text.starts_with('\u{feff}') {
        p.at = '\u{feff}'.len_utf8();
    }
    p.skip()?;
    let root = p.value(0)?;
    p.skip()?;
    if p.at < text.len() {
        return Err(p.error("unexpected text after the document"));
    }
    Ok(root)
}

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 128;

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn error(&self, message: &str) -> SyntaxError {
        let before = &self.text[..self.at.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SyntaxError {
            line,
            column,
            message: message.to_string(),
        }
    }

    /// Skips whitespace and comments.
    fn skip(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') => match self.bytes().get(self.at + 1) {
                    Some(b'/') => {
                        let rest = &self.text[self.at..];
                        self.at += rest.find('\n').unwrap_or(rest.len());
                    }
                    Some(b'*') => {
                        let rest = &self.text[self.at + 2..];
                        match rest.find("*/") {
                            Some(end) => self.at += 2 + end + 2,
                            None => return Err(self.error("a /* comment is never closed")),
                        }
                    }
                    _ => return Err(self.error("unexpected `/`")),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let start = self.at;
        let kind = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Kind::String(self.string()?),
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => self.scalar()?,
            Some(_) => return Err(self.error("expected a value")),
            None => return Err(self.error("expected a value, found the end of the file")),
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.at += 1;
        let mut members = Vec::new();
        loop {
            self.skip()?;
            match self.peek() {
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Kind::Object(members));
                }
                Some(b'"') => {}
                _ => return Err(self.error("expected a key in quotes or `}`")),
            }
            let key_start = self.at;
            let key = self.string()?;
            self.skip()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after the key"));
            }
            self.at += 1;
            self.skip()?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_start,
                value,
            });
            self.skip()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {}
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.at += 1;
        let mut elements = Vec::new();
        loop {
            self.skip()?;
            if self.peek() == Some(b']') {
                self.at += 1;
                return Ok(Kind::Array(elements));
            }
            elements.push(self.value(depth + 1)?);
            self.skip()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {}
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    /// A string literal, decoded (serde_json does the escapes).
    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.at;
        let bytes = self.bytes();
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => {
                    let literal = &self.text[start..=i];
                    return match serde_json::from_str::<String>(literal) {
                        Ok(s) => {
                            self.at = i + 1;
                            Ok(s)
                        }
                        Err(e) => Err(self.error(&format!("bad string: {e}"))),
                    };
                }
                b'\n' => break,
                _ => i += 1,
            }
        }
        Err(self.error("a string is never closed"))
    }

    fn scalar(&mut self) -> Result<Kind, SyntaxError> {
        let start = self.at;
        let len = self.text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            .unwrap_or(self.text.len() - start);
        let word = &self.text[start..start + len];
        if serde_json::from_str::<Value>(word).is_err() {
            return Err(self.error(&format!("`{word}` is not a number, true, false or null")));
        }
        self.at += len;
        Ok(Kind::Scalar)
    }
}

/// Text replacements, applied together: `start..end` becomes `text`.
#[derive(Debug, Default)]
pub struct Edits(Vec<(usize, usize, String)>);

impl Edits {
    pub fn replace(&mut self, start: usize, end: usize, text: impl Into<String>) {
        self.0.push((start, end, text.into()));
    }

    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.replace(at, at, text);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes the `index`th member of `object` with the separator that goes with it.
    pub fn remove_member(&mut self, object: &[Member], index: usize) {
        let member = &object[index];
        if index > 0 {
            // `, "key": value` after the previous member.
            self.replace(object[index - 1].value.end, member.value.end, "");
        } else if let Some(next) = object.get(1) {
            self.replace(member.key_start, next.key_start, "");
        } else {
            self.replace(member.key_start, member.value.end, "");
        }
    }

    /// `text` with the edits made (they must not overlap).
    pub fn apply(mut self, text: &str) -> String {
        self.0.sort_by_key(|(start, end, _)| (*start, *end));
        let mut out = String::with_capacity(text.len() + 256);
        let mut at = 0;
        for (start, end, new) in self.0 {
            out.push_str(&text[at..start]);
            out.push_str(&new);
            at = end;
        }
        out.push_str(&text[at..]);
        out
    }
}

/// The separator between the first two elements when it is only a comma and whitespace (so a
/// list written one element per line stays so), else `, `.
pub(super) fn separator<'a>(text: &'a str, elements: &[Node]) -> &'a str {
    match elements {
        [a, b, ..] => {
            let between = &text[a.end..b.start];
            match between.strip_prefix(',') {
                Some(rest) if rest.trim().is_empty() => between,
                _ => ", ",
            }
        }
        _ => ", ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_trailing_commas_and_a_bom_are_read_with_spans() {
        let text = "\u{feff}{\n  // servers\n  \"servers\": {\"a\": [1, 2.50,],}, /* x */\n  \"n\": 1e3,\n}";
        let root = parse(text).expect("parse");
        let servers = &root.get("servers").expect("servers").value;
        let a = &servers.get("a").expect("a").value;
        assert_eq!(&text[a.start..a.end], "[1, 2.50,]");
        assert_eq!(a.elements().map(<[Node]>::len), Some(2));
        let n = &root.get("n").unwrap().value;
        assert_eq!(&text[n.start..n.end], "1e3");
        assert_eq!(root.value(text)["servers"]["a"][1], serde_json::json!(2.5));
    }

    #[test]
    fn duplicate_keys_are_kept_and_the_last_one_is_read() {
        let text = r#"{"k": 1, "k": "two"}"#;
        let root = parse(text).unwrap();
        assert_eq!(root.members().unwrap().len(), 2);
        assert_eq!(root.get("k").unwrap().value.as_str(), Some("two"));
    }

    #[test]
    fn errors_name_line_and_column() {
        for (text, line, column) in [
            ("{\n  \"a\": ,\n}", 2, 8),
            ("{\"a\": 1} x", 1, 10),
            ("{\"a\": \"b", 1, 7),
            ("/* never", 1, 1),
            ("{\"a\": tru}", 1, 7),
            ("", 1, 1),
        ] {
            let err = parse(text).expect_err(text);
            assert_eq!((err.line, err.column), (line, column), "{text:?}: {err:?}");
        }
        let deep = "[".repeat(1000);
        assert!(parse(&deep).unwrap_err().message.contains("deeply"));
    }

    #[test]
    fn edits_apply_in_order_and_members_go_with_their_comma() {
        let text = r#"{"a": 1, "b": 2, "c": 3}"#;
        let root = parse(text).unwrap();
        let members = root.members().unwrap();
        for (index, expected) in [
            (0, r#"{"b": 2, "c": 3}"#),
            (1, r#"{"a": 1, "c": 3}"#),
            (2, r#"{"a": 1, "b": 2}"#),
        ] {
            let mut edits = Edits::default();
            edits.remove_member(members, index);
            assert_eq!(edits.apply(text), expected);
        }
        let mut edits = Edits::default();
        edits.insert(members[2].value.end, ", \"d\": 4");
        edits.replace(members[0].value.start, members[0].value.end, "10");
        assert_eq!(edits.apply(text), r#"{"a": 10, "b": 2, "c": 3, "d": 4}"#);
    }
}
