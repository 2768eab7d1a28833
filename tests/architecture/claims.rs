//! The page's claims that the source can prove: where `anyhow` is used, and where a `cfg`
//! names the `native` feature or the browser's target, or a system or a processor. Each list
//! is written once, in docs/ARCHITECTURE.md, in a comment atop the paragraph that says it
//! (`<!-- anyhow: cli, ui::desktop -->`). The code is held to the list and the list to the
//! code, so neither a new use nor a stale name gets by, and the paragraph must name each place.
//! Test code is left out: a unit test may be Unix-only by nature and say so in its `cfg`.

use std::collections::BTreeSet;
use std::path::Path;

use super::rust_files;

/// The list in `<!-- {name}: a, b::c -->` and the paragraph it heads.
fn claim<'a>(page: &'a str, name: &str) -> (Vec<&'a str>, &'a str) {
    let marker = format!("<!-- {name}: ");
    let at = page
        .find(&marker)
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no `{marker}… -->` list"));
    let rest = &page[at + marker.len()..];
    let end = rest.find("-->").expect("the list's comment is closed");
    let list = rest[..end]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let paragraph = &rest[end..];
    let paragraph = &paragraph[..paragraph.find("\n\n").unwrap_or(paragraph.len())];
    (list, paragraph)
}

/// The module a file under `src/` is: `tap/stdio/sys/unix.rs` -> `tap::stdio::sys::unix`,
/// `ui/mod.rs` -> `ui`, `lib.rs` and `main.rs` -> `crate`.
fn module_path(rel: &Path) -> String {
    let text = rel.with_extension("").to_string_lossy().replace('\\', "/");
    let text = text.strip_suffix("/mod").unwrap_or(&text);
    match text {
        "lib" | "main" => "crate".to_string(),
        _ => text.replace('/', "::"),
    }
}

/// Whether `module` is `place` or inside it.
fn within(module: &str, place: &str) -> bool {
    module == place || (place != "crate" && module.starts_with(&format!("{place}::")))
}

/// A file of tests only (`tests.rs`, `tests_http.rs`, anything under a `tests` folder).
fn test_file(rel: &Path) -> bool {
    rel.components().any(|c| {
        c.as_os_str()
            .to_str()
            .is_some_and(|s| s == "tests" || s.starts_with("tests.") || s.starts_with("tests_"))
    })
}

/// The lines of `text` that are code, before its inline test module (`#[cfg(test)] mod …`).
fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| {
            let next = w[1].trim();
            w[0].trim().starts_with("#[cfg(")
                && w[0].contains("test")
                && next.contains("mod ")
                && next.ends_with('{')
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .copied()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect()
}

/// What a `cfg` line names: `feature` (a Cargo feature or the browser's target) and `system`
/// (an operating system, a C library, a processor).
fn cfg_kinds(line: &str) -> BTreeSet<&'static str> {
    let mut kinds = BTreeSet::new();
    if !["cfg(", "cfg_attr(", "cfg!("]
        .iter()
        .any(|c| line.contains(c))
    {
        return kinds;
    }
    if line.contains("feature =") || line.contains("target_arch = \"wasm32\"") {
        kinds.insert("feature");
    }
    let arch = line
        .match_indices("target_arch = \"")
        .any(|(at, _)| !line[at..].starts_with("target_arch = \"wasm32\""));
    let system = [
        "unix",
        "windows",
        "target_os",
        "target_env",
        "target_family",
    ];
    if arch || system.iter().any(|s| line.contains(s)) || line.contains("target_vendor") {
        kinds.insert("system");
    }
    kinds
}

/// Every non-test module under `src/` and the kinds of use it has: `anyhow`, `cfg feature`,
/// `cfg system`.
fn uses(src: &Path) -> Vec<(String, BTreeSet<&'static str>)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src");
        if test_file(rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let mut kinds = BTreeSet::new();
        for line in code_lines(&text) {
            if line.contains("anyhow") {
                kinds.insert("anyhow");
            }
            for kind in cfg_kinds(line) {
                kinds.insert(if kind == "feature" {
                    "cfg feature"
                } else {
                    "cfg system"
                });
            }
        }
        out.push((module_path(rel), kinds));
    }
    out
}

/// How the code and the page's list `name` disagree, one sentence each.
fn disagreements(
    name: &str,
    list: &[&str],
    paragraph: &str,
    code: &[(String, BTreeSet<&str>)],
) -> Vec<String> {
    let mut found = Vec::new();
    for (module, kinds) in code {
        if kinds.contains(name) && !list.iter().any(|p| within(module, p)) {
            found.push(format!(
                "`{module}` has {name}, which the page allows only in {list:?}"
            ));
        }
    }
    for place in list {
        if !code
            .iter()
            .any(|(m, kinds)| kinds.contains(name) && within(m, place))
        {
            found.push(format!(
                "the page allows {name} in `{place}`, which has none"
            ));
        }
        if *place != "crate" && !paragraph.contains(&format!("`{place}`")) {
            found.push(format!(
                "the paragraph under `{name}:` does not name `{place}`"
            ));
        }
    }
    found
}

#[test]
fn anyhow_and_each_cfg_are_where_the_architecture_page_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("the page");
    let code = uses(&root.join("src"));
    assert!(
        code.len() > 100,
        "the reader found only {} files under src",
        code.len()
    );
    let mut found = Vec::new();
    for name in ["anyhow", "cfg feature", "cfg system"] {
        let (list, paragraph) = claim(&page, name);
        assert!(!list.is_empty(), "the page's `{name}:` list is empty");
        found.extend(disagreements(name, &list, paragraph, &code));
    }
    assert!(
        found.is_empty(),
        "docs/ARCHITECTURE.md and the code disagree:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_claims_reader_sees_each_kind_and_where_it_is() {
    let line = "#[cfg(all(feature = \"web\", target_arch = \"wasm32\"))]";
    assert_eq!(cfg_kinds(line), BTreeSet::from(["feature"]));
    assert_eq!(
        cfg_kinds("    #[cfg(target_arch = \"x86_64\")]"),
        BTreeSet::from(["system"])
    );
    assert_eq!(
        cfg_kinds("#[cfg_attr(windows, ignore)]"),
        BTreeSet::from(["system"])
    );
    assert!(cfg_kinds("#[cfg(test)]").is_empty());
    assert!(cfg_kinds("let unix = 1;").is_empty());
    assert_eq!(
        module_path(Path::new("tap/stdio/sys/unix.rs")),
        "tap::stdio::sys::unix"
    );
    assert_eq!(module_path(Path::new("ui/mod.rs")), "ui");
    assert_eq!(module_path(Path::new("lib.rs")), "crate");
    assert!(within("tap::stdio::sys::unix", "tap::stdio::sys"));
    assert!(!within("tap::stdio::system", "tap::stdio::sys"));
    assert!(!within("cli", "crate"));
    assert!(test_file(Path::new("host/provider/tests_errors.rs")));
    assert!(!test_file(Path::new("analysis/poison/rules.rs")));
    let text = "#[cfg(test)]\nmod tests;\n// anyhow, said\nfn f() {}\n#[cfg(test)]\nmod tests {\n#[cfg(unix)]\n}";
    assert_eq!(
        code_lines(text),
        ["#[cfg(test)]", "mod tests;", "fn f() {}"]
    );

    let page = "x\n\n<!-- anyhow: cli, ui::desktop -->\nIn `cli` only.\n\nnext";
    let (list, paragraph) = claim(page, "anyhow");
    assert_eq!(list, ["cli", "ui::desktop"]);
    let code = vec![
        ("cli::run".to_string(), BTreeSet::from(["anyhow"])),
        ("host::agent".to_string(), BTreeSet::from(["anyhow"])),
    ];
    assert_eq!(
        disagreements("anyhow", &list, paragraph, &code),
        [
            "`host::agent` has anyhow, which the page allows only in [\"cli\", \"ui::desktop\"]",
            "the page allows anyhow in `ui::desktop`, which has none",
            "the paragraph under `anyhow:` does not name `ui::desktop`",
        ]
    );
}
