//! Every i18n key the source asks for exists in every language.
//!
//! `src/i18n`'s own tests check that pt and es have every key English has. This checks the
//! other side: a key the code looks up (`"summary.estimate"`, a `say!(n, "llm_final", ..)` of
//! the narration, a `line(lang, "listed", ..)` of `run`'s progress) that no file has would show
//! as the key itself in front of a class. The scan reads `src/` as text: a string literal
//! `"section.key"` whose section is one of the files' sections is a key; a file name such as
//! `"app.ron"` is not (its tail is a known extension).

use std::path::{Path, PathBuf};

use sightline::i18n::{Language, Strings};

/// Endings that make `"x.y"` a file name, not a key.
const EXTENSIONS: &[&str] = &[
    "ron", "json", "jsonl", "toml", "md", "rs", "html", "svg", "mmd",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of a line of code (not of a comment), without their quotes.
fn literals(line: &str) -> Vec<&str> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    code.split('"').skip(1).step_by(2).collect()
}

/// The literal right after `marker` on `line` (`say!(self, "key"` gives `key`).
fn literal_after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let (_, rest) = line.split_once(marker)?;
    let rest = rest.split_once(',')?.1.trim_start().strip_prefix('"')?;
    rest.split_once('"').map(|(key, _)| key)
}

/// A key's tail: `snake_case`, not a prefix (`"filter.show_"` is one).
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && !s.ends_with('_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// `(file, line number, key)` for every key the source names.
fn keys_in_source(sections: &[String]) -> Vec<(String, usize, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut keys = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (n, line) in text.lines().enumerate() {
            let mut found: Vec<String> = literals(line)
                .into_iter()
                .filter_map(|lit| {
                    let (section, key) = lit.split_once('.')?;
                    let known = sections.iter().any(|s| s == section);
                    (known && is_word(key) && !EXTENSIONS.contains(&key)).then(|| lit.to_string())
                })
                .collect();
            if !line.trim_start().starts_with("//") {
                for (marker, section) in [("say!(", "narration"), ("line(", "run_progress")] {
                    if let Some(key) = literal_after(line, marker).filter(|k| is_word(k)) {
                        found.push(format!("{section}.{key}"));
                    }
                }
            }
            keys.extend(found.into_iter().map(|k| (name.clone(), n + 1, k)));
        }
    }
    keys
}

#[test]
fn every_key_the_source_names_exists_in_every_language() {
    let strings = Strings::embedded();
    let mut sections: Vec<String> = strings
        .keys(Language::En)
        .filter_map(|k| k.split_once('.').map(|(s, _)| s.to_string()))
        .collect();
    sections.sort();
    sections.dedup();
    let keys = keys_in_source(&sections);
    assert!(
        keys.len() > 300,
        "the scan finds too few keys ({}): is it still reading src/?",
        keys.len()
    );
    // The scan sees the narration's and run's keys, which the code never writes whole.
    for probe in [
        "narration.llm_final",
        "run_progress.listed",
        "summary.estimate",
    ] {
        assert!(
            keys.iter().any(|(_, _, k)| k == probe),
            "the scan misses {probe}"
        );
    }
    let mut missing = Vec::new();
    for (file, line, key) in &keys {
        for lang in Language::ALL {
            if !strings.has(lang, key) {
                missing.push(format!("{file}:{line}: {key} ({})", lang.code()));
            }
        }
    }
    assert!(missing.is_empty(), "keys with no text: {missing:#?}");
}

#[test]
fn the_scan_sees_a_missing_key() {
    let line = r#"    ui.label(tr.t("summary.no_such_key_anywhere"));"#;
    let lits = literals(line);
    assert_eq!(lits, ["summary.no_such_key_anywhere"]);
    assert!(!Strings::embedded().has(Language::En, lits[0]));
    assert_eq!(
        literal_after(r#"say!(self, "llm_final", field = f)"#, "say!("),
        Some("llm_final")
    );
    assert!(literals(r#"// tr.t("summary.x")"#).is_empty());
}
